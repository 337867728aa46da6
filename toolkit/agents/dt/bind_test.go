package dt

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// PrefixInObs writes the prefix multi-hot after each observation in its patch (the prompt's steps
// read the stream's prefix too); Aux fills the auxiliary targets at the trajectory's step positions
// only, −1 masked; an aux list of the wrong length is an error.
func TestPackPrefixInObsAndAux(t *testing.T) {
	cfg := tinyConfig()
	cfg.PrefixInObs, cfg.AuxWeight, cfg.AuxClasses = true, 0.5, 3
	v := cfg.Vocab()
	prompt := &Seq{Obs: [][]float32{{1, 0, 0}}, RTG: []float64{0.9}, Actions: []int{0}}
	s := Seq{Prefix: []int{1}, Obs: [][]float32{{0, 1, 0}, {0, 0, 1}}, RTG: []float64{0.6, 0.6}, Actions: []int{2, 1}, Prompt: prompt, Aux: []int{2, -1}}
	w := cfg.patchWidth()
	if w != 5 {
		t.Fatalf("patch width %d, want pixels 3 + prefixes 2", w)
	}
	b, err := v.Pack([]Seq{s}, 48, w)
	if err != nil {
		t.Fatal(err)
	}
	var patches [][]float32
	var aux []int32
	for j := 0; j < b.T; j++ {
		if b.PatchMask[j] == 1 {
			patches = append(patches, b.Patches[j*w:(j+1)*w])
		}
		if b.AuxMask[j] == 1 {
			aux = append(aux, b.AuxTargets[j])
			if b.TargetMask[j] != 1 {
				t.Fatalf("auxiliary target at %d, which is no trajectory step", j)
			}
		}
	}
	want := [][]float32{{1, 0, 0, 0, 1}, {0, 1, 0, 0, 1}, {0, 0, 1, 0, 1}}
	if len(patches) != 3 || !slices.Equal(patches[0], want[0]) || !slices.Equal(patches[1], want[1]) || !slices.Equal(patches[2], want[2]) {
		t.Fatalf("patches %v, want %v", patches, want)
	}
	if !slices.Equal(aux, []int32{2}) {
		t.Fatalf("auxiliary targets %v, want [2] (the second step's −1 masked)", aux)
	}
	if in := b.Inputs(); !slices.Contains(in.Names, "aux_targets") || slices.Index(in.Names, "aux_mask") > slices.Index(in.Names, "patches") {
		t.Fatalf("inputs %v: the auxiliary targets come before the patches", in.Names)
	}
	s.Aux = []int{1}
	if _, err := v.Pack([]Seq{s}, 48, w); err == nil {
		t.Fatal("one auxiliary target for two steps accepted")
	}
	long := Seq{Prefix: []int{0}, Obs: [][]float32{{0, 0, 0, 1}}, RTG: []float64{1}, Actions: []int{0}}
	if _, err := v.Pack([]Seq{long}, 48, w); err == nil {
		t.Fatal("an observation reaching into the prefix's part of the patch accepted")
	}
}

// The auxiliary head learns its targets (the copy task's hot index, which the action depends on)
// while the action is learned; with PrefixInObs the model learns the copy task too.
func TestAuxHeadAndPrefixInObsLearn(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	data := copyTask(r, 64)
	for i := range data {
		for _, o := range data[i].Obs {
			data[i].Aux = append(data[i].Aux, slices.Index(o, 1))
		}
	}
	cfg := tinyConfig()
	cfg.AuxWeight, cfg.AuxClasses, cfg.PrefixInObs = 0.5, 3, true
	a, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	curves, err := a.Train(data, 150, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	al, acc := curves["aux_loss"].Y, curves["aux_accuracy"].Y
	if len(al) == 0 || !(al[len(al)-1] < 0.5*al[0]) || !(acc[len(acc)-1] > 0.9) {
		t.Fatalf("auxiliary loss %v accuracy %v", al, acc)
	}
	if l := curves["action_loss"].Y; !(l[len(l)-1] < 0.5*l[0]) {
		t.Fatalf("action loss %.3f → %.3f", l[0], l[len(l)-1])
	}
	if _, _, err := a.Score(data[:8]); err != nil { // validation reads the action loss alone
		t.Fatal(err)
	}
}

// Paired batches hold streams 2j and 2j+1 side by side; an odd number of streams or an odd batch
// is an error.
func TestPairedBatches(t *testing.T) {
	cfg := tinyConfig()
	cfg.Paired = true
	r := rand.New(rand.NewPCG(1, 1))
	data := copyTask(r, 16)
	for i := range data {
		data[i].RTG = slices.Repeat([]float64{float64(i/2) / 8}, len(data[i].Obs)) // a pair shares its return
	}
	a, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Train(data[:15], 1, r, nil); err == nil {
		t.Fatal("15 streams accepted as pairs")
	}
	if _, err := a.Train(data, 3, r, nil); err != nil {
		t.Fatal(err)
	}
	cfg.Batch = 7
	if err := cfg.Validate(); err == nil {
		t.Fatal("an odd paired batch accepted")
	}
}

// Dense measurements: every DenseEvery steps before DenseUntil, then every EvalEvery; they never stop
// the run, so patience is counted from DenseUntil on.
func TestDenseEarlyMeasurements(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	train, val := copyTask(r, 32), copyTask(r, 8)
	a, err := New(tinyConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	curves, _, _, _, err := a.TrainToBest(train, val, StopConfig{MaxSteps: 60, EvalEvery: 20, DenseEvery: 4, DenseUntil: 20, Patience: 1, ScoreStart: true}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := curves["val_action_loss"].X
	if len(x) < 6 || !slices.Equal(x[:6], []float64{0, 4, 8, 12, 16, 20}) {
		t.Fatalf("measured at %v, want 0, 4, …, 20 then every 20", x)
	}
}

// Training to convergence: on a task it learns, the stable phase stops by patience before its cap
// and the decay phase follows it (DecayFrac of the stable steps); with a cap too short for a
// plateau it reports HitCap; the weights kept score the loss it reports.
func TestTrainToConverge(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	train, val := copyTask(r, 32), copyTask(r, 16)
	for i := range train { // noisy labels: the validation loss reaches a floor, then rises as they are memorised
		for t := range train[i].Actions {
			if r.Float64() < 0.4 {
				train[i].Actions[t] = r.IntN(3)
			}
		}
	}
	a, err := New(tinyConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, err := a.TrainToConverge(train, val, ConvergeConfig{StableCap: 2000, EvalEvery: 20, Patience: 2, DecayFrac: 0.25}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.HitCap || c.Plateau >= 2000 || c.Steps != c.Plateau+max(20, int(0.25*float64(c.Plateau)+0.5)) {
		t.Fatalf("plateau %d steps %d hit cap %v", c.Plateau, c.Steps, c.HitCap)
	}
	if x := curves(c, "val_action_loss"); x[len(x)-1] != float64(c.Steps) {
		t.Fatalf("last measurement at %v, want %d", x[len(x)-1], c.Steps)
	}
	if got, _, err := a.Score(val); err != nil || got-c.Loss > 1e-5 || c.Loss-got > 1e-5 {
		t.Fatalf("kept weights score %v, reported %v (%v)", got, c.Loss, err)
	}
	b, err := New(tinyConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if c, err = b.TrainToConverge(train, val, ConvergeConfig{StableCap: 40, EvalEvery: 20, Patience: 3, DecayFrac: 0.25}, r, nil); err != nil || !c.HitCap || c.Plateau != 40 {
		t.Fatalf("cap 40: plateau %d hit cap %v (%v)", c.Plateau, c.HitCap, err)
	}
}

func curves(c Converged, name string) []float64 { return c.Curves[name].X }

// BC.Score is the mean −log π over every step (by hand from the logits), falls as the MLP learns,
// and CloneWith keeps the weights under a new rate.
func TestBCScoreAndCloneWith(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	data := copyTask(r, 32)
	bc, err := NewBC(tinyConfig(), []int{16}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	before, err := bc.Score(data[:4])
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	var n int
	for _, s := range data[:4] {
		for tt, a := range s.Actions {
			l, err := bc.ActionLogits([]Seq{{Prefix: s.Prefix, Obs: s.Obs[:tt+1]}})
			if err != nil {
				t.Fatal(err)
			}
			want -= logSoftmaxAt(l[0], a)
			n++
		}
	}
	if d := before - want/float64(n); d > 1e-6 || d < -1e-6 {
		t.Fatalf("score %v, by hand %v", before, want/float64(n))
	}
	if _, err := bc.Train(data, 200, r); err != nil {
		t.Fatal(err)
	}
	after, _ := bc.Score(data[:4])
	c, err := bc.CloneWith(1e-4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	same, _ := c.Score(data[:4])
	if !(after < before) || same != after || c.Cfg.LR != 1e-4 {
		t.Fatalf("score %v → %v, clone %v at lr %v", before, after, same, c.Cfg.LR)
	}
}

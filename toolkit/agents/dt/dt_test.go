package dt

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/lm"
)

func tinyConfig() Config {
	return Config{Dim: 32, Layers: 1, Heads: 2, Context: 48, RTGBins: 4, Actions: 3, Prefixes: 2, Pixels: 3, LR: 3e-3, ClipNorm: 1, Batch: 8}
}

// The stream by hand: BOS, prefix, prompt (RTG, OBS, ACT), SEP, steps (RTG, OBS, ACT); targets at the
// trajectory's OBS positions only; patches at every OBS position, zero-padded; the width rounded to 32.
func TestPackByHand(t *testing.T) {
	v := tinyConfig().Vocab()
	// ids: PAD 0, BOS 1, SEP 2, OBS 3, RTG 4..7, ACT 8..10, prefix 11..12.
	if v.Size() != 13 || v.RTG(0.3) != 5 || v.RTG(1) != 7 || v.RTG(-1) != 4 || v.Action(2) != 10 || v.Prefix(1) != 12 || v.ActionOf(9) != 1 || v.ActionOf(11) != -1 {
		t.Fatalf("vocab layout: size %d rtg %d %d %d action %d prefix %d", v.Size(), v.RTG(0.3), v.RTG(1), v.RTG(-1), v.Action(2), v.Prefix(1))
	}
	prompt := &Seq{Obs: [][]float32{{1, 0, 0}}, RTG: []float64{0.9}, Actions: []int{0}}
	s := Seq{Prefix: []int{1, 0}, Obs: [][]float32{{0, 1}, {0, 0, 1}}, RTG: []float64{0.6, 0.6}, Actions: []int{2}, Prompt: prompt}
	b, err := v.Pack([]Seq{s}, 48, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{lm.BOS, 12, 11, 7, OBS, 8, SEP, 6, OBS, 10, 6, OBS}
	if b.T != 32 || !slices.Equal(b.Tokens[:len(want)], want) || b.Tokens[len(want)] != lm.PAD {
		t.Fatalf("width %d tokens %v, want %v", b.T, b.Tokens, want)
	}
	// Targets: the action after the first trajectory OBS (index 8) is token 10; the prompt's OBS (4)
	// and the last OBS (11, no action yet) carry none.
	for j := 0; j < b.T; j++ {
		wantMask := float32(0)
		if j == 8 {
			wantMask = 1
		}
		if b.TargetMask[j] != wantMask {
			t.Fatalf("target mask at %d = %v", j, b.TargetMask[j])
		}
	}
	if b.Targets[8] != 10 || b.Last[0] != 11 {
		t.Fatalf("target %d, last OBS %d", b.Targets[8], b.Last[0])
	}
	if b.PatchMask[4] != 1 || b.PatchMask[8] != 1 || b.PatchMask[11] != 1 || b.PatchMask[5] != 0 {
		t.Fatalf("patch mask %v", b.PatchMask[:12])
	}
	if !slices.Equal(b.Patches[8*3:9*3], []float32{0, 1, 0}) || !slices.Equal(b.Patches[11*3:12*3], []float32{0, 0, 1}) {
		t.Fatalf("patches %v %v", b.Patches[8*3:9*3], b.Patches[11*3:12*3])
	}
	for _, bad := range []Seq{
		{Prefix: []int{2}, Obs: [][]float32{{1}}, RTG: []float64{1}},
		{Obs: [][]float32{{1}}, RTG: []float64{1}, Actions: []int{3}},
		{Obs: [][]float32{{1}, {1}}, RTG: []float64{1}},
		{Obs: [][]float32{{1, 0, 0, 0}}, RTG: []float64{1}},
	} {
		if _, err := v.Pack([]Seq{bad}, 48, 3); err == nil {
			t.Errorf("%+v packed", bad)
		}
	}
	long := Seq{Obs: make([][]float32, 20), RTG: make([]float64, 20), Actions: make([]int, 20)}
	if _, err := v.Pack([]Seq{long}, 48, 3); err == nil || !strings.Contains(err.Error(), "context") {
		t.Fatalf("too long: %v", err)
	}
}

// A tiny pretraining run lowers the action loss: the action to take is the prefix's (task 0: copy
// the observation's hot index; task 1: the next index), learnable only from the stream.
func TestTrainingLowersActionLoss(t *testing.T) {
	cfg := tinyConfig()
	r := rand.New(rand.NewPCG(1, 2))
	data := copyTask(r, 64)
	a, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	curves, err := a.Train(data, 150, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := curves["action_loss"].Y
	if !(l[len(l)-1] < 0.5*l[0]) {
		t.Fatalf("action loss %.3f → %.3f", l[0], l[len(l)-1])
	}
	// Acting: the last step without an action reads the next action.
	probe := data[0]
	probe.Obs, probe.RTG, probe.Actions = probe.Obs[:2], probe.RTG[:2], probe.Actions[:1]
	logits, err := a.ActionLogits([]Seq{probe})
	if err != nil {
		t.Fatal(err)
	}
	if got := Choose(logits[0], 3, true, r); got != data[0].Actions[1] {
		t.Fatalf("greedy action %d, want %d (logits %v)", got, data[0].Actions[1], logits[0])
	}
	// The BC baseline learns the same mapping from single steps.
	bc, err := NewBC(cfg, []int{32}, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	if _, err := bc.Train(data, 300, r); err != nil {
		t.Fatal(err)
	}
	bl, err := bc.ActionLogits([]Seq{probe})
	if err != nil {
		t.Fatal(err)
	}
	if got := Choose(bl[0], 3, true, r); got != data[0].Actions[1] {
		t.Fatalf("bc greedy action %d, want %d", got, data[0].Actions[1])
	}
}

// copyTask is n streams of the task TestTrainingLowersActionLoss learns: the action is the
// observation's hot index (prefix 0) or the next one (prefix 1).
func copyTask(r *rand.Rand, n int) []Seq {
	var data []Seq
	for i := 0; i < n; i++ {
		task := i % 2
		var s Seq
		s.Prefix = []int{task}
		for step := 0; step < 4; step++ {
			hot := r.IntN(3)
			o := make([]float32, 3)
			o[hot] = 1
			s.Obs, s.RTG, s.Actions = append(s.Obs, o), append(s.RTG, 1), append(s.Actions, (hot+task)%3)
		}
		data = append(data, s)
	}
	return data
}

// Score weighs every action once whatever the batching; TrainToBest measures the validation split
// at each EvalEvery, keeps the weights of its lowest loss (Score reads that loss again after it
// returns), learns the task, and stops after Patience measurements without a new best.
func TestScoreAndTrainToBest(t *testing.T) {
	cfg := tinyConfig()
	r := rand.New(rand.NewPCG(4, 5))
	train, val := copyTask(r, 64), copyTask(r, 24)
	val[0].Obs, val[0].RTG, val[0].Actions = val[0].Obs[:2], val[0].RTG[:2], val[0].Actions[:2] // a shorter stream
	a, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	l8, acc8, err := a.Score(val)
	if err != nil {
		t.Fatal(err)
	}
	a.Cfg.Batch = 5
	l5, acc5, err := a.Score(val)
	if err != nil || math.Abs(l5-l8) > 1e-5 || math.Abs(acc5-acc8) > 1e-6 {
		t.Fatalf("batch 8: %v %v; batch 5: %v %v (%v)", l8, acc8, l5, acc5, err)
	}
	a.Cfg.Batch = 8
	curves, best, bl, bacc, err := a.TrainToBest(train, val, StopConfig{MaxSteps: 300, EvalEvery: 30, Patience: 3}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	vl := curves["val_action_loss"]
	if len(vl.Y) == 0 || len(vl.Y) > 10 || best%30 != 0 || bl != slices.Min(vl.Y) || !(bacc > 0.6) {
		t.Fatalf("%d measurements, best at %d: loss %v accuracy %v; curve %v", len(vl.Y), best, bl, bacc, vl.Y)
	}
	if got, _, err := a.Score(val); err != nil || math.Abs(got-bl) > 1e-5 {
		t.Fatalf("after TrainToBest the validation loss is %v, the kept best %v (%v)", got, bl, err)
	}
	if last := vl.X[len(vl.X)-1]; last < 300 && last-float64(best) != 3*30 {
		t.Fatalf("stopped at %v with the best at %d: patience 3 × 30 steps", last, best)
	}
	if _, _, _, _, err := a.TrainToBest(train, nil, StopConfig{MaxSteps: 10, EvalEvery: 5}, r, nil); err == nil {
		t.Fatal("no validation split accepted")
	}
}

// StreamSteps by hand: one token per step — (return-to-go bin, previous action) — carrying its
// observation's patch; targets are the step's own action at the step's position; the acting
// stream's last step has none; the step token reaches the trunk beside the patch (lm PatchAdd), so
// the return-to-go changes what the agent does. And a copy task is learned as with triples.
func TestStreamSteps(t *testing.T) {
	cfg := tinyConfig()
	cfg.Stream = StreamSteps
	v := cfg.Vocab()
	// ids: PAD 0, BOS 1, SEP 2, OBS 3, RTG 4..7, ACT 8..10, prefix 11..12, steps 13..28 (bin·4 + prev+1).
	if v.Size() != 29 || v.Step(0.3, -1) != 13+1*4+0 || v.Step(1, 2) != 13+3*4+3 {
		t.Fatalf("vocab: size %d, step tokens %d %d", v.Size(), v.Step(0.3, -1), v.Step(1, 2))
	}
	prompt := &Seq{Obs: [][]float32{{1, 0, 0}}, RTG: []float64{0.9}, Actions: []int{0}}
	s := Seq{Prefix: []int{1, 0}, Obs: [][]float32{{0, 1}, {0, 0, 1}}, RTG: []float64{0.6, 0.6}, Actions: []int{2}, Prompt: prompt}
	b, err := v.Pack([]Seq{s}, 48, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{lm.BOS, 12, 11, v.Step(0.9, -1), SEP, v.Step(0.6, -1), v.Step(0.6, 2)}
	if b.T != 32 || !slices.Equal(b.Tokens[:len(want)], want) || b.Tokens[len(want)] != lm.PAD {
		t.Fatalf("tokens %v, want %v", b.Tokens[:8], want)
	}
	for j := 0; j < len(want); j++ {
		if wantT := one(j == 5); b.TargetMask[j] != wantT {
			t.Fatalf("target mask at %d = %v", j, b.TargetMask[j])
		}
		if wantP := one(j == 3 || j == 5 || j == 6); b.PatchMask[j] != wantP {
			t.Fatalf("patch mask at %d = %v", j, b.PatchMask[j])
		}
	}
	if b.Targets[5] != v.Action(2) || b.Last[0] != 6 || !slices.Equal(b.Patches[6*3:7*3], []float32{0, 0, 1}) {
		t.Fatalf("target %d, last %d, patch %v", b.Targets[5], b.Last[0], b.Patches[6*3:7*3])
	}
	a, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	low, high := s, s
	low.RTG, high.RTG = []float64{0.6, 0.1}, []float64{0.6, 0.9}
	l, err := a.ActionLogits([]Seq{low, high})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(l[0], l[1]) {
		t.Fatal("the step token's return-to-go does not reach the trunk beside the patch")
	}
	learnsCopyTask(t, a)
}

func one(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// A BC clone acts as its original and trains without touching it.
func TestBCClone(t *testing.T) {
	cfg := tinyConfig()
	p, err := NewBC(cfg, []int{16}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := rand.New(rand.NewPCG(1, 2))
	data := copyTask(r, 32)
	if _, err := p.Train(data, 20, r); err != nil {
		t.Fatal(err)
	}
	q, err := p.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	lp, err := p.ActionLogits(data[:4])
	if err != nil {
		t.Fatal(err)
	}
	lq, err := q.ActionLogits(data[:4])
	if err != nil {
		t.Fatal(err)
	}
	for i := range lp {
		if !slices.Equal(lp[i], lq[i]) {
			t.Fatalf("clone's logits %v, original's %v", lq[i], lp[i])
		}
	}
	if _, err := q.Train(data, 50, r); err != nil {
		t.Fatal(err)
	}
	again, err := p.ActionLogits(data[:4])
	if err != nil || !slices.Equal(again[0], lp[0]) {
		t.Fatalf("training the clone changed the original: %v → %v (%v)", lp[0], again[0], err)
	}
	if lq2, _ := q.ActionLogits(data[:4]); slices.Equal(lq2[0], lp[0]) {
		t.Fatal("the clone did not train")
	}
}

// With ScoreStart the starting weights are a candidate: fine-tuning a model that knows the copy task
// on data that contradicts it only raises the validation loss, so TrainToBest keeps step 0 and the
// model scores exactly as it did before.
func TestTrainToBestScoreStart(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	a, err := New(tinyConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	val := copyTask(r, 16)
	if _, err := a.Train(copyTask(r, 64), 200, r, nil); err != nil {
		t.Fatal(err)
	}
	l0, acc0, err := a.Score(val)
	if err != nil {
		t.Fatal(err)
	}
	wrong := copyTask(r, 64)
	for i := range wrong {
		for j := range wrong[i].Actions {
			wrong[i].Actions[j] = (wrong[i].Actions[j] + 1) % 3
		}
	}
	curves, best, bl, bacc, err := a.TrainToBest(wrong, val, StopConfig{MaxSteps: 100, EvalEvery: 20, Patience: 2, ScoreStart: true}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if best != 0 || bl != l0 || bacc != acc0 || curves["val_action_loss"].X[0] != 0 || !(curves["val_action_loss"].Y[1] > l0) {
		t.Fatalf("best step %d loss %v accuracy %v (start %v %v); curve %v", best, bl, bacc, l0, acc0, curves["val_action_loss"])
	}
	if l, _, err := a.Score(val); err != nil || l != l0 {
		t.Fatalf("after keeping step 0 the loss is %v, at the start %v (%v)", l, l0, err)
	}
}

// ObsHidden puts an MLP in front of the trunk: its hidden layer's weights exist (none without it,
// so earlier agents keep their layout), the observation reaches the action logits through it, and
// the copy task is learned.
func TestObsHidden(t *testing.T) {
	cfg := tinyConfig()
	cfg.Stream, cfg.ObsHidden = StreamSteps, 16
	a, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	w1, ok1 := a.Model.Layout.Get("embed/patch/w")
	_, ok2 := a.Model.Layout.Get("embed/patch/w2")
	if !ok1 || !ok2 || w1.Dims[1] != 16 {
		t.Fatalf("layout: embed/patch/w %v (%v), w2 %v", w1.Dims, ok1, ok2)
	}
	plain, err := New(tinyConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, ok := plain.Model.Layout.Get("embed/patch/w2"); ok {
		t.Fatal("an agent without ObsHidden has a hidden observation layer")
	}
	s := Seq{Prefix: []int{0}, Obs: [][]float32{{1, 0, 0}}, RTG: []float64{1}}
	s2 := s
	s2.Obs = [][]float32{{0, 0, 1}}
	l, err := a.ActionLogits([]Seq{s, s2})
	if err != nil || slices.Equal(l[0], l[1]) {
		t.Fatalf("the observation does not reach the logits through the MLP (%v)", err)
	}
	learnsCopyTask(t, a)
}

// learnsCopyTask trains a 150 steps on the copy task and fails unless its action loss halves.
func learnsCopyTask(t *testing.T, a *Agent) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	curves, err := a.Train(copyTask(r, 64), 150, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if y := curves["action_loss"].Y; !(y[len(y)-1] < 0.5*y[0]) {
		t.Fatalf("action loss %.3f → %.3f", y[0], y[len(y)-1])
	}
}

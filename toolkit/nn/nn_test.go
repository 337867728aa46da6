package nn

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/backend/backendtest"
)

// quadModel is w[2,2] (decayed) and b[3] (not decayed) with loss Σ(w−1)² + Σ b²·x, x a batch input.
func quadModel(t *testing.T) *Model {
	t.Helper()
	be, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	var l Layout
	l.Add("w", true, 2, 2)
	l.Add("b", false, 3)
	m, err := NewModel(be, l, []float32{0.5, -2, 3, 0, 1, -1, 4})
	if err != nil {
		t.Fatal(err)
	}
	return &m
}

var quadLoss = Loss{Name: "quad", Inputs: []string{"x"}, Fn: func(w *Views, in In) (*Node, []*Node) {
	d := AddScalar(w.W("w"), -1)
	bb := w.W("b")
	loss := Add(ReduceAllSum(Square(d)), Mul(ReduceAllSum(Square(bb)), in.Get("x")))
	return loss, []*Node{ReduceAllSum(bb)}
}}

// quadX is quadLoss's batch.
func quadX(x float64) Inputs { return Inputs{Names: []string{"x"}, Values: []any{float32(x)}} }

// hostAdam is PyTorch's Adam(W) with global-norm clipping, written out on the host.
func hostAdam(o OptConfig, p, m, v []float64, decay []float32, x float64, steps int) {
	for step := 1; step <= steps; step++ {
		g := make([]float64, len(p))
		for i := 0; i < 4; i++ {
			g[i] = 2 * (p[i] - 1)
		}
		for i := 4; i < 7; i++ {
			g[i] = 2 * p[i] * x
		}
		norm := 0.0
		for _, gi := range g {
			norm += gi * gi
		}
		norm = math.Sqrt(norm)
		scale := math.Min(1, o.ClipNorm/(norm+1e-6))
		lr := o.LRAt(step)
		bc1, bc2 := 1-math.Pow(o.Beta1, float64(step)), 1-math.Pow(o.Beta2, float64(step))
		for i := range p {
			gi := g[i] * scale
			p[i] -= lr * o.WeightDecay * float64(decay[i]) * p[i]
			m[i] = o.Beta1*m[i] + (1-o.Beta1)*gi
			v[i] = o.Beta2*v[i] + (1-o.Beta2)*gi*gi
			p[i] -= lr * (m[i] / bc1) / (math.Sqrt(v[i]/bc2) + o.Eps)
		}
	}
}

func TestAdamMatchesHostReference(t *testing.T) {
	m := quadModel(t)
	o := OptConfig{LR: 0.1, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.05, ClipNorm: 2, WarmupSteps: 2, TotalSteps: 6, MinLRFrac: 0.1}
	tr, err := NewTrainer(m, o, []string{"sum_b"}, quadLoss)
	if err != nil {
		t.Fatal(err)
	}
	const x, steps = 0.7, 5
	for s := 0; s < steps; s++ {
		st, err := tr.Update(quadX(x))
		if err != nil {
			t.Fatal(err)
		}
		if st.Step != s+1 || math.Abs(st.LR-o.LRAt(s+1)) > 1e-12 {
			t.Fatalf("step stats %+v", st)
		}
		if _, ok := st.Metrics["sum_b"]; !ok {
			t.Fatalf("metric sum_b missing: %v", st.Metrics)
		}
	}
	p := []float64{0.5, -2, 3, 0, 1, -1, 4}
	mm, vv := make([]float64, 7), make([]float64, 7)
	hostAdam(o, p, mm, vv, m.Layout.DecayMask(), x, steps)
	got, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}
	for i := range p {
		if math.Abs(float64(got[i])-p[i]) > 1e-5 {
			t.Fatalf("weight %d: engine %v, host reference %v (all %v vs %v)", i, got[i], p[i], got, p)
		}
	}
}

func TestNonFiniteLossStopsAndKeepsWeights(t *testing.T) {
	m := quadModel(t)
	tr, err := NewTrainer(m, DefaultOpt(0.1), []string{"sum_b"}, quadLoss)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Update(quadX(1)); err != nil {
		t.Fatal(err)
	}
	before, _ := m.Weights()
	_, err = tr.Update(quadX(math.NaN()))
	if err == nil || !strings.Contains(err.Error(), "quad step 2") || !strings.Contains(err.Error(), "not finite") {
		t.Fatalf("want an error naming step 2 and the non-finite loss, got %v", err)
	}
	after, _ := m.Weights()
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("weights changed by a failed step: %v → %v", before, after)
		}
	}
	if tr.Step != 1 {
		t.Fatalf("step count %d after a failed step, want 1", tr.Step)
	}
}

func TestCheckpointRoundTripAndErrors(t *testing.T) {
	m := quadModel(t)
	tr, err := NewTrainer(m, DefaultOpt(0.05), []string{"sum_b"}, quadLoss)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := tr.Update(quadX(1)); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "ck")
	if err := Save(dir, m, tr, map[string]string{"kind": "quad"}); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.Weights()
	if s.Manifest.Step != 3 || len(s.Weights) != len(w) || s.M == nil || s.V == nil || !strings.Contains(string(s.Manifest.Meta), "quad") {
		t.Fatalf("manifest %+v", s.Manifest)
	}
	for i := range w {
		if s.Weights[i] != w[i] {
			t.Fatalf("weights differ after reload")
		}
	}
	// Resuming from the checkpoint continues bit-identically.
	m2 := quadModel(t)
	if err := m2.SetWeights(s.Weights); err != nil {
		t.Fatal(err)
	}
	tr2, _ := NewTrainer(m2, *s.Manifest.Opt, []string{"sum_b"}, quadLoss)
	if err := tr2.SetState(s.M, s.V, s.Manifest.Step); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Update(quadX(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := tr2.Update(quadX(1)); err != nil {
		t.Fatal(err)
	}
	a, _ := m.Weights()
	b, _ := m2.Weights()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("resumed step differs at %d: %v vs %v", i, a[i], b[i])
		}
	}
	// Overwriting leaves no temporary directory behind.
	if err := Save(dir, m, nil, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if s, err := Load(dir); err != nil || s.M != nil {
		t.Fatalf("weights-only checkpoint: %v, %+v", err, s)
	}
	// A truncated weight file names the file and the sizes.
	if err := os.WriteFile(filepath.Join(dir, "params.f32"), []byte{1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "params.f32: 3 bytes, want 28") {
		t.Fatalf("truncated params: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format":"other/9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `format "other/9"`) {
		t.Fatalf("wrong format: %v", err)
	}
}

func TestScheduleAndValidation(t *testing.T) {
	o := OptConfig{LR: 1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WarmupSteps: 4, TotalSteps: 14, MinLRFrac: 0.1}
	for step, want := range map[int]float64{1: 0.25, 4: 1, 9: 0.55, 14: 0.1, 20: 0.1} {
		if got := o.LRAt(step); math.Abs(got-want) > 1e-12 {
			t.Errorf("LRAt(%d) = %v, want %v", step, got, want)
		}
	}
	// warmup–stable–decay: constant from the warmup to DecayStart, cosine from there to TotalSteps
	wsd := o
	wsd.DecayStart, wsd.TotalSteps = 10, 20
	for step, want := range map[int]float64{2: 0.5, 7: 1, 10: 1, 15: 0.55, 20: 0.1, 30: 0.1} {
		if got := wsd.LRAt(step); math.Abs(got-want) > 1e-12 {
			t.Errorf("warmup–stable–decay LRAt(%d) = %v, want %v", step, got, want)
		}
	}
	for field, bad := range map[string]OptConfig{
		"lr":          {Beta1: 0.9, Beta2: 0.9, Eps: 1},
		"betas":       {LR: 1, Beta1: 1, Beta2: 0.9, Eps: 1},
		"eps":         {LR: 1, Beta1: 0.9, Beta2: 0.9},
		"min_lr_frac": {LR: 1, Beta1: 0.9, Beta2: 0.9, Eps: 1, MinLRFrac: 2},
	} {
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: got %v", field, err)
		}
	}
	var l Layout
	l.Add("a", true, 2, 3)
	l.Add("b", false, 4)
	if a, _ := l.Get("a"); a.Offset != 0 || a.Size() != 6 {
		t.Fatalf("a: %+v", a)
	}
	if b, _ := l.Get("b"); b.Offset != 6 || l.Size != 10 {
		t.Fatalf("b: %+v size %d", b, l.Size)
	}
	mask := l.DecayMask()
	if mask[5] != 1 || mask[6] != 0 {
		t.Fatalf("decay mask %v", mask)
	}
}

// TestCallLeavesNoDeviceCopies: on every engine, host tensors passed to Call keep their host data
// and hold no device copy afterwards (on ONNX Runtime nothing else would free it), weights replaced
// by SetWeights are freed, and repeated calls give the same result.
func TestCallLeavesNoDeviceCopies(t *testing.T) {
	engines := []string{backend.GoConfig}
	if backendtest.HaveONNX(t) {
		engines = append(engines, backend.ONNXConfig)
	}
	for _, cfg := range engines {
		be, _, err := backend.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var l Layout
		l.Add("w", true, 3, 2)
		m, err := NewModel(be, l, []float32{1, 2, 3, 4, 5, 6})
		if err != nil {
			t.Fatal(err)
		}
		f := Func{Name: "matmul", Inputs: []string{"x"}, Fn: func(w *Views, in In) []*Node {
			return []*Node{MatMul(in.Get("x"), w.W("w"))}
		}}
		x := tensors.FromFlatDataAndDimensions([]float32{1, 0, 2, 0, 1, 1}, 2, 3)
		var first []float32
		for i := 0; i < 3; i++ {
			out, err := m.Call(f, Inputs{Names: []string{"x"}, Values: []any{x}})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := tensors.CopyFlatData[float32](out[0])
			out[0].FinalizeAll()
			if first == nil {
				first = got
			} else if got[0] != first[0] || got[3] != first[3] {
				t.Fatalf("%s: call %d gave %v, first %v", cfg, i, got, first)
			}
			if x.IsOnAnyDevice() || !x.IsLocal() {
				t.Fatalf("%s: the argument holds a device copy (%v) or lost its host data (%v)", cfg, x.IsOnAnyDevice(), !x.IsLocal())
			}
		}
		if first[0] != 11 || first[1] != 14 || first[2] != 8 || first[3] != 10 {
			t.Fatalf("%s: x·w = %v, want [11 14 8 10]", cfg, first)
		}
		old := m.Params
		if err := m.SetWeights([]float32{0, 0, 0, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		if old.Ok() {
			t.Fatalf("%s: the replaced weights were not freed", cfg)
		}
	}
}

// Close frees a model's weights; its compiled graphs go with the last model sharing them (a clone
// keeps working after the original is closed), and closing twice is harmless.
func TestCloseFreesWeightsAndSharedGraphs(t *testing.T) {
	be, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	var l Layout
	l.Add("w", true, 2)
	m, err := NewModel(be, l, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	double := Func{Name: "double", Fn: func(w *Views, in In) []*Node { return []*Node{MulScalar(w.W("w"), 2)} }}
	if _, err := m.CallFloats(double, Inputs{}); err != nil {
		t.Fatal(err)
	}
	key, _ := double.Key()
	e := m.rt.execs[key]
	c, err := m.CloneWeights()
	if err != nil {
		t.Fatal(err)
	}
	w := m.Params
	rt := m.rt
	m.Close()
	m.Close()
	if w.Ok() || m.Params != nil {
		t.Fatal("Close left the weights allocated")
	}
	if len(rt.execs) != 1 {
		t.Fatalf("closing the original with a live clone dropped the shared graphs (%d left)", len(rt.execs))
	}
	out, err := c.Call(double, Inputs{})
	if err != nil {
		t.Fatalf("the clone cannot run after the original was closed: %v", err)
	}
	if got, _ := tensors.CopyFlatData[float32](out[0]); got[0] != 2 || got[1] != 4 {
		t.Fatalf("clone computed %v, want [2 4]", got)
	}
	out[0].FinalizeAll()
	c.Close()
	if len(rt.execs) != 0 {
		t.Fatalf("closing the last model left %d compiled graphs", len(rt.execs))
	}
	ran := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		_, err = e.Call(tensors.FromFlatDataAndDimensions([]float32{1, 1}, 2))
		return err
	}
	if err := ran(); err == nil {
		t.Fatal("a finalized graph still ran")
	}
}

// shiftedLoss is Σ(w−k)² + Σ b²·x: the target k is a parameter the Fn closes over.
func shiftedLoss(k float64) Loss {
	return Loss{Name: "shifted", Params: map[string]float64{"k": k}, Inputs: []string{"x"}, Fn: func(w *Views, in In) (*Node, []*Node) {
		d := AddScalar(w.W("w"), -k)
		return Add(ReduceAllSum(Square(d)), Mul(ReduceAllSum(Square(w.W("b"))), in.Get("x"))), nil
	}}
}

// Two losses under one name that differ only in a parameter get two compiled graphs (and train
// differently), even on clones that share their graph cache.
func TestLossIdentityComesFromItsParameters(t *testing.T) {
	m := quadModel(t)
	c, err := m.CloneWeights()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	train := func(m *Model, k float64) []float32 {
		tr, err := NewTrainer(m, DefaultOpt(0.1), nil, shiftedLoss(k))
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		for i := 0; i < 3; i++ {
			if _, err := tr.Update(quadX(1)); err != nil {
				t.Fatal(err)
			}
		}
		w, _ := m.Weights()
		return w
	}
	a, b := train(m, 1), train(&c, 3)
	if n := len(m.rt.execs); n != 2 {
		t.Fatalf("two losses differing in a parameter compiled %d graphs, want 2", n)
	}
	if a[0] == b[0] {
		t.Fatalf("targets 1 and 3 trained the same weights %v", a)
	}
	// A third model trained towards 3 on its own agrees with the clone: the clone ran that loss's graph.
	fresh := quadModel(t)
	defer fresh.Close()
	if f := train(fresh, 3); f[0] != b[0] {
		t.Fatalf("target 3 on a clone gave %v, on a fresh model %v", b, f)
	}
	ka, _ := shiftedLoss(1).Key()
	kb, _ := shiftedLoss(3).Key()
	if ka == kb {
		t.Fatalf("keys %q and %q", ka, kb)
	}
	// Parameters encoding/json cannot marshal are an error, not a silently shared graph.
	bad := shiftedLoss(1)
	bad.Params = func() {}
	if _, err := NewTrainer(m, DefaultOpt(0.1), nil, bad); err == nil || !strings.Contains(err.Error(), "shifted") {
		t.Fatalf("unmarshalable parameters: err = %v", err)
	}
	bad.Params, bad.Name = nil, ""
	if _, err := NewTrainer(m, DefaultOpt(0.1), nil, bad); err == nil {
		t.Fatal("an unnamed loss was accepted")
	}
}

// A batch that does not carry the loss's inputs in order is an error naming the first difference;
// a loss that reads an input it does not declare panics with the input's name.
func TestNamedInputsAreChecked(t *testing.T) {
	m := quadModel(t)
	defer m.Close()
	tr, err := NewTrainer(m, DefaultOpt(0.1), []string{"sum_b"}, quadLoss)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, in := range []Inputs{{}, {Names: []string{"y"}, Values: []any{float32(1)}}, {Names: []string{"x", "y"}, Values: []any{float32(1), float32(1)}}} {
		_, err := tr.Update(in)
		if err == nil || !strings.Contains(err.Error(), `"x"`) && !strings.Contains(err.Error(), `"y"`) {
			t.Fatalf("batch %v: err = %v", in.Names, err)
		}
		if len(in.Names) == 0 && !strings.Contains(err.Error(), `lacks input "x"`) {
			t.Fatalf("empty batch: err = %v, want it to name the missing input x", err)
		}
	}
	if tr.Step != 0 {
		t.Fatalf("a rejected batch counted as step %d", tr.Step)
	}
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(fmt.Sprint(r), `"y"`) || !strings.Contains(fmt.Sprint(r), "x") {
				t.Fatalf("reading an undeclared input: recovered %v, want a panic naming y and the carried x", r)
			}
		}()
		In{"x": nil}.Get("y")
	}()
	sneaky := quadLoss
	sneaky.Name = "sneaky"
	sneaky.Fn = func(w *Views, in In) (*Node, []*Node) {
		l, _ := quadLoss.Fn(w, in)
		return Add(l, in.Get("y")), nil
	}
	tr2, err := NewTrainer(m, DefaultOpt(0.1), nil, sneaky)
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if _, err := tr2.Update(quadX(1)); err == nil || !strings.Contains(err.Error(), `reads input "y"`) {
		t.Fatalf("undeclared input: err = %v", err)
	}
	// An inference graph picks its declared inputs by name and names one the batch lacks.
	sum := Func{Name: "sum", Inputs: []string{"x"}, Fn: func(w *Views, in In) []*Node {
		return []*Node{Add(ReduceAllSum(w.W("b")), in.Get("x"))}
	}}
	got, err := m.CallFloats(sum, Inputs{Names: []string{"other", "x"}, Values: []any{float32(9), float32(2)}})
	if err != nil || got[0] != 6 {
		t.Fatalf("sum = %v (%v), want 6", got, err)
	}
	if _, err := m.CallFloats(sum, Inputs{Names: []string{"other"}, Values: []any{float32(9)}}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("missing graph input: err = %v", err)
	}
}

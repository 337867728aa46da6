package lm

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/paperlab/paperlab/toolkit/backend/backendtest"
)

// TestResumeIsBitIdentical: 12 SFT steps in one go, and 6 steps + checkpoint + load + 6 more steps,
// give bit-identical weights on the pure-Go engine; a loaded model evaluates outside any loop.
func TestResumeIsBitIdentical(t *testing.T) { resumeCheck(t, goBackend(t), 0) }

// TestResumeOnONNXRuntime: the same on ONNX Runtime, where a resumed run must match within float
// rounding (measured: identical here, but ORT does not promise it).
func TestResumeOnONNXRuntime(t *testing.T) {
	resumeCheck(t, backendtest.ONNX(t), 1e-6)
}

// resumeCheck trains 12 steps straight and 6 + save + load + 6 on engine be, and requires the final
// weights to agree within tol (0: bit-identical) and the loaded model to evaluate like the saved one.
func resumeCheck(t *testing.T, be compute.Backend, tol float64) {
	tok := arithTok(t)
	train := additionData(t, tok, 1, 500)
	eval := additionData(t, tok, 2, 40)
	opt := DefaultOpt(3e-3)
	opt.WarmupSteps, opt.TotalSteps, opt.ClipNorm, opt.WeightDecay = 3, 12, 1, 0.01
	cfg := SFTConfig{Steps: 12, BatchSize: 16, Seed: 9, Opt: opt}

	full, _ := NewOn(be, ConfigR(), tok, 4)
	if _, _, err := TrainSFT(full, cfg, train, nil, SFTHooks{}); err != nil {
		t.Fatal(err)
	}

	half, _ := NewOn(be, ConfigR(), tok, 4)
	first := cfg
	first.Steps = 6
	tr, _, err := TrainSFT(half, first, train, nil, SFTHooks{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := SaveCheckpoint(dir, half, tr, map[string]int{"data_seed": 1}); err != nil {
		t.Fatal(err)
	}
	ck, err := LoadCheckpointOn(be, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Step != 6 || !strings.Contains(string(ck.Extra), "data_seed") {
		t.Fatalf("checkpoint step %d extra %s", ck.Step, ck.Extra)
	}
	// Evaluate the loaded model outside any training loop: identical to the saved one.
	l1, _ := half.Loss(eval)
	l2, _ := ck.Model.Loss(eval)
	if math.Abs(l1-l2) > tol*math.Max(1, math.Abs(l1)) {
		t.Fatalf("loaded model loss %v ≠ saved model loss %v", l2, l1)
	}
	tr2, err := ck.Trainer(nil, SFTLoss)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ContinueSFT(tr2, cfg, train, nil, SFTHooks{}); err != nil {
		t.Fatal(err)
	}
	a, _ := full.Weights()
	b, _ := ck.Model.Weights()
	for i := range a {
		if d := math.Abs(float64(a[i] - b[i])); d > tol*math.Max(1, math.Abs(float64(a[i]))) {
			t.Fatalf("weight %d: straight run %v, resumed run %v", i, a[i], b[i])
		}
	}
}

func TestCheckpointErrors(t *testing.T) {
	be := goBackend(t)
	m, _ := NewOn(be, ConfigR(), arithTok(t), 1)
	dir := filepath.Join(t.TempDir(), "c")
	if err := SaveCheckpoint(dir, m, nil, nil); err != nil {
		t.Fatal(err)
	}
	ck, err := LoadCheckpointOn(be, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ck.Trainer(nil, SFTLoss); err == nil {
		t.Fatal("a weights-only checkpoint gave a trainer")
	}
	os.WriteFile(filepath.Join(dir, "params.f32"), []byte{1, 2, 3}, 0o644)
	if _, err := LoadCheckpointOn(be, dir); err == nil || !strings.Contains(err.Error(), "params.f32") {
		t.Fatalf("truncated weights: err = %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Fatalf("checkpoint parent holds %d entries; temporary directories left behind", len(entries))
	}
}

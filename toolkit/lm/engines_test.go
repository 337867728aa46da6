package lm

import (
	"math"
	"os"
	"testing"

	"github.com/gomlx/compute"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/backend/backendtest"
)

// TestEnginesAgreeOnLM trains configuration R for 30 SFT steps from the same weights on the pure-Go
// engine and on ONNX Runtime and compares the losses step by step. $PAPERLAB_AGREE_ENGINE replaces
// ONNX Runtime by another engine, e.g. a GPU's "xla:/path/xla_cuda_plugin.so" (scripts/gpu-check.sh):
// the pure-Go engine on the CPU is then the reference.
func TestEnginesAgreeOnLM(t *testing.T) {
	other, name := compute.Backend(nil), "onnx"
	if cfg := os.Getenv("PAPERLAB_AGREE_ENGINE"); cfg != "" {
		be, info, err := backend.New(cfg)
		if err != nil {
			t.Fatalf("PAPERLAB_AGREE_ENGINE=%s: %v", cfg, err)
		}
		other, name = be, info.Name
		t.Logf("against %s", info)
	} else {
		other = backendtest.ONNX(t)
	}
	tok := arithTok(t)
	train := additionData(t, tok, 1, 1000)
	cfg := SFTConfig{Steps: 30, BatchSize: 32, Seed: 3, Opt: DefaultOpt(3e-3)}
	losses := map[string][]float64{}
	for _, e := range []struct {
		name string
		be   compute.Backend
	}{{"go", goBackend(t)}, {name, other}} {
		m, err := NewOn(e.be, ConfigR(), tok, 2)
		if err != nil {
			t.Fatal(err)
		}
		_, curves, err := TrainSFT(m, cfg, train, nil, SFTHooks{})
		if err != nil {
			t.Fatal(err)
		}
		losses[e.name] = curves["train_loss"].Y
	}
	worst := 0.0
	for i := range losses["go"] {
		d := math.Abs(losses["go"][i] - losses[name][i])
		worst = math.Max(worst, d)
		if d > 1e-3*math.Max(1, losses["go"][i]) {
			t.Fatalf("step %d: go loss %.7f, %s loss %.7f", i+1, losses["go"][i], name, losses[name][i])
		}
	}
	t.Logf("30 SFT steps: loss %.4f -> %.4f, largest go/%s difference %.2g", losses["go"][0], losses["go"][29], name, worst)
}

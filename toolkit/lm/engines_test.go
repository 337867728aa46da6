package lm

import (
	"math"

	"testing"

	"github.com/gomlx/compute"
	"github.com/paperlab/paperlab/toolkit/backend/backendtest"
)

// TestEnginesAgreeOnLM trains configuration R for 30 SFT steps from the same weights on the pure-Go
// engine and on ONNX Runtime and compares the losses step by step.
func TestEnginesAgreeOnLM(t *testing.T) {
	ort := backendtest.ONNX(t)
	tok := arithTok(t)
	train := additionData(t, tok, 1, 1000)
	cfg := SFTConfig{Steps: 30, BatchSize: 32, Seed: 3, Opt: DefaultOpt(3e-3)}
	losses := map[string][]float64{}
	for _, e := range []struct {
		name string
		be   compute.Backend
	}{{"go", goBackend(t)}, {"onnx", ort}} {
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
		d := math.Abs(losses["go"][i] - losses["onnx"][i])
		worst = math.Max(worst, d)
		if d > 1e-3*math.Max(1, losses["go"][i]) {
			t.Fatalf("step %d: go loss %.7f, onnx loss %.7f", i+1, losses["go"][i], losses["onnx"][i])
		}
	}
	t.Logf("30 SFT steps: loss %.4f -> %.4f, largest go/onnx difference %.2g", losses["go"][0], losses["go"][29], worst)
}

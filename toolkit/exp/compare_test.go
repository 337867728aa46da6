package exp

import (
	"encoding/json"
	"strings"
	"testing"
)

// synthetic is a result of method "m" with metric "acc" per seed (and a wall-time metric).
func synthetic(cpu string, cfg string, acc ...float64) *Result {
	r := &Result{Experiment: "x", Scale: Default, Backend: "onnx:cpu", CPU: cpu, Config: json.RawMessage(cfg)}
	for i, v := range acc {
		r.Seeds = append(r.Seeds, uint64(i+1))
		r.Runs = append(r.Runs, Run{Method: "m", Seed: uint64(i + 1), Final: map[string]float64{"acc": v, "train_seconds": float64(10 * i)}})
	}
	r.Summarize()
	return r
}

func TestCompare(t *testing.T) {
	cfg := `{"rl":{"steps":500,"lr":0.0001},"seeds":5}`
	committed := synthetic("Xeon (AVX-512)", cfg, 0.60, 0.62, 0.65, 0.58, 0.61)
	// Another CPU: every seed moves a little, the distribution does not → agree; no per-seed promise.
	rerun := synthetic("EPYC (AVX2)", cfg, 0.59, 0.64, 0.63, 0.60, 0.57)
	c, err := Compare(committed, rerun)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Metric != "acc" { // train_seconds is wall time: left out
		t.Fatalf("rows %+v", c.Rows)
	}
	r := c.Rows[0]
	if r.Verdict != "agree" || c.PerSeed || !strings.Contains(c.Why, "CPUs differ") || r.SameSeeds != 0 || r.Shared != 5 || c.Disagreements() != 0 {
		t.Fatalf("%+v (%s)", r, c.Why)
	}
	if !(r.DiffCI[0] < 0 && r.DiffCI[1] > 0) || r.Diff != rerun.Summary["m"]["acc"].Mean-committed.Summary["m"]["acc"].Mean {
		t.Fatalf("diff %v %v", r.Diff, r.DiffCI)
	}
	// Same CPU and engine, identical seeds: per-seed agreement counted bit for bit.
	same := synthetic("Xeon (AVX-512)", cfg, 0.60, 0.62, 0.65, 0.58, 0.61)
	if c, _ := Compare(committed, same); !c.PerSeed || c.Rows[0].SameSeeds != 5 || c.Rows[0].Verdict != "agree" {
		t.Fatalf("identical: %+v %+v", c, c.Rows)
	}
	// A real shift → differ.
	worse := synthetic("Xeon (AVX-512)", cfg, 0.40, 0.42, 0.45, 0.41, 0.43)
	if c, _ := Compare(committed, worse); c.Rows[0].Verdict != "differ" || c.Disagreements() != 1 || !(c.Rows[0].DiffCI[1] < 0) {
		t.Fatalf("shifted: %+v", c.Rows[0])
	}
	// One seed: nothing to judge.
	if c, _ := Compare(committed, synthetic("Xeon (AVX-512)", cfg, 0.6)); c.Rows[0].Verdict != "n < 2" {
		t.Fatalf("one seed: %+v", c.Rows[0])
	}
	// Another configuration: an error naming the field.
	other := synthetic("Xeon (AVX-512)", `{"rl":{"steps":400,"lr":0.0001},"seeds":5}`, 0.6, 0.6)
	if _, err := Compare(committed, other); err == nil || !strings.Contains(err.Error(), "config.rl.steps: 500 vs 400") {
		t.Fatalf("config: %v", err)
	}
	missing := synthetic("Xeon (AVX-512)", `{"rl":{"lr":0.0001},"seeds":5}`, 0.6, 0.6)
	if _, err := Compare(committed, missing); err == nil || !strings.Contains(err.Error(), "config.rl.steps: 500 vs (absent)") {
		t.Fatalf("missing field: %v", err)
	}
	other.Experiment = "y"
	if _, err := Compare(committed, other); err == nil || !strings.Contains(err.Error(), `experiment "x" vs "y"`) {
		t.Fatalf("experiment: %v", err)
	}
}

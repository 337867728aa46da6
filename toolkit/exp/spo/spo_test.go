package spo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestSmokeRunMetricsComplete runs experiment "spo" at smoke scale and checks the metrics file, the
// stored preference pairs (readable, with their seed) and the claims' evaluation.
func TestSmokeRunMetricsComplete(t *testing.T) {
	_, back, dir := exptest.Smoke(t, "spo")
	exptest.RequireMetrics(t, back, []string{"sft", "dpo-1", "seq-dpo", "mixed-dpo", "spo"}, []string{"reward_1", "reward_2"}, 1)
	run := back.RunsOf("spo")[0]
	for _, k := range []string{"round1/reward_1", "round2/reward_2", "weights/spo", "weights/seq-dpo", "round2/rewards/margins"} {
		if c, ok := run.Curves[k]; !ok || len(c.Y) == 0 {
			t.Fatalf("spo: curve %s missing", k)
		}
	}
	for _, dim := range ConfigFor("smoke").Dims {
		path := filepath.Join(dir, "pairs", dim+"_seed1.jsonl")
		pairs, err := prefs.Default().ReadJSONL(path)
		if err != nil || len(pairs) == 0 {
			t.Fatalf("%s: %v (%d pairs)", path, err, len(pairs))
		}
		if pairs[0].Dimension != dim || pairs[0].Seed == 0 {
			t.Fatalf("pair %+v lacks its dimension or seed", pairs[0])
		}
	}
	for _, c := range Claims(back) {
		if len(c.Diffs) == 0 && c.Text != "" {
			t.Logf("claim not measurable at smoke scale: %s", c.Text)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pareto.svg")); err != nil {
		t.Fatal(err)
	}
}

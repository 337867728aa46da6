package tinylm

import (
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// TestSmokeRun runs experiment "lm" at smoke scale and checks that the metrics file is complete, the
// figures exist, the checkpoint was saved, and the loss fell.
func TestSmokeRun(t *testing.T) {
	res, back, dir := exptest.Smoke(t, "lm")
	exptest.RequireMetrics(t, back, []string{"addition", "arith"}, []string{"exact_match", "sample_accuracy", "ece", "brier", "eval_loss"}, 1)
	for _, task := range []string{"addition", "arith"} {
		var shown []Shown
		if err := back.GetExtra("samples_"+task, &shown); err != nil || len(shown) == 0 {
			t.Fatalf("samples of %s: %v (%d)", task, err, len(shown))
		}
		run := res.RunsOf(task)[0]
		loss := run.Curves["eval_loss"].Y
		if !(loss[len(loss)-1] < 0.8*loss[0]) {
			t.Fatalf("%s: held-out loss %.3f -> %.3f did not fall by 20%%", task, loss[0], loss[len(loss)-1])
		}
	}
	if len(back.Figures) < 6 {
		t.Fatalf("only %d figure files", len(back.Figures))
	}
	ck, err := lm.LoadCheckpoint(filepath.Join(dir, "checkpoints", "arith"))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Step != ConfigFor(exp.Smoke).Tasks[1].SFT.Steps || ck.Opt == nil {
		t.Fatalf("checkpoint at step %d (optimizer saved: %v)", ck.Step, ck.Opt != nil)
	}
}

package tinylm

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// TestSmokeRun runs experiment "lm" at smoke scale and checks that the metrics file is complete, the
// figures exist, the checkpoint was saved, and the loss fell.
func TestSmokeRun(t *testing.T) {
	e, err := exp.Lookup("lm")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Out: dir, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	back, err := exp.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"addition", "arith"} {
		for _, k := range []string{"exact_match", "sample_accuracy", "ece", "brier", "eval_loss"} {
			if _, ok := back.Summary[task][k]; !ok {
				t.Fatalf("summary lacks %s/%s", task, k)
			}
		}
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

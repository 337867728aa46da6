package tour

import (
	"io"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// TestSmokeRunIsCompleteAndOrdered runs the experiment at smoke scale and checks that the metrics file
// is complete and that the metrics rank the three scores as their construction implies.
func TestSmokeRunIsCompleteAndOrdered(t *testing.T) {
	e, err := exp.Lookup("tour")
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
	if back.Experiment != "tour" || back.Scale != exp.Smoke || back.Backend == "" || len(back.Seeds) != 2 || len(back.Figures) == 0 {
		t.Fatalf("metrics.json header incomplete: %+v", back)
	}
	for _, m := range Methods {
		for _, k := range []string{"accuracy", "auc", "ece", "brier", "aurc"} {
			if s, ok := back.Summary[m][k]; !ok || s.N != 2 {
				t.Fatalf("summary %s/%s missing or n≠2: %+v", m, k, s)
			}
		}
	}
	s := res.Summary
	if s["overconfident"]["auc"].Mean != 0.5 {
		t.Errorf("a constant score must have AUC 0.5, got %v", s["overconfident"]["auc"].Mean)
	}
	if !(s["honest"]["auc"].Mean > s["length-only"]["auc"].Mean && s["length-only"]["auc"].Mean > 0.5) {
		t.Errorf("AUC order honest > length-only > 0.5 broken: %v", s)
	}
	if !(s["honest"]["ece"].Mean < s["length-only"]["ece"].Mean && s["length-only"]["ece"].Mean < s["overconfident"]["ece"].Mean) {
		t.Errorf("ECE order honest < length-only < overconfident broken: %v", s)
	}
}

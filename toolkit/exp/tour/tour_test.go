package tour

import (
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestSmokeRunIsCompleteAndOrdered runs the experiment at smoke scale and checks that the metrics file
// is complete and that the metrics rank the three scores as their construction implies.
func TestSmokeRunIsCompleteAndOrdered(t *testing.T) {
	res, back, _ := exptest.Smoke(t, "tour")
	exptest.RequireMetrics(t, back, Methods, []string{"accuracy", "auc", "ece", "brier", "aurc"}, 2)
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

package tape

import (
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestSmokeRunMetricsComplete runs experiment "tape" at smoke scale and checks that the summary has
// the four p methods with return and optimal_rate, and the curves the figures need.
func TestSmokeRunMetricsComplete(t *testing.T) {
	_, back, _ := exptest.Smoke(t, "tape")
	exptest.RequireMetrics(t, back, []string{"p=0", "p=0.3", "p=0.5", "p=1"}, []string{"return", "optimal_rate", "p_optimal_auc"}, 1)
	exptest.RequireMetrics(t, back, []string{"ippo", "mappo"}, []string{"return"}, 1)
	exptest.RequireMetrics(t, back, []string{"ba(m=1)", "ws(k=2)"}, []string{"optimal_rate"}, 3)
	if n := back.Summary["p=0"]["optimal_rate"].N; n != ConfigFor("smoke").MatrixSeeds {
		t.Fatalf("optimal_rate over %d seeds", n)
	}
	for _, m := range []string{"p=0", "ippo"} {
		found := false
		for _, r := range back.RunsOf(m) {
			if c := r.Curves["lbf/SPS"]; len(c.Y) > 0 {
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: no LBF run with an SPS curve", m)
		}
	}
}

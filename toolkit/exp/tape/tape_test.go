package tape

import (
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestSmokeRunMetricsComplete runs experiment "tape" at smoke scale and checks that the summary has
// every part's methods and metrics, and the curves the figures need.
func TestSmokeRunMetricsComplete(t *testing.T) {
	_, back, _ := exptest.Smoke(t, "tape")
	exptest.RequireMetrics(t, back, []string{"p=0", "p=0.3", "p=0.5", "p=1"}, []string{"return", "optimal_rate", "p_optimal_auc"}, 1)
	exptest.RequireMetrics(t, back, []string{"ippo", "mappo"}, []string{"return"}, 1)
	exptest.RequireMetrics(t, back, []string{"ba(m=1)", "ws(k=2)"}, []string{"optimal_rate"}, 3)
	c := ConfigFor("smoke")
	if n := back.Summary["p=0"]["optimal_rate"].N; n != c.MatrixSeeds {
		t.Fatalf("optimal_rate over %d seeds", n)
	}
	var vars []string
	for _, b := range c.Variance.Batches {
		for _, p := range c.Variance.Ps {
			vars = append(vars, VarName(b, p))
		}
	}
	exptest.RequireMetrics(t, back, vars, []string{"update_variance", "from_dop", "escape_rate"}, c.Variance.Seeds)
	exptest.RequireMetrics(t, back, []string{"var-b1", "var-b4"}, []string{"from_dop_exponent"}, c.Variance.Seeds)
	exptest.RequireMetrics(t, back, []string{"det-p0", "det-p0.3", "det-p0.5", "det-p1", "det-er0.4", "det-ba1", "det-ws2", "det-ow0.5-p1"},
		[]string{"optimal_rate", "mix_weight", "p_optimal_auc"}, c.DetSeeds)
	exptest.RequireMetrics(t, back, []string{"lbf3-p0", "lbf3-p0.3", "lbf3-p0.5", "lbf3-p1", "lbf3-ippo", "lbf3-mappo"},
		[]string{"success_rate", "return", "sampled_success_rate", "sampled_return", "train_return", "return_auc"}, 1)
	if v := back.Summary[VarName(1, 0)]["from_dop"]; v.Mean != 0 {
		t.Fatalf("p = 0 is DOP: distance from DOP %v", v.Mean)
	}
	for _, m := range []string{"lbf3-p0", "lbf3-mappo"} {
		for _, k := range []string{"success_rate", "sampled_success_rate"} {
			if v := back.Summary[m][k].Mean; v < 0 || v > 1 {
				t.Fatalf("%s %s = %v outside [0, 1]", m, k, v)
			}
		}
	}
	// Deterministic TAPE under the code's Adam per rate and density; the shared-parameter regime.
	var adam, shared, sharedVar []string
	for _, lr := range c.DetAdamLRs {
		for _, p := range c.DetAdamPs {
			adam = append(adam, AdamDetName(lr, p))
		}
	}
	for _, lr := range c.SharedLRs {
		for _, p := range c.SharedPs {
			shared = append(shared, SharedName(lr, p))
		}
	}
	for _, n := range c.SharedVarAgents {
		for _, p := range c.SharedVariance.Ps {
			sharedVar = append(sharedVar, SharedVarName(n, p))
		}
	}
	if len(adam) < 9 || len(shared) < 9 || len(sharedVar) < 10 {
		t.Fatalf("the Adam and shared-actor sweeps are too small: %d Adam, %d shared, %d shared-variance methods", len(adam), len(shared), len(sharedVar))
	}
	exptest.RequireMetrics(t, back, adam, []string{"optimal_rate", "p_optimal_auc", "step_norm", "mix_weight"}, c.DetSeeds)
	exptest.RequireMetrics(t, back, shared, []string{"value", "value_auc"}, c.SharedSeeds)
	exptest.RequireMetrics(t, back, sharedVar, []string{"mean_ratio", "variance"}, c.SharedSeeds)
	if c.Det.Optimizer != "adam" || c.DetMethods[0].Optimizer != "sgd" {
		t.Fatalf("the deterministic part's base must be the code's Adam (%q) and the det-… methods the SGD variant (%q)", c.Det.Optimizer, c.DetMethods[0].Optimizer)
	}
	var coal []string
	for _, p := range c.CoalPs {
		coal = append(coal, CoalName(p))
	}
	if len(coal) < 3 || c.CoalPs[0] != 0 || c.CoalPs[len(c.CoalPs)-1] != 1 {
		t.Fatalf("coalition densities %v: want both extremes and one between", c.CoalPs)
	}
	exptest.RequireMetrics(t, back, coal, []string{"success_rate", "sampled_success_rate", "return_auc"}, 1)
	for _, f := range []string{"det_adam", "det_adam_steps", "shared_value", "shared_variance", "shared_mean", "shared_training", "coal_vs_p", "coal_return"} {
		found := false
		for _, g := range back.Figures {
			found = found || strings.Contains(g, f+".")
		}
		if !found {
			t.Errorf("no figure %s in %v", f, back.Figures)
		}
	}
	if len(back.Figures) == 0 {
		t.Fatal("no figures listed")
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

package capo

import (
	"fmt"
	"slices"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the experiment from a result: training dynamics (held-out mean@16 and greedy
// accuracy, AUC and ECE against the RL step; seed bands, the main methods and the ablations in two
// panels), the mechanism (Cov(lpm, A) per unit |A|, the misranked pairs' share of the advantage
// weight and the rollout entropy against the step), the training entropy and reward
// (EMA-smoothed), the final metrics as a dot plot (one panel per metric), precision–coverage
// curves, accuracy against N for majority and RPC voting, the AUC–accuracy frontiers (greedy and
// mean@16) of the RL methods along training, and a reliability diagram per method pooled over seeds.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	all := res.Methods()
	// The main comparison (every seed), then the ablations with capo for reference (at most
	// plot.MaxBands each).
	var main, ablations, gspo, lr []string
	for _, m := range all {
		switch {
		case m == "sft":
		case slices.Contains(mainMethods, m):
			main = append(main, m)
		case m == lrPair.a || m == lrPair.b:
			lr = append(lr, m)
		case m == gspoPair.b || m == lossPair.b:
			gspo = append(gspo, m)
		default:
			ablations = append(ablations, m)
		}
	}
	groups := []exp.Group{{Title: "main methods", Methods: main}}
	for len(ablations) > 0 {
		n := min(len(ablations), plot.MaxBands-1)
		ref := []string{}
		if slices.Contains(all, "capo") {
			ref = []string{"capo"}
		}
		groups = append(groups, exp.Group{Title: "ablations (capo for reference)", Methods: append(ref, ablations[:n]...)})
		ablations = ablations[n:]
	}
	if len(gspo) > 0 {
		groups = append(groups, exp.Group{Title: "GSPO and GRPO at 4 mini-batches (grpo, capo at 2 for reference)", Methods: append(present(all, "grpo", "capo"), gspo...)})
	}
	if len(lr) > 0 {
		groups = append(groups, exp.Group{Title: "learning-rate part: Adam 3e-5, 1,800 steps", Methods: lr})
	}
	for _, c := range []struct {
		key, title, y, name string
		opt                 plot.BandOpts
	}{
		{accCurve, "held-out accuracy (mean@16: one sample at T = 1) during RL", "accuracy", "dynamics_accuracy", plot.BandOpts{Prob: true}},
		{greedyCurve, "held-out greedy accuracy (T = 0) during RL", "greedy accuracy", "dynamics_greedy", plot.BandOpts{Prob: true}},
		{aucCurve, "held-out AUC of lpm during RL", "AUC of lpm", "dynamics_auc", plot.BandOpts{Prob: true}},
		{"train/eval_ece", "held-out ECE of exp(lpm) during RL (lower is better)", "ECE", "dynamics_ece", plot.BandOpts{Prob: true}},
		{"train/entropy", "policy entropy on rollouts (mask ablation)", "entropy (nats/token)", "entropy", plot.BandOpts{EMA: 0.1}},
		{"train/reward", "training reward (fraction of rollouts correct)", "reward", "reward", plot.BandOpts{EMA: 0.1, Prob: true}},
	} {
		f, err := plot.Panels(c.title, "RL step", c.y, exp.PanelsOf(res, c.key, groups), c.opt)
		if err := figs.Add(f, err, c.name); err != nil {
			return nil, err
		}
	}
	if f, err := mechanism(res, groups); err != exp.ErrNoFigures {
		if err := figs.Add(f, err, "mechanism"); err != nil {
			return nil, err
		}
	}
	f, err := exp.SummaryBars(res, "final held-out accuracy, judged three ways", []exp.MetricInfo{
		{Key: "accuracy", Title: "mean@16 (one sample, T = 1)", Better: plot.HigherIsBetter, Prob: true},
		{Key: "greedy_accuracy", Title: "greedy (T = 0)", Better: plot.HigherIsBetter, Prob: true},
		{Key: "majority_accuracy_n16", Title: "majority@16", Better: plot.HigherIsBetter, Prob: true},
		{Key: "rpc_accuracy_n16", Title: "RPC@16", Better: plot.HigherIsBetter, Prob: true},
	})
	if err := figs.Add(f, err, "final_accuracy"); err != nil {
		return nil, err
	}
	f, err = exp.SummaryBars(res, "final held-out calibration of lpm (16 samples per prompt)", []exp.MetricInfo{
		{Key: "auc", Title: "AUC", Better: plot.HigherIsBetter, Prob: true},
		{Key: "auc_solvable", Title: "AUC, solvable prompts", Better: plot.HigherIsBetter, Prob: true},
		{Key: "auc_hidden", Title: "AUC, hidden-operand prompts", Better: plot.HigherIsBetter, Prob: true},
		{Key: "aurc", Title: "AURC", Better: plot.LowerIsBetter, Prob: true},
		{Key: "ece", Title: "ECE of exp(lpm)", Better: plot.LowerIsBetter, Prob: true},
	})
	if err := figs.Add(f, err, "final_metrics"); err != nil {
		return nil, err
	}
	f, err = plot.Panels("precision under abstention", "coverage (fraction answered)", "precision",
		exp.PanelsOf(res, "precision_coverage", groups), plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "precision_coverage"); err != nil {
		return nil, err
	}
	for _, v := range []struct{ key, title, name string }{
		{"majority_vs_n", "majority vote: accuracy vs N", "voting_majority"},
		{"rpc_vs_n", "RPC vote (distinct paths weighted by sequence probability): accuracy vs N", "voting_rpc"},
	} {
		f, err := plot.Panels(v.title, "N samples", "accuracy", exp.PanelsOf(res, v.key, groups), plot.BandOpts{Prob: true})
		if err := figs.Add(f, err, v.name); err != nil {
			return nil, err
		}
	}
	// The frontiers: held-out AUC (pooled, and within prompts) against held-out accuracy (greedy,
	// mean@16) and against the KL from the SFT model along RL, where the matched-operating-point
	// claims read CAPO's AUC at GRPO's accuracy or KL — for the main run's step size and, beside it,
	// the learning-rate part's 3e-5 and GSPO.
	for _, fr := range []struct {
		methods       []string
		x, y          string
		what, xl, yl  string
		name, setting string
	}{
		{present(all, mainMethods...), greedyCurve, aucCurve, "AUC of lpm", "held-out greedy accuracy", "held-out AUC of lpm", "frontier_auc_greedy", ""},
		{present(all, mainMethods...), accCurve, aucCurve, "AUC of lpm", "held-out accuracy (mean@16)", "held-out AUC of lpm", "frontier_auc_accuracy", ""},
		{present(all, mainMethods...), klWindowCurve, aucCurve, "AUC of lpm", "KL from the SFT model (mean over each evaluation window)", "held-out AUC of lpm", "frontier_auc_kl", ""},
		{present(all, mainMethods...), accCurve, withinCurve, "AUC within prompts", "held-out accuracy (mean@16)", "AUC of lpm within prompts", "frontier_auc_within_accuracy", ""},
		{present(all, lr...), accCurve, aucCurve, "AUC of lpm", "held-out accuracy (mean@16)", "held-out AUC of lpm", "frontier_auc_accuracy_lr3e-5", ", Adam 3e-5"},
		{present(all, lr...), klWindowCurve, aucCurve, "AUC of lpm", "KL from the SFT model (mean over each evaluation window)", "held-out AUC of lpm", "frontier_auc_kl_lr3e-5", ", Adam 3e-5"},
		{present(all, lr...), accCurve, withinCurve, "AUC within prompts", "held-out accuracy (mean@16)", "AUC of lpm within prompts", "frontier_auc_within_accuracy_lr3e-5", ", Adam 3e-5"},
		{append(present(all, "grpo", "capo"), gspo...), accCurve, aucCurve, "AUC of lpm", "held-out accuracy (mean@16)", "held-out AUC of lpm", "frontier_auc_accuracy_gspo", ", GSPO"},
	} {
		if len(fr.methods) == 0 || (fr.name != "frontier_auc_greedy" && fr.name != "frontier_auc_accuracy" && !hasCurve(res, fr.methods[0], fr.y)) ||
			(fr.name == "frontier_auc_accuracy_gspo" && len(gspo) == 0) {
			continue // a result from before the curve or the methods existed
		}
		if fr.x == klWindowCurve && !hasCurve(res, fr.methods[0], klWindowCurve) {
			continue
		}
		f, err := exp.Frontier(res, fr.what+" against "+fr.xl+" along RL (at every evaluation"+fr.setting+")", fr.xl, fr.yl, fr.methods, fr.x, fr.y)
		if err := figs.Add(f, err, fr.name); err != nil {
			return nil, err
		}
	}
	for _, m := range all {
		bins, n, err := exp.PooledReliability(res, m)
		if err != nil {
			return nil, err
		}
		f, err := plot.Reliability(fmt.Sprintf("reliability of exp(lpm): %s (pooled over %d seeds)", m, n), bins, exp.MethodColor(res, m))
		if err := figs.Add(f, err, "reliability_"+m); err != nil {
			return nil, err
		}
	}
	return figs.Paths, nil
}

// present are those of methods the result has, in the order given.
func present(all []string, methods ...string) []string {
	var out []string
	for _, m := range methods {
		if slices.Contains(all, m) {
			out = append(out, m)
		}
	}
	return out
}

// mainMethods are the methods run on every seed, drawn together (at most plot.MaxBands).
var mainMethods = []string{"grpo", "capo", "capo-tau0.2", "capo-tau1.0"}

// mechanism is the figure of the advantage's mechanism against the RL step: Cov(lpm, A) per unit
// |A| and the misranked pairs' share of the estimator's pair weight (means over each evaluation
// window, rl.Diagnostics), and the rollout entropy (EMA-smoothed) — one row each, the main methods
// and the ablations in two columns. exp.ErrNoFigures when the result has no diagnostics (a result
// from before they were recorded).
func mechanism(res *exp.Result, groups []exp.Group) (*plot.Figure, error) {
	var rows []*plot.Figure
	for _, r := range []struct {
		key, y string
		opt    plot.BandOpts
	}{
		{covCurve, "Cov(lpm, A) / mean |A|", plot.BandOpts{}},
		{"train/" + diagPrefix + "misranked_weight_share", "misranked pairs' weight share", plot.BandOpts{Prob: true}},
		{"train/entropy", "rollout entropy (nats/token)", plot.BandOpts{EMA: 0.1}},
	} {
		panels := exp.PanelsOf(res, r.key, groups)
		if len(panels) == 0 {
			return nil, exp.ErrNoFigures
		}
		f, err := plot.Panels("", "RL step", r.y, panels, r.opt)
		if err != nil {
			return nil, err
		}
		rows = append(rows, f)
	}
	return plot.Stack("the mechanism: how much each advantage favours what the policy already believes (Cov > 0 sharpens), where its weight goes, and the entropy that follows",
		"Cov and weight share: mean over the steps since the previous evaluation; entropy: EMA α = 0.1. Line: mean over seeds; band: 95 % CI of the mean", rows...)
}

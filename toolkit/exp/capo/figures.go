package capo

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the experiment from a result: training dynamics (held-out accuracy and AUC against
// the step, seed bands), the final metrics as bars, precision–coverage curves (mean over seeds),
// accuracy against N for majority and perplexity-consistency voting, the training entropy (mask
// ablation), and a reliability diagram per method.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	rlMethods := []string{}
	for _, m := range res.Methods() {
		if m != "sft" {
			rlMethods = append(rlMethods, m)
		}
	}
	all := res.Methods()
	for _, c := range []struct{ key, title, y, name string }{
		{"train/eval_accuracy", "held-out accuracy (mean@8) during RL", "accuracy", "dynamics_accuracy"},
		{"train/eval_auc", "held-out AUC of lpm during RL", "AUC", "dynamics_auc"},
		{"train/eval_ece", "held-out ECE of exp(lpm) during RL", "ECE", "dynamics_ece"},
		{"train/entropy", "policy entropy on rollouts (mask ablation)", "entropy (nats/token)", "entropy"},
		{"train/reward", "training reward", "reward", "reward"},
	} {
		f, err := plot.Curves(c.title, "RL step", c.y, exp.CurveSeries(res, c.key, rlMethods))
		if err := figs.Add(f, err, c.name); err != nil {
			return nil, err
		}
	}
	f, err := exp.SummaryBars(res, "final held-out metrics (16 samples per prompt)", []string{"accuracy", "auc", "ece", "brier"})
	if err := figs.Add(f, err, "final_metrics"); err != nil {
		return nil, err
	}
	f, err = plot.Curves("precision under abstention (mean over seeds)", "coverage (fraction answered)", "precision",
		exp.CurveSeries(res, "precision_coverage", all))
	if err := figs.Add(f, err, "precision_coverage"); err != nil {
		return nil, err
	}
	for _, v := range []struct{ key, title, name string }{
		{"majority_vs_n", "majority vote: accuracy vs N", "voting_majority"},
		{"pc_vs_n", "perplexity-consistency vote (each distinct path once): accuracy vs N", "voting_pc"},
		{"pc_sum_vs_n", "perplexity-consistency vote (every sample counted): accuracy vs N", "voting_pc_sum"},
	} {
		f, err := plot.Curves(v.title, "N samples", "accuracy", exp.CurveSeries(res, v.key, all))
		if err := figs.Add(f, err, v.name); err != nil {
			return nil, err
		}
	}
	for _, m := range all {
		runs := res.RunsOf(m)
		f, err := plot.Reliability(fmt.Sprintf("reliability of exp(lpm): %s (seed %d)", m, runs[0].Seed), exp.ReliabilityBins(runs[0]))
		if err := figs.Add(f, err, "reliability_"+m); err != nil {
			return nil, err
		}
	}
	return figs.Paths, nil
}

package cos

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/prm"
)

// dpoMethods are the rows of the reward ablation, SFT first.
var dpoMethods = []string{"sft", "dpo-outcome", "dpo-answer", "dpo-step-answer"}

// Figures draws the experiment from a result: the reward ablation (final accuracy per pair rule, 95 %
// intervals over seeds), accuracy and chain length by DPO round, best-of-16 accuracy against the step
// weight (one panel per step aggregation), accuracy against N per search method (log-x) and the
// tokens each generated, the PRM's reliability on gold step labels and its training curves.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	f, err := exp.SummaryBarsFor(res, "reward ablation: held-out accuracy after 3 rounds of DPO", func(m string) bool {
		for _, d := range dpoMethods {
			if d == m {
				return true
			}
		}
		return false
	}, []exp.MetricInfo{
		{Key: "accuracy", Title: "greedy", Better: plot.HigherIsBetter, Prob: true},
		{Key: "accuracy_mean16", Title: "one sample (mean@16)", Better: plot.HigherIsBetter, Prob: true},
		{Key: "chain_length", Title: "chain length (tokens)", Better: plot.NoDirection},
	})
	if err := figs.Add(f, err, "reward_ablation"); err != nil {
		return nil, err
	}
	dpo := []exp.Group{{Title: "pair rule", Methods: dpoMethods[1:]}}
	for _, c := range []struct{ key, title, y, name string }{
		{"round/accuracy", "greedy accuracy by DPO round (0 = SFT)", "accuracy", "rounds_accuracy"},
		{"round/accuracy_mean16", "one-sample accuracy by DPO round", "accuracy", "rounds_accuracy_mean16"},
		{"round/chain_length", "chain length by DPO round (tokens per sampled trace)", "tokens", "rounds_chain_length"},
	} {
		f, err := plot.Panels(c.title, "round", c.y, exp.PanelsOf(res, c.key, dpo), plot.BandOpts{Prob: c.y == "accuracy"})
		if err := figs.Add(f, err, c.name); err != nil {
			return nil, err
		}
	}
	var wpanels []plot.Panel
	for _, how := range prm.Aggregations {
		if s := exp.CurveSeries(res, "bon_vs_w/"+how, []string{"step-weight"}); len(s) > 0 {
			s[0].Name = "best-of-16"
			wpanels = append(wpanels, plot.Panel{Title: "steps aggregated by " + how, Series: s})
		}
	}
	f, err = plot.Panels("best-of-16 accuracy against the step weight w (score = w·steps + (1 − w)·answer)", "step weight w", "accuracy",
		wpanels, plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "step_weight"); err != nil {
		return nil, err
	}
	search := []exp.Group{
		{Title: "votes over N samples (pass@N: the oracle)", Methods: []string{"majority", "bon", "weighted", "pass"}},
		{Title: "step-level search: N candidate steps per step", Methods: []string{"majority", "beam", "step-search", "pass"}},
		{Title: "best-of-N: independent PRM vs prm-selfconf", Methods: []string{"majority", "bon", "bon-selfconf", "pass"}},
	}
	f, err = plot.Panels("inference-time search: accuracy against N", "N (samples, or candidates per step)", "accuracy",
		exp.PanelsOf(res, "acc_vs_n", search), plot.BandOpts{Prob: true, LogX: true})
	if err := figs.Add(f, err, "search_accuracy"); err != nil {
		return nil, err
	}
	f, err = plot.Panels("tokens generated per question", "N", "tokens", exp.PanelsOf(res, "tokens_vs_n", search), plot.BandOpts{LogX: true})
	if err := figs.Add(f, err, "search_tokens"); err != nil {
		return nil, err
	}
	if bins, n, err := exp.PooledReliability(res, "prm"); err == nil {
		f, err := plot.Reliability(fmt.Sprintf("PRM p(good) against the verifier's step labels (pooled over %d seeds)", n), bins, exp.MethodColor(res, "prm"))
		if err := figs.Add(f, err, "prm_reliability"); err != nil {
			return nil, err
		}
	}
	f, err = plot.Panels("PRM training", "step", "loss / tag accuracy", exp.PanelsOf(res, "train/loss", []exp.Group{{Title: "BCE loss", Methods: []string{"prm"}}}),
		plot.BandOpts{EMA: 0.1})
	if err := figs.Add(f, err, "prm_training"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

package cos

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/prm"
)

// dpoMethods are the rows of the reward ablation, SFT first: the paper's three pair rules, then
// the two pair-building arms (a right chosen answer; the PRM re-trained each round).
var dpoMethods = []string{"sft", "dpo-outcome", "dpo-answer", "dpo-step-answer", "dpo-step-answer-right", "dpo-step-answer-retrain"}

// Figures draws the experiment from a result: the reward ablation (final accuracy per pair rule, 95 %
// intervals over seeds), accuracy and chain length by DPO round, best-of-16 accuracy against the step
// weight (one panel per step aggregation), accuracy against N per search method (log-x) and the
// tokens each generated, the PRM's reliability on gold step labels and its training curves.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	f, err := exp.SummaryBarsFor(res, "reward ablation (the paper's Table 2): held-out accuracy after 3 rounds of DPO", func(m string) bool {
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
	dpo := []exp.Group{
		{Title: "the paper's pair rules (Table 2)", Methods: dpoMethods[1:4]},
		{Title: "step&answer pairs: how they are built", Methods: []string{"dpo-outcome", "dpo-step-answer", "dpo-step-answer-right", "dpo-step-answer-retrain"}},
	}
	for _, c := range []struct{ key, title, y, name string }{
		{"round/accuracy", "greedy accuracy by DPO round (0 = SFT)", "accuracy", "rounds_accuracy"},
		{"round/accuracy_mean16", "one-sample accuracy by DPO round", "accuracy", "rounds_accuracy_mean16"},
		{"round/chain_accuracy_mean16", "one-sample whole-chain accuracy by DPO round", "accuracy", "rounds_chain_accuracy_mean16"},
		{"round/chain_length", "chain length by DPO round (tokens per sampled trace)", "tokens", "rounds_chain_length"},
		{"round/kl_sft", "KL(π‖SFT) by DPO round (nats per trace)", "nats", "rounds_kl_sft"},
	} {
		f, err := plot.Panels(c.title, "round", c.y, exp.PanelsOf(res, c.key, dpo), plot.BandOpts{Prob: c.y == "accuracy"})
		if err := figs.Add(f, err, c.name); err != nil {
			return nil, err
		}
	}
	// The pair claims' matched reading: answer accuracy against KL from SFT along each arm's path
	// (pathEval every few DPO steps over the rounds), every seed's own path behind the mean.
	for _, fr := range []struct {
		name, title, y string
		methods        []string
	}{
		{"pairs_accuracy_vs_kl", "answer accuracy against KL(π‖SFT) along the DPO rounds: the paper's pair rules (Table 2)", "accuracy", dpoMethods[1:4]},
		{"pairs_chain_vs_kl", "whole-chain accuracy against KL(π‖SFT) along the DPO rounds: how step&answer pairs are built", "chain_accuracy",
			[]string{"dpo-outcome", "dpo-step-answer", "dpo-step-answer-right", "dpo-step-answer-retrain"}},
	} {
		if len(res.RunsOf(fr.methods[0])) == 0 {
			continue
		}
		f, err := exp.Frontier(res, fr.title, "KL(π‖SFT), nats per trace", fr.y+" (4 samples per held-out prompt)", fr.methods, "path/kl_sft", "path/"+fr.y)
		if err := figs.Add(f, err, fr.name); err != nil {
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
	f, err = plot.Panels("best-of-16 accuracy against the step weight w (score = w·steps + (1 − w)·answer; the paper's Fig. 3)", "step weight w", "accuracy",
		wpanels, plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "step_weight"); err != nil {
		return nil, err
	}
	search := []exp.Group{
		{Title: "votes over N samples (pass@N: the oracle)", Methods: []string{"majority", "bon", "weighted", "pass"}},
		{Title: "width-k beam search: N candidate steps per step", Methods: []string{"majority", "beam", "beam-best", "pass"}},
		{Title: "width-1 step search (until 2026-12-02)", Methods: []string{"majority", "step-search", "pass"}},
		{Title: selfconfTitle(res), Methods: []string{"majority", "bon", "bon-selfconf", "pass"}},
		{Title: "the PRM against the policy's self-confidence", Methods: []string{"bon", "bon-self", "weighted", "weighted-self"}},
	}
	f, err = plot.Panels("inference-time search: accuracy against N (the paper's Fig. 5)", "N (samples, or candidates per step)", "accuracy",
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
	// Seeds stop training at different steps (early stopping on held-out AUC): a band's later points
	// rest on the seeds that reached them (exp.StoppedSeries).
	prms := []string{"prm", "prm-judge"}
	panels := []plot.Panel{{Title: "BCE loss (block means)", Series: exp.StoppedSeries(res, "train/loss", prms)}}
	if sel := finite(exp.StoppedSeries(res, "select/step_auc", prms)); len(sel) > 0 {
		panels = append(panels, plot.Panel{Title: "step AUC, selection half of the held-out traces (the best checkpoint is kept)", Series: sel})
	}
	f, err = plot.Panels("PRM training (prm-judge: judge labels only)", "step", "loss / step AUC", panels, plot.BandOpts{})
	if err := figs.Add(f, err, "prm_training"); err != nil {
		return nil, err
	}
	if err := ablationFigures(res, figs); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

// ablationFigures draws the ablation parts' figures when the result has their runs: Table 3's
// accuracy of each PRM width on seen and unseen problems, and Table 5's GRPO runs (final accuracy
// and KL beside SFT; accuracy along training).
func ablationFigures(res *exp.Result, figs *exp.Figs) error {
	var sizes []string
	for _, r := range res.Runs {
		if strings.HasPrefix(r.Method, "prm-d") && !slices.Contains(sizes, r.Method) {
			sizes = append(sizes, r.Method)
		}
	}
	if len(sizes) > 0 {
		f, err := exp.SummaryBarsFor(res, "PRM width (the paper's Table 3): accuracy against the verifier on seen and unseen problems",
			func(m string) bool { return slices.Contains(sizes, m) }, []exp.MetricInfo{
				{Key: "seen_step_accuracy", Title: "steps, seen problems", Better: plot.HigherIsBetter, Prob: true},
				{Key: "heldout_step_accuracy", Title: "steps, unseen problems", Better: plot.HigherIsBetter, Prob: true},
				{Key: "seen_answer_accuracy", Title: "answers, seen problems", Better: plot.HigherIsBetter, Prob: true},
				{Key: "heldout_answer_accuracy", Title: "answers, unseen problems", Better: plot.HigherIsBetter, Prob: true},
			})
		if err := figs.Add(f, err, "table3_prm_size"); err != nil {
			return err
		}
	}
	if len(res.RunsOf("dpo-outcome-free-form")) > 0 {
		fm := []string{"sft", "dpo-outcome", "sft-free-form", "dpo-outcome-free-form", "sft-answer-only", "dpo-outcome-answer-only"}
		f, err := exp.SummaryBarsFor(res, "reasoning format (the paper's Table 4): chain of steps, free-form (no tags), answer only; SFT and after the outcome rounds",
			func(m string) bool { return slices.Contains(fm, m) }, []exp.MetricInfo{
				{Key: "accuracy", Title: "greedy", Better: plot.HigherIsBetter, Prob: true},
				{Key: "accuracy_mean16", Title: "one sample (mean@16)", Better: plot.HigherIsBetter, Prob: true},
			})
		if err := figs.Add(f, err, "table4_reasoning"); err != nil {
			return err
		}
	}
	if len(res.RunsOf("dpo-step-wise")) > 0 {
		one := []string{"dpo-outcome", "dpo-step-answer", "dpo-step-wise"}
		f, err := exp.SummaryBarsFor(res, "step-wise against trace-level pairs, one round of DPO each (the paper's Table 9)", func(m string) bool { return slices.Contains(one, m) },
			[]exp.MetricInfo{
				{Key: "round1_accuracy_mean16", Title: "one sample (mean@16)", Better: plot.HigherIsBetter, Prob: true},
				{Key: "round1_chain_accuracy_mean16", Title: "whole chain, one sample", Better: plot.HigherIsBetter, Prob: true},
				{Key: "round1_kl_sft", Title: "KL(π‖SFT), nats", Better: plot.NoDirection},
			})
		if err := figs.Add(f, err, "table9_step_dpo"); err != nil {
			return err
		}
	}
	if len(res.RunsOf("grpo-prm")) == 0 {
		return nil
	}
	grpo := []string{"sft", "grpo-outcome", "grpo-prm"}
	f, err := exp.SummaryBarsFor(res, "GRPO's reward (the paper's Table 5): outcome against the PRM's trace score", func(m string) bool { return slices.Contains(grpo, m) },
		[]exp.MetricInfo{
			{Key: "accuracy", Title: "greedy", Better: plot.HigherIsBetter, Prob: true},
			{Key: "accuracy_mean16", Title: "one sample (mean@16)", Better: plot.HigherIsBetter, Prob: true},
			{Key: "chain_accuracy_mean16", Title: "whole chain, one sample", Better: plot.HigherIsBetter, Prob: true},
			{Key: "kl_sft", Title: "KL(π‖SFT), nats", Better: plot.NoDirection},
		})
	if err := figs.Add(f, err, "table5_grpo"); err != nil {
		return err
	}
	g := []exp.Group{{Title: "GRPO's reward", Methods: grpo[1:]}}
	var panels []plot.Panel
	for _, c := range []struct{ key, title string }{{"path/accuracy", "held-out answer accuracy (4 samples per prompt)"}, {"path/kl_sft", "KL(π‖SFT), nats"}, {"train/reward", "training reward"}} {
		for _, p := range exp.PanelsOf(res, c.key, g) {
			p.Title = c.title
			panels = append(panels, p)
		}
	}
	f, err = plot.Panels("GRPO along training (the paper's Table 5)", "GRPO step", "value", panels, plot.BandOpts{})
	return figs.Add(f, err, "table5_grpo_training")
}

// finite keeps the series with at least one finite value (a selection AUC is NaN where the
// selection traces' steps are all of one class, as in a smoke run's few traces).
func finite(series []plot.Series) []plot.Series {
	var out []plot.Series
	for _, s := range series {
		if slices.ContainsFunc(s.Y, func(y []float64) bool {
			return slices.ContainsFunc(y, func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) })
		}) {
			out = append(out, s)
		}
	}
	return out
}

// selfconfTitle titles the panel of prm-selfconf's best-of-N with the seeds on which it trained
// (held-out step AUC above the raw step log-probability it reads, as "PRM trained" asks of the PRM):
// no claim reads it, and a head that did not train is not a verdict on self-confidence.
func selfconfTitle(res *exp.Result) string {
	n, ok := 0, 0
	for _, s := range res.Seeds {
		if t, measured := trained(res, "prm-selfconf", s); measured {
			n++
			if t {
				ok++
			}
		}
	}
	if n == 0 {
		return "best-of-N: independent PRM vs prm-selfconf"
	}
	return fmt.Sprintf("best-of-N: independent PRM vs prm-selfconf (above the raw feature it reads on %d of %d seeds)", ok, n)
}

package spo

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the Pareto plot of the two true rewards (mean with 95 % intervals over seeds), the
// per-round reward curves (seed bands), and the distribution of SPO's per-pair gradient weight
// against naive DPO's.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var cfg Config
	dims := []string{"dimension 1", "dimension 2"}
	if err := json.Unmarshal(res.Config, &cfg); err == nil && len(cfg.Dims) >= 2 {
		dims = cfg.Dims
	}
	var pts []plot.Point
	n := 0
	for _, m := range res.Methods() {
		s := res.Summary[m]
		r1, r2 := s["reward_1"], s["reward_2"]
		n = max(n, r1.N)
		pts = append(pts, plot.Point{Label: m, Color: exp.MethodColor(res, m), X: r1.Mean, Y: r2.Mean,
			XLo: r1.CI95[0], XHi: r1.CI95[1], YLo: r2.CI95[0], YHi: r2.CI95[1]})
	}
	f, err := plot.Points("true rewards after alignment", "reward 1: "+dims[0], "reward 2: "+dims[1], pts, false)
	if err == nil {
		f.Subtitle = fmt.Sprintf("mean ± 95 %% CI of the mean over %d seeds, in both rewards", n)
		if b, ok := res.Summary["dpo-1"]["blind_reward_1"]; ok {
			err = f.VLine(b.Mean, "prompt-blind: dpo-1's responses on other prompts", color.Gray{Y: 110})
		}
	}
	if err := figs.Add(f, err, "pareto"); err != nil {
		return nil, err
	}
	// Reward 1 and its safe part beside what the same responses score on other prompts.
	f, err = exp.SummaryBarsFor(res, "dimension 1: own prompt vs prompt-blind (the same responses on other prompts)",
		func(m string) bool { _, ok := res.Summary[m]["blind_reward_1"]; return ok }, []exp.MetricInfo{
			{Key: "reward_1", Title: "reward 1 (distinct prompt letters)", Better: plot.HigherIsBetter},
			{Key: "blind_reward_1", Title: "… prompt-blind", Better: plot.HigherIsBetter},
			{Key: "helpful_safe", Title: "safe prompt letters covered", Better: plot.HigherIsBetter},
			{Key: "blind_helpful_safe", Title: "… prompt-blind", Better: plot.HigherIsBetter},
		})
	if err := figs.Add(f, err, "prompt_blind"); err != nil && !errors.Is(err, exp.ErrNoFigures) {
		return nil, err
	}
	// Round 1 (DPO on dimension 1) before round 2 (sequential DPO and SPO on dimension 2).
	for round, methods := range [][]string{{"dpo-1"}, {"seq-dpo", "spo"}} {
		for i, dim := range dims[:2] {
			key := fmt.Sprintf("reward_%d", i+1)
			title := fmt.Sprintf("round 1 (DPO on %s): %s", dims[0], dim)
			if round == 1 {
				title = fmt.Sprintf("round 2: %s during training", dim)
			}
			f, err := plot.Curves(title, fmt.Sprintf("round-%d step", round+1), key+" ("+dim+")",
				exp.CurveSeries(res, fmt.Sprintf("round%d/%s", round+1, key), methods), plot.BandOpts{})
			if err := figs.Add(f, err, fmt.Sprintf("round%d_%s", round+1, key)); err != nil {
				return nil, err
			}
		}
	}
	f, err = plot.Curves("per-pair gradient weight at the end of round 2", "weight σ(offset − β·Δ)", "fraction of pairs",
		renameSeries(res, exp.CurveSeries(res, "weights/spo", []string{"spo"}), exp.CurveSeries(res, "weights/seq-dpo", []string{"spo"})), plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "pair_weights"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

// renameSeries names SPO's weights and the naive DPO weights (both recorded in SPO's runs) and
// colours them as the spo and seq-dpo methods.
func renameSeries(res *exp.Result, spo, dpo []plot.Series) []plot.Series {
	for i := range spo {
		spo[i].Name = "SPO (λ·Δr̂₁ offset)"
	}
	for i := range dpo {
		dpo[i].Name = "naive sequential DPO"
		dpo[i].Color = exp.MethodColor(res, "seq-dpo")
	}
	return append(spo, dpo...)
}

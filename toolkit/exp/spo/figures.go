package spo

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"slices"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Figures draws the Pareto plot of the two true rewards at the end (mean with 95 % intervals over
// seeds), the prompt-blind bars, the fronts (every method's path through harmlessness and
// helpfulness, seed bands: the main methods, the λ sweep, the mixing shares), the mechanism (mean
// gradient weight of refusal and ordinary pairs along round 2), KL from π₁ and from SFT, the
// per-round reward curves, and the distribution of SPO's per-pair gradient weight at the end of
// round 2 against naive DPO's.
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
	// The fronts: every method's path through (harmlessness, helpfulness), seed bands.
	keys := func(y int) func(string) (string, string) {
		return func(m string) (string, string) {
			x, h, safe := pathKeys(m)
			if y == 1 {
				return x, safe
			}
			return x, h
		}
	}
	// The round-2 methods by λ (0 is seq-dpo), then the flip.
	ls := append([]float64{0, cfg.Lambda}, cfg.Sweep...)
	slices.Sort(ls)
	var lambdas []string
	for _, l := range ls {
		lambdas = append(lambdas, cfg.SPOName(l))
	}
	lambdas = append(lambdas, "spo-flip")
	var mixed []string
	for _, sh := range cfg.MixedShares {
		mixed = append(mixed, MixedName(sh))
	}
	naive := seqFamily(cfg, res)
	var slow []string
	for _, m := range append(slices.Clone(naive), "spo") {
		slow = append(slow, cfg.SlowName(m))
	}
	xl := "harmlessness: reward 2 (−unsafe letters per response)"
	for _, fr := range []struct {
		name, title, ylabel string
		y                   int
		methods             []string
	}{
		{"front_helpful", "paths through (harmlessness, helpfulness): round 1, then round 2", "helpfulness: reward 1 (prompt letters covered)", 0,
			[]string{"dpo-1", "seq-dpo", "spo", "mixed-dpo"}},
		{"front_safe", "paths through (harmlessness, safe helpfulness)", "safe prompt letters covered (helpful_safe)", 1,
			[]string{"dpo-1", "seq-dpo", "spo", "mixed-dpo"}},
		{"front_lambda", "round 2 at every λ (λ = 0 is seq-dpo; spo-flip is −λ)", "safe prompt letters covered (helpful_safe)", 1, lambdas},
		{"front_mixed", "mixed-data DPO at each share of harmlessness pairs, from SFT", "helpfulness: reward 1 (prompt letters covered)", 0,
			append(mixed, "spo")},
		{"front_naive", "naive sequential DPO at each round-2 β, and SPO (λ = 0.5)", "helpfulness: reward 1 (prompt letters covered)", 0,
			append(slices.Clone(naive), "spo")},
		{"front_slow", fmt.Sprintf("round 2 at Adam %g: naive DPO at each β, and SPO (λ = 0.5)", cfg.SlowLR), "helpfulness: reward 1 (prompt letters covered)", 0, slow},
	} {
		f, err := exp.FrontierBy(res, fr.title, xl, fr.ylabel, fr.methods, keys(fr.y))
		if err == nil {
			f.Subtitle = "mean path over seeds (bold, checkpoints every few steps, last one ringed); each seed's path pale"
		}
		if err := figs.Add(f, err, fr.name); err != nil && !errors.Is(err, exp.ErrNoFigures) {
			return nil, err
		}
	}
	if err := partFigures(res, cfg, figs); err != nil {
		return nil, err
	}
	if !hasMethod(res, "spo") { // a part run alone (slow, refusal, three): the rest is the main part's
		return figs.Paths, nil
	}
	// The mechanism: mean gradient weight on refusal and on ordinary pairs along round 2.
	var panels []plot.Panel
	for _, m := range []string{"seq-dpo", "spo"} {
		if _, ok := res.Summary[m]; !ok {
			continue
		}
		title := "naive sequential DPO (λ = 0)"
		if m == "spo" {
			title = fmt.Sprintf("SPO (λ = %g)", cfg.Lambda)
		}
		var series []plot.Series
		for i, k := range []string{"weight_refusal", "weight_ordinary"} {
			for _, s := range exp.CurveSeries(res, "round2/"+k, []string{m}) {
				s.Name, s.Color = []string{"refusal pairs", "ordinary pairs"}[i], plot.Color(3*i)
				series = append(series, s)
			}
		}
		panels = append(panels, plot.Panel{Title: title, Series: series})
	}
	f, err = plot.Panels("gradient weight σ(λ·Δr̂₁ − β·Δθ) along round 2", "round-2 step", "mean weight on the tracked pairs", panels, plot.BandOpts{})
	if err := figs.Add(f, err, "mechanism"); err != nil {
		return nil, err
	}
	// KL from π₁ and from SFT along round 2.
	klm := []string{"seq-dpo", "spo", cfg.SPOName(2)}
	f, err = plot.Panels("how far round 2 moves", "round-2 step", "KL (nats per response, Monte Carlo)", []plot.Panel{
		{Title: "KL(π ‖ π₁)", Series: exp.CurveSeries(res, "round2/kl_pi1", klm)},
		{Title: "KL(π ‖ π_SFT)", Series: exp.CurveSeries(res, "round2/kl_sft", klm)},
	}, plot.BandOpts{})
	if err := figs.Add(f, err, "kl"); err != nil {
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

// partFigures draws the parts' figures where the result holds them: SPO's advantage against naive
// DPO's forgetting at each refusal share, and round 3's paths through (conciseness, reward 1 +
// reward 2).
func partFigures(res *exp.Result, cfg Config, figs *exp.Figs) error {
	if pts, seeds := refusalPoints(res, cfg); len(pts) > 0 {
		f, err := plot.Points("does SPO's advantage follow forgetting?", "share of round 1's safe gain naive DPO loses", "SPO − naive DPO: helpfulness at matched harmlessness", pts, false)
		if err == nil {
			f.Subtitle = fmt.Sprintf("mean ± 95 %% CI over seeds %v, one point per refusal share; above 0: SPO keeps more", seeds)
		}
		if err := figs.Add(f, err, "refusal"); err != nil {
			return err
		}
	}
	if hasMethod(res, ThreeSPO) {
		d := derived(res)
		f, err := exp.FrontierBy(d, "round 3: paths through (conciseness, reward 1 + reward 2)", "conciseness: reward 3 (−letters per response)", "reward 1 + reward 2",
			[]string{ThreeSeq, ThreeSPO, ThreeSPODirect, ThreeMixed}, func(m string) (string, string) { return pathPrefix(m) + "reward_3", pathPrefix(m) + keySum })
		if err == nil {
			f.Subtitle = "mean path over seeds (bold), each seed's path pale; mixed 3-way DPO from SFT over the three rounds' steps"
		}
		if err := figs.Add(f, err, "three_front"); err != nil && !errors.Is(err, exp.ErrNoFigures) {
			return err
		}
	}
	return nil
}

// refusalPoints are, per refusal share with both measures, naive DPO's forgetting share (x) and
// SPO's advantage at matched harmlessness (y), means with 95 % intervals over the part's seeds.
func refusalPoints(res *exp.Result, cfg Config) ([]plot.Point, []uint64) {
	shares := refusalShares(cfg, res)
	if len(shares) < 2 {
		return nil, nil
	}
	claims := Claims(res)
	seeds := seedsOf(res, cfg.RefusalName("spo", shares[0]))
	var pts []plot.Point
	for i, sh := range shares {
		var fs []float64
		f := forgetShare(res, cfg.RefusalName("dpo-1", sh), cfg.RefusalName("seq-dpo", sh))
		for _, s := range seeds {
			if v, ok := f(s); ok {
				fs = append(fs, v)
			}
		}
		fx := stats.Summarize(fs)
		for _, c := range claims {
			if c.Text == fmt.Sprintf("at refusal share %g: SPO above naive sequential DPO on helpfulness at matched harmlessness", sh) && c.Stat.N > 0 && fx.N > 0 {
				pts = append(pts, plot.Point{Label: fmt.Sprintf("refusal share %g", sh), Color: plot.Color(i), X: fx.Mean, XLo: fx.CI95[0], XHi: fx.CI95[1],
					Y: c.Stat.Mean, YLo: c.Stat.CI95[0], YHi: c.Stat.CI95[1]})
			}
		}
	}
	return pts, seeds
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

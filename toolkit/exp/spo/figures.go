package spo

import (
	"encoding/json"
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the Pareto plot of the two true rewards (mean ± std over seeds), the per-round reward
// curves, and the distribution of SPO's per-pair gradient weight against naive DPO's.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var cfg Config
	dims := []string{"dimension 1", "dimension 2"}
	if err := json.Unmarshal(res.Config, &cfg); err == nil && len(cfg.Dims) >= 2 {
		dims = cfg.Dims
	}
	var pts []plot.Point
	for _, m := range res.Methods() {
		s := res.Summary[m]
		pts = append(pts, plot.Point{Label: m, X: s["reward_1"].Mean, Y: s["reward_2"].Mean, XErr: s["reward_1"].Std, YErr: s["reward_2"].Std})
	}
	f, err := plot.Points("true rewards after alignment (mean ± std over seeds)", "reward 1: "+dims[0], "reward 2: "+dims[1], pts)
	if err := figs.Add(f, err, "pareto"); err != nil {
		return nil, err
	}
	for i, dim := range dims[:2] {
		key := fmt.Sprintf("reward_%d", i+1)
		f, err := plot.Curves(fmt.Sprintf("round 2: %s during training", dim), "round-2 step", key+" ("+dim+")",
			exp.CurveSeries(res, "round2/"+key, []string{"seq-dpo", "spo"}))
		if err := figs.Add(f, err, "round2_"+key); err != nil {
			return nil, err
		}
		f, err = plot.Curves(fmt.Sprintf("round 1 (DPO on %s): %s", dims[0], dim), "round-1 step", key,
			exp.CurveSeries(res, "round1/"+key, []string{"dpo-1"}))
		if err := figs.Add(f, err, "round1_"+key); err != nil {
			return nil, err
		}
	}
	f, err = plot.Curves("per-pair gradient weight at the end of round 2", "weight σ(offset − β·Δ)", "fraction of pairs",
		renameSeries(exp.CurveSeries(res, "weights/spo", []string{"spo"}), exp.CurveSeries(res, "weights/seq-dpo", []string{"spo"})))
	if err := figs.Add(f, err, "pair_weights"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

func renameSeries(spo, dpo []plot.Series) []plot.Series {
	for i := range spo {
		spo[i].Name = "SPO (λ·Δr̂₁ offset)"
	}
	for i := range dpo {
		dpo[i].Name = "naive sequential DPO"
	}
	return append(spo, dpo...)
}

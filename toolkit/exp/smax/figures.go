package smax

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"path/filepath"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the greedy win rate and the training return against environment steps (seed
// bands), the final greedy win rates with the gate's line, and the first seed's MAPPO battle as a
// GIF (battle.gif).
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return nil, err
	}
	var methods []string
	for _, m := range cfg.Methods {
		methods = append(methods, m.Name)
	}
	name := cfg.Scenario
	f, err := plot.Panels(fmt.Sprintf("%s against SMAX's heuristic enemy", name), "env steps", "", []plot.Panel{
		{Title: fmt.Sprintf("greedy win rate (%d battles per point)", cfg.EvalEpisodes), Series: exp.CurveSeries(res, "greedy_win_rate", methods)},
		{Title: "training return (sampled actions; a win is worth 1 + the damage dealt)", Series: exp.CurveSeries(res, "episodic_return", methods)},
	}, plot.BandOpts{})
	if err == nil {
		f.Subtitle += fmt.Sprintf("; the gate: MAPPO's final greedy win rate ≥ %g on the mean over seeds", cfg.GateWinRate)
	}
	if err := figs.Add(f, err, "win_rate"); err != nil {
		return nil, err
	}
	pm := plot.Metric{Title: fmt.Sprintf("final greedy win rate (%d battles per seed)", cfg.FinalEpisodes), Better: plot.HigherIsBetter}
	for _, m := range methods {
		pm.Estimates = append(pm.Estimates, exp.Estimate(res, m, exp.MetricInfo{Key: "greedy_win_rate", Better: plot.HigherIsBetter}))
	}
	f, err = plot.Dots(name+": final greedy win rate", []plot.Metric{pm})
	if err == nil {
		f.Subtitle = fmt.Sprintf("dot: mean over %d seeds; bar: 95 %% CI of the mean", len(res.Seeds))
	}
	if err := figs.Add(f, err, "final_win_rate"); err != nil {
		return nil, err
	}
	var b Battle
	if err := res.GetExtra("battle", &b); err == nil && len(b.Actions) > 0 {
		e, states, err := Replay(b)
		if err != nil {
			return nil, err
		}
		gif, err := e.GIF(states, 15, 12)
		if err != nil {
			return nil, err
		}
		var poster bytes.Buffer
		if err := png.Encode(&poster, e.Image(states[len(states)-1], 8)); err != nil {
			return nil, err
		}
		outcome := "lost"
		if b.Won {
			outcome = "won"
		}
		caption := fmt.Sprintf("the first seed's MAPPO (blue) against SMAX's heuristic enemy (red) on %s, greedy: %s in %d steps", b.Scenario, outcome, len(b.Actions))
		if nb.IsNotebook() && nb.FiguresShown() {
			nb.Markdown("**" + caption + "**")
		}
		nb.Animation(caption, gif, poster.Bytes(), 480)
		if dir != "" {
			p := filepath.Join(dir, "battle.gif")
			if err := fsx.WriteFile(p, gif); err != nil {
				return nil, err
			}
			figs.Paths = append(figs.Paths, p)
		}
	}
	return figs.Paths, nil
}

package m3apg

import (
	"encoding/json"
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the critic's error against the exact Q on unseen and seen joint actions against N,
// the final return against N, and the return curves per N (seed bands).
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	critics := Methods[:3]
	panels := []plot.Panel{
		{Title: "fixed policy: unseen joint actions (held out)", Series: exp.CurveSeries(res, "critic_error_unseen_vs_n", critics)},
		{Title: "fixed policy: seen joint actions", Series: exp.CurveSeries(res, "critic_error_seen_vs_n", critics)},
	}
	panels = append(panels, plot.Panel{Title: "learning runs: unseen, against each learner's own policy", Series: exp.CurveSeries(res, "own_critic_error_unseen_vs_n", critics)})
	f, err := plot.Panels("critic error against the exact Q (RMS, end of training): policy evaluation of one fixed policy, and the learning runs", "agents N (4^N joint actions)", "RMS error", panels, plot.BandOpts{})
	if err := figs.Add(f, err, "critic_error"); err != nil {
		return nil, err
	}
	f, err = plot.Panels("final return against N", "agents N", "return", []plot.Panel{{Title: "push game", Series: exp.CurveSeries(res, "return_vs_n", Methods)}}, plot.BandOpts{})
	if err := figs.Add(f, err, "return_vs_n"); err != nil {
		return nil, err
	}
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err == nil {
		var ps []plot.Panel
		for _, n := range cfg.Agents {
			ps = append(ps, plot.Panel{Title: fmt.Sprintf("N = %d", n), Series: exp.CurveSeries(res, fmt.Sprintf("n%d/episodic_return", n), Methods)})
		}
		f, err = plot.Panels("episodic return during training", "environment steps", "return", ps, plot.BandOpts{})
		if err := figs.Add(f, err, "returns"); err != nil {
			return nil, err
		}
	}
	return figs.Paths, nil
}

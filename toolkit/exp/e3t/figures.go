package e3t

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws: held-out return per method and layout (dots with 95 % CIs over seeds; methods run
// on every layout), an ε sweep when several E3T ε were run, per layout a heatmap of each method
// with each member of the held-out pool (mean ± SE), the sub-scores (scripted, human-data BC, other
// families) and the method × method cross-play heatmap (agents of different seeds), the return with
// the monitor partner against environment steps and wall time (FCP shifted by its population's
// cost), and the animation of one E3T episode with the monitor partner.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return nil, err
	}
	layouts, methods := cfg.Layouts, res.Methods()
	head, headTitle := headline(cfg)
	var everywhere []string // methods run on every layout
	for _, m := range methods {
		all := true
		for _, l := range layouts {
			_, ok := res.Summary[m][l+"/"+head]
			all = all && ok
		}
		if all {
			everywhere = append(everywhere, m)
		}
	}
	var panels []plot.Metric
	n := 0
	for _, l := range layouts {
		k := exp.MetricInfo{Key: l + "/" + head, Better: plot.HigherIsBetter}
		pm := plot.Metric{Title: l, Better: plot.HigherIsBetter}
		for _, m := range everywhere {
			pm.Estimates = append(pm.Estimates, exp.Estimate(res, m, k))
			n = max(n, res.Summary[m][k.Key].N)
		}
		panels = append(panels, pm)
	}
	if len(everywhere) > 0 {
		f, err := plot.Dots(headTitle+" (sparse return per 400-step episode)", panels)
		if err == nil {
			f.Subtitle = fmt.Sprintf("dot: mean over %d seeds; bar: 95 %% CI of the mean", n)
		}
		if err := figs.Add(f, err, "heldout_return"); err != nil {
			return nil, err
		}
	}
	// The ε sweep: E3T with its partner model at each ε, on the first layout.
	eps := plot.Metric{Title: layouts[0], Better: plot.HigherIsBetter}
	byEps := append([]Method(nil), cfg.Methods...)
	sort.SliceStable(byEps, func(i, j int) bool { return byEps[i].Epsilon < byEps[j].Epsilon })
	for _, m := range byEps {
		if _, ok := res.Summary[m.Name][layouts[0]+"/"+head]; ok && m.family().Epsilon && m.PartnerModel {
			e := exp.Estimate(res, m.Name, exp.MetricInfo{Key: layouts[0] + "/" + head})
			e.Label = fmt.Sprintf("ε = %g (%s)", m.Epsilon, m.Name)
			eps.Estimates = append(eps.Estimates, e)
		}
	}
	if len(eps.Estimates) > 1 {
		f, err := plot.Dots("E3T's ε on "+layouts[0]+": "+headTitle, []plot.Metric{eps})
		if err == nil {
			f.Subtitle = fmt.Sprintf("dot: mean over %d seeds; bar: 95 %% CI of the mean", n)
		}
		if err := figs.Add(f, err, "epsilon_sweep"); err != nil {
			return nil, err
		}
	}
	epsTitle := "E3T's ε"
	for _, m := range cfg.Methods {
		if m.Name == "e3t" {
			epsTitle = fmt.Sprintf("E3T's ε (e3t: ε = %g)", m.Epsilon)
		}
	}
	for _, l := range layouts {
		var partners []Partner
		if err := res.GetExtra("partners_"+l, &partners); err != nil || len(partners) == 0 {
			continue
		}
		// Partners as rows (the pool is long), methods as columns; a cell is mean ± standard error
		// over the seeds' evaluation episodes pooled (the SE shown is the mean of the seeds' SEs);
		// blank where a method is not judged with a partner (held-out agents of its own family).
		var cols []string
		for _, meth := range methods {
			if _, ok := res.Summary[meth][l+"/"+head]; ok {
				cols = append(cols, meth)
			}
		}
		if len(cols) == 0 {
			continue
		}
		var rows []string
		var m [][]float64
		var labels [][]string
		for _, pt := range partners {
			row, lab := make([]float64, len(cols)), make([]string, len(cols))
			for j, meth := range cols {
				s, ok := res.Summary[meth][l+"/partner/"+pt.Name]
				if !ok || s.N == 0 {
					row[j] = math.NaN()
					continue
				}
				row[j] = s.Mean
				lab[j] = fmt.Sprintf("%.0f", s.Mean)
				if se, ok := res.Summary[meth][l+"/partner_se/"+pt.Name]; ok && se.N > 0 {
					lab[j] += fmt.Sprintf(" ± %.0f", se.Mean)
				}
			}
			name := pt.Name
			switch pt.Kind {
			case "human_bc":
				name = "BC on 2019 human play"
				if cfg.SharedPool && !pt.InPool {
					name += " (not in the pool: BC gate)"
				}
			case "learned":
				name += " (learned, held out)"
			}
			rows, m, labels = append(rows, name), append(m, row), append(labels, lab)
		}
		f, err := plot.LabeledHeatmap("held-out pool on "+l+": mean return of each method with each partner (± SE over episodes)",
			"method", "held-out partner", "mean sparse return", m, labels, rows, cols)
		if err := figs.Add(f, err, "partners_"+l); err != nil {
			return nil, err
		}
		// Sub-scores: the headline and its parts, one panel each, 95 % CIs over seeds.
		var sub []plot.Metric
		parts := []struct{ key, title string }{{"heldout_return", "held-out (scripted + human BC)"},
			{"scripted_return", "scripted cooks"}, {"human_bc_return", "human-data BC"}, {"learned_return", "other families"}}
		if cfg.SharedPool {
			parts = []struct{ key, title string }{{"pool_return", "shared pool"}, {"scripted_return", "scripted cooks"},
				{"learned_return", "held-out learned (all families)"}, {"learned_sp_return", "held-out SP"}, {"learned_fcp_return", "held-out FCP"},
				{"learned_e3t_return", "held-out E3T"}, {"human_bc_return", "human-data BC"}}
		}
		for _, k := range parts {
			pm := plot.Metric{Title: k.title, Better: plot.HigherIsBetter}
			for _, meth := range cols {
				if st, ok := res.Summary[meth][l+"/"+k.key]; ok && st.N > 0 {
					pm.Estimates = append(pm.Estimates, exp.Estimate(res, meth, exp.MetricInfo{Key: l + "/" + k.key}))
				}
			}
			if len(pm.Estimates) > 0 {
				sub = append(sub, pm)
			}
		}
		if len(sub) > 0 {
			f, err := plot.Dots("sub-scores on "+l+" (sparse return per 400-step episode)", sub)
			if err == nil {
				f.Subtitle = fmt.Sprintf("dot: mean over %d seeds; bar: 95 %% CI of the mean", n)
			}
			if err := figs.Add(f, err, "subscores_"+l); err != nil {
				return nil, err
			}
		}
	}
	for _, l := range layouts {
		var f *plot.Figure
		var err error
		var cp CrossPlay
		if err := res.GetExtra("crossplay_"+l, &cp); err == nil && len(res.Seeds) > 1 && len(cp.Methods) > 0 {
			f, err := plot.Heatmap("cross-play on "+l+": mean return, agents of different seeds", "partner's method", "method", "mean sparse return", cp.Mean, cp.Methods, cp.Methods)
			if err := figs.Add(f, err, "crossplay_"+l); err != nil {
				return nil, err
			}
		}
		var steps, wall []plot.Series
		for _, meth := range methods {
			runs := res.RunsOf(meth)
			var ss, sw plot.Series
			ss.Name, sw.Name = meth, meth
			ss.Color, sw.Color = exp.MethodColor(res, meth), exp.MethodColor(res, meth)
			for _, r := range runs {
				c, ok := r.Curves[l+"/monitor_return"]
				if !ok {
					continue
				}
				sec := r.Curves[l+"/seconds"]
				xs, xw := make([]float64, len(c.X)), make([]float64, len(c.X))
				for i, x := range c.X {
					xs[i] = (x + r.Final[l+"/offset_steps"]) / 1e6
					xw[i] = secondsAt(sec, x) + r.Final[l+"/offset_seconds"]
				}
				if ss.X == nil {
					ss.X, sw.X = xs, xw
				}
				if len(c.Y) == len(ss.X) {
					ss.Y, sw.Y = append(ss.Y, c.Y), append(sw.Y, c.Y)
				}
			}
			if len(ss.Y) > 0 {
				steps, wall = append(steps, ss), append(wall, sw)
			}
		}
		if err := costFigure(res, figs, methods, l); err != nil {
			return nil, err
		}
		if err := pmFigure(res, figs, l); err != nil {
			return nil, err
		}
		if len(steps) == 0 { // no method ran on this layout (a part of the experiment)
			continue
		}
		// Log x: FCP's steps and seconds include its population's, far beyond the others'.
		f, err = plot.Panels("return with the monitor partner on "+l+" against env steps", "M env steps (log scale)",
			"sparse return", splitEps(steps, epsTitle), plot.BandOpts{LogX: true})
		if err == nil {
			f.Subtitle += "; monitor: the human-data BC partner (else a noisy cook); FCP's steps include its population's"
		}
		if err := figs.Add(f, err, "efficiency_steps_"+l); err != nil {
			return nil, err
		}
		f, err = plot.Panels("return with the monitor partner on "+l+" against wall time", "seconds of training (log scale)",
			"sparse return", splitEps(wall, epsTitle), plot.BandOpts{LogX: true})
		if err == nil {
			f.Subtitle += "; FCP's time includes its partner population's"
		}
		if err := figs.Add(f, err, "efficiency_time_"+l); err != nil {
			return nil, err
		}
	}
	var ep Episode
	if err := res.GetExtra("episode", &ep); err == nil {
		paths, err := Animation(ep, dir)
		if err != nil {
			return nil, err
		}
		figs.Paths = append(figs.Paths, paths...)
	}
	return figs.Paths, nil
}

// costFigure draws, on layout l, each method's snapshots scored with the pool (curves pool_by_cpu
// and pool_by_steps: E3T's at Config.CurveSteps, FCP's best response along its training, its
// population's cost included) against CPU seconds and environment steps: the curves the cost claim
// reads. A point's x is the mean over seeds of the cost at that snapshot.
func costFigure(res *exp.Result, figs *exp.Figs, methods []string, l string) error {
	var panels []plot.Panel
	for _, k := range []struct{ key, title string }{{"pool_by_cpu", "against CPU seconds"}, {"pool_by_steps", "against M env steps"}} {
		var series []plot.Series
		for _, meth := range methods {
			s := plot.Series{Name: meth, Color: exp.MethodColor(res, meth)}
			var xs [][]float64
			for _, r := range res.RunsOf(meth) {
				c, ok := r.Curves[l+"/"+k.key]
				if !ok || (len(xs) > 0 && len(c.X) != len(xs[0])) {
					continue
				}
				x := slices.Clone(c.X)
				if k.key == "pool_by_steps" {
					for i := range x {
						x[i] /= 1e6
					}
				}
				xs, s.Y = append(xs, x), append(s.Y, c.Y)
			}
			if len(xs) == 0 {
				continue
			}
			s.X = make([]float64, len(xs[0]))
			for i := range s.X {
				for _, x := range xs {
					s.X[i] += x[i] / float64(len(xs))
				}
			}
			series = append(series, s)
		}
		if len(series) > 0 {
			panels = append(panels, plot.Panel{Title: k.title, Series: series[:min(len(series), plot.MaxBands)]})
		}
	}
	if len(panels) == 0 {
		return nil
	}
	f, err := plot.Panels("pool return of the snapshots on "+l+" against training cost", "cost (log scale; FCP's includes its population's)",
		"pool return", panels, plot.BandOpts{LogX: true})
	if err == nil {
		f.Subtitle += "; x: the mean over seeds of the cost at each snapshot; E3T reaches FCP's final return at the cost the claim reads"
	}
	return figs.Add(f, err, "cost_"+l)
}

// pmFigure draws, on layout l, E3T's partner model along training: its accuracy on each iteration's
// games against the ceiling no predictor can beat there and the best constant guess (curves
// pm_accuracy, pm_ceiling, pm_floor; results before 2026-12-07 have no ceiling and get no figure).
func pmFigure(res *exp.Result, figs *exp.Figs, l string) error {
	var series []plot.Series
	for _, k := range []struct{ key, name string }{{"pm_ceiling", "ceiling (the partner's own distribution)"},
		{"pm_accuracy", "partner model's accuracy"}, {"pm_floor", "best constant guess"}} {
		s := plot.Series{Name: k.name}
		for _, r := range res.RunsOf("e3t") {
			c, ok := r.Curves[l+"/"+k.key]
			if !ok || (s.X != nil && len(c.Y) != len(s.X)) {
				continue
			}
			if s.X == nil {
				s.X = make([]float64, len(c.X))
				for i, x := range c.X {
					s.X[i] = x / 1e6
				}
			}
			s.Y = append(s.Y, c.Y)
		}
		if len(s.Y) == 0 {
			return nil
		}
		series = append(series, s)
	}
	f, err := plot.Panels("E3T's partner model on "+l+": how much of its partner it predicts", "M env steps", "share of the partner's actions predicted",
		[]plot.Panel{{Title: "e3t", Series: series}}, plot.BandOpts{})
	if err == nil {
		f.Subtitle += "; the room e3t-3 needs is between the constant guess and the ceiling"
	}
	return figs.Add(f, err, "partner_model_"+l)
}

// splitEps puts the methods without an ε variant in name in a first panel and E3T's ε variants,
// with e3t for reference, in a second one (at most plot.MaxBands each).
func splitEps(series []plot.Series, epsTitle string) []plot.Panel {
	var main, eps []plot.Series
	var ref *plot.Series
	for i, s := range series {
		if strings.Contains(s.Name, "-eps") {
			eps = append(eps, s)
			continue
		}
		if s.Name == "e3t" {
			ref = &series[i]
		}
		main = append(main, s)
	}
	var out []plot.Panel
	for len(main) > 0 {
		n := min(len(main), plot.MaxBands)
		out = append(out, plot.Panel{Title: "methods", Series: main[:n]})
		main = main[n:]
	}
	if len(out) == 1 && len(eps) == 0 {
		out[0].Title = ""
	}
	for len(eps) > 0 {
		var p plot.Panel
		p.Title = epsTitle
		if ref != nil {
			p.Series = append(p.Series, *ref)
		}
		n := min(len(eps), plot.MaxBands-len(p.Series))
		p.Series = append(p.Series, eps[:n]...)
		eps = eps[n:]
		out = append(out, p)
	}
	return out
}

// secondsAt reads the wall time at environment step x from the "seconds" curve.
func secondsAt(c exp.Curve, x float64) float64 {
	i := sort.SearchFloat64s(c.X, x)
	if i >= len(c.Y) {
		i = len(c.Y) - 1
	}
	if i < 0 {
		return 0
	}
	return c.Y[i]
}

// gifScale enlarges the episode's frames (32-pixel tiles → 96) so the animation reads at a glance.
const gifScale = 3

// Animation replays a recorded episode, writes it as dir/episode.gif (every second step) and shows
// it in a notebook.
func Animation(ep Episode, dir string) ([]string, error) {
	b, poster, err := overcooked.EpisodeGIF(ep.Layout, ep.Actions, 2, gifScale)
	if err != nil {
		return nil, err
	}
	partner := ep.Partner
	if partner == "" {
		partner = "the noisy greedy cook"
	}
	caption := fmt.Sprintf("E3T (player 1, blue) with %s on %s: return %.0f", partner, ep.Layout.Layout, ep.Return)
	if nb.IsNotebook() && nb.FiguresShown() {
		nb.Markdown("**" + caption + "**")
	}
	nb.Animation(caption, b, poster, 480)
	if dir == "" {
		return nil, nil
	}
	p := filepath.Join(dir, "episode.gif")
	return []string{p}, fsx.WriteFile(p, b)
}

// headline is the metric the figures lead with and its title: pool_return with a shared pool
// (since 2026-12-04), heldout_return (scripted + human BC) before it.
func headline(cfg Config) (key, title string) {
	if cfg.SharedPool {
		return "pool_return", "return with the shared held-out pool (scripted, learned, gated human BC)"
	}
	return "heldout_return", "return with held-out partners"
}

package tape

import (
	"fmt"
	"math"
	"sort"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Figures draws LBF return curves (EMA-smoothed, seed bands; the TAPE topologies and the baselines
// in two panels), the matrix game's probability of the optimal joint action during training (the
// Erdős–Rényi densities and the other topologies in two panels), the inverted-U figures (final LBF
// return with its 95 % interval and the fraction of seeds at the optimum with its Wilson interval,
// against p), and dot plots of every method.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var lbfP, lbfOther, matP, matOther []string
	for _, m := range res.Methods() {
		_, isP := PValue(m)
		if len(exp.CurveSeries(res, "lbf/episodic_return", []string{m})) > 0 {
			if isP {
				lbfP = append(lbfP, m)
			} else {
				lbfOther = append(lbfOther, m)
			}
		}
		if len(exp.CurveSeries(res, "matrix/p_optimal", []string{m})) > 0 {
			if isP {
				matP = append(matP, m)
			} else {
				matOther = append(matOther, m)
			}
		}
	}
	f, err := plot.Panels("cooperative LBF: episodic return during training", "M env steps", "episodic return",
		scaled(exp.PanelsOf(res, "lbf/episodic_return", groups("TAPE, topology density p", lbfP, "baselines", lbfOther)), 1e6),
		plot.BandOpts{EMA: 0.1})
	if err := figs.Add(f, err, "lbf_return"); err != nil {
		return nil, err
	}
	f, err = plot.Panels("coordination game: P(optimal joint action) during training", "update", "P(optimal joint action)",
		exp.PanelsOf(res, "matrix/p_optimal", groups("Erdős–Rényi topology, density p", matP, "other topologies", matOther)),
		plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "matrix_p_optimal"); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		metric, title, y, name string
		fraction               bool
	}{
		{"return", "inverted U? final LBF return against p", "final LBF return", "inverted_u_lbf", false},
		{"optimal_rate", "inverted U? coordination game: seeds reaching the optimum", "fraction of seeds at the +10 optimum", "inverted_u_matrix", true},
	} {
		type pv struct {
			p float64
			m string
		}
		var ps []pv
		for _, m := range res.Methods() {
			if p, ok := PValue(m); ok {
				if _, has := res.Summary[m][c.metric]; has {
					ps = append(ps, pv{p, m})
				}
			}
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].p < ps[j].p })
		var pts []plot.Point
		ns := map[int]bool{}
		for _, x := range ps {
			s := res.Summary[x.m][c.metric]
			pt := plot.Point{Label: x.m, Color: exp.MethodColor(res, x.m), X: x.p, Y: s.Mean,
				XLo: math.NaN(), XHi: math.NaN(), YLo: s.CI95[0], YHi: s.CI95[1]}
			if c.fraction {
				pt.YLo, pt.YHi = stats.Wilson(int(math.Round(s.Mean*float64(s.N))), s.N)
			}
			pts = append(pts, pt)
			ns[s.N] = true
		}
		if len(pts) == 0 {
			continue
		}
		f, err := plot.Points(c.title, "topology density p", c.y, pts, c.fraction)
		if err == nil {
			f.Subtitle = fmt.Sprintf("mean ± 95 %% CI of the mean over %s seeds", counts(ns))
			if c.fraction {
				f.Subtitle = fmt.Sprintf("fraction of %s seeds with its 95 %% Wilson interval", counts(ns))
			}
		}
		if err := figs.Add(f, err, c.name); err != nil {
			return nil, err
		}
	}
	f, err = exp.SummaryBars(res, "cooperative LBF: final return", []exp.MetricInfo{
		{Key: "return", Title: "final episodic return", Better: plot.HigherIsBetter},
	})
	if err := figs.Add(f, err, "bars_lbf"); err != nil {
		return nil, err
	}
	f, err = exp.SummaryBars(res, "coordination game", []exp.MetricInfo{
		{Key: "optimal_rate", Title: "fraction of seeds at the optimum", Better: plot.HigherIsBetter, Fraction: true},
		{Key: "p_optimal_auc", Title: "mean P(optimal) over training", Better: plot.HigherIsBetter, Prob: true},
	})
	if err := figs.Add(f, err, "bars_matrix"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

// groups splits methods into panels of at most plot.MaxBands: a first set and the others.
func groups(firstTitle string, first []string, otherTitle string, other []string) []exp.Group {
	var out []exp.Group
	for _, g := range []exp.Group{{Title: firstTitle, Methods: first}, {Title: otherTitle, Methods: other}} {
		for len(g.Methods) > 0 {
			n := min(len(g.Methods), plot.MaxBands)
			out = append(out, exp.Group{Title: g.Title, Methods: g.Methods[:n]})
			g.Methods = g.Methods[n:]
		}
	}
	return out
}

// scaled divides the panels' x values by d.
func scaled(panels []plot.Panel, d float64) []plot.Panel {
	for i := range panels {
		panels[i].Series = exp.ScaleX(panels[i].Series, d)
	}
	return panels
}

func counts(ns map[int]bool) string {
	var xs []int
	for n := range ns {
		xs = append(xs, n)
	}
	sort.Ints(xs)
	s := ""
	for i, n := range xs {
		if i > 0 {
			s += " or "
		}
		s += fmt.Sprint(n)
	}
	return s
}

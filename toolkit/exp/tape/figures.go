package tape

import (
	"sort"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws LBF return curves with seed bands, the matrix game's probability of the optimal
// joint action during training, the inverted-U figures (final LBF return and matrix optimal rate
// against p), and bars of every method.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var lbf, matrix []string
	for _, m := range res.Methods() {
		if len(exp.CurveSeries(res, "lbf/episodic_return", []string{m})) > 0 {
			lbf = append(lbf, m)
		}
		if len(exp.CurveSeries(res, "matrix/p_optimal", []string{m})) > 0 {
			matrix = append(matrix, m)
		}
	}
	f, err := plot.Curves("cooperative LBF: episodic return", "environment steps", "episodic return", exp.CurveSeries(res, "lbf/episodic_return", lbf))
	if err := figs.Add(f, err, "lbf_return"); err != nil {
		return nil, err
	}
	f, err = plot.Curves("coordination game: P(optimal joint action)", "update", "probability", exp.CurveSeries(res, "matrix/p_optimal", matrix))
	if err := figs.Add(f, err, "matrix_p_optimal"); err != nil {
		return nil, err
	}
	for _, c := range []struct{ metric, title, y, name string }{
		{"return", "inverted U? final LBF return against p", "final return (mean ± std over seeds)", "inverted_u_lbf"},
		{"optimal_rate", "inverted U? coordination game: runs reaching the optimum", "fraction of seeds at the +10 optimum", "inverted_u_matrix"},
	} {
		var pts []plot.Point
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
		for _, x := range ps {
			s := res.Summary[x.m][c.metric]
			pts = append(pts, plot.Point{Label: x.m, X: x.p, Y: s.Mean, YErr: s.Std})
		}
		if len(pts) == 0 {
			continue
		}
		f, err := plot.Points(c.title, "topology density p", c.y, pts)
		if err := figs.Add(f, err, c.name); err != nil {
			return nil, err
		}
	}
	f, err = exp.SummaryBars(res, "cooperative LBF: final return", []string{"return"})
	if err := figs.Add(f, err, "bars_lbf"); err != nil {
		return nil, err
	}
	f, err = exp.SummaryBars(res, "coordination game", []string{"optimal_rate", "p_optimal_auc"})
	if err := figs.Add(f, err, "bars_matrix"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

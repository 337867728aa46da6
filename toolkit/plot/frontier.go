package plot

import (
	"errors"
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FrontierSeries is one method's path through two metrics over several seeds: X[s][i], Y[s][i] are
// seed s's values at checkpoint i. Color nil: the palette colour of its position.
type FrontierSeries struct {
	Name  string
	Color color.Color
	X, Y  [][]float64
}

// Frontier draws metric y against metric x, one line per series: every seed's path thin and pale
// (the seed band), the mean path over the seeds that reach each checkpoint in bold with point
// markers, the last checkpoint marked with a larger ring; one legend entry per series.
func Frontier(title, xlabel, ylabel string, series []FrontierSeries) (*Figure, error) {
	if len(series) == 0 {
		return nil, errors.New("plot: no frontier series")
	}
	p := newPanel("", xlabel, ylabel)
	f := newFigure(title, p)
	f.Subtitle = "bold: mean over seeds at each checkpoint (ring: the last); thin: each seed"
	f.Legend = &Legend{}
	for i, s := range series {
		if len(s.X) != len(s.Y) || len(s.X) == 0 {
			return nil, fmt.Errorf("plot %q: series %q has %d x and %d y paths", title, s.Name, len(s.X), len(s.Y))
		}
		col := colorOr(s.Color, i)
		var mx, my []float64
		var cnt []int
		for k := range s.X {
			if len(s.X[k]) != len(s.Y[k]) {
				return nil, fmt.Errorf("plot %q: series %q seed %d has %d x and %d y values", title, s.Name, k, len(s.X[k]), len(s.Y[k]))
			}
			if len(s.X) > 1 && len(s.X[k]) > 1 {
				l, err := plotter.NewLine(xy(s.X[k], s.Y[k]))
				if err != nil {
					return nil, err
				}
				l.Color, l.Width = withAlpha(col, 70), vg.Points(0.8)
				p.Add(l)
			}
			for j := range s.X[k] {
				for len(mx) <= j {
					mx, my, cnt = append(mx, 0), append(my, 0), append(cnt, 0)
				}
				mx[j] += s.X[k][j]
				my[j] += s.Y[k][j]
				cnt[j]++
			}
		}
		for j := range mx {
			mx[j] /= float64(cnt[j])
			my[j] /= float64(cnt[j])
		}
		l, sc, err := plotter.NewLinePoints(xy(mx, my))
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = col, vg.Points(2)
		sc.Color, sc.Shape, sc.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
		end, err := plotter.NewScatter(xy(mx[len(mx)-1:], my[len(my)-1:]))
		if err != nil {
			return nil, err
		}
		end.Color, end.Shape, end.Radius = col, draw.RingGlyph{}, vg.Points(6)
		p.Add(l, sc, end)
		f.Legend.Add(s.Name, l, sc)
	}
	return f, nil
}

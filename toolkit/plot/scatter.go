package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ScatterPanel is one panel of individually coloured points.
type ScatterPanel struct {
	Title  string
	X, Y   []float64
	Colors []color.Color
}

// Scatter draws panels of coloured points, cols panels per row (e.g. a 2-D projection of embeddings
// coloured by what each point stands for); put a key for the colours in the figure's Side (ColorKey).
func Scatter(title, xlabel, ylabel string, panels []ScatterPanel, cols int) (*Figure, error) {
	if len(panels) == 0 || cols < 1 {
		return nil, fmt.Errorf("plot %q: scatter needs panels and cols ≥ 1", title)
	}
	f := &Figure{Title: title}
	var row []*gplot.Plot
	for i, sp := range panels {
		if len(sp.X) == 0 || len(sp.X) != len(sp.Y) || len(sp.X) != len(sp.Colors) {
			return nil, fmt.Errorf("plot %q: panel %q has %d x, %d y and %d colours", title, sp.Title, len(sp.X), len(sp.Y), len(sp.Colors))
		}
		for k := range sp.X {
			if math.IsNaN(sp.X[k]+sp.Y[k]) || math.IsInf(sp.X[k]+sp.Y[k], 0) {
				return nil, fmt.Errorf("plot %q: panel %q point %d is not finite (%v, %v)", title, sp.Title, k, sp.X[k], sp.Y[k])
			}
		}
		p := newPanel(sp.Title, xlabel, ylabel)
		sc, err := plotter.NewScatter(xy(sp.X, sp.Y))
		if err != nil {
			return nil, err
		}
		colors := sp.Colors
		sc.GlyphStyleFunc = func(k int) draw.GlyphStyle {
			return draw.GlyphStyle{Color: withAlpha(colors[k], 210), Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
		}
		p.Add(sc)
		row = append(row, p)
		if len(row) == cols || i == len(panels)-1 {
			for len(row) < cols {
				row = append(row, nil)
			}
			f.Panels = append(f.Panels, row)
			row = nil
		}
	}
	f.Width = vg.Length(0.6+3.1*float64(cols)) * vg.Inch
	f.Height = vg.Length(0.9+2.9*float64(len(f.Panels))) * vg.Inch
	return f, nil
}

// ColorKey is a small panel of coloured squares at (xs[k], ys[k]) — the key of a Scatter whose
// colours stand for points of a plane (e.g. a 2-D push); put it in Figure.Side.
func ColorKey(title, xlabel, ylabel string, xs, ys []float64, colors []color.Color) (*gplot.Plot, error) {
	if len(xs) == 0 || len(xs) != len(ys) || len(xs) != len(colors) {
		return nil, fmt.Errorf("plot: colour key %q has %d x, %d y and %d colours", title, len(xs), len(ys), len(colors))
	}
	p := newPanel(title, xlabel, ylabel)
	p.Title.TextStyle.Font.Size = tickSize
	sc, err := plotter.NewScatter(xy(xs, ys))
	if err != nil {
		return nil, err
	}
	sc.GlyphStyleFunc = func(k int) draw.GlyphStyle {
		return draw.GlyphStyle{Color: colors[k], Radius: vg.Points(5), Shape: draw.BoxGlyph{}}
	}
	p.Add(sc)
	lo, hi := FitRange(xs, false)
	p.X.Min, p.X.Max = lo-0.2, hi+0.2
	lo, hi = FitRange(ys, false)
	p.Y.Min, p.Y.Max = lo-0.2, hi+0.2
	return p, nil
}

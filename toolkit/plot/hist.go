package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Hist is one distribution of a Histograms panel; Color nil: the palette colour of its position.
type Hist struct {
	Name   string
	Color  color.Color
	Values []float64
}

// HistPanel is one panel of Histograms.
type HistPanel struct {
	Title string
	Hists []Hist
}

// Histograms draws each panel's distributions as overlaid translucent histograms over [lo, hi] in
// bins equal-width bins (values outside are clamped into the end bins), each as the fraction of its
// own values per bin, so distributions of different sizes compare. Panels are laid out cols to a
// row; distributions with the same name share a legend entry and colour.
func Histograms(title, xlabel string, lo, hi float64, bins, cols int, panels []HistPanel) (*Figure, error) {
	if len(panels) == 0 || bins < 1 || !(hi > lo) || cols < 1 {
		return nil, fmt.Errorf("plot %q: histograms need panels, bins ≥ 1, hi > lo and cols ≥ 1", title)
	}
	f := &Figure{Title: title, Legend: &Legend{Below: true}}
	colors := map[string]color.Color{}
	var row []*gplot.Plot
	for _, pn := range panels {
		p := newPanel(pn.Title, xlabel, "fraction")
		p.X.Min, p.X.Max, p.Y.Min = lo, hi, 0
		for _, h := range pn.Hists {
			if len(h.Values) == 0 {
				continue
			}
			col, ok := colors[h.Name]
			if !ok {
				col = colorOr(h.Color, len(colors))
				colors[h.Name] = col
			}
			frac := make([]float64, bins)
			for _, v := range h.Values {
				if math.IsNaN(v) {
					return nil, fmt.Errorf("plot %q: %s has a NaN value", title, h.Name)
				}
				b := int((v - lo) / (hi - lo) * float64(bins))
				frac[min(max(b, 0), bins-1)] += 1 / float64(len(h.Values))
			}
			var pts plotter.XYs
			w := (hi - lo) / float64(bins)
			pts = append(pts, plotter.XY{X: lo, Y: 0})
			for b, y := range frac {
				pts = append(pts, plotter.XY{X: lo + float64(b)*w, Y: y}, plotter.XY{X: lo + float64(b+1)*w, Y: y})
				p.Y.Max = math.Max(p.Y.Max, y*1.08)
			}
			pts = append(pts, plotter.XY{X: hi, Y: 0})
			poly, err := plotter.NewPolygon(pts)
			if err != nil {
				return nil, err
			}
			poly.Color = withAlpha(col, 90)
			poly.LineStyle.Color, poly.LineStyle.Width = col, vg.Points(1.4)
			p.Add(poly)
			if !ok {
				f.Legend.Add(h.Name, barOf(col))
			}
		}
		row = append(row, p)
		if len(row) == cols {
			f.Panels, row = append(f.Panels, row), nil
		}
	}
	if len(colors) == 0 {
		return nil, errors.New("plot: histograms of no values")
	}
	if len(row) > 0 {
		for len(row) < cols && len(f.Panels) > 0 {
			row = append(row, nil)
		}
		f.Panels = append(f.Panels, row)
	}
	ncols := len(f.Panels[0])
	f.Width, f.Height = vg.Length(ncols)*3.2*vg.Inch, vg.Length(len(f.Panels))*2.8*vg.Inch+0.9*vg.Inch
	return f, nil
}

package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// grid adapts a matrix to gonum's GridXYZ with rows drawn top to bottom.
type grid struct{ m [][]float64 }

func (g grid) Dims() (c, r int)   { return len(g.m[0]), len(g.m) }
func (g grid) Z(c, r int) float64 { return g.m[len(g.m)-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// Heatmap draws a matrix with its values written in the cells and a colour bar labelled zlabel at
// the right; rows[i] labels row i (top first) and cols[j] column j.
func Heatmap(title, xlabel, ylabel, zlabel string, m [][]float64, rows, cols []string) (*Figure, error) {
	return LabeledHeatmap(title, xlabel, ylabel, zlabel, m, nil, rows, cols)
}

// Luminance is the relative luminance of c in [0, 1] (sRGB weights, no gamma).
func Luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

// TextColor returns white on dark cells and black on light ones.
func TextColor(background color.Color) color.Color {
	if Luminance(background) < 0.45 {
		return color.White
	}
	return color.Black
}

// LabeledHeatmap is Heatmap with a text label per cell (labels[i][j]; "" leaves the cell blank).
// NaN cells are drawn blank (e.g. positions past the end of a sequence). Cell text is white on
// dark cells and black on light ones.
func LabeledHeatmap(title, xlabel, ylabel, zlabel string, m [][]float64, labels [][]string, rows, cols []string) (*Figure, error) {
	if len(m) == 0 || len(m[0]) == 0 || len(rows) != len(m) || len(cols) != len(m[0]) || (labels != nil && len(labels) != len(m)) {
		return nil, fmt.Errorf("plot %q: heatmap needs a non-empty matrix with matching labels", title)
	}
	for i := range m {
		if len(m[i]) != len(cols) || (labels != nil && len(labels[i]) != len(cols)) {
			return nil, fmt.Errorf("plot %q: row %d has %d values, want %d", title, i, len(m[i]), len(cols))
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range m {
		for _, v := range m[i] {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo > hi { // all NaN
		lo, hi = 0, 1
	}
	if lo == hi {
		hi = lo + 1
	}
	cm := heatColors()
	cm.SetMin(lo)
	cm.SetMax(hi)
	p := gplot.New()
	p.Title.TextStyle.Font.Size = labelSize
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Font.Size = labelSize
	}
	hm := plotter.NewHeatMap(grid{m}, cm.Palette(128))
	hm.NaN = color.Gray{Y: 235} // no value (past the end of a sequence)
	hm.Min, hm.Max = lo, hi
	p.Add(hm)
	var lab plotter.XYLabels
	var colors []color.Color
	for i := range m {
		for j := range m[i] {
			text := fmt.Sprintf("%.3g", m[i][j])
			if labels != nil {
				text = labels[i][j]
			}
			if math.IsNaN(m[i][j]) || text == "" {
				continue
			}
			lab.XYs = append(lab.XYs, plotter.XY{X: float64(j), Y: float64(len(m) - 1 - i)})
			lab.Labels = append(lab.Labels, text)
			c, err := cm.At(m[i][j])
			if err != nil {
				c = color.White
			}
			colors = append(colors, TextColor(c))
		}
	}
	if len(lab.Labels) > 0 {
		texts, err := plotter.NewLabels(lab)
		if err != nil {
			return nil, err
		}
		for i := range texts.TextStyle {
			texts.TextStyle[i].XAlign = draw.XCenter
			texts.TextStyle[i].YAlign = draw.YCenter
			texts.TextStyle[i].Font.Size = 13
			texts.TextStyle[i].Color = colors[i]
		}
		p.Add(texts)
	}
	p.NominalX(cols...)
	rev := append([]string(nil), rows...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	p.NominalY(rev...)
	f := newFigure(title, p)
	f.Side, f.SideWidth = ColorBar(cm, zlabel), 0.95*vg.Inch
	colW := 0.55 * vg.Inch
	for _, c := range cols {
		colW = max(colW, p.X.Tick.Label.Width(c)+0.15*vg.Inch)
	}
	f.Width = max(6.5*vg.Inch, 3.2*vg.Inch+colW*vg.Length(len(cols)))
	f.Height = vg.Length(math.Max(3.5, 1.5+0.42*float64(len(rows)))) * vg.Inch
	return f, nil
}

// heatColors is black body radiation (black, red, orange, yellow) stopping at a light yellow, so
// that the highest cells stay visible on a white page (moreland.BlackBody ends in white).
func heatColors() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{0, 0, 0, 255}, color.NRGBA{130, 20, 20, 255}, color.NRGBA{200, 60, 30, 255},
		color.NRGBA{232, 130, 20, 255}, color.NRGBA{236, 200, 40, 255}, color.NRGBA{250, 238, 160, 255},
	})
	if err != nil { // the controls above are fixed and increase in luminance
		panic(err)
	}
	return cm
}

// ColorBar returns a narrow panel showing the colour map cm (vertical) with its values on the y
// axis, labelled label.
func ColorBar(cm palette.ColorMap, label string) *gplot.Plot {
	p := gplot.New()
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	p.HideX()
	p.Y.Label.Text = label
	p.Y.Label.TextStyle.Font.Size = labelSize
	p.Y.Tick.Label.Font.Size = tickSize
	p.Y.Tick.Marker = NiceTicks{}
	p.Y.Min, p.Y.Max = cm.Min(), cm.Max()
	return p
}

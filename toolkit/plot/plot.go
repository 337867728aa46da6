// Package plot draws PaperLab's figures with gonum/plot: learning curves with seed bands,
// reliability diagrams, precision–coverage curves, bars with error bars and heatmaps.
//
// Every figure is a *Figure; Save writes it as SVG and PNG into a directory and, when the program runs
// inside a gonb notebook, also displays it as a PNG + SVG bundle so that it is saved in the .ipynb
// and renders in untrusted notebooks (plotly output is not saved, and its CDN is unreachable here).
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Figure is a gonum plot with its default size.
type Figure struct {
	*gplot.Plot
	Width, Height vg.Length
}

func newFigure(title, xlabel, ylabel string) *Figure {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return &Figure{Plot: p, Width: 6 * vg.Inch, Height: 4 * vg.Inch}
}

// methodColors is Tableau 10: ten hues that stay apart (gonum's default soft palette has two reds).
var methodColors = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255}, color.RGBA{188, 189, 34, 255},
	color.RGBA{23, 190, 207, 255},
}

// Color returns the i-th color of the palette used for methods.
func Color(i int) color.Color {
	return methodColors[((i%len(methodColors))+len(methodColors))%len(methodColors)]
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// DPI is the resolution of PNG figures: a 6 × 4 inch figure is 1200 × 800 pixels, sharp when a
// notebook shows it 720 pixels wide on a high-density screen.
const DPI = 200

// Render returns the figure encoded in format ("svg", or "png" at DPI).
func (f *Figure) Render(format string) ([]byte, error) {
	var w io.WriterTo
	if format == "png" {
		c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(DPI))
		f.Draw(draw.New(c))
		w = vgimg.PngCanvas{Canvas: c}
	} else {
		var err error
		if w, err = f.WriterTo(f.Width, f.Height, format); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Save writes dir/name.svg and dir/name.png (atomically) and, inside gonb, shows the figure as a
// PNG + SVG MIME bundle (nb.Figure). dir may be "" to only display. It returns the paths written.
func (f *Figure) Save(dir, name string) ([]string, error) {
	if dir == "" && !nb.IsNotebook() {
		return nil, nil
	}
	svg, err := f.Render("svg")
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", name, err)
	}
	png, err := f.Render("png")
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", name, err)
	}
	title := f.Title.Text
	if title == "" {
		title = name
	}
	nb.Figure(title, png, string(svg))
	if dir == "" {
		return nil, nil
	}
	var paths []string
	for _, out := range []struct {
		ext  string
		data []byte
	}{{"svg", svg}, {"png", png}} {
		p := filepath.Join(dir, name+"."+out.ext)
		if err := fsx.WriteFile(p, out.data); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Series is one method's learning curve over several seeds: Y[s][i] is seed s's value at X[i].
type Series struct {
	Name string
	X    []float64
	Y    [][]float64
}

// MeanStd returns the per-point mean and standard deviation over seeds (NaN values are skipped).
func MeanStd(ys [][]float64) (mean, std []float64) {
	if len(ys) == 0 {
		return nil, nil
	}
	n := len(ys[0])
	mean, std = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		var s, ss float64
		k := 0
		for _, y := range ys {
			if i < len(y) && !math.IsNaN(y[i]) {
				s += y[i]
				ss += y[i] * y[i]
				k++
			}
		}
		if k == 0 {
			mean[i], std[i] = math.NaN(), math.NaN()
			continue
		}
		mean[i] = s / float64(k)
		std[i] = math.Sqrt(math.Max(0, ss/float64(k)-mean[i]*mean[i]))
	}
	return mean, std
}

// Curves draws each series as its mean over seeds with a band of ±1 standard deviation (a filled
// polygon), the seed-band figure RL papers use.
func Curves(title, xlabel, ylabel string, series []Series) (*Figure, error) {
	f := newFigure(title, xlabel, ylabel)
	for i, s := range series {
		if len(s.Y) == 0 || len(s.X) == 0 {
			return nil, fmt.Errorf("plot %q: series %q is empty", title, s.Name)
		}
		for k, y := range s.Y {
			if len(y) != len(s.X) {
				return nil, fmt.Errorf("plot %q: series %q seed %d has %d points for %d x values", title, s.Name, k, len(y), len(s.X))
			}
		}
		mean, std := MeanStd(s.Y)
		var line, band plotter.XYs
		for j, x := range s.X {
			if !math.IsNaN(mean[j]) {
				line = append(line, plotter.XY{X: x, Y: mean[j]})
			}
		}
		if len(s.Y) > 1 {
			for j, x := range s.X {
				if !math.IsNaN(mean[j]) {
					band = append(band, plotter.XY{X: x, Y: mean[j] + std[j]})
				}
			}
			for j := len(s.X) - 1; j >= 0; j-- {
				if !math.IsNaN(mean[j]) {
					band = append(band, plotter.XY{X: s.X[j], Y: mean[j] - std[j]})
				}
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			poly.Color = withAlpha(Color(i), 60)
			poly.LineStyle.Width = 0
			f.Add(poly)
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.Color = Color(i)
		l.Width = vg.Points(1.8)
		f.Add(l)
		label := s.Name
		if len(s.Y) > 1 {
			label = fmt.Sprintf("%s (%d seeds)", s.Name, len(s.Y))
		}
		f.Legend.Add(label, l)
	}
	return f, nil
}

// ReliabilityBin is one bar of a reliability diagram (see calib.Bin).
type ReliabilityBin struct {
	Lo, Hi, MeanConf, Accuracy float64
	Count                      int
}

// Reliability draws one method's reliability diagram: accuracy per confidence bin as bars, with the
// diagonal of perfect calibration, and the bins' mean confidence as points.
func Reliability(title string, bins []ReliabilityBin) (*Figure, error) {
	if len(bins) == 0 {
		return nil, errors.New("plot: reliability diagram with no bins")
	}
	f := newFigure(title, "confidence", "accuracy")
	f.X.Min, f.X.Max, f.Y.Min, f.Y.Max = 0, 1, 0, 1
	total := 0
	for _, b := range bins {
		total += b.Count
	}
	for _, b := range bins {
		if b.Count == 0 {
			continue
		}
		bar, err := plotter.NewPolygon(plotter.XYs{{X: b.Lo, Y: 0}, {X: b.Hi, Y: 0}, {X: b.Hi, Y: b.Accuracy}, {X: b.Lo, Y: b.Accuracy}})
		if err != nil {
			return nil, err
		}
		// Shade bars by how many answers they hold.
		bar.Color = withAlpha(Color(0), uint8(60+150*float64(b.Count)/float64(total)))
		bar.LineStyle.Color = Color(0)
		f.Add(bar)
	}
	diag, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	diag.Color = color.Gray{Y: 90}
	f.Add(diag)
	f.Legend.Add("perfect calibration", diag)
	var pts plotter.XYs
	for _, b := range bins {
		if b.Count > 0 {
			pts = append(pts, plotter.XY{X: b.MeanConf, Y: b.Accuracy})
		}
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Color = Color(1)
	f.Add(sc)
	f.Legend.Add("bin accuracy at mean confidence", sc)
	f.Legend.Top, f.Legend.Left = true, true
	return f, nil
}

// XYCurve is one named curve given by points.
type XYCurve struct {
	Name string
	X, Y []float64
}

// Lines draws named curves (e.g. precision–coverage curves, one per method).
func Lines(title, xlabel, ylabel string, curves []XYCurve) (*Figure, error) {
	f := newFigure(title, xlabel, ylabel)
	for i, c := range curves {
		if len(c.X) == 0 || len(c.X) != len(c.Y) {
			return nil, fmt.Errorf("plot %q: curve %q has %d x and %d y values", title, c.Name, len(c.X), len(c.Y))
		}
		pts := make(plotter.XYs, len(c.X))
		for j := range c.X {
			pts[j] = plotter.XY{X: c.X[j], Y: c.Y[j]}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = Color(i)
		l.Width = vg.Points(1.8)
		l.Dashes = plotutil.Dashes(i % 4)
		f.Add(l)
		f.Legend.Add(c.Name, l)
	}
	return f, nil
}

// PrecisionCoverage draws precision against coverage for each method.
func PrecisionCoverage(title string, curves []XYCurve) (*Figure, error) {
	f, err := Lines(title, "coverage (fraction answered)", "precision (accuracy of answered)", curves)
	if err != nil {
		return nil, err
	}
	f.X.Min, f.X.Max = 0, 1
	f.Legend.Top, f.Legend.Left = false, false
	return f, nil
}

// Bars draws grouped bars with error bars: Mean[g][k] ± Err[g][k] is the value of series k (legend:
// SeriesNames[k]) in group g (x label: Groups[g]).
func Bars(title, ylabel string, groups, seriesNames []string, mean, errs [][]float64) (*Figure, error) {
	if len(mean) != len(groups) || (errs != nil && len(errs) != len(groups)) {
		return nil, fmt.Errorf("plot %q: %d groups but %d rows of values", title, len(groups), len(mean))
	}
	f := newFigure(title, "", ylabel)
	w := vg.Points(math.Max(8, 60/float64(max(1, len(seriesNames)))))
	for k, name := range seriesNames {
		vals := make(plotter.Values, len(groups))
		var eb plotter.XYs
		var yerr plotter.YErrors
		for g := range groups {
			if k >= len(mean[g]) {
				return nil, fmt.Errorf("plot %q: group %q lacks series %q", title, groups[g], name)
			}
			vals[g] = mean[g][k]
			if errs != nil {
				eb = append(eb, plotter.XY{X: float64(g), Y: mean[g][k]})
				yerr = append(yerr, struct{ Low, High float64 }{errs[g][k], errs[g][k]})
			}
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bc.Color = Color(k)
		bc.LineStyle.Width = 0
		bc.Offset = w * vg.Length(float64(k)-float64(len(seriesNames)-1)/2)
		f.Add(bc)
		f.Legend.Add(name, bc)
		if errs != nil {
			e := &plotter.YErrorBars{XYs: eb, YErrors: yerr, LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1)}, CapWidth: vg.Points(4)}
			f.Add(offsetPlotter{e, bc.Offset})
		}
	}
	f.NominalX(groups...)
	// The shifted error bars do not widen the axis on their own; leave headroom for them and for the
	// legend (drawn inside, top right).
	hi, lo := math.Inf(-1), 0.0
	for g := range groups {
		for k := range seriesNames {
			e := 0.0
			if errs != nil {
				e = errs[g][k]
			}
			hi, lo = math.Max(hi, mean[g][k]+e), math.Min(lo, mean[g][k]-e)
		}
	}
	if hi > 0 {
		f.Y.Max = hi + 0.08*float64(len(seriesNames)+1)*(hi-lo)
	}
	f.Y.Min = math.Min(f.Y.Min, lo)
	return f, nil
}

// offsetPlotter shifts a plotter horizontally by a fixed length (to sit error bars on offset bars).
type offsetPlotter struct {
	p      gplot.Plotter
	offset vg.Length
}

func (o offsetPlotter) Plot(c draw.Canvas, p *gplot.Plot) {
	c.Rectangle.Min.X += o.offset
	c.Rectangle.Max.X += o.offset
	o.p.Plot(c, p)
}

// grid adapts a matrix to gonum's GridXYZ with rows drawn top to bottom.
type grid struct{ m [][]float64 }

func (g grid) Dims() (c, r int)   { return len(g.m[0]), len(g.m) }
func (g grid) Z(c, r int) float64 { return g.m[len(g.m)-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// Heatmap draws a matrix with its values written in the cells; rows[i] labels row i (top first) and
// cols[j] column j.
func Heatmap(title, xlabel, ylabel string, m [][]float64, rows, cols []string) (*Figure, error) {
	return LabeledHeatmap(title, xlabel, ylabel, m, nil, rows, cols)
}

// LabeledHeatmap is Heatmap with a text label per cell (labels[i][j]; "" leaves the cell blank).
// NaN cells are drawn blank (e.g. positions past the end of a sequence).
func LabeledHeatmap(title, xlabel, ylabel string, m [][]float64, labels [][]string, rows, cols []string) (*Figure, error) {
	if len(m) == 0 || len(m[0]) == 0 || len(rows) != len(m) || len(cols) != len(m[0]) || (labels != nil && len(labels) != len(m)) {
		return nil, fmt.Errorf("plot %q: heatmap needs a non-empty matrix with matching labels", title)
	}
	for i := range m {
		if len(m[i]) != len(cols) || (labels != nil && len(labels[i]) != len(cols)) {
			return nil, fmt.Errorf("plot %q: row %d has %d values, want %d", title, i, len(m[i]), len(cols))
		}
	}
	f := newFigure(title, xlabel, ylabel)
	f.Plot = gplot.New()
	f.Title.Text, f.X.Label.Text, f.Y.Label.Text = title, xlabel, ylabel
	hm := plotter.NewHeatMap(grid{m}, palette.Heat(32, 1))
	hm.NaN = color.White
	hm.Min, hm.Max = math.Inf(1), math.Inf(-1)
	for i := range m {
		for _, v := range m[i] {
			if !math.IsNaN(v) {
				hm.Min, hm.Max = math.Min(hm.Min, v), math.Max(hm.Max, v)
			}
		}
	}
	if hm.Min > hm.Max { // all NaN
		hm.Min, hm.Max = 0, 1
	}
	if hm.Min == hm.Max {
		hm.Max = hm.Min + 1
	}
	f.Add(hm)
	var lab plotter.XYLabels
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
		}
	}
	texts, err := plotter.NewLabels(lab)
	if err != nil {
		return nil, err
	}
	for i := range texts.TextStyle {
		texts.TextStyle[i].XAlign = draw.XCenter
		texts.TextStyle[i].YAlign = draw.YCenter
	}
	f.Add(texts)
	f.NominalX(cols...)
	rev := append([]string(nil), rows...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	f.NominalY(rev...)
	return f, nil
}

// Point is a labelled point with symmetric error bars (e.g. a method's mean ± std over seeds).
type Point struct {
	Label      string
	X, Y       float64
	XErr, YErr float64
}

// Points draws labelled points with x and y error bars, e.g. a Pareto plot of two rewards.
func Points(title, xlabel, ylabel string, pts []Point) (*Figure, error) {
	if len(pts) == 0 {
		return nil, errors.New("plot: no points")
	}
	f := newFigure(title, xlabel, ylabel)
	for i, p := range pts {
		xy := plotter.XYs{{X: p.X, Y: p.Y}}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = Color(i)
		sc.GlyphStyle.Radius = vg.Points(4)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		f.Add(sc)
		style := draw.LineStyle{Color: Color(i), Width: vg.Points(1.2)}
		xe := &plotter.XErrorBars{XYs: xy, XErrors: plotter.XErrors{{Low: p.XErr, High: p.XErr}}, LineStyle: style, CapWidth: vg.Points(5)}
		ye := &plotter.YErrorBars{XYs: xy, YErrors: plotter.YErrors{{Low: p.YErr, High: p.YErr}}, LineStyle: style, CapWidth: vg.Points(5)}
		f.Add(xe, ye)
		f.Legend.Add(p.Label, sc)
	}
	f.Legend.Top, f.Legend.Left = false, true
	return f, nil
}

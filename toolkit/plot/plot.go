// Package plot draws PaperLab's figures with gonum/plot: learning curves with seed bands (95 %
// t-intervals of the mean, at most MaxBands per panel), reliability diagrams pooled over seeds with a
// count histogram, precision–coverage curves, dot plots of final metrics with fitted axes, and
// heatmaps with a colour bar.
//
// A *Figure is a grid of gonum panels with a title (wrapped to the width), an optional subtitle, a
// legend drawn outside the panels (at the right or below, never over data) and an optional side
// panel (a colour bar). Save writes it as SVG and PNG into a directory and, when the program runs
// inside a gonb notebook, also displays it as a PNG + SVG bundle so that it is saved in the .ipynb
// and renders in untrusted notebooks (plotly output is not saved, and its CDN is unreachable here).
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Font sizes of every figure (points): readable when a notebook shows a 6-inch figure 720 pixels wide.
const (
	titleSize    = 13
	subtitleSize = 10.5
	labelSize    = 12
	tickSize     = 11
	legendSize   = 11
)

// Figure is a grid of panels with a title, a subtitle, a legend outside the panels and an optional
// side panel at the right (a colour bar).
type Figure struct {
	Title    string
	Subtitle string // a smaller line under the title (e.g. what the bands are)
	// Panels are the rows of panels, top first; every row has the same number of columns (nil
	// leaves a cell empty). Panels in a column share their data width, panels in a row their height.
	Panels [][]*gplot.Plot
	// RowWeights are the relative heights of the rows (nil: equal).
	RowWeights []float64
	Legend     *Legend     // nil: no legend
	Side       *gplot.Plot // a narrow panel at the right of the grid (colour bar), nil: none
	SideWidth  vg.Length
	// Width and Height are the size the figure is rendered at.
	Width, Height vg.Length
}

// Plot returns the first panel (the only one of a single-panel figure).
func (f *Figure) Plot() *gplot.Plot {
	for _, row := range f.Panels {
		for _, p := range row {
			if p != nil {
				return p
			}
		}
	}
	return nil
}

// Legend is a list of entries drawn outside the panels: as a column at the right of the figure, or
// Below the panels in rows.
type Legend struct {
	Below   bool
	Entries []LegendEntry
}

// LegendEntry is one legend line: thumbnails (the plotters' own) and a label.
type LegendEntry struct {
	Label  string
	Thumbs []gplot.Thumbnailer
}

// Add appends an entry unless one with the same label is there already (a method shown in two
// panels has one entry).
func (l *Legend) Add(label string, thumbs ...gplot.Thumbnailer) {
	for _, e := range l.Entries {
		if e.Label == label {
			return
		}
	}
	l.Entries = append(l.Entries, LegendEntry{Label: label, Thumbs: thumbs})
}

// methodColors is Tableau 10: ten hues that stay apart (gonum's default soft palette has two reds).
var methodColors = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255}, color.RGBA{188, 189, 34, 255},
	color.RGBA{23, 190, 207, 255},
}

// Color returns the i-th color of the palette used for methods (give method i of an experiment
// Color(i) in every figure, so a method keeps its colour).
func Color(i int) color.Color {
	return methodColors[((i%len(methodColors))+len(methodColors))%len(methodColors)]
}

// colorOr returns c, or Color(i) when c is nil.
func colorOr(c color.Color, i int) color.Color {
	if c == nil {
		return Color(i)
	}
	return c
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// DPI is the resolution of PNG figures: a 6 × 4 inch figure is 1200 × 800 pixels, sharp when a
// notebook shows it 720 pixels wide on a high-density screen.
const DPI = 200

// textStyle is the default font at size pt.
func textStyle(pt vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(gplot.DefaultFont, pt), Handler: gplot.DefaultTextHandler}
}

// newPanel returns a panel with PaperLab's fonts, a grid and readable ticks.
func newPanel(title, xlabel, ylabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = labelSize
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Font.Size = tickSize
		a.Tick.Marker = NiceTicks{}
	}
	p.Add(plotter.NewGrid())
	return p
}

// newFigure returns a figure of one row of panels.
func newFigure(title string, panels ...*gplot.Plot) *Figure {
	return &Figure{Title: title, Panels: [][]*gplot.Plot{panels}, Width: 6.5 * vg.Inch, Height: 4 * vg.Inch}
}

// wrap breaks txt (at spaces) into lines no wider than w in style sty; existing line breaks stay.
func wrap(sty text.Style, txt string, w vg.Length) string {
	var out []string
	for _, para := range strings.Split(txt, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && sty.Width(line+" "+word) > w {
				out = append(out, line)
				line = word
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Layout is where a figure's parts land on a canvas: the panels' canvases and data areas, the
// legend's rectangle (empty without a legend) and the title's.
type Layout struct {
	Panels [][]draw.Canvas
	Data   [][]vg.Rectangle
	Legend vg.Rectangle
	Title  vg.Rectangle
	Side   draw.Canvas
}

const pad = 6 // points around and between the parts

// legendSize returns the size of the legend drawn within width w, and where each entry starts.
func (l *Legend) layout(w vg.Length) (size vg.Point, at []vg.Point) {
	sty := textStyle(legendSize)
	thumb := vg.Points(22)
	h := sty.Rectangle("Mg").Size().Y * 1.25
	gap := vg.Points(5)
	if !l.Below {
		for i, e := range l.Entries {
			size.X = max(size.X, thumb+gap+sty.Width(e.Label))
			at = append(at, vg.Point{X: 0, Y: -vg.Length(i+1) * h})
		}
		size.Y = vg.Length(len(l.Entries)) * h
		return size, at
	}
	x, rows := vg.Length(0), 1
	for _, e := range l.Entries {
		ew := thumb + gap + sty.Width(e.Label)
		if x > 0 && x+ew > w {
			x, rows = 0, rows+1
		}
		at = append(at, vg.Point{X: x, Y: -vg.Length(rows) * h})
		x += ew + 3*gap
		size.X = max(size.X, x-3*gap)
	}
	size.Y = vg.Length(rows) * h
	return size, at
}

func (l *Legend) draw(c draw.Canvas, r vg.Rectangle) {
	sty := textStyle(legendSize)
	sty.YAlign = draw.YCenter
	thumb := vg.Points(22)
	h := sty.Rectangle("Mg").Size().Y * 1.25
	_, at := l.layout(r.Size().X)
	for i, e := range l.Entries {
		p := vg.Point{X: r.Min.X + at[i].X, Y: r.Max.Y + at[i].Y}
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: p.X, Y: p.Y + h*0.2}, Max: vg.Point{X: p.X + thumb, Y: p.Y + h*0.8}}}
		for _, t := range e.Thumbs {
			t.Thumbnail(&icon)
		}
		c.FillText(sty, vg.Point{X: p.X + thumb + vg.Points(5), Y: p.Y + h/2}, e.Label)
	}
}

// Layout computes where the figure's parts go on c: title (wrapped) and subtitle on top, the legend
// at the right or below, the side panel right of the grid, and the grid's panels aligned so that
// panels of a column share their data width and panels of a row their data height.
func (f *Figure) Layout(c draw.Canvas) Layout {
	var out Layout
	area := c.Rectangle
	area.Min.X, area.Min.Y, area.Max.X, area.Max.Y = area.Min.X+pad, area.Min.Y+pad, area.Max.X-pad, area.Max.Y-pad
	top := area.Max.Y
	if f.Title != "" {
		sty := textStyle(titleSize)
		t := wrap(sty, f.Title, area.Size().X)
		top -= sty.Rectangle(t).Size().Y
	}
	if f.Subtitle != "" {
		sty := textStyle(subtitleSize)
		t := wrap(sty, f.Subtitle, area.Size().X)
		top -= sty.Rectangle(t).Size().Y + 2
	}
	out.Title = vg.Rectangle{Min: vg.Point{X: area.Min.X, Y: top}, Max: area.Max}
	if top < area.Max.Y {
		top -= pad
	}
	area.Max.Y = top
	if f.Legend != nil && len(f.Legend.Entries) > 0 {
		size, _ := f.Legend.layout(area.Size().X)
		if f.Legend.Below {
			x := area.Min.X + (area.Size().X-size.X)/2
			out.Legend = vg.Rectangle{Min: vg.Point{X: x, Y: area.Min.Y}, Max: vg.Point{X: x + size.X, Y: area.Min.Y + size.Y}}
			area.Min.Y += size.Y + pad
		} else {
			y := area.Min.Y + (area.Size().Y+size.Y)/2
			out.Legend = vg.Rectangle{Min: vg.Point{X: area.Max.X - size.X, Y: y - size.Y}, Max: vg.Point{X: area.Max.X, Y: y}}
			area.Max.X -= size.X + 2*pad
		}
	}
	if f.Side != nil {
		w := f.SideWidth
		if w == 0 {
			w = vg.Inch
		}
		out.Side = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: area.Max.X - w, Y: area.Min.Y}, Max: vg.Point{X: area.Max.X, Y: area.Max.Y}}}
		area.Max.X -= w + pad
	}
	out.Panels, out.Data = align(f.Panels, f.RowWeights, c, area)
	if f.Side != nil && len(out.Data) > 0 {
		// The colour bar spans the data height of the first row.
		for _, d := range out.Data[0] {
			if d.Size().X > 0 {
				sd := f.Side.DataCanvas(out.Side)
				out.Side.Min.Y += d.Min.Y - sd.Min.Y
				out.Side.Max.Y += d.Max.Y - sd.Max.Y
				break
			}
		}
	}
	return out
}

// align places a grid of panels in area (like gonum's plot.Align, with row weights).
func align(panels [][]*gplot.Plot, weights []float64, c draw.Canvas, area vg.Rectangle) ([][]draw.Canvas, [][]vg.Rectangle) {
	rows := len(panels)
	if rows == 0 {
		return nil, nil
	}
	cols := 0
	for _, r := range panels {
		cols = max(cols, len(r))
	}
	w := make([]float64, rows)
	var wsum float64
	for j := range w {
		w[j] = 1
		if j < len(weights) && weights[j] > 0 {
			w[j] = weights[j]
		}
		wsum += w[j]
	}
	gap := vg.Length(2 * pad)
	// Initial tiles, to measure each panel's axes and title.
	tileW := (area.Size().X - gap*vg.Length(cols-1)) / vg.Length(cols)
	left, right := make([]vg.Length, cols), make([]vg.Length, cols)
	bottom, topS := make([]vg.Length, rows), make([]vg.Length, rows)
	type sp struct{ l, r, b, t vg.Length }
	own := make([][]sp, rows)
	y := area.Max.Y
	for j := range panels {
		own[j] = make([]sp, cols)
		th := (area.Size().Y - gap*vg.Length(rows-1)) * vg.Length(w[j]/wsum)
		for i := 0; i < cols; i++ {
			x := area.Min.X + vg.Length(i)*(tileW+gap)
			tile := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - th}, Max: vg.Point{X: x + tileW, Y: y}}}
			if i >= len(panels[j]) || panels[j][i] == nil {
				continue
			}
			d := panels[j][i].DataCanvas(tile)
			s := sp{d.Min.X - tile.Min.X, tile.Max.X - d.Max.X, d.Min.Y - tile.Min.Y, tile.Max.Y - d.Max.Y}
			own[j][i] = s
			left[i], right[i] = max(left[i], s.l), max(right[i], s.r)
			bottom[j], topS[j] = max(bottom[j], s.b), max(topS[j], s.t)
		}
		y -= th + gap
	}
	availW := area.Size().X - gap*vg.Length(cols-1)
	for i := range left {
		availW -= left[i] + right[i]
	}
	availH := area.Size().Y - gap*vg.Length(rows-1)
	for j := range bottom {
		availH -= bottom[j] + topS[j]
	}
	dw := availW / vg.Length(cols)
	canv := make([][]draw.Canvas, rows)
	data := make([][]vg.Rectangle, rows)
	y = area.Max.Y
	for j := range panels {
		canv[j], data[j] = make([]draw.Canvas, cols), make([]vg.Rectangle, cols)
		dh := availH * vg.Length(w[j]/wsum)
		dMaxY := y - topS[j]
		dMinY := dMaxY - dh
		x := area.Min.X
		for i := 0; i < cols; i++ {
			dMinX := x + left[i]
			dMaxX := dMinX + dw
			x = dMaxX + right[i] + gap
			if i >= len(panels[j]) || panels[j][i] == nil {
				continue
			}
			s := own[j][i]
			canv[j][i] = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: dMinX - s.l, Y: dMinY - s.b}, Max: vg.Point{X: dMaxX + s.r, Y: dMaxY + s.t}}}
			data[j][i] = panels[j][i].DataCanvas(canv[j][i]).Rectangle
		}
		y = dMinY - bottom[j] - gap
	}
	return canv, data
}

// Draw draws the figure on c.
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	lay := f.Layout(c)
	y := c.Max.Y - pad
	if f.Title != "" {
		sty := textStyle(titleSize)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		t := wrap(sty, f.Title, c.Size().X-2*pad)
		c.FillText(sty, vg.Point{X: c.Center().X, Y: y}, t)
		y -= sty.Rectangle(t).Size().Y
	}
	if f.Subtitle != "" {
		sty := textStyle(subtitleSize)
		sty.Color = color.Gray{Y: 60}
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		t := wrap(sty, f.Subtitle, c.Size().X-2*pad)
		c.FillText(sty, vg.Point{X: c.Center().X, Y: y - 2}, t)
	}
	for j, row := range f.Panels {
		for i, p := range row {
			if p == nil {
				continue
			}
			pc := lay.Panels[j][i]
			if p.Title.Text != "" {
				p.Title.Text = wrap(p.Title.TextStyle, p.Title.Text, pc.Size().X)
			}
			p.Draw(pc)
		}
	}
	if f.Side != nil {
		f.Side.Draw(lay.Side)
	}
	if f.Legend != nil && len(f.Legend.Entries) > 0 {
		f.Legend.draw(c, lay.Legend)
	}
}

// drawChecked draws the figure, turning a panic inside gonum (a canvas too small for the figure's
// panels, title, legend or colour bar gives negative sizes) into an error naming the size.
func (f *Figure) drawChecked(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot %q at %.1f × %.1f in: %v (too small for its panels, title and legend?)",
				f.Title, float64(f.Width/vg.Inch), float64(f.Height/vg.Inch), r)
		}
	}()
	f.Draw(c)
	return nil
}

// Render returns the figure encoded in format ("svg", or "png" at DPI).
func (f *Figure) Render(format string) ([]byte, error) {
	var w io.WriterTo
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(DPI))
		if err := f.drawChecked(draw.New(c)); err != nil {
			return nil, err
		}
		w = vgimg.PngCanvas{Canvas: c}
	case "svg":
		c := vgsvg.New(f.Width, f.Height)
		if err := f.drawChecked(draw.New(c)); err != nil {
			return nil, err
		}
		w = c
	default:
		return nil, fmt.Errorf("plot: unknown format %q", format)
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
	title := f.Title
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

// NiceTicks puts about five major ticks at multiples of 1, 2 or 5 × 10^k and labels them with as
// few digits as the step needs ("0.5", "1", "250"), never "1750000.00"; minor ticks fall between.
type NiceTicks struct{}

// niceStep returns the smallest 1-2-5 step giving at most n intervals over span.
func niceStep(span float64, n int) float64 {
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw*0.999 {
			return m * mag
		}
	}
	return 10 * mag
}

// formatTick writes v rounded to the precision of step.
func formatTick(v, step float64) string {
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(v) < step*1e-6 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// Ticks implements gonum's Ticker.
//
// A range narrower than float64 can resolve at its magnitude (a few ulps: values equal up to
// rounding) gets no ticks rather than a loop whose counter no longer advances in float64.
func (NiceTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) || hi-lo < 1e-9*math.Max(math.Abs(lo), math.Abs(hi)) {
		return nil
	}
	step := niceStep(hi-lo, 5)
	minor := step / 5
	if m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); math.Abs(m-2) < 1e-9 {
		minor = step / 4
	}
	var ticks []gplot.Tick
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+minor*1e-9; k++ {
		v := k * minor
		t := gplot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = formatTick(v, step)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// LogTicks labels a log axis at 1, 2 and 5 × 10^k — at 1 × 10^k only when it spans more than two
// decades, so that labels do not collide — with minor ticks at the other integers × 10^k, and
// writes thousands and millions compactly (20k, 2M).
type LogTicks struct{}

// Ticks implements gonum's Ticker.
func (LogTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(lo > 0 && hi > lo) {
		return nil
	}
	wide := math.Log10(hi/lo) > 2
	var ticks []gplot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		mag := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * mag
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := gplot.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				t.Label = compactNumber(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// compactNumber writes v with a k (thousands) or M (millions) suffix where that is exact
// (20000 → "20k", 2e6 → "2M"), otherwise in %g.
func compactNumber(v float64) string {
	switch {
	case v >= 1e6 && math.Mod(v, 1e4) == 0:
		return strconv.FormatFloat(v/1e6, 'g', -1, 64) + "M"
	case v >= 1e3 && math.Mod(v, 100) == 0:
		return strconv.FormatFloat(v/1e3, 'g', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// cornerText is a note (e.g. "ECE = 0.05") drawn in one corner of a panel's data area, on a white
// box so that grid lines do not cross it.
type cornerText struct {
	Text   string
	Corner Corner
}

func (t cornerText) Plot(c draw.Canvas, _ *gplot.Plot) {
	sty := textStyle(legendSize)
	r := sty.Rectangle(t.Text)
	const m = 5
	x, y := c.Min.X+m, c.Max.Y-m
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	if t.Corner == TopRight || t.Corner == BottomRight {
		x, sty.XAlign = c.Max.X-m, draw.XRight
	}
	if t.Corner == BottomLeft || t.Corner == BottomRight {
		y, sty.YAlign = c.Min.Y+m, draw.YBottom
	}
	box := r
	box.Min.X += x + vg.Length(sty.XAlign)*r.Size().X - 2
	box.Max.X = box.Min.X + r.Size().X + 4
	box.Min.Y += y + vg.Length(sty.YAlign)*r.Size().Y - 2
	box.Max.Y = box.Min.Y + r.Size().Y + 4
	c.SetColor(color.NRGBA{255, 255, 255, 230})
	c.Fill(box.Path())
	c.FillText(sty, vg.Point{X: x, Y: y}, t.Text)
}

// Corner is a corner of a panel.
type Corner int

// The corners, in the order EmptyCorner prefers them on a tie.
const (
	TopLeft Corner = iota
	TopRight
	BottomRight
	BottomLeft
)

// Rect is a rectangle in data coordinates (a bar, or a point as a degenerate one).
type Rect struct{ X0, Y0, X1, Y1 float64 }

// EmptyCorner returns the corner of the data range [x0, x1] × [y0, y1] where a box of fractions
// (w, h) of the range overlaps the occupied rectangles least (area; a point counts as a small
// square), preferring TopLeft, TopRight, BottomRight, BottomLeft on ties.
func EmptyCorner(occupied []Rect, x0, x1, y0, y1, w, h float64) Corner {
	bw, bh := w*(x1-x0), h*(y1-y0)
	eps := 0.01 * math.Min(x1-x0, y1-y0)
	best, bestA := TopLeft, math.Inf(1)
	for _, c := range []Corner{TopLeft, TopRight, BottomRight, BottomLeft} {
		bx0, by0 := x0, y1-bh
		if c == TopRight || c == BottomRight {
			bx0 = x1 - bw
		}
		if c == BottomLeft || c == BottomRight {
			by0 = y0
		}
		var a float64
		for _, r := range occupied {
			rx0, rx1, ry0, ry1 := math.Min(r.X0, r.X1), math.Max(r.X0, r.X1), math.Min(r.Y0, r.Y1), math.Max(r.Y0, r.Y1)
			if rx1-rx0 < eps {
				rx0, rx1 = rx0-eps, rx1+eps
			}
			if ry1-ry0 < eps {
				ry0, ry1 = ry0-eps, ry1+eps
			}
			ox := math.Min(rx1, bx0+bw) - math.Max(rx0, bx0)
			oy := math.Min(ry1, by0+bh) - math.Max(ry0, by0)
			if ox > 0 && oy > 0 {
				a += ox * oy
			}
		}
		if a < bestA-1e-12 {
			best, bestA = c, a
		}
	}
	return best
}

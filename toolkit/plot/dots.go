package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Estimate is one method's value of a metric with its interval [Lo, Hi] (NaN: none), e.g. the mean
// over seeds with its 95 % t-interval, or a fraction with its Wilson interval.
type Estimate struct {
	Label        string
	Color        color.Color // nil: the palette colour of its position
	Mean, Lo, Hi float64
}

// Better says which way a metric improves.
type Better int

// Directions of a metric.
const (
	NoDirection Better = iota
	HigherIsBetter
	LowerIsBetter
)

func (b Better) String() string {
	switch b {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return ""
}

// Metric is one panel of a dot plot: a human title, which way is better, whether values are
// probabilities (the axis then stays within [0, 1]) and one estimate per method.
type Metric struct {
	Title     string
	Better    Better
	Prob      bool
	Estimates []Estimate
}

// FitRange returns an axis range that holds every finite value of vals with a margin of 8 % of
// their span on each side (so that a difference of a few hundredths is visible), kept within
// [0, 1] when prob.
func FitRange(vals []float64, prob bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 1
	}
	m := 0.08 * (hi - lo)
	if m <= 1e-9*math.Max(math.Abs(hi), math.Abs(lo)) { // equal up to rounding: a span of their own size
		m = 0.05 * math.Max(math.Abs(hi), 1e-3)
	}
	lo, hi = lo-m, hi+m
	if prob {
		lo, hi = math.Max(0, lo), math.Min(1, hi)
	}
	return lo, hi
}

// Dots draws a dot plot of metrics: one small panel per metric, side by side, each with its own
// fitted x range (FitRange); rows are the estimates (labels on the first panel only), a dot at
// the mean and a bar for the interval. The x label says which way is better.
func Dots(title string, metrics []Metric) (*Figure, error) {
	if len(metrics) == 0 {
		return nil, errors.New("plot: no metrics")
	}
	rows := len(metrics[0].Estimates)
	if rows == 0 {
		return nil, fmt.Errorf("plot %q: no estimates", title)
	}
	labels := make([]string, rows)
	for i, e := range metrics[0].Estimates {
		labels[rows-1-i] = e.Label // top first
	}
	var panels []*gplot.Plot
	for k, m := range metrics {
		if len(m.Estimates) != rows {
			return nil, fmt.Errorf("plot %q: metric %q has %d estimates, want %d", title, m.Title, len(m.Estimates), rows)
		}
		p := newPanel(m.Title, m.Better.String(), "")
		var vals []float64
		for i, e := range m.Estimates {
			if e.Label != metrics[0].Estimates[i].Label {
				return nil, fmt.Errorf("plot %q: metric %q row %d is %q, want %q", title, m.Title, i, e.Label, metrics[0].Estimates[i].Label)
			}
			vals = append(vals, e.Mean, e.Lo, e.Hi)
			col := colorOr(e.Color, i)
			y := float64(rows - 1 - i)
			if !math.IsNaN(e.Lo) && !math.IsNaN(e.Hi) {
				bar, err := plotter.NewLine(plotter.XYs{{X: e.Lo, Y: y}, {X: e.Hi, Y: y}})
				if err != nil {
					return nil, err
				}
				bar.Color, bar.Width = col, vg.Points(2)
				p.Add(bar)
				for _, x := range []float64{e.Lo, e.Hi} {
					tick, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
					if err != nil {
						return nil, err
					}
					tick.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: vbar{}}
					p.Add(tick)
				}
			}
			if math.IsNaN(e.Mean) {
				continue
			}
			dot, err := plotter.NewScatter(plotter.XYs{{X: e.Mean, Y: y}})
			if err != nil {
				return nil, err
			}
			dot.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}
			p.Add(dot)
		}
		p.X.Min, p.X.Max = FitRange(vals, m.Prob)
		p.NominalY(labels...)
		p.Y.Min, p.Y.Max = -0.6, float64(rows)-0.4
		p.Y.Tick.Label.Font.Size = labelSize
		if k > 0 {
			blank := make([]gplot.Tick, rows)
			for i := range blank {
				blank[i] = gplot.Tick{Value: float64(i)}
			}
			p.Y.Tick.Marker = gplot.ConstantTicks(blank)
		}
		panels = append(panels, p)
	}
	f := newFigure(title, panels...)
	lw := textStyle(labelSize).Width(labels[0])
	for _, l := range labels {
		lw = max(lw, textStyle(labelSize).Width(l))
	}
	f.Width = lw + vg.Length(0.4+2.4*float64(len(metrics)))*vg.Inch
	f.Height = vg.Length(math.Max(2.4, 1.5+0.32*float64(rows))) * vg.Inch
	return f, nil
}

// vbar is a vertical tick glyph (the cap of an interval).
type vbar struct{}

func (vbar) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.StrokeLine2(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)}, pt.X, pt.Y-sty.Radius, pt.X, pt.Y+sty.Radius)
}

// Point is a labelled point with its intervals: [XLo, XHi] and [YLo, YHi] (absolute bounds; NaN:
// none), e.g. a method's mean of two rewards with their 95 % intervals.
type Point struct {
	Label    string
	Color    color.Color // nil: the palette colour of its position
	X, Y     float64
	XLo, XHi float64
	YLo, YHi float64
}

// Points draws labelled points with their intervals and a legend at the right. With yprob the y
// axis stays within [0, 1].
func Points(title, xlabel, ylabel string, pts []Point, yprob bool) (*Figure, error) {
	if len(pts) == 0 {
		return nil, errors.New("plot: no points")
	}
	p := newPanel("", xlabel, ylabel)
	f := newFigure(title, p)
	f.Legend = &Legend{}
	var xs, ys []float64
	for i, pt := range pts {
		col := colorOr(pt.Color, i)
		xy := plotter.XYs{{X: pt.X, Y: pt.Y}}
		style := draw.LineStyle{Color: col, Width: vg.Points(1.5)}
		if !math.IsNaN(pt.XLo) && !math.IsNaN(pt.XHi) {
			p.Add(&plotter.XErrorBars{XYs: xy, XErrors: plotter.XErrors{{Low: pt.X - pt.XLo, High: pt.XHi - pt.X}}, LineStyle: style, CapWidth: vg.Points(6)})
			xs = append(xs, pt.XLo, pt.XHi)
		}
		if !math.IsNaN(pt.YLo) && !math.IsNaN(pt.YHi) {
			p.Add(&plotter.YErrorBars{XYs: xy, YErrors: plotter.YErrors{{Low: pt.Y - pt.YLo, High: pt.YHi - pt.Y}}, LineStyle: style, CapWidth: vg.Points(6)})
			ys = append(ys, pt.YLo, pt.YHi)
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		f.Legend.Add(pt.Label, sc)
		xs, ys = append(xs, pt.X), append(ys, pt.Y)
	}
	p.X.Min, p.X.Max = FitRange(xs, false)
	p.Y.Min, p.Y.Max = FitRange(ys, yprob)
	return f, nil
}

// VLine draws a dashed vertical reference line at x across the first panel's y range (widening its
// x range to include x when needed) with a legend entry — e.g. what a baseline policy scores.
// Call it after the panel's ranges are set (Points sets them).
func (f *Figure) VLine(x float64, label string, col color.Color) error {
	p := f.Plot()
	if p == nil {
		return errors.New("plot: VLine on a figure without panels")
	}
	if x < p.X.Min || x > p.X.Max {
		pad := 0.04 * math.Max(p.X.Max-p.X.Min, 1e-9)
		p.X.Min, p.X.Max = math.Min(p.X.Min, x-pad), math.Max(p.X.Max, x+pad)
	}
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = col, vg.Points(1.5), []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(l)
	if f.Legend == nil {
		f.Legend = &Legend{}
	}
	f.Legend.Add(label, l)
	return nil
}

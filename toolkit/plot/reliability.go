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

// ReliabilityBin is one bar of a reliability diagram (see calib.Bin).
type ReliabilityBin struct {
	Lo, Hi, MeanConf, Accuracy float64
	Count                      int
}

// PoolBins pools the reliability bins of several runs (same binning, bin i of every run alike):
// counts add up, and a bin's accuracy and mean confidence are the count-weighted means over the
// runs. Empty bins have NaN accuracy and confidence.
func PoolBins(runs [][]ReliabilityBin) ([]ReliabilityBin, error) {
	if len(runs) == 0 {
		return nil, errors.New("plot: no reliability bins to pool")
	}
	n := len(runs[0])
	out := make([]ReliabilityBin, n)
	for i := range out {
		out[i] = ReliabilityBin{Lo: runs[0][i].Lo, Hi: runs[0][i].Hi}
		var acc, conf float64
		for r, bins := range runs {
			if len(bins) != n {
				return nil, fmt.Errorf("plot: run %d has %d reliability bins, run 0 has %d", r, len(bins), n)
			}
			b := bins[i]
			if b.Lo != out[i].Lo || b.Hi != out[i].Hi {
				return nil, fmt.Errorf("plot: run %d bin %d is [%g, %g], run 0's is [%g, %g]", r, i, b.Lo, b.Hi, out[i].Lo, out[i].Hi)
			}
			if b.Count == 0 {
				continue
			}
			out[i].Count += b.Count
			acc += float64(b.Count) * b.Accuracy
			conf += float64(b.Count) * b.MeanConf
		}
		out[i].Accuracy, out[i].MeanConf = math.NaN(), math.NaN()
		if out[i].Count > 0 {
			out[i].Accuracy, out[i].MeanConf = acc/float64(out[i].Count), conf/float64(out[i].Count)
		}
	}
	return out, nil
}

// ECE is the expected calibration error of bins: Σ count·|accuracy − mean confidence| / Σ count.
func ECE(bins []ReliabilityBin) float64 {
	var s float64
	n := 0
	for _, b := range bins {
		if b.Count > 0 {
			s += float64(b.Count) * math.Abs(b.Accuracy-b.MeanConf)
			n += b.Count
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// Reliability draws a reliability diagram: accuracy per confidence bin as bars (colour col, nil:
// Color(0)) with the diagonal of perfect calibration and the bins' mean confidence as points, the
// ECE written in the emptiest corner, and under it a short panel with the number of answers per
// bin on the same x axis. The legend is below.
func Reliability(title string, bins []ReliabilityBin, col color.Color) (*Figure, error) {
	return ReliabilityGrid(title, []ReliabilitySeries{{Bins: bins, Color: col}})
}

// ReliabilitySeries is one diagram of ReliabilityGrid: its name (the panel's title), bins and colour
// (nil: the palette colour of its position).
type ReliabilitySeries struct {
	Name  string
	Bins  []ReliabilityBin
	Color color.Color
}

// ReliabilityGrid draws reliability diagrams side by side, one column per series — e.g. two
// confidence scores of the same answers — each as Reliability draws one, with one legend below.
func ReliabilityGrid(title string, series []ReliabilitySeries) (*Figure, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("plot %q: no reliability diagrams", title)
	}
	width := 5.5 * vg.Inch
	if len(series) > 1 {
		width = vg.Length(4.2*float64(len(series))) * vg.Inch
	}
	f := &Figure{Title: title, Panels: [][]*gplot.Plot{nil, nil}, RowWeights: []float64{3, 1},
		Legend: &Legend{Below: true}, Width: width, Height: 5.5 * vg.Inch}
	for i, s := range series {
		col := colorOr(s.Color, i)
		top, bottom, diag, sc, err := reliabilityPanels(s.Name, s.Bins, col)
		if err != nil && len(series) > 1 {
			return nil, fmt.Errorf("plot %q: %s: %w", title, s.Name, err)
		} else if err != nil {
			return nil, err
		}
		f.Panels[0], f.Panels[1] = append(f.Panels[0], top), append(f.Panels[1], bottom)
		f.Legend.Add("perfect calibration", diag) // once: Add skips a label it has
		f.Legend.Add("bin accuracy at its mean confidence", sc)
		label := "accuracy of the bin"
		if len(series) > 1 {
			label += ": " + s.Name
		}
		f.Legend.Add(label, barOf(col))
	}
	return f, nil
}

// reliabilityPanels draws one reliability diagram: the accuracy panel (titled name) and the count
// panel under it, with the diagonal and the points for the legend.
func reliabilityPanels(name string, bins []ReliabilityBin, col color.Color) (top, bottom *gplot.Plot, diag *plotter.Line, sc *plotter.Scatter, err error) {
	if len(bins) == 0 {
		return nil, nil, nil, nil, errors.New("plot: reliability diagram with no bins")
	}
	top = newPanel(name, "", "accuracy")
	top.X.Min, top.X.Max, top.Y.Min, top.Y.Max = 0, 1, 0, 1
	bottom = newPanel("", "confidence", "answers")
	bottom.X.Min, bottom.X.Max, bottom.Y.Min = 0, 1, 0
	var occupied []Rect
	var pts plotter.XYs
	maxCount := 0
	for _, b := range bins {
		maxCount = max(maxCount, b.Count)
		if b.Count == 0 {
			continue
		}
		bar, err := plotter.NewPolygon(plotter.XYs{{X: b.Lo, Y: 0}, {X: b.Hi, Y: 0}, {X: b.Hi, Y: b.Accuracy}, {X: b.Lo, Y: b.Accuracy}})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		bar.Color = withAlpha(col, 150)
		bar.LineStyle.Color = col
		top.Add(bar)
		occupied = append(occupied, Rect{b.Lo, 0, b.Hi, b.Accuracy})
		hist, err := plotter.NewPolygon(plotter.XYs{{X: b.Lo, Y: 0}, {X: b.Hi, Y: 0}, {X: b.Hi, Y: float64(b.Count)}, {X: b.Lo, Y: float64(b.Count)}})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		hist.Color = color.Gray{Y: 150}
		hist.LineStyle.Color = color.Gray{Y: 90}
		bottom.Add(hist)
		pts = append(pts, plotter.XY{X: b.MeanConf, Y: b.Accuracy})
		occupied = append(occupied, Rect{b.MeanConf, b.Accuracy, b.MeanConf, b.Accuracy})
	}
	if len(pts) == 0 {
		return nil, nil, nil, nil, errors.New("plot: reliability diagram with no answers")
	}
	bottom.Y.Max = float64(maxCount) * 1.08
	diag, _ = plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	diag.Color = color.Gray{Y: 60}
	diag.Width = vg.Points(1.2)
	top.Add(diag)
	for k := 0; k <= 20; k++ {
		v := float64(k) / 20
		occupied = append(occupied, Rect{v, v, v, v})
	}
	if sc, err = plotter.NewScatter(pts); err != nil {
		return nil, nil, nil, nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	top.Add(sc)
	n := 0
	for _, b := range bins {
		n += b.Count
	}
	note := fmt.Sprintf("ECE = %.3f\n%d answers", ECE(bins), n)
	top.Add(cornerText{Text: note, Corner: EmptyCorner(occupied, 0, 1, 0, 1, 0.32, 0.2)})
	return top, bottom, diag, sc, nil
}

// barThumb is a legend thumbnail of a filled bar.
type barThumb struct{ c color.Color }

func (b barThumb) Thumbnail(c *draw.Canvas) {
	c.SetColor(withAlpha(b.c, 150))
	c.Fill(c.Rectangle.Path())
}

func barOf(c color.Color) gplot.Thumbnailer { return barThumb{c} }

package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"github.com/paperlab/paperlab/toolkit/stats"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxBands is the most seed bands one panel may hold; more overlap into mud.
const MaxBands = 4

// Series is one method's learning curve over several seeds: Y[s][i] is seed s's value at X[i].
// Color nil: Color of the series' position in its panel.
type Series struct {
	Name  string
	Color color.Color
	X     []float64
	Y     [][]float64
}

// Band returns, per point, the mean over seeds and the 95 % Student-t interval of that mean
// (stats.Summarize of the seeds' finite values), clipped to [0, 1] when prob; n[i] is how many
// seeds have a value. Where fewer than two seeds do, lo and hi are NaN (no interval).
func Band(ys [][]float64, prob bool) (mean, lo, hi []float64, n []int) {
	if len(ys) == 0 {
		return nil, nil, nil, nil
	}
	m := len(ys[0])
	mean, lo, hi, n = make([]float64, m), make([]float64, m), make([]float64, m), make([]int, m)
	for i := 0; i < m; i++ {
		var xs []float64
		for _, y := range ys {
			if i < len(y) && !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) {
				xs = append(xs, y[i])
			}
		}
		s := stats.Summarize(xs)
		mean[i], lo[i], hi[i], n[i] = s.Mean, s.CI95[0], s.CI95[1], s.N
		if prob && !math.IsNaN(lo[i]) {
			lo[i], hi[i] = math.Max(0, lo[i]), math.Min(1, hi[i])
		}
	}
	return mean, lo, hi, n
}

// BandOpts say how Curves draws its series.
type BandOpts struct {
	// EMA > 0 smooths each seed's curve with stats.EMA(·, EMA) before the mean and the band are
	// taken (the mean of the smoothed seeds is the smoothed mean); the raw mean is drawn faint behind.
	EMA float64
	// Prob marks a probability-like metric: bands are clipped to [0, 1].
	Prob bool
	// LogX draws the x axis on a log scale (x must be positive).
	LogX bool
	// LogY draws the y axis on a log scale: points with a mean ≤ 0 are dropped and a band's lower
	// edge ≤ 0 is drawn at a tenth of the mean.
	LogY bool
}

// Panel is one panel of seed bands: at most MaxBands series.
type Panel struct {
	Title  string
	Series []Series
}

// Curves draws each series as its mean over seeds with a band of the 95 % t-interval of the mean
// in one panel; see Panels.
func Curves(title, xlabel, ylabel string, series []Series, opt BandOpts) (*Figure, error) {
	return Panels(title, xlabel, ylabel, []Panel{{Series: series}}, opt)
}

// Panels draws panels of seed bands side by side, sharing the y range, with one legend at the
// right. In every panel all bands are drawn first, then the faint raw means (with EMA), then the
// mean lines, so a line keeps its legend colour. The subtitle says what the band is and over how
// many seeds.
func Panels(title, xlabel, ylabel string, panels []Panel, opt BandOpts) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plot %q: no panels", title)
	}
	f := &Figure{Title: title, Legend: &Legend{}, Width: 6.5 * vg.Inch, Height: 4 * vg.Inch}
	if len(panels) > 1 {
		f.Width = vg.Length(3.6+3.2*float64(len(panels)-1)) * vg.Inch
	}
	seeds := map[int]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	var row []*gplot.Plot
	for pi, pn := range panels {
		if len(pn.Series) == 0 {
			return nil, fmt.Errorf("plot %q: panel %d has no series", title, pi)
		}
		if len(pn.Series) > MaxBands {
			return nil, fmt.Errorf("plot %q: panel %d has %d series, at most %d bands fit", title, pi, len(pn.Series), MaxBands)
		}
		yl := ylabel
		if pi > 0 {
			yl = ""
		}
		p := newPanel(pn.Title, xlabel, yl)
		if opt.LogX {
			p.X.Scale = gplot.LogScale{}
			p.X.Tick.Marker = LogTicks{}
		}
		if opt.LogY {
			p.Y.Scale = gplot.LogScale{}
			p.Y.Tick.Marker = LogTicks{}
		}
		var bands, raws, lines []gplot.Plotter
		for i, s := range pn.Series {
			if len(s.Y) == 0 || len(s.X) == 0 {
				return nil, fmt.Errorf("plot %q: series %q is empty", title, s.Name)
			}
			for k, y := range s.Y {
				if len(y) != len(s.X) {
					return nil, fmt.Errorf("plot %q: series %q seed %d has %d points for %d x values", title, s.Name, k, len(y), len(s.X))
				}
			}
			if opt.LogX {
				s = positiveX(s)
				if len(s.X) == 0 {
					return nil, fmt.Errorf("plot %q: series %q has no positive x for a log axis", title, s.Name)
				}
			}
			col := colorOr(s.Color, i)
			ys := s.Y
			if opt.EMA > 0 {
				rawMean, _, _, _ := Band(s.Y, false)
				raw := xy(s.X, rawMean)
				if len(raw) > 1 {
					l, err := plotter.NewLine(raw)
					if err != nil {
						return nil, err
					}
					l.Color, l.Width = withAlpha(col, 45), vg.Points(0.6)
					raws = append(raws, l)
				}
				ys = make([][]float64, len(s.Y))
				for k, y := range s.Y {
					ys[k] = stats.EMA(y, opt.EMA)
				}
			}
			mean, blo, bhi, _ := Band(ys, opt.Prob)
			if opt.LogY {
				for j := range mean {
					if mean[j] <= 0 {
						mean[j], blo[j], bhi[j] = math.NaN(), math.NaN(), math.NaN()
					} else if blo[j] <= 0 {
						blo[j] = mean[j] / 10
					}
				}
			}
			seeds[len(s.Y)] = true
			var up, down plotter.XYs
			for j, x := range s.X {
				if !math.IsNaN(blo[j]) {
					up = append(up, plotter.XY{X: x, Y: bhi[j]})
					down = append(down, plotter.XY{X: x, Y: blo[j]})
					lo, hi = math.Min(lo, blo[j]), math.Max(hi, bhi[j])
				}
				if !math.IsNaN(mean[j]) {
					lo, hi = math.Min(lo, mean[j]), math.Max(hi, mean[j])
				}
			}
			if len(up) > 1 {
				for j := len(down) - 1; j >= 0; j-- {
					up = append(up, down[j])
				}
				poly, err := plotter.NewPolygon(up)
				if err != nil {
					return nil, err
				}
				poly.Color = withAlpha(col, 55)
				poly.LineStyle.Width = 0
				bands = append(bands, poly)
			}
			line := xy(s.X, mean)
			if len(line) == 0 {
				return nil, fmt.Errorf("plot %q: series %q has no finite value", title, s.Name)
			}
			l, sc, err := plotter.NewLinePoints(line)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = col, vg.Points(2)
			sc.Color, sc.Shape, sc.Radius = col, draw.CircleGlyph{}, vg.Points(2.2)
			lines = append(lines, l)
			if len(line) <= 20 {
				lines = append(lines, sc) // few points: mark where they are
			}
			f.Legend.Add(s.Name, l)
		}
		p.Add(bands...)
		p.Add(raws...)
		p.Add(lines...)
		row = append(row, p)
	}
	if !math.IsInf(lo, 0) {
		pad := 0.04 * math.Max(hi-lo, 1e-9*math.Max(1, math.Abs(hi)))
		if hi == lo {
			pad = 0.05 * math.Max(1, math.Abs(hi))
		}
		ylo, yhi := lo-pad, hi+pad
		if opt.LogY {
			ylo, yhi = lo/1.2, hi*1.2
		}
		if opt.Prob {
			ylo, yhi = math.Max(ylo, math.Min(0, lo)), math.Min(yhi, math.Max(1, hi))
		}
		for _, p := range row {
			p.Y.Min, p.Y.Max = ylo, yhi
		}
	}
	f.Panels = [][]*gplot.Plot{row}
	nseeds := SeedCounts(seeds)
	what := fmt.Sprintf("line: mean; band: 95 %% CI of the mean over %s seeds", nseeds)
	if opt.EMA > 0 {
		what = fmt.Sprintf("each seed smoothed by EMA α = %g; line: mean (faint: raw mean); band: 95 %% CI over %s seeds", opt.EMA, nseeds)
	}
	f.Subtitle = what
	return f, nil
}

// positiveX drops the points of s at x ≤ 0 (they have no place on a log axis).
func positiveX(s Series) Series {
	out := Series{Name: s.Name, Color: s.Color, Y: make([][]float64, len(s.Y))}
	for j, x := range s.X {
		if x > 0 {
			out.X = append(out.X, x)
			for k := range s.Y {
				out.Y[k] = append(out.Y[k], s.Y[k][j])
			}
		}
	}
	return out
}

// xy pairs xs with the finite ys.
func xy(xs, ys []float64) plotter.XYs {
	var out plotter.XYs
	for j, x := range xs {
		if j < len(ys) && !math.IsNaN(ys[j]) && !math.IsInf(ys[j], 0) {
			out = append(out, plotter.XY{X: x, Y: ys[j]})
		}
	}
	return out
}

// XYCurve is one named curve given by points; Color nil: the palette colour of its position.
// Curves with the same Name share one legend entry (e.g. one curve per seed of a method).
type XYCurve struct {
	Name  string
	Color color.Color
	X, Y  []float64
}

// Lines draws curves with point markers (a one-point curve is still visible) and a legend at the
// right.
func Lines(title, xlabel, ylabel string, curves []XYCurve) (*Figure, error) {
	if len(curves) == 0 {
		return nil, errors.New("plot: no curves")
	}
	p := newPanel("", xlabel, ylabel)
	f := newFigure(title, p)
	f.Legend = &Legend{}
	names := map[string]int{}
	for i, c := range curves {
		if len(c.X) == 0 || len(c.X) != len(c.Y) {
			return nil, fmt.Errorf("plot %q: curve %q has %d x and %d y values", title, c.Name, len(c.X), len(c.Y))
		}
		k, ok := names[c.Name]
		if !ok {
			k = len(names)
			names[c.Name] = k
		}
		col := colorOr(c.Color, i)
		l, sc, err := plotter.NewLinePoints(xy(c.X, c.Y))
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = col, vg.Points(1.5)
		l.Dashes = plotutil.Dashes(k % 4)
		sc.Color, sc.Shape, sc.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(l, sc)
		f.Legend.Add(c.Name, l, sc)
	}
	return f, nil
}

// PrecisionCoverage draws precision against coverage for each curve (x and y in [0, 1]).
func PrecisionCoverage(title string, curves []XYCurve) (*Figure, error) {
	f, err := Lines(title, "coverage (fraction answered)", "precision (accuracy of answered)", curves)
	if err != nil {
		return nil, err
	}
	p := f.Plot()
	p.X.Min, p.X.Max = 0, 1
	p.Y.Max = math.Min(1, p.Y.Max+0.02)
	return f, nil
}

// SeedCounts writes the seed counts of a figure's series for its caption: "3", or "5 or 20".
func SeedCounts(ns map[int]bool) string {
	xs := make([]int, 0, len(ns))
	for n := range ns {
		xs = append(xs, n)
	}
	sort.Ints(xs)
	parts := make([]string, len(xs))
	for i, n := range xs {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, " or ")
}

// Stack puts the panel rows of figs under one another in one figure titled title: each row keeps
// its own y range, labels and panel titles, so metrics of different scales read against the same
// x (e.g. a mechanism measure above the entropy it drives). The legend is the first figure's (the
// figures should draw the same series in the same colours); subtitle says what the bands are.
// Rows with fewer panels than the widest are padded with empty cells.
func Stack(title, subtitle string, figs ...*Figure) (*Figure, error) {
	if len(figs) == 0 {
		return nil, fmt.Errorf("plot %q: nothing to stack", title)
	}
	f := &Figure{Title: title, Subtitle: subtitle, Legend: figs[0].Legend}
	cols := 0
	for _, g := range figs {
		for _, row := range g.Panels {
			cols = max(cols, len(row))
		}
		f.Width = max(f.Width, g.Width)
	}
	for _, g := range figs {
		for _, row := range g.Panels {
			r := append([]*gplot.Plot(nil), row...)
			for len(r) < cols {
				r = append(r, nil)
			}
			f.Panels = append(f.Panels, r)
		}
	}
	f.Height = vg.Length(1.2+2.6*float64(len(f.Panels))) * vg.Inch
	return f, nil
}

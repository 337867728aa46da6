package exp

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// ReliabilityBins rebuilds a reliability diagram from a run's "reliability" curve (x = bin mean
// confidence, y = bin accuracy) and "reliability_count" curve (x = bin centre, y = count).
func ReliabilityBins(run Run) []plot.ReliabilityBin {
	rel, cnt := run.Curves["reliability"], run.Curves["reliability_count"]
	n := len(cnt.X)
	bins := make([]plot.ReliabilityBin, 0, n)
	for i := 0; i < n && i < len(rel.X); i++ {
		w := 1 / float64(n)
		bins = append(bins, plot.ReliabilityBin{Lo: float64(i) * w, Hi: float64(i+1) * w,
			MeanConf: rel.X[i], Accuracy: rel.Y[i], Count: int(cnt.Y[i])})
	}
	return bins
}

// MethodColor is the colour of method m in every figure of res: plot.Color of its position in
// res.Methods().
func MethodColor(res *Result, m string) color.Color {
	for i, name := range res.Methods() {
		if name == m {
			return plot.Color(i)
		}
	}
	return plot.Color(len(res.Methods()))
}

// PooledReliability pools the reliability bins of every run of method m (plot.PoolBins): counts
// summed, accuracy and confidence count-weighted over the runs. It returns the bins and how many
// runs were pooled.
func PooledReliability(res *Result, m string) ([]plot.ReliabilityBin, int, error) {
	var runs [][]plot.ReliabilityBin
	for _, run := range res.RunsOf(m) {
		if b := ReliabilityBins(run); len(b) > 0 {
			runs = append(runs, b)
		}
	}
	if len(runs) == 0 {
		return nil, 0, fmt.Errorf("method %s has no reliability bins: %w", m, ErrNoFigures)
	}
	bins, err := plot.PoolBins(runs)
	return bins, len(runs), err
}

// MetricInfo says how a summary metric is shown: its human title, which way is better, whether it
// is a probability (axis kept in [0, 1]) and whether it is a fraction of seeds (each run 0 or 1:
// its interval is Wilson's, not the t-interval).
type MetricInfo struct {
	Key, Title string
	Better     plot.Better
	Prob       bool
	Fraction   bool
}

// Estimate is the summary of metric k for method m as a plot estimate: the mean with its 95 %
// t-interval, or for a fraction of seeds the fraction with its Wilson interval.
func Estimate(res *Result, m string, k MetricInfo) plot.Estimate {
	s := res.Summary[m][k.Key]
	e := plot.Estimate{Label: m, Color: MethodColor(res, m), Mean: s.Mean, Lo: s.CI95[0], Hi: s.CI95[1]}
	if k.Fraction && s.N > 0 {
		e.Lo, e.Hi = stats.Wilson(int(math.Round(s.Mean*float64(s.N))), s.N)
	} else if k.Prob && !math.IsNaN(e.Lo) {
		e.Lo, e.Hi = math.Max(0, e.Lo), math.Min(1, e.Hi)
	}
	return e
}

// SummaryBars draws the summary's metrics as a dot plot, one panel per metric with its own fitted
// axis (plot.Dots): the mean over seeds with its 95 % interval per method. Only methods that have
// every metric are drawn.
func SummaryBars(res *Result, title string, metrics []MetricInfo) (*plot.Figure, error) {
	return SummaryBarsFor(res, title, nil, metrics)
}

// SummaryBarsFor is SummaryBars on the methods keep accepts (nil: all).
func SummaryBarsFor(res *Result, title string, keep func(method string) bool, metrics []MetricInfo) (*plot.Figure, error) {
	var methods []string
	for _, m := range res.Methods() {
		ok := keep == nil || keep(m)
		for _, k := range metrics {
			if s, has := res.Summary[m][k.Key]; !has || s.N == 0 {
				ok = false
			}
		}
		if ok {
			methods = append(methods, m)
		}
	}
	if len(methods) == 0 {
		return nil, fmt.Errorf("no method has all of %v: %w", metrics, ErrNoFigures)
	}
	var panels []plot.Metric
	wilson, ns := false, map[int]bool{}
	for _, k := range metrics {
		pm := plot.Metric{Title: k.Title, Better: k.Better, Prob: k.Prob || k.Fraction}
		for _, m := range methods {
			pm.Estimates = append(pm.Estimates, Estimate(res, m, k))
			ns[res.Summary[m][k.Key].N] = true
		}
		wilson = wilson || k.Fraction
		panels = append(panels, pm)
	}
	f, err := plot.Dots(title, panels)
	if err != nil {
		return nil, err
	}
	f.Subtitle = "dot: mean over " + plot.SeedCounts(ns) + " seeds; bar: 95 % CI of the mean"
	if wilson {
		f.Subtitle += " (fraction of seeds: Wilson 95 % interval)"
	}
	return f, nil
}

// CurveSeries collects the curve named key of every run of each method into plot series (one seed
// band per method, in the method's colour). Runs lacking the curve are skipped.
func CurveSeries(res *Result, key string, methods []string) []plot.Series {
	var out []plot.Series
	for _, m := range methods {
		var s plot.Series
		s.Name, s.Color = m, MethodColor(res, m)
		for _, run := range res.RunsOf(m) {
			c, ok := run.Curves[key]
			if !ok {
				continue
			}
			if s.X == nil {
				s.X = c.X
			}
			if len(c.Y) == len(s.X) {
				s.Y = append(s.Y, c.Y)
			}
		}
		if len(s.Y) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// StoppedSeries is CurveSeries for curves that seeds stop at different points (early stopping):
// a seed whose x values are a prefix of the longest seed's joins with its y padded with NaN (no
// value) to the longest x, so a band's later points rest on the seeds that reached them
// (plot.Band skips NaN and counts the rest); a seed whose x values are not a prefix is left out,
// as in CurveSeries.
func StoppedSeries(res *Result, key string, methods []string) []plot.Series {
	var out []plot.Series
	for _, m := range methods {
		var curves []Curve
		var longest []float64
		for _, run := range res.RunsOf(m) {
			if c, ok := run.Curves[key]; ok && len(c.X) == len(c.Y) && len(c.X) > 0 {
				curves = append(curves, c)
				if len(c.X) > len(longest) {
					longest = c.X
				}
			}
		}
		s := plot.Series{Name: m, Color: MethodColor(res, m), X: longest}
		for _, c := range curves {
			if slices.Equal(c.X, longest[:len(c.X)]) {
				y := slices.Clone(c.Y)
				for len(y) < len(longest) {
					y = append(y, math.NaN())
				}
				s.Y = append(s.Y, y)
			}
		}
		if len(s.Y) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// Group is a panel of methods (at most plot.MaxBands).
type Group struct {
	Title   string
	Methods []string
}

// PanelsOf collects the curve key of each group's methods (CurveSeries) into plot panels, leaving
// out methods without the curve and groups left empty.
func PanelsOf(res *Result, key string, groups []Group) []plot.Panel {
	var out []plot.Panel
	for _, g := range groups {
		if s := CurveSeries(res, key, g.Methods); len(s) > 0 {
			out = append(out, plot.Panel{Title: g.Title, Series: s})
		}
	}
	return out
}

// ScaleX divides the x values of series by d (e.g. 1e6 for "M env steps"), on copies.
func ScaleX(series []plot.Series, d float64) []plot.Series {
	out := make([]plot.Series, len(series))
	for i, s := range series {
		out[i] = s
		out[i].X = make([]float64, len(s.X))
		for j, x := range s.X {
			out[i].X[j] = x / d
		}
	}
	return out
}

// Figs collects the figure files an experiment writes into Dir ("" only displays them).
type Figs struct {
	Dir   string
	Paths []string
}

// Add saves f as name.svg and name.png (the err of the figure constructor is passed through, so a
// call reads `figs.Add(plot.Curves(...))` with the name appended).
func (fs *Figs) Add(f *plot.Figure, err error, name string) error {
	if err != nil {
		return fmt.Errorf("figure %s: %w", name, err)
	}
	p, err := f.Save(fs.Dir, name)
	fs.Paths = append(fs.Paths, p...)
	return err
}

// CalibrationMetrics returns accuracy, AUC, ECE and Brier of confidences in [0,1] and their
// reliability curves ("reliability": bin mean confidence → accuracy; "reliability_count": bin
// centre → count, what ReliabilityBins reads back). AUC is left out when every answer is right (or
// wrong), where it is undefined, so the summary's n counts the runs where it exists.
func CalibrationMetrics(conf []float64, correct []bool, bins int) (map[string]float64, map[string]Curve, error) {
	acc, err := calib.Accuracy(correct)
	if err != nil {
		return nil, nil, err
	}
	final := map[string]float64{"accuracy": acc}
	if auc, err := calib.AUC(conf, correct); err == nil {
		final["auc"] = auc
	} else if !errors.Is(err, calib.ErrSingleClass) {
		return nil, nil, err
	}
	if final["ece"], err = calib.ECE(conf, correct, bins); err != nil {
		return nil, nil, err
	}
	if final["brier"], err = calib.Brier(conf, correct); err != nil {
		return nil, nil, err
	}
	rb, err := calib.ReliabilityBins(conf, correct, bins)
	if err != nil {
		return nil, nil, err
	}
	var rel, cnt Curve
	for _, b := range rb {
		rel.X, rel.Y = append(rel.X, b.MeanConf), append(rel.Y, b.Accuracy)
		cnt.X, cnt.Y = append(cnt.X, (b.Lo+b.Hi)/2), append(cnt.Y, float64(b.Count))
	}
	return final, map[string]Curve{"reliability": rel, "reliability_count": cnt}, nil
}

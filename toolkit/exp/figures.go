package exp

import (
	"errors"
	"fmt"

	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/plot"
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

// SummaryBars draws the summary's metrics as grouped bars (one group per metric, one bar per method)
// with ±1 std over seeds as error bars. Only methods that have every metric are drawn.
func SummaryBars(res *Result, title string, metrics []string) (*plot.Figure, error) {
	var methods []string
	for _, m := range res.Methods() {
		ok := true
		for _, k := range metrics {
			if s, has := res.Summary[m][k]; !has || s.N == 0 {
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
	mean := make([][]float64, len(metrics))
	errs := make([][]float64, len(metrics))
	for g, k := range metrics {
		for _, m := range methods {
			s := res.Summary[m][k]
			mean[g] = append(mean[g], s.Mean)
			errs[g] = append(errs[g], s.Std)
		}
	}
	return plot.Bars(title, "value (mean ± std over seeds)", metrics, methods, mean, errs)
}

// CurveSeries collects the curve named key of every run of each method into plot series (one seed
// band per method). Runs lacking the curve are skipped.
func CurveSeries(res *Result, key string, methods []string) []plot.Series {
	var out []plot.Series
	for _, m := range methods {
		var s plot.Series
		s.Name = m
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

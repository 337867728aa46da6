package exp

import (
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
// with ±1 std over seeds as error bars.
func SummaryBars(res *Result, title string, metrics []string) (*plot.Figure, error) {
	methods := res.Methods()
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

package tour

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the tour's figures from a result: a reliability diagram per method pooled over
// seeds, precision–coverage curves (one line per seed: the seeds' coverage levels differ, so there
// is no mean curve), and AUC / ECE / Brier as a dot plot with 95 % intervals over seeds.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var pc []plot.XYCurve
	seeds := 0
	for _, m := range res.Methods() {
		runs := res.RunsOf(m)
		if len(runs) == 0 {
			continue
		}
		bins, n, err := exp.PooledReliability(res, m)
		if err != nil {
			return nil, err
		}
		f, err := plot.Reliability(fmt.Sprintf("reliability: %s (pooled over %d seeds)", m, n), bins, exp.MethodColor(res, m))
		if err := figs.Add(f, err, "reliability_"+m); err != nil {
			return nil, err
		}
		for _, run := range runs {
			c, ok := run.Curves["precision_coverage"]
			if !ok {
				return nil, exp.ErrNoFigures
			}
			pc = append(pc, plot.XYCurve{Name: m, Color: exp.MethodColor(res, m), X: c.X, Y: c.Y})
		}
		seeds = max(seeds, len(runs))
	}
	f, err := plot.PrecisionCoverage("precision under abstention", pc)
	if err == nil {
		f.Subtitle = fmt.Sprintf("one line per seed (%d seeds); a point per confidence level", seeds)
	}
	if err := figs.Add(f, err, "precision_coverage"); err != nil {
		return nil, err
	}
	f, err = exp.SummaryBars(res, "calibration by confidence score", []exp.MetricInfo{
		{Key: "auc", Title: "AUC of the score", Better: plot.HigherIsBetter, Prob: true},
		{Key: "ece", Title: "ECE", Better: plot.LowerIsBetter, Prob: true},
		{Key: "brier", Title: "Brier score", Better: plot.LowerIsBetter, Prob: true},
	})
	if err := figs.Add(f, err, "calibration_bars"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

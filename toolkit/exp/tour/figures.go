package tour

import (
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the tour's figures from a result: a reliability diagram per method (first seed),
// precision–coverage curves (first seed), and AUC / ECE bars with seed error bars.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var pc []plot.XYCurve
	for _, m := range res.Methods() {
		runs := res.RunsOf(m)
		if len(runs) == 0 {
			continue
		}
		f, err := plot.Reliability("reliability: "+m+" (seed 1)", exp.ReliabilityBins(runs[0]))
		if err := figs.Add(f, err, "reliability_"+m); err != nil {
			return nil, err
		}
		c, ok := runs[0].Curves["precision_coverage"]
		if !ok {
			return nil, exp.ErrNoFigures
		}
		pc = append(pc, plot.XYCurve{Name: m, X: c.X, Y: c.Y})
	}
	f, err := plot.PrecisionCoverage("precision under abstention (seed 1)", pc)
	if err := figs.Add(f, err, "precision_coverage"); err != nil {
		return nil, err
	}
	f, err = exp.SummaryBars(res, "calibration by confidence score", []string{"auc", "ece", "brier"})
	if err := figs.Add(f, err, "calibration_bars"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

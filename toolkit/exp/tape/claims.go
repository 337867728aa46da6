package tape

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's inverted-U claim (§4.5) on a result, seed by seed: intermediate p
// against both extremes, on LBF's final return (the experiment's seeds) and on the coordination
// game's optimum rate and learning speed (its own seeds).
func Claims(res *exp.Result) []exp.Claim {
	var matrixSeeds []uint64
	for _, r := range res.RunsOf("p=0") {
		if _, ok := r.Final["optimal_rate"]; ok {
			matrixSeeds = append(matrixSeeds, r.Seed)
		}
	}
	lbf := func(a, b string) exp.Claim {
		return res.Check(fmt.Sprintf("LBF: %s beats %s", a, b), fmt.Sprintf("return(%s) − return(%s)", a, b), exp.Positive, res.Diff(a, "return", b, "return"))
	}
	return []exp.Claim{
		lbf("p=0.3", "p=0"), lbf("p=0.5", "p=0"), lbf("p=0.3", "p=1"), lbf("p=0.5", "p=1"),
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 reaches the optimum at least as often as p = 0", "optimal(p=0.3) − optimal(p=0)",
			exp.AtLeast(0), res.Diff("p=0.3", "optimal_rate", "p=0", "optimal_rate")),
		exp.CheckOn(matrixSeeds, "coordination game: … and as p = 1", "optimal(p=0.3) − optimal(p=1)",
			exp.AtLeast(0), res.Diff("p=0.3", "optimal_rate", "p=1", "optimal_rate")),
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 learns faster than p = 0", "P(optimal) area, p=0.3 − p=0", exp.Positive,
			res.Diff("p=0.3", "p_optimal_auc", "p=0", "p_optimal_auc")),
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 learns faster than p = 1", "P(optimal) area, p=0.3 − p=1", exp.Positive,
			res.Diff("p=0.3", "p_optimal_auc", "p=1", "p_optimal_auc")),
	}
}

package capo

import (
	"math"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims (§1.4–1.5) on a result.
func Claims(res *exp.Result) []exp.Claim {
	curveAt := func(method, key string, seed uint64, last bool) (float64, bool) {
		for _, r := range res.RunsOf(method) {
			if c, ok := r.Curves[key]; r.Seed == seed && ok && len(c.Y) > 0 {
				if last {
					return c.Y[len(c.Y)-1], true
				}
				return c.Y[0], true
			}
		}
		return 0, false
	}
	lastCurve := func(method, key string, seed uint64) (float64, bool) { return curveAt(method, key, seed, true) }
	firstCurve := func(method, key string, seed uint64) (float64, bool) { return curveAt(method, key, seed, false) }
	diff := res.Check
	pair := res.Diff
	pos, neg := exp.Positive, exp.Negative
	return []exp.Claim{
		diff("GRPO raises accuracy", "accuracy(grpo) − accuracy(sft)", pos, pair("grpo", "accuracy", "sft", "accuracy")),
		diff("GRPO's AUC falls", "AUC(grpo) − AUC(sft)", neg, pair("grpo", "auc", "sft", "auc")),
		diff("CAPO matches GRPO's accuracy (within 2 points)", "accuracy(capo) − accuracy(grpo)",
			exp.Within(0.02), pair("capo", "accuracy", "grpo", "accuracy")),
		diff("CAPO's AUC holds or rises (not more than 0.01 below SFT)", "AUC(capo) − AUC(sft)",
			exp.AtLeast(-0.01), pair("capo", "auc", "sft", "auc")),
		diff("CAPO's AUC is above GRPO's", "AUC(capo) − AUC(grpo)", pos, pair("capo", "auc", "grpo", "auc")),
		diff("CAPO's precision–coverage curve dominates GRPO's", "min over coverage of precision(capo) − precision(grpo)",
			exp.AtLeast(0), func(seed uint64) (float64, bool) {
				var a, b exp.Curve
				for _, r := range res.RunsOf("capo") {
					if r.Seed == seed {
						a = r.Curves["precision_coverage"]
					}
				}
				for _, r := range res.RunsOf("grpo") {
					if r.Seed == seed {
						b = r.Curves["precision_coverage"]
					}
				}
				if len(a.Y) == 0 || len(a.Y) != len(b.Y) {
					return 0, false
				}
				m := math.Inf(1)
				for i := range a.Y {
					m = math.Min(m, a.Y[i]-b.Y[i])
				}
				return m, true
			}),
		diff("perplexity-consistency voting gains more for CAPO", "[PC@16 − mean@16](capo) − [PC@16 − mean@16](grpo)", pos,
			func(seed uint64) (float64, bool) {
				a, ok1 := pair("capo", "pc_accuracy_n16", "capo", "accuracy")(seed)
				b, ok2 := pair("grpo", "pc_accuracy_n16", "grpo", "accuracy")(seed)
				return a - b, ok1 && ok2
			}),
		diff("without the mask, CAPO's rollout entropy grows during RL", "entropy(capo-nomask): last RL step − first", pos,
			func(seed uint64) (float64, bool) {
				first, ok1 := firstCurve("capo-nomask", "train/entropy", seed)
				last, ok2 := lastCurve("capo-nomask", "train/entropy", seed)
				return last - first, ok1 && ok2
			}),
		diff("… or at least ends above CAPO's (the mask lowers entropy)", "final rollout entropy(capo-nomask) − entropy(capo)", pos,
			func(seed uint64) (float64, bool) {
				x, ok1 := lastCurve("capo-nomask", "train/entropy", seed)
				y, ok2 := lastCurve("capo", "train/entropy", seed)
				return x - y, ok1 && ok2
			}),
		diff("the mask alone (GRPO + mask) does not improve AUC", "AUC(grpo-mask) − AUC(grpo)",
			exp.AtMost(0.01), pair("grpo-mask", "auc", "grpo", "auc")),
		diff("τ changes AUC by less than 1 point (paper: τ ∈ {0.4, 0.6, 1.0})", "AUC(capo, τ=0.2) − AUC(capo, τ=0.5)",
			exp.Within(0.01), pair("capo", "auc", "capo-tau0.5", "auc")),
		diff("τ changes accuracy by less than 1 point", "accuracy(capo, τ=0.2) − accuracy(capo, τ=0.5)",
			exp.Within(0.01), pair("capo", "accuracy", "capo-tau0.5", "accuracy")),
	}
}

package capo

import (
	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims (§1.4–1.5) on a result, each paired per seed: GRPO raises accuracy
// and lowers AUC; CAPO's AUC holds and is above GRPO's, with a lower AURC and a higher precision at
// 50 % coverage, while its accuracy stays within 2 points of GRPO's judged greedily and by
// majority@16 (not only mean@16, which a higher-entropy policy loses by sampling); RPC voting gains
// more over one sample for CAPO; the same for capo-gnorm (CAPO at GRPO's normalisation); the mask
// ablations (entropy without the mask, the mask alone) and τ on their 3 seeds.
func Claims(res *exp.Result) []exp.Claim {
	lastCurve := func(method, key string, seed uint64) (float64, bool) {
		for _, r := range res.RunsOf(method) {
			if c, ok := r.Curves[key]; r.Seed == seed && ok && len(c.Y) > 0 {
				return c.Y[len(c.Y)-1], true
			}
		}
		return 0, false
	}
	diff, pair := res.Check, res.Diff
	pos, neg := exp.Positive, exp.Negative
	gain := func(m string) exp.PerSeed { return pair(m, "rpc_accuracy_n16", m, "accuracy") }
	claims := []exp.Claim{
		diff("GRPO raises accuracy (mean@16)", "accuracy(grpo) − accuracy(sft)", pos, pair("grpo", "accuracy", "sft", "accuracy")),
		diff("GRPO raises greedy accuracy", "greedy(grpo) − greedy(sft)", pos, pair("grpo", "greedy_accuracy", "sft", "greedy_accuracy")),
		diff("GRPO's AUC falls", "AUC(grpo) − AUC(sft)", neg, pair("grpo", "auc", "sft", "auc")),
		diff("CAPO's AUC holds or rises (not more than 0.01 below SFT)", "AUC(capo) − AUC(sft)", exp.AtLeast(-0.01), pair("capo", "auc", "sft", "auc")),
	}
	for _, m := range []string{"capo", "capo-gnorm"} {
		claims = append(claims,
			diff(m+"'s AUC is above GRPO's", "AUC("+m+") − AUC(grpo)", pos, pair(m, "auc", "grpo", "auc")),
			diff(m+"'s AURC is below GRPO's", "AURC("+m+") − AURC(grpo)", neg, pair(m, "aurc", "grpo", "aurc")),
			diff(m+"'s precision at 50 % coverage is above GRPO's", "precision@50("+m+") − precision@50(grpo)", pos, pair(m, "precision_at_50", "grpo", "precision_at_50")),
			diff(m+" matches GRPO's greedy accuracy (within 2 points)", "greedy("+m+") − greedy(grpo)", exp.Within(0.02), pair(m, "greedy_accuracy", "grpo", "greedy_accuracy")),
			diff(m+" matches GRPO's majority@16 accuracy (within 2 points)", "maj@16("+m+") − maj@16(grpo)", exp.Within(0.02),
				pair(m, "majority_accuracy_n16", "grpo", "majority_accuracy_n16")),
			diff("RPC voting gains more over one sample for "+m+" than for GRPO", "[RPC@16 − mean@16]("+m+") − [RPC@16 − mean@16](grpo)", pos,
				func(seed uint64) (float64, bool) {
					a, ok1 := gain(m)(seed)
					b, ok2 := gain("grpo")(seed)
					return a - b, ok1 && ok2
				}),
		)
	}
	claims = append(claims,
		diff("RPC voting beats one sample for CAPO", "RPC@16 − mean@16 (capo)", pos, gain("capo")),
		diff("without the mask CAPO ends with a higher rollout entropy (3 seeds)", "final rollout entropy(capo-nomask) − entropy(capo)", pos,
			func(seed uint64) (float64, bool) {
				x, ok1 := lastCurve("capo-nomask", "train/entropy", seed)
				y, ok2 := lastCurve("capo", "train/entropy", seed)
				return x - y, ok1 && ok2
			}),
		diff("the mask alone (GRPO + mask) does not improve AUC (3 seeds)", "AUC(grpo-mask) − AUC(grpo)", exp.AtMost(0.01), pair("grpo-mask", "auc", "grpo", "auc")),
		diff("τ changes AUC by less than 1 point (3 seeds; paper: τ ∈ {0.4, 0.6, 1.0})", "AUC(capo, τ=0.2) − AUC(capo, τ=0.5)",
			exp.Within(0.01), pair("capo", "auc", "capo-tau0.5", "auc")),
	)
	return claims
}

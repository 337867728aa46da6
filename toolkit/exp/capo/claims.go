package capo

import (
	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims (§1.4–1.5) on a result, each paired per seed: GRPO raises accuracy
// and lowers AUC; CAPO's AUC holds and is above GRPO's, with a lower AURC and a higher precision at
// 50 % coverage, while its accuracy stays within 2 points of GRPO's judged greedily and by
// majority@16 (not only mean@16, which a higher-entropy policy loses by sampling); RPC voting gains
// more over one sample for CAPO; the same for capo-gnorm (CAPO at GRPO's normalisation); the mask
// ablations (entropy without the mask, the mask alone) and τ on their 3 seeds; and CAPO's AUC
// against GRPO's at a matched operating point (the same held-out accuracy) along the evaluation
// curves, beside the fixed-step comparisons.
//
// Each claim names the room checks it needs (see Room): every claim about CAPO at the default τ
// needs tau-vs-lpm-gap (the paper's CAPO works outside the surrogate's saturated regime); claims
// comparing two RL methods at the last step need both methods' budget (held-out accuracy stopped
// improving), claims about AUC gains the SFT ceiling, about AUC falls the floor, and comparisons
// with GRPO's accuracy a GRPO that actually moved on that accuracy measure.
func Claims(res *exp.Result) []exp.Claim {
	lastCurve := func(method, key string, seed uint64) (float64, bool) {
		c, ok := res.CurveOf(method, key, seed)
		if !ok {
			return 0, false
		}
		return c.Y[len(c.Y)-1], true
	}
	diff, pair := res.Check, res.Diff
	pos, neg := exp.Positive, exp.Negative
	gain := func(m string) exp.PerSeed { return pair(m, "rpc_accuracy_n16", m, "accuracy") }
	tau := func(m string) string {
		if m == "capo-tau0.5" {
			return roomTauAblation
		}
		return roomTau
	}
	claims := []exp.Claim{
		// GRPO's accuracy gains need no room check: each is its own evidence that accuracy had room
		// (a check on GRPO's gain would be the claim itself).
		diff("GRPO raises accuracy (mean@16)", "accuracy(grpo) − accuracy(sft)", pos, pair("grpo", "accuracy", "sft", "accuracy")),
		diff("GRPO raises greedy accuracy", "greedy(grpo) − greedy(sft)", pos, pair("grpo", "greedy_accuracy", "sft", "greedy_accuracy")),
		// The fall is a direction of change during training: it needs room to fall and an RL run that
		// moved, not a finished budget.
		diff("GRPO's AUC falls", "AUC(grpo) − AUC(sft)", neg, pair("grpo", "auc", "sft", "auc")).
			Needs(roomSFTFloor, roomGRPOAcc),
		diff("CAPO's AUC holds or rises (not more than 0.01 below SFT)", "AUC(capo) − AUC(sft)", exp.AtLeast(-0.01), pair("capo", "auc", "sft", "auc")).
			Needs(roomTau, roomSFTCeiling),
	}
	for _, m := range []string{"capo", "capo-gnorm"} {
		// capo-gnorm keeps τ = 0.2 within a group: its within-group weights are saturated like capo's.
		atStep := []string{tau(m), budgetCheck("grpo"), budgetCheck(m)}
		claims = append(claims,
			diff(m+"'s AUC is above GRPO's", "AUC("+m+") − AUC(grpo)", pos, pair(m, "auc", "grpo", "auc")).
				Needs(append(atStep, roomSFTCeiling, roomGRPOAcc)...),
			diff(m+"'s AURC is below GRPO's", "AURC("+m+") − AURC(grpo)", neg, pair(m, "aurc", "grpo", "aurc")).
				Needs(append(atStep, roomSFTCeiling, roomGRPOAcc)...),
			diff(m+"'s precision at 50 % coverage is above GRPO's", "precision@50("+m+") − precision@50(grpo)", pos, pair(m, "precision_at_50", "grpo", "precision_at_50")).
				Needs(append(atStep, roomSFTCeiling, roomGRPOAcc)...),
			diff(m+" matches GRPO's greedy accuracy (within 2 points)", "greedy("+m+") − greedy(grpo)", exp.Within(0.02), pair(m, "greedy_accuracy", "grpo", "greedy_accuracy")).
				Needs(append(atStep, roomGRPOGreedy)...),
			diff(m+" matches GRPO's majority@16 accuracy (within 2 points)", "maj@16("+m+") − maj@16(grpo)", exp.Within(0.02),
				pair(m, "majority_accuracy_n16", "grpo", "majority_accuracy_n16")).
				Needs(append(atStep, roomGRPOMaj)...),
			diff("RPC voting gains more over one sample for "+m+" than for GRPO", "[RPC@16 − mean@16]("+m+") − [RPC@16 − mean@16](grpo)", pos,
				func(seed uint64) (float64, bool) {
					a, ok1 := gain(m)(seed)
					b, ok2 := gain("grpo")(seed)
					return a - b, ok1 && ok2
				}).
				Needs(append(atStep, roomGRPOAcc)...),
		)
	}
	claims = append(claims,
		// A property of CAPO's final model alone: no budget comparison.
		diff("RPC voting beats one sample for CAPO", "RPC@16 − mean@16 (capo)", pos, gain("capo")).Needs(roomTau),
		// The entropy divergence is a during-training effect (the paper: without the mask entropy
		// rises); both arms run CAPO at the default τ.
		diff("without the mask CAPO ends with a higher rollout entropy (3 seeds)", "final rollout entropy(capo-nomask) − entropy(capo)", pos,
			func(seed uint64) (float64, bool) {
				x, ok1 := lastCurve("capo-nomask", "train/entropy", seed)
				y, ok2 := lastCurve("capo", "train/entropy", seed)
				return x - y, ok1 && ok2
			}).Needs(roomTau, roomAblSeeds),
		diff("the mask alone (GRPO + mask) does not improve AUC (3 seeds)", "AUC(grpo-mask) − AUC(grpo)", exp.AtMost(0.01), pair("grpo-mask", "auc", "grpo", "auc")).
			Needs(roomMaskDrops, roomAblSeeds, budgetCheck("grpo"), budgetCheck("grpo-mask")),
		diff("τ changes AUC by less than 1 point (3 seeds; paper: τ ∈ {0.4, 0.6, 1.0})", "AUC(capo, τ=0.2) − AUC(capo, τ=0.5)",
			exp.Within(0.01), pair("capo", "auc", "capo-tau0.5", "auc")).
			Needs(roomTau, roomTauAblation, roomAblSeeds, budgetCheck("capo"), budgetCheck("capo-tau0.5")),
	)
	// Matched operating points along the evaluation curves (held-out mean@4 accuracy and AUC every
	// 100 steps: the curves hold no greedy or majority accuracy). At the same accuracy the budget
	// does not enter; the two paths must overlap on enough seeds (reach checks).
	matched := func(a, b, text, measure string, test exp.Test, needs ...string) exp.Claim {
		return res.Matched(text, measure, test, exp.Match{A: a, B: b, X: accCurve, Y: aucCurve}).
			Needs(append(needs, reachCheck(a, b), roomSFTCeiling, roomGRPOAcc)...)
	}
	claims = append(claims,
		matched("capo", "grpo", "CAPO's AUC at GRPO's final accuracy is above GRPO's (matched held-out mean@4 accuracy; eval curves)",
			"AUC(capo at grpo's final eval accuracy) − AUC(grpo, final eval)", pos, roomTau),
		matched("grpo", "capo", "GRPO's AUC at CAPO's final accuracy is below CAPO's (matched held-out mean@4 accuracy; eval curves)",
			"AUC(grpo at capo's final eval accuracy) − AUC(capo, final eval)", neg, roomTau),
		matched("capo-tau0.5", "grpo", "CAPO at τ = 0.5 (the paper's): its AUC at GRPO's final accuracy is above GRPO's (3 seeds; matched held-out mean@4 accuracy)",
			"AUC(capo-tau0.5 at grpo's final eval accuracy) − AUC(grpo, final eval)", pos, roomTauAblation, roomAblSeeds),
		matched("grpo", "capo-tau0.5", "CAPO at τ = 0.5 (the paper's): GRPO's AUC at its final accuracy is below its own (3 seeds; matched held-out mean@4 accuracy)",
			"AUC(grpo at capo-tau0.5's final eval accuracy) − AUC(capo-tau0.5, final eval)", neg, roomTauAblation, roomAblSeeds),
	)
	return claims
}

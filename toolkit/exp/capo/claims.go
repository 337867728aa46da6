package capo

import (
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Claims checks the paper's claims (§1.4–1.5) on a result, each paired per seed.
//
//   - GRPO raises accuracy and lowers AUC.
//   - At the last step, for CAPO at the paper's τ (and for capo-gnorm): AUC holds and is above
//     GRPO's, with a lower AURC and a higher precision at 50 % coverage, while its accuracy stays
//     within 2 points of GRPO's judged greedily and by majority@16 (not only mean@16, which a
//     higher-entropy policy loses by sampling); RPC voting gains more over one sample.
//   - At matched accuracy (the paper's claim read as a frontier): CAPO's AUC at GRPO's final greedy
//     and mean@16 accuracy, interpolated along CAPO's evaluation curve, against GRPO's final AUC —
//     and GRPO's at CAPO's, the other way round.
//   - τ: the paper's robustness (τ = 1.0 against 0.5, AUC and mean@16 within a point), and the
//     audit's account of τ = 0.2 (below the paper's range): a flatter advantage that sharpens less.
//   - The mechanism the audit names: GRPO's advantage favours the responses the policy is already
//     confident in (Cov(lpm, A) per unit |A| > 0), CAPO's less so.
//   - The mask ablations (entropy without the mask, the mask alone) on their five seeds.
//
// Each claim names the room checks it needs (see Room): claims about a CAPO method need its τ
// outside the saturated regime; claims comparing methods at the last step need both budgets;
// every RL comparison needs a warm start whose seeds share one regime; claims about AUC gains the
// SFT ceiling, about AUC falls the floor; comparisons with GRPO's accuracy a GRPO that moved on
// that measure.
func Claims(res *exp.Result) []exp.Claim {
	diff, pair := res.Check, res.Diff
	pos, neg := exp.Positive, exp.Negative
	warm := []string{roomSFTGreedySD, roomSFTAUCSD}
	needs := func(checks ...string) []string { return append(append([]string(nil), warm...), checks...) }
	gain := func(m string) exp.PerSeed { return pair(m, "rpc_accuracy_n16", m, "accuracy") }
	claims := []exp.Claim{
		// GRPO's accuracy gains need no room check: each is its own evidence that accuracy had room
		// (a check on GRPO's gain would be the claim itself).
		diff("GRPO raises accuracy (mean@16)", "accuracy(grpo) − accuracy(sft)", pos, pair("grpo", "accuracy", "sft", "accuracy")),
		diff("GRPO raises greedy accuracy", "greedy(grpo) − greedy(sft)", pos, pair("grpo", "greedy_accuracy", "sft", "greedy_accuracy")),
		// The fall is a direction of change during training: it needs room to fall and an RL run that
		// moved, not a finished budget.
		diff("GRPO's AUC falls", "AUC(grpo) − AUC(sft)", neg, pair("grpo", "auc", "sft", "auc")).
			Needs(needs(roomSFTFloor, roomGRPOAcc)...),
		diff("CAPO's AUC holds or rises (not more than 0.01 below SFT)", "AUC(capo) − AUC(sft)", exp.AtLeast(-0.01), pair("capo", "auc", "sft", "auc")).
			Needs(needs(tauCheck("capo"), roomSFTCeiling)...),
	}
	for _, m := range []string{"capo", "capo-gnorm"} {
		atStep := needs(tauCheck(m), budgetCheck("grpo"), budgetCheck(m))
		calib := append(append([]string(nil), atStep...), roomSFTFloor, roomGRPOAcc)
		claims = append(claims,
			diff(m+"'s AUC is above GRPO's", "AUC("+m+") − AUC(grpo)", pos, pair(m, "auc", "grpo", "auc")).Needs(calib...),
			diff(m+"'s AURC is below GRPO's", "AURC("+m+") − AURC(grpo)", neg, pair(m, "aurc", "grpo", "aurc")).Needs(calib...),
			diff(m+"'s precision at 50 % coverage is above GRPO's", "precision@50("+m+") − precision@50(grpo)", pos, pair(m, "precision_at_50", "grpo", "precision_at_50")).
				Needs(calib...),
			diff(m+" matches GRPO's greedy accuracy (within 2 points)", "greedy("+m+") − greedy(grpo)", exp.Within(0.02), pair(m, "greedy_accuracy", "grpo", "greedy_accuracy")).
				Needs(append(atStep, roomGRPOGreedy, roomBudgetGreed)...),
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
	// Matched operating points along the evaluation curves (every 50 steps, 16 samples per prompt
	// and greedy): A's AUC at B's final accuracy, linear between the two evaluations around A's first
	// crossing; a seed whose path never reaches it is measured at A's final point and named in the
	// notes (issue 33's rule). At the same accuracy the budget does not enter; the matched point must
	// be a crossing on enough seeds (reach checks), and B's accuracy must have moved on that measure
	// (otherwise every path touches it at step 0).
	matched := func(a, b, x string, test exp.Test, moved string) exp.Claim {
		text := "CAPO's AUC at GRPO's final " + accText(x) + " is above GRPO's final AUC (matched accuracy)"
		measure := "AUC(capo at grpo's final " + accText(x) + ") − AUC(grpo, final eval)"
		if a == "grpo" {
			text = "GRPO's AUC at CAPO's final " + accText(x) + " is below CAPO's final AUC (matched accuracy)"
			measure = "AUC(grpo at capo's final " + accText(x) + ") − AUC(capo, final eval)"
		}
		return res.Matched(text, measure, test, exp.Match{A: a, B: b, X: x, Y: aucCurve, FallbackFinal: true}).
			Needs(needs(reachCheck(a, b, x), tauCheck("capo"), roomSFTFloor, moved)...)
	}
	for _, x := range []string{greedyCurve, accCurve} {
		moved := roomGRPOAcc
		if x == greedyCurve {
			moved = roomGRPOGreedy
		}
		claims = append(claims,
			matched("capo", "grpo", x, pos, moved),
			matched("grpo", "capo", x, neg, moved),
		)
	}
	claims = append(claims,
		// A property of CAPO's final model alone: no budget comparison.
		diff("RPC voting beats one sample for CAPO", "RPC@16 − mean@16 (capo)", pos, gain("capo")).Needs(needs(tauCheck("capo"))...),
		// τ: the paper's robustness range holds τ = 1.0 and 0.5; both must be outside the saturated
		// regime and trained out.
		diff("τ changes AUC by less than 1 point (paper: τ ∈ {0.4, 0.6, 1.0})", "AUC(capo, τ=1.0) − AUC(capo, τ=0.5)", exp.Within(0.01),
			pair("capo-tau1.0", "auc", "capo", "auc")).
			Needs(needs(tauCheck("capo"), tauCheck("capo-tau1.0"), budgetCheck("capo"), budgetCheck("capo-tau1.0"))...),
		diff("τ changes accuracy by less than 1 point (mean@16; paper: τ ∈ {0.4, 0.6, 1.0})", "accuracy(capo, τ=1.0) − accuracy(capo, τ=0.5)", exp.Within(0.01),
			pair("capo-tau1.0", "accuracy", "capo", "accuracy")).
			Needs(needs(tauCheck("capo"), tauCheck("capo-tau1.0"), budgetCheck("capo"), budgetCheck("capo-tau1.0"))...),
		// The audit's account of τ = 0.2 (PaperLab's, not the paper's): below the typical |lpm gap|
		// only misranked pairs carry weight, so the advantage sharpens less and accuracy lags. No τ
		// check: the saturated regime is what these claims are about.
		diff("τ = 0.2 sharpens less than τ = 0.5: lower Cov(lpm, A) per unit |A| (audit's account, not the paper's)", "mean over the run of Cov(lpm, A)/|A| (capo-tau0.2 − capo)", neg,
			meanCurveDiff(res, "capo-tau0.2", "capo", covCurve)).
			Needs(needs(tauCheck("capo"))...),
		diff("τ = 0.2 ends below τ = 0.5's accuracy (mean@16; audit's account, not the paper's)", "accuracy(capo, τ=0.2) − accuracy(capo, τ=0.5)", neg,
			pair("capo-tau0.2", "accuracy", "capo", "accuracy")).
			Needs(needs(tauCheck("capo"), budgetCheck("capo"), budgetCheck("capo-tau0.2"))...),
		// The mechanism (the audit's diagnosis of §1.1): GRPO's step raises the lpm of responses the
		// policy already favours; CAPO's surrogate gives separated pairs little weight.
		diff("GRPO's advantage sharpens: Cov(lpm, A) per unit |A| > 0 (mean over the run; the audit's mechanism)", "mean over the run of Cov(lpm, A)/|A| (grpo)", pos,
			meanCurveOf(res, "grpo", covCurve)).Needs(warm...),
		diff("CAPO's advantage sharpens less than GRPO's: lower Cov(lpm, A) per unit |A| (the audit's mechanism)", "mean over the run of Cov(lpm, A)/|A| (capo − grpo)", neg,
			meanCurveDiff(res, "capo", "grpo", covCurve)).Needs(needs(tauCheck("capo"))...),
		// The entropy divergence is a during-training effect (the paper: without the mask entropy
		// rises); both arms run CAPO at the default τ. Entropy as the mean of the last 10 % of the
		// per-step rollout entropy.
		diff("without the mask CAPO ends with a higher rollout entropy (5 seeds)", "rollout entropy, last 10 % of steps (capo-nomask − capo)", pos,
			func(seed uint64) (float64, bool) {
				x, ok1 := tailMeanOf(res, "capo-nomask", "train/entropy")(seed)
				y, ok2 := tailMeanOf(res, "capo", "train/entropy")(seed)
				return x - y, ok1 && ok2
			}).Needs(needs(tauCheck("capo"), roomAblSeeds)...),
		diff("the mask alone (GRPO + mask) does not improve AUC (5 seeds)", "AUC(grpo-mask) − AUC(grpo)", exp.AtMost(0.01), pair("grpo-mask", "auc", "grpo", "auc")).
			Needs(needs(roomMaskDrops, roomAblSeeds, budgetCheck("grpo"), budgetCheck("grpo-mask"))...),
	)
	return claims
}

// accText is an accuracy curve as the claim texts say it.
func accText(x string) string {
	if x == greedyCurve {
		return "greedy accuracy"
	}
	return "mean@16 accuracy"
}

// meanCurveOf is, per seed, the mean over a method's curve key (e.g. a diagnostic over the run's
// evaluation windows).
func meanCurveOf(res *exp.Result, method, key string) exp.PerSeed {
	return res.CurveMeasure(method, key, func(c exp.Curve) float64 { return stats.Mean(c.Y) })
}

// meanCurveDiff is, per seed, meanCurveOf(a) − meanCurveOf(b).
func meanCurveDiff(res *exp.Result, a, b, key string) exp.PerSeed {
	return func(seed uint64) (float64, bool) {
		x, ok1 := meanCurveOf(res, a, key)(seed)
		y, ok2 := meanCurveOf(res, b, key)(seed)
		return x - y, ok1 && ok2
	}
}

// tailMeanOf is, per seed, the mean of the last 10 % of a method's per-step curve (at least one point).
func tailMeanOf(res *exp.Result, method, key string) exp.PerSeed {
	return res.CurveMeasure(method, key, func(c exp.Curve) float64 { return stats.Mean(c.Y[len(c.Y)-max(1, len(c.Y)/10):]) })
}

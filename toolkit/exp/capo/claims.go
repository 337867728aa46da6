package capo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Claims checks the paper's claims (its headline numbers and ablations, and the qualitative targets
// of our tiny reproduction) on a result, each paired per seed.
//
//   - GRPO raises accuracy, and its AUC falls while its accuracy rises (capo-1).
//   - CAPO's calibration against GRPO's at matched operating points (capo-2): both AUCs read where
//     both paths reach the lower of their final mean@16 accuracies, and where both reach the lower
//     of their final KLs from the SFT model (exp.Match). The fixed-step difference is shown beside
//     it: at the last step the methods end at different accuracies, and AUC falls as a policy moves.
//   - At the last step, for CAPO at the paper's τ (and for capo-gnorm): AUC, AURC and precision at
//     50 % coverage against GRPO's (context: capo-5 reads AURC at matched mean@16 along the AURC
//     curve, and precision@50 has no curve along training); accuracy non-inferior to GRPO's by mean@16 (capo-3), and within 2 points
//     greedily and by majority@16 (not only mean@16, which a higher-entropy policy loses by
//     sampling); RPC@16 above GRPO's (capo-4), where GRPO's own RPC@16 moved over SFT.
//   - At matched greedy accuracy: CAPO's AUC against GRPO's at the greedy accuracy both reach.
//   - τ: the paper's robustness (τ = 1.0 against 0.5, AUC and mean@16 within a point), and the
//     audit's account of τ = 0.2 (below the paper's range): a flatter advantage that sharpens less.
//   - The mechanism the audit names: GRPO's advantage favours the responses the policy is already
//     confident in (Cov(lpm, A) per unit |A| > 0), CAPO's less so.
//   - The mask ablations (entropy without the mask, the mask alone) on their five seeds.
//
// Each claim names the room checks it needs (see Room): claims about a CAPO method need its τ
// outside the saturated regime; claims comparing methods at the last step need both budgets;
// claims about AUC gains the SFT ceiling, about AUC falls the floor; comparisons with GRPO's
// accuracy a GRPO that moved on that measure; matched readings enough seeds crossing the matched
// point. A warm start in another regime is no gate: the outlier checks flag it and every claim is
// reported with and without it.
func Claims(res *exp.Result) []exp.Claim {
	diff := res.Check
	pos, neg := exp.Positive, exp.Negative
	needs := func(checks ...string) []string { return checks }
	claims := []exp.Claim{
		// GRPO's accuracy gains need no room check: each is its own evidence that accuracy had room
		// (a check on GRPO's gain would be the claim itself).
		res.CheckDiff("GRPO raises accuracy (mean@16)", "accuracy(grpo) − accuracy(sft)", pos, "grpo", "accuracy", "sft", "accuracy"),
		res.CheckDiff("GRPO raises greedy accuracy", "greedy(grpo) − greedy(sft)", pos, "grpo", "greedy_accuracy", "sft", "greedy_accuracy"),
		// The fall is a direction of change during training: it needs room to fall and an RL run
		// whose accuracy rose (grpo-accuracy-moves: the "while accuracy rises" of the headline), not
		// a finished budget.
		res.CheckDiff("GRPO's AUC falls while its accuracy rises (the rise: room check grpo-accuracy-moves)", "AUC(grpo) − AUC(sft)", neg, "grpo", "auc", "sft", "auc").
			Needs(needs(roomSFTFloor, roomGRPOAcc)...).For("capo-1"),
		res.CheckDiff("CAPO's AUC holds or rises (not more than 0.01 below SFT)", "AUC(capo) − AUC(sft)", exp.AtLeast(-0.01), "capo", "auc", "sft", "auc").
			Needs(needs(tauCheck("capo"), roomSFTCeiling)...),
		calibrationMatched(res),
	}
	claims = append(claims, lastStep(res, "capo")...)
	if hasMethod(res, "capo-gnorm") {
		claims = append(claims, lastStep(res, "capo-gnorm")...)
	}
	claims = append(claims, extraClaims(res)...)
	claims = append(claims,
		// A property of CAPO's final model alone: no budget comparison.
		res.CheckDiff("RPC voting beats one sample for CAPO", "RPC@16 − mean@16 (capo)", pos, "capo", "rpc_accuracy_n16", "capo", "accuracy").Needs(needs(tauCheck("capo"))...),
		// τ: the paper's robustness range holds τ = 1.0 and 0.5; both must be outside the saturated
		// regime and trained out.
		res.CheckDiff("τ changes AUC by less than 1 point (paper: τ ∈ {0.4, 0.6, 1.0})", "AUC(capo, τ=1.0) − AUC(capo, τ=0.5)", exp.Within(0.01), "capo-tau1.0", "auc", "capo", "auc").
			Needs(needs(tauCheck("capo"), tauCheck("capo-tau1.0"), budgetCheck("capo"), budgetCheck("capo-tau1.0"))...),
		res.CheckDiff("τ changes accuracy by less than 1 point (mean@16; paper: τ ∈ {0.4, 0.6, 1.0})", "accuracy(capo, τ=1.0) − accuracy(capo, τ=0.5)", exp.Within(0.01), "capo-tau1.0", "accuracy", "capo", "accuracy").
			Needs(needs(tauCheck("capo"), tauCheck("capo-tau1.0"), budgetCheck("capo"), budgetCheck("capo-tau1.0"))...),
		// The audit's account of τ = 0.2 (PaperLab's, not the paper's): below the typical |lpm gap|
		// only misranked pairs carry weight, so the advantage sharpens less and accuracy lags. No τ
		// check: the saturated regime is what these claims are about.
		diff("τ = 0.2 sharpens less than τ = 0.5: lower Cov(lpm, A) per unit |A| (audit's account, not the paper's)", "mean over the run of Cov(lpm, A)/|A| (capo-tau0.2 − capo)", neg,
			meanCurveDiff(res, "capo-tau0.2", "capo", covCurve)).
			Needs(needs(tauCheck("capo"))...),
		res.CheckDiff("τ = 0.2 ends below τ = 0.5's accuracy (mean@16; audit's account, not the paper's)", "accuracy(capo, τ=0.2) − accuracy(capo, τ=0.5)", neg, "capo-tau0.2", "accuracy", "capo", "accuracy").
			Needs(needs(tauCheck("capo"), budgetCheck("capo"), budgetCheck("capo-tau0.2"))...),
		// The mechanism (the audit's reading of the paper's argument that GRPO's reward-only advantage
		// is a linear ranking surrogate): GRPO's step raises the lpm of responses the policy already
		// favours; CAPO's surrogate gives separated pairs little weight.
		diff("GRPO's advantage sharpens: Cov(lpm, A) per unit |A| > 0 (mean over the run; the audit's mechanism)", "mean over the run of Cov(lpm, A)/|A| (grpo)", pos,
			meanCurveOf(res, "grpo", covCurve)),
		diff("CAPO's advantage sharpens less than GRPO's: lower Cov(lpm, A) per unit |A| (the audit's mechanism)", "mean over the run of Cov(lpm, A)/|A| (capo − grpo)", neg,
			meanCurveDiff(res, "capo", "grpo", covCurve)).Needs(needs(tauCheck("capo"))...),
	)
	// The mask ablations, where the configuration runs them (the default since 2026-12-06 does not:
	// their questions were answered on the i.i.d.-slips task, experiment capo-iid-slips).
	if hasMethod(res, "capo-nomask") {
		// The entropy divergence is a during-training effect (the paper: without the mask entropy
		// rises); both arms run CAPO at the default τ. Entropy as the mean of the last 10 % of the
		// per-step rollout entropy.
		claims = append(claims, diff("without the mask CAPO ends with a higher rollout entropy (5 seeds)", "rollout entropy, last 10 % of steps (capo-nomask − capo)", pos,
			func(seed uint64) (float64, bool) {
				x, ok1 := tailMeanOf(res, "capo-nomask", "train/entropy")(seed)
				y, ok2 := tailMeanOf(res, "capo", "train/entropy")(seed)
				return x - y, ok1 && ok2
			}).Needs(needs(tauCheck("capo"), roomAblSeeds)...))
	}
	if hasMethod(res, "grpo-mask") {
		claims = append(claims, res.CheckDiff("the mask alone (GRPO + mask) does not improve AUC (5 seeds)", "AUC(grpo-mask) − AUC(grpo)", exp.AtMost(0.01), "grpo-mask", "auc", "grpo", "auc").
			Needs(needs(roomMaskDrops, roomAblSeeds, budgetCheck("grpo"), budgetCheck("grpo-mask"))...))
	}
	return budgetDrift(res, claims)
}

// budgetDrift notes, on every claim (and reading) that needs a budget check, the budget curves whose
// tail change has a 95 % interval over seeds that excludes 0: the settled checks read the mean of
// the signed changes within ±MaxTailChange (exp.RoomSettled, the rule of every experiment), so a
// small drift common to every seed passes them; the note says where the curve is still moving.
func budgetDrift(res *exp.Result, claims []exp.Claim) []exp.Claim {
	drift := map[string]string{}
	add := func(check, method, curve string) {
		var v []float64
		for _, seed := range res.Seeds {
			if x, ok := res.TailChangeOf(method, curve, TailFrac)(seed); ok {
				v = append(v, x)
			}
		}
		if st := stats.Summarize(v); st.N >= 2 && (st.CI95[0] > 0 || st.CI95[1] < 0) {
			drift[check] = fmt.Sprintf("%s: %s's %s still moves over the last %.0f %% of its steps, %+.3f [%+.3f, %+.3f] over seeds (the check passes on the mean within ±%g; the interval excludes 0)",
				check, method, curve, 100*TailFrac, st.Mean, st.CI95[0], st.CI95[1], MaxTailChange)
		}
	}
	for _, m := range rlMethods(res) {
		add(budgetCheck(m), m, accCurve)
	}
	add(roomBudgetGreed, "grpo", greedyCurve)
	var mark func(c exp.Claim) exp.Claim
	mark = func(c exp.Claim) exp.Claim {
		for i, p := range c.Parts {
			c.Parts[i] = mark(p)
		}
		for _, r := range c.Room {
			if d, ok := drift[r]; ok && !slices.Contains(c.Notes, d) {
				c.Notes = append(append([]string(nil), c.Notes...), d)
			}
		}
		return c
	}
	for i := range claims {
		claims[i] = mark(claims[i])
	}
	return claims
}

// AccuracyMargin is the non-inferiority margin of "CAPO's accuracy is comparable to or better than
// GRPO's" (mean@16): the ±0.02 window this experiment's protocol has used for "matches GRPO's
// accuracy" since the protocol moved to the paper's τ on 2026-12-02 (the greedy and majority@16
// claims, the budget and accuracy-move thresholds derived from it), fixed before this claim was
// judged.
const AccuracyMargin = 0.02

// fixedStepNote says why a last-step comparison of calibration is context, not the comparison, and
// where the matched reading is (AURC: capo-5 at matched mean@16; precision@50: none, no curve).
func fixedStepNote(m, metric string) string {
	if metric == "AURC" {
		return fixedStep(m) + "; AURC is also read at matched mean@16 along its curve (the claim \"CAPO's AURC is below GRPO's at matched mean@16\")"
	}
	return fixedStep(m) + "; the result has no " + metric + " curve along training to read it at matched accuracy or KL"
}

// fixedStep says that a last-step comparison of m with GRPO is read where the methods trade.
func fixedStep(m string) string {
	return "read at the last step (600), a fixed step where the methods trade: calibration falls as a policy moves from the SFT model, so a method that has moved less (" +
		m + "'s mean@16 accuracy ending below GRPO's) keeps more of it"
}

// lastStep are m's comparisons with GRPO at the last step: calibration (AUC, AURC, precision at
// 50 % coverage), accuracy (non-inferior by mean@16; within 2 points greedily and by majority@16)
// and RPC@16. For capo, AURC answers capo-5, the mean@16 margin capo-3 and RPC@16 capo-4.
func lastStep(res *exp.Result, m string) []exp.Claim {
	pos, neg := exp.Positive, exp.Negative
	atStep := []string{tauCheck(m), budgetCheck("grpo"), budgetCheck(m)}
	with := func(extra ...string) []string { return append(append([]string(nil), atStep...), extra...) }
	calib := with(roomSFTFloor, roomGRPOAcc)
	tag := func(c exp.Claim, id string) exp.Claim {
		if m == "capo" {
			return c.For(id)
		}
		return c
	}
	auc := res.CheckDiff(m+"'s AUC is above GRPO's at the last step (fixed step)", "AUC("+m+") − AUC(grpo)", pos, m, "auc", "grpo", "auc").Needs(calib...)
	auc.Notes = append(auc.Notes, fixedStep(m)+"; the calibration comparison is at matched accuracy and KL (the claim read at matched operating points)")
	aurc := res.CheckDiff(m+"'s AURC is below GRPO's at the last step (fixed step)", "AURC("+m+") − AURC(grpo)", neg, m, "aurc", "grpo", "aurc").Needs(calib...)
	aurc.Notes = append(aurc.Notes, fixedStepNote(m, "AURC"))
	prec := res.CheckDiff(m+"'s precision at 50 % coverage is above GRPO's at the last step (fixed step)", "precision@50("+m+") − precision@50(grpo)", pos, m, "precision_at_50", "grpo", "precision_at_50").
		Needs(calib...)
	prec.Notes = append(prec.Notes, fixedStepNote(m, "precision@50"))
	acc := res.CheckDiff(m+"'s accuracy is comparable to or better than GRPO's (mean@16)", "accuracy("+m+") − accuracy(grpo)", exp.AtLeast(-AccuracyMargin), m, "accuracy", "grpo", "accuracy").
		Needs(with(roomGRPOAcc)...).
		Comparable(AccuracyMargin, "the ±0.02 window of this experiment's 'matches GRPO's accuracy' claims, fixed by its protocol (since 2026-12-02) before this claim was judged")
	acc.Notes = append(acc.Notes, "mean@16 is the paper's measure, but one a higher-entropy policy loses by sampling; capo-3 reads greedy and majority@16 accuracy, which say what the model answers")
	greedy := res.CheckDiff(m+"'s greedy accuracy is comparable to or better than GRPO's", "greedy("+m+") − greedy(grpo)", exp.AtLeast(-AccuracyMargin), m, "greedy_accuracy", "grpo", "greedy_accuracy").
		Needs(with(roomGRPOGreedy, roomBudgetGreed, roomSFTPass)...).
		Comparable(AccuracyMargin, "the ±0.02 window of the accuracy-matching claims")
	maj := res.CheckDiff(m+"'s majority@16 accuracy is comparable to or better than GRPO's", "maj@16("+m+") − maj@16(grpo)", exp.AtLeast(-AccuracyMargin), m, "majority_accuracy_n16", "grpo", "majority_accuracy_n16").
		Needs(with(roomGRPOMaj)...).
		Comparable(AccuracyMargin, "the ±0.02 window of the accuracy-matching claims")
	rpc := res.CheckDiff("PC voting's accuracy is above GRPO's for "+m+" (RPC@16)", "RPC@16("+m+") − RPC@16(grpo)", pos, m, "rpc_accuracy_n16", "grpo", "rpc_accuracy_n16").
		Needs(with(roomGRPORPC)...)
	rpc.Notes = append(rpc.Notes, "read at the last step; the claim compares the voted accuracy itself, not its gain over one sample (which a lower mean@16 raises by arithmetic). The vote is RPC's perplexity consistency (calib.RPCVote: each distinct path weighted by its sequence probability), the paper's PC@16; RPC's reasoning pruning is not applied")
	out := []exp.Claim{auc, aurc}
	if m == "capo" {
		out = append(out, dominates(res, aurc))
	}
	both := exp.AllOf(m+"'s accuracy is comparable to or better than GRPO's, greedily and by majority@16 (what the model answers; non-inferiority margin 0.02 each)",
		"greedy and maj@16 accuracy ("+m+" − grpo), each non-inferior", greedy, maj).Needs(with()...)
	return append(out, prec, acc, tag(both, "capo-3"), greedy, maj, tag(rpc, "capo-4"))
}

// dominates is capo-5, CAPO's precision–coverage trade-off against GRPO's, read as every
// calibration comparison between methods that trade: at a matched operating point. AURC (the area
// under the risk–coverage curve: lower dominates on average over coverages) is read on both
// methods' paths where they reach the lower of their final mean@16 accuracies; the fixed-step AURC
// is its context. A result from before 2026-12-06 has no AURC curve: no matched reading, untestable.
func dominates(res *exp.Result, aurc exp.Claim) exp.Claim {
	c := res.Matched("CAPO's precision–coverage trade-off dominates GRPO's: AURC below GRPO's at the mean@16 accuracy both reach (matched accuracy)",
		"AURC(capo) − AURC(grpo) at matched mean@16 accuracy", exp.Negative, matchPair(mainPair, accCurve, aurcCurve)).
		Needs(coverName(mainPair, accCurve, aurcCurve), tauCheck("capo"), roomSFTFloor, roomGRPOAcc)
	c.Context = fmt.Sprintf("at the last step (a fixed step, where the methods end at different accuracies) %s = %s → %s", aurc.Measure, aurc.Interval(), aurc.Verdict())
	if !hasCurve(res, "capo", aurcCurve) {
		c.Unmeasured = "no matched reading: this result logs AURC at the last step only, with no curve along training to read it at matched accuracy (evaluations record it since 2026-12-06)"
	}
	return c.For("capo-5")
}

// matched is CAPO's AUC against GRPO's at the operating point both reach on curve x (matchOn):
// an accuracy evaluation curve, or klCurve (KL from the SFT model, by step).
func matched(res *exp.Result, x string) exp.Claim {
	m := matchOn(x)
	if x == klCurve {
		return res.Matched(fmt.Sprintf("CAPO's AUC is above GRPO's at the KL from the SFT model both reach (matched KL: each method's AUC read at the first step where its %s, a centred mean over ±%d steps, reaches the lower of the two methods' mean KL over their last %d steps, linear between the evaluations around that step; a seed where a path never reaches it is left out and named)", klCurve, KLSmooth, KLSmooth),
			"AUC(capo) − AUC(grpo) at matched KL from SFT", exp.Positive, m).
			Needs(coverCheck(x), tauCheck("capo"), roomSFTFloor, roomGRPOAcc)
	}
	moved := roomGRPOAcc
	if x == greedyCurve {
		moved = roomGRPOGreedy
	}
	return res.Matched("CAPO's AUC is above GRPO's at the "+accText(x)+" both reach (matched accuracy: each method's AUC read where its held-out path, evaluated every 50 steps, first reaches the lower of the two final "+accText(x)+" values, linear between the evaluations around it; a seed where a path never crosses it is left out and named)",
		"AUC(capo) − AUC(grpo) at matched "+strings.TrimSuffix(accText(x), " accuracy"), exp.Positive, m).
		Needs(coverCheck(x), tauCheck("capo"), roomSFTFloor, moved)
}

// calibrationMatched is the calibration headline (capo-2) read at matched operating points, where
// neither method has moved further from the SFT model than the other: CAPO's AUC against GRPO's
// where both paths reach the lower of their final mean@16 accuracies, the lower of their final
// greedy accuracies (since 2026-12-06: on the systematic-errors task RL changes the greedy answer),
// and the lower of their final KLs from the SFT model (matched). It holds only when every reading
// holds; the last-step difference, where CAPO has moved less, is its context.
func calibrationMatched(res *exp.Result) exp.Claim {
	fixed := res.CheckDiff("", "", exp.Positive, "capo", "auc", "grpo", "auc")
	return exp.Matched("CAPO's AUC is above GRPO's at matched operating points: at the mean@16 accuracy, the greedy accuracy and the KL from the SFT model both reach",
		"AUC(capo) − AUC(grpo) at matched mean@16 accuracy, greedy accuracy and KL from the SFT model",
		"at the last step (a fixed step, where the methods end at different accuracies) AUC(capo) − AUC(grpo) = "+fixed.Interval(),
		matched(res, accCurve), matched(res, greedyCurve), matched(res, klCurve)).Needs(tauCheck("capo"), roomSFTFloor, roomGRPOAcc).For("capo-2")
}

// hasCurve reports whether any seed's run of method has curve key.
func hasCurve(res *exp.Result, method, key string) bool {
	for _, s := range res.Seeds {
		if _, ok := res.CurveOf(method, key, s); ok {
			return true
		}
	}
	return false
}

// matchedRead is p.a's curve y against p.b's at the point both reach on x (matchPair), with the
// coverage check of that reading and the checks the caller names.
func matchedRead(res *exp.Result, r reading, text, measure string, test exp.Test, needs ...string) exp.Claim {
	return res.Matched(text, measure, test, matchPair(r.p, r.x, r.y)).Needs(append([]string{coverName(r.p, r.x, r.y)}, needs...)...)
}

// extraClaims are the readings the result's configuration has methods for (extraReadings): the AUC
// within prompts beside the pooled AUC; the step-size question — CAPO against GRPO at Adam 3e-5 on
// the same frontiers as the main run (StepSizeReading states what the two together say); GSPO as
// the paper's Fig. 1 has it (its AUC falls like GRPO's; CAPO's AUC above it at matched operating
// points) and GSPO against GRPO at the same mini-batches.
func extraClaims(res *exp.Result) []exp.Claim {
	has := func(m string) bool { return hasMethod(res, m) }
	pos, neg := exp.Positive, exp.Negative
	out := []exp.Claim{
		matchedRead(res, reading{mainPair, accCurve, withinCurve},
			"CAPO's AUC within prompts is above GRPO's at the mean@16 accuracy both reach (the ranking CAPO's pairwise surrogate optimises, beside the pooled AUC)",
			"AUC within prompts (capo − grpo) at matched mean@16", pos, tauCheck("capo"), roomSFTFloor, roomGRPOAcc),
	}
	if has(lrPair.a) && has(lrPair.b) {
		lr := func(x string) exp.Claim {
			return matchedRead(res, reading{lrPair, x, aucCurve}, "at Adam 3e-5: CAPO's AUC is above GRPO's at the "+pointText(x)+" both reach",
				"AUC(capo-lr3e-5) − AUC(grpo-lr3e-5) at matched "+curveName(x), pos, tauCheck(lrPair.a), roomSFTFloor, roomLRMoves)
		}
		// The main run's pair read the same two ways on the learning-rate part's seeds, so that the
		// step-size reading compares like with like (same seeds, same readings, same power).
		var seeds []uint64
		for _, r := range res.RunsOf(lrPair.a) {
			seeds = append(seeds, r.Seed)
		}
		same := func(x string) exp.Claim {
			m := matchPair(mainPair, x, aucCurve)
			return exp.MatchedOn(res, seeds, "at Adam 1e-4, on the learning-rate part's seeds: CAPO's AUC is above GRPO's at the "+pointText(x)+" both reach",
				"AUC(capo) − AUC(grpo) at matched "+curveName(x)+" (seeds of the learning-rate part)", pos, m).
				Needs(coverCheck(x), tauCheck("capo"), roomSFTFloor, roomGRPOAcc)
		}
		out = append(out,
			exp.Matched(StepSizeClaims[1], "AUC(capo-lr3e-5) − AUC(grpo-lr3e-5) at matched mean@16 and KL",
				"at the last step AUC(capo-lr3e-5) − AUC(grpo-lr3e-5) = "+res.CheckDiff("", "", pos, lrPair.a, "auc", lrPair.b, "auc").Interval(),
				lr(accCurve), lr(klCurve)).Needs(tauCheck(lrPair.a), roomSFTFloor, roomLRMoves),
			exp.Matched(StepSizeClaims[0], "AUC(capo) − AUC(grpo) at matched mean@16 and KL, on the learning-rate part's seeds", "",
				same(accCurve), same(klCurve)).Needs(tauCheck("capo"), roomSFTFloor, roomGRPOAcc),
			matchedRead(res, reading{lrPair, accCurve, withinCurve},
				"at Adam 3e-5: CAPO's AUC within prompts is above GRPO's at the mean@16 accuracy both reach",
				"AUC within prompts (capo-lr3e-5 − grpo-lr3e-5) at matched mean@16", pos, tauCheck(lrPair.a), roomSFTFloor, roomLRMoves),
		)
	}
	if has(gspoPair.b) {
		gs := func(x string) exp.Claim {
			return matchedRead(res, reading{gspoPair, x, aucCurve}, "CAPO's AUC is above GSPO's at the "+pointText(x)+" both reach",
				"AUC(capo) − AUC(gspo) at matched "+curveName(x), pos, tauCheck("capo"), roomSFTFloor, roomGSPOMoves, roomGSPOClip)
		}
		out = append(out,
			res.CheckDiff("GSPO's AUC falls too (the paper's Fig. 1: GRPO and GSPO lose calibration as accuracy rises)", "AUC(gspo) − AUC(sft)", neg, "gspo", "auc", "sft", "auc").
				Needs(roomSFTFloor, roomGSPOMoves),
			exp.Matched("CAPO's AUC is above GSPO's at matched operating points (mean@16 accuracy and KL from the SFT model; each method at its own paper's mini-batches: 2 and 4)",
				"AUC(capo) − AUC(gspo) at matched mean@16 and KL",
				"at the last step AUC(capo) − AUC(gspo) = "+res.CheckDiff("", "", pos, "capo", "auc", "gspo", "auc").Interval(),
				gs(accCurve), gs(klCurve)).Needs(tauCheck("capo"), roomSFTFloor, roomGSPOMoves, roomGSPOClip),
		)
	}
	if has(lossPair.a) && has(lossPair.b) {
		out = append(out, matchedRead(res, reading{lossPair, accCurve, aucCurve},
			"GSPO's loss (its sequence-level ratio, clip range 3e-4/4e-4 and per-sequence aggregation, against GRPO's per-token ratio, ε 0.2 and token-mean) keeps more AUC at the same 4 mini-batches (AUC at the mean@16 accuracy both reach; our comparison, not the paper's)",
			"AUC(gspo) − AUC(grpo-mb4) at matched mean@16", pos, roomSFTFloor, roomGSPOMoves, roomGSPOClip))
	}
	return out
}

// pointText is the operating point a matched reading on curve x reads at, as claim texts say it.
func pointText(x string) string {
	switch x {
	case klCurve:
		return "KL from the SFT model"
	case greedyCurve:
		return "greedy accuracy"
	}
	return "mean@16 accuracy"
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

// StepSizeClaims are the texts of the two matched comparisons the step-size reading rests on: CAPO's
// AUC against GRPO's at matched mean@16 and KL, at Adam 1e-4 on the learning-rate part's seeds and at
// 3e-5 (the learning-rate part).
var StepSizeClaims = [2]string{
	"At Adam 1e-4 on the learning-rate part's seeds: CAPO's AUC is above GRPO's at matched operating points (mean@16 accuracy and KL from the SFT model both reach)",
	"At Adam 3e-5 (1,800 steps): CAPO's AUC is above GRPO's at matched operating points (mean@16 accuracy and KL from the SFT model both reach)",
}

// StepSizeReading applies the reading rule to CAPO's AUC against GRPO's at matched mean@16 accuracy
// and matched KL, at Adam 1e-4 (the main run, on the learning-rate part's seeds) and at 3e-5
// (StepSizeClaims). For each reading it takes, per seed, the gap at 3e-5 (CAPO − GRPO) and its
// change from 1e-4 (the gap at 3e-5 minus the gap at 1e-4, paired on the seeds both have), each
// with its 95 % t-interval:
//
//   - the gap at 3e-5 excludes 0 and its change from 1e-4 excludes 0 with the same sign: the step
//     size explains the fixed-step result;
//   - neither excludes 0: "CAPO ≈ a slower GRPO on this task" (no difference at 3e-5 and none
//     that changes with the step size; an absence of evidence, the intervals are printed);
//   - the gap at 3e-5 excludes 0 but its change does not: the frontiers differ at 3e-5 no less than
//     at 1e-4, and the step size does not decide it;
//   - anything else is said as it is. When the readings disagree, each is given.
//
// Amended on 2026-12-06, after the main part's results and before the learning-rate part's: the
// first rule (committed in 44e8318) called the frontiers at one step size "separate" when both
// readings' intervals excluded 0 and "coincide" when both lay within ±0.02, and read the two step
// sizes' states together. On the main part's data the 1e-4 readings on the part's seeds were neither
// (mean@16 +0.028 [−0.005, +0.061], KL +0.012 [−0.004, +0.028]), so that rule could give no reading
// whatever 3e-5 showed; the change from 1e-4, paired per seed, is the question's own test.
func StepSizeReading(res *exp.Result) (string, error) {
	j, err := exp.JudgeResult(res)
	if err != nil {
		return "", err
	}
	var found [2]*exp.Claim
	for i, c := range j.Claims {
		for k, text := range StepSizeClaims {
			if c.Text == text {
				found[k] = &j.Claims[i]
			}
		}
	}
	if found[0] == nil || found[1] == nil {
		return "no reading: this result lacks the learning-rate part (methods " + lrPair.a + ", " + lrPair.b + ")", nil
	}
	if len(res.Parts) > 0 && !slices.Contains(res.Parts, PartLR) {
		return "no reading yet: this result holds the parts " + strings.Join(res.Parts, ", ") + "; the learning-rate part (`paperlab capo -part lr`, merged with `paperlab merge`) has not been added", nil
	}
	if found[0].Verdict() == exp.Untestable || found[1].Verdict() == exp.Untestable {
		return fmt.Sprintf("untestable here: a room check of the reading fails (1e-4: %s; 3e-5: %s)", found[0].VerdictText(), found[1].VerdictText()), nil
	}
	var classes, says []string
	for k := range min(len(found[0].Parts), len(found[1].Parts)) {
		class, say := stepSizeClass([]string{"at matched mean@16 accuracy", "at matched KL from SFT"}[min(k, 1)], found[0].Parts[k], found[1].Parts[k])
		classes, says = append(classes, class), append(says, say)
	}
	if len(classes) == 0 {
		return "no reading: the matched comparisons have no readings", nil
	}
	head := strings.Join(says, "; ")
	same := true
	for _, c := range classes {
		same = same && c == classes[0]
	}
	if !same {
		return head + ": the readings disagree, so the rule gives no single reading.", nil
	}
	switch classes[0] {
	case "explains":
		return head + ": the step size explains the fixed-step result.", nil
	case "slower":
		return head + ": CAPO ≈ a slower GRPO on this task, whatever the step size (no reading differs at 3e-5 or changes detectably from 1e-4; an absence of evidence, with the intervals above).", nil
	case "both":
		return head + ": the frontiers differ at 3e-5 no less than at 1e-4; the step size does not decide it.", nil
	case "untestable":
		return head + ": untestable here (a reading has too few seeds or no measured point).", nil
	}
	return head + ": the gap changes with the step size without differing at 3e-5 in the same direction.", nil
}

// stepSizeClass reads one matched reading (name) at 1e-4 (at) and at 3e-5 (lo): "explains" when the gap at
// 3e-5 and its per-seed change from 1e-4 both exclude 0 with the same sign, "slower" when neither
// does, "both" when only the gap at 3e-5 does, "other" otherwise, "untestable" without two paired
// seeds or a measured point; with what it read.
func stepSizeClass(name string, at, lo exp.Claim) (string, string) {
	if lo.Unmeasured != "" || at.Unmeasured != "" {
		return "untestable", name + ": a path not measured there"
	}
	byseed := map[uint64]float64{}
	for i, s := range at.SeedIDs {
		byseed[s] = at.Diffs[i]
	}
	var change []float64
	for i, s := range lo.SeedIDs {
		if v, ok := byseed[s]; ok {
			change = append(change, lo.Diffs[i]-v)
		}
	}
	if len(change) < 2 || lo.Stat.N < 2 {
		return "untestable", fmt.Sprintf("%s: %d paired seeds", name, len(change))
	}
	ch := stats.Summarize(change)
	excl := func(ci [2]float64) int {
		switch {
		case ci[0] > 0:
			return 1
		case ci[1] < 0:
			return -1
		}
		return 0
	}
	g, c := excl(lo.Stat.CI95), excl(ch.CI95)
	say := fmt.Sprintf("%s: gap at 3e-5 %+.3f [%+.3f, %+.3f], change from 1e-4 %+.3f [%+.3f, %+.3f] (n = %d)",
		name, lo.Stat.Mean, lo.Stat.CI95[0], lo.Stat.CI95[1], ch.Mean, ch.CI95[0], ch.CI95[1], len(change))
	switch {
	case g != 0 && c == g:
		return "explains", say
	case g == 0 && c == 0:
		return "slower", say
	case g != 0 && c == 0:
		return "both", say
	}
	return "other", say
}

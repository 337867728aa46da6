package capo

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Room-check thresholds (see Room for the reasoning behind each; the Why of each check repeats it).
const (
	// SFTAUCCeiling: the SFT warm start's AUC (mean over seeds) must lie below it for CAPO to have
	// calibration left to win. [UNVERIFIED] PaperLab's choice, made with data (the 8-seed SFT probe of
	// 2026-12-02, SFT lengths 550–2,000 steps): from 1,000 to 2,000 SFT steps the warm start's AUC stays at 0.91–0.96 while its
	// greedy accuracy keeps rising — the level is the task's (a slip is a low-probability token), not
	// under-training — and a warm start below 0.9 exists only mid-way through the learning transition
	// (550 steps: AUC 0.76–0.89, greedy 0.31–0.62 across seeds), where the seeds split into regimes.
	// 0.95 leaves ≥ 0.05 of AUC to rise and ≥ 0.45 for GRPO to lose.
	SFTAUCCeiling = 0.95
	// SFTAUCFloor: the SFT AUC must lie above it for GRPO's AUC to have room to fall. [UNVERIFIED]
	// PaperLab's choice: a fall of the size GRPO shows needs ~0.1 of AUC above chance (0.5).
	SFTAUCFloor = 0.6
	// MinAccuracyMove: GRPO's paired gain over SFT (per accuracy measure) that a claim comparing
	// CAPO with GRPO's accuracy needs, read on the lower end of its 95 % interval over seeds (an
	// "achieves" check): more than twice the ±0.02 window of the "matches GRPO's accuracy" claims, so
	// matching GRPO cannot be met by staying at SFT. [UNVERIFIED] PaperLab's choice.
	MinAccuracyMove = 0.05
	// MinGreedyGain: GRPO's paired greedy-accuracy gain over SFT, read on the lower end of its 95 %
	// interval, that the claims judged on greedy accuracy need (capo-3 and CAPO's AUC at matched
	// greedy accuracy): otherwise RL has not changed what the model answers and every path touches
	// the common point at step 0. Fixed at 0.03 (before 2026-12-06: MinAccuracyMove, 0.05) with the
	// systematic-errors task, before its default run. [UNVERIFIED] PaperLab's choice.
	MinGreedyGain = 0.03
	// MaxGSPOClip: GSPO's share of clipped tokens, mean over its run (train/clip_ratio), must stay
	// below it for its claims to compare a loss and not a method that learns from one mini-batch in
	// four: its clip range [1 − 3e-4, 1 + 4e-4] was set for lr 1e-6 on a 1.5B model, and with four
	// mini-batches the on-policy first one is never clipped, so 0.75 means every later one was.
	// [UNVERIFIED] PaperLab's choice, fixed before the run's GSPO numbers were read.
	MaxGSPOClip = 0.6
	// MinPassAtK: the SFT warm start's pass@8 (one of 8 samples right; the unbiased estimate from the
	// 16 held-out samples) on the prompts it answers wrongly by greedy decoding, mean over seeds, must
	// be at least this for RL to have signal where greedy decoding errs: GRPO's groups of G = 8 there
	// then hold a right answer often enough to move the policy. [UNVERIFIED] PaperLab's choice.
	MinPassAtK = 0.3
	// MinRPCGain: GRPO's paired RPC@16 gain over SFT, lower end of its 95 % interval, must lie above
	// it for "CAPO's RPC@16 is above GRPO's" to test a method's effect on voting: where RL does not
	// move the voted accuracy past the warm start's, RPC@16 is the warm start's and no RL method can
	// gain on it. [UNVERIFIED] PaperLab's choice: any gain at all.
	MinRPCGain = 0.0
	// MinTauGapRatio: τ divided by the typical |lpm gap| between a prompt's right and wrong answers
	// (SFT model) must be at least this for CAPO's logistic surrogate to act outside its saturated
	// regime (a correctly ranked pair at the typical gap keeps σ(−1) ≈ 0.27 of the weight or more).
	// [UNVERIFIED] PaperLab's choice, set between the audit's saturated point (τ 0.2 against a median
	// gap of ~0.24: ratio 0.83) and the working one (τ 0.5: ratio ~2).
	MinTauGapRatio = 1.0
	// MaxTailChange: a method's held-out accuracy has stopped improving when a line fitted to its
	// evaluations over the last TailFrac of the RL steps changes across them (exp.TailChange, signed
	// per seed) by at most this much in size on the mean over seeds (exp.RoomSettled): half the ±0.02
	// window of the accuracy-matching claims. [UNVERIFIED] PaperLab's choice.
	MaxTailChange = 0.01
	// TailFrac is the final share of the evaluation checkpoints the budget checks read.
	TailFrac = 0.2
	// MinMaskDrop: the share of rollout samples the mask drops in GRPO + mask for the "mask alone"
	// ablation to test anything. The thresholds follow the "cross" rule (Config.MaskRule,
	// rl.ThresholdsFromQuantiles): a right answer is dropped when its reference PPL lies above the
	// 0.75 quantile of the reference's PPL on its wrong answers, a wrong answer when its PPL lies
	// below the 0.25 quantile on its right answers. That drops the overlap of the two distributions'
	// tails: a quarter of the answers where the reference cannot tell right from wrong (the two
	// distributions equal), less the better it separates them. Under a fifth of that quarter the
	// ablation is GRPO. [UNVERIFIED] PaperLab's choice.
	MinMaskDrop = 0.05
	// MinAblationSeeds: the fewest seeds an ablation (run on the first seeds only) must share with
	// capo and grpo: ≥ 5, so that their paired 95 % t-intervals use t = 2.8 rather than 4.3 at 3.
	MinAblationSeeds = 5
	// MinPairedSeeds: the fewest paired seeds a matched-operating-point claim needs measured (both
	// paths crossing the common point): with 2 the 95 % t-interval uses t = 12.7 and spans any
	// effect this task shows, with 3 t = 4.3. [UNVERIFIED] PaperLab's choice.
	MinPairedSeeds = 3
	// KLSmooth: the matched-KL reading smooths the per-step KL from the SFT model by a centred mean
	// over ±KLSmooth steps (half the 50 steps between evaluations), and reads each method's final
	// KL as its mean over its last KLSmooth steps: one step's KL is a noisy estimate on 16 prompts ×
	// 8 samples. [UNVERIFIED] PaperLab's choice.
	KLSmooth = 25
)

// Names of the room checks (the claims name them with Needs).
const (
	roomSFTCeiling  = "sft-auc-below-ceiling"
	roomSFTPass     = "sft-pass8-greedy-wrong"
	roomSFTFloor    = "sft-auc-above-floor"
	roomSFTGreedyZ  = "sft-greedy-outliers"
	roomSFTAUCZ     = "sft-auc-outliers"
	roomGRPORPC     = "grpo-rpc-gain"
	roomGRPOAcc     = "grpo-accuracy-moves"
	roomGRPOGreedy  = "grpo-greedy-moves"
	roomGRPOMaj     = "grpo-majority-moves"
	roomBudgetGreed = "budget-grpo-greedy"
	roomMaskDrops   = "grpo-mask-drops"
	roomAblSeeds    = "ablation-seeds"
	roomLRMoves     = "grpo-lr3e-5-accuracy-moves"
	roomGSPOMoves   = "gspo-accuracy-moves"
	roomGSPOClip    = "gspo-clip-share"
)

// The evaluation curves the budget checks, the matched operating points and the figures read
// (held-out, every EvalEvery RL steps and at step 0): mean@EvalSamples accuracy, greedy accuracy
// and AUC of lpm.
const (
	accCurve    = "train/eval_accuracy"
	greedyCurve = "train/eval_greedy_accuracy"
	aucCurve    = "train/eval_auc"
	// klCurve is the per-step KL of the policy from the reference model — the SFT warm start every
	// RL run starts from and the mask's reference — estimated on the rollout tokens (k3, rl.PPOLoss).
	klCurve  = "train/kl"
	covCurve = "train/" + diagPrefix + "cov_lpm_adv_per_abs_adv"
	// aurcCurve and withinCurve: AURC and the AUC within prompts (aucWithin) along training
	// (evaluations since 2026-12-06).
	aurcCurve   = "train/eval_aurc"
	withinCurve = "train/eval_auc_within"
	// klWindowCurve is the KL from the SFT model at each evaluation (the per-step KL averaged over the
	// window since the previous one; 0 at step 0): the AUC–KL frontier's x.
	klWindowCurve = "train/kl_window"
)

// budgetCheck names the check that method's held-out mean@16 accuracy stopped improving.
func budgetCheck(method string) string { return "budget-" + method }

// tauCheck names the check of a CAPO method's τ against the warm start's typical |lpm gap|.
func tauCheck(method string) string { return "tau-vs-lpm-gap-" + method }

// ablations are the methods run on the first seeds only.
var ablations = []string{"capo-gnorm", "capo-nomask", "grpo-mask"}

// Room measures, from the stored result alone, the preconditions the claims need, each read on the
// statistic of its kind (exp.RoomCheck): the warm start's AUC leaves room to rise and to fall (mean
// over seeds); no seed's warm start sits in another regime (modified z of its greedy accuracy and
// of its AUC: flagged seeds never gate, every claim is reported with and without them); GRPO moved
// its accuracy (mean@16, greedy, majority@16) and its RPC@16 over SFT (lower end of the 95 %
// interval); each CAPO method's τ against the typical |lpm gap| (mean); each RL method's held-out
// mean@16 accuracy, and GRPO's greedy accuracy, settled over the last 20 % of the steps (mean of
// signed tail changes); the mask active in GRPO + mask (mean); enough seeds for the ablations (a
// property of the run); and, for each matched operating point, how many seeds' paths cross it
// (count).
func Room(res *exp.Result) []exp.RoomCheck {
	finalOf := func(m, k string) exp.PerSeed {
		return func(s uint64) (float64, bool) { return res.Final(m, k, s) }
	}
	gain := func(k string) exp.PerSeed { return res.Diff("grpo", k, "sft", k) }
	room := []exp.RoomCheck{
		res.CheckRoom(roomSFTCeiling, exp.Test{Op: exp.Below, X: SFTAUCCeiling},
			fmt.Sprintf("CAPO's AUC must be able to rise above the warm start's for 'CAPO's AUC holds or rises' to mean anything. Chosen with data (an 8-seed probe of SFT lengths 550–2,000 steps, 2026-12-02): from 1,000 to 2,000 SFT steps the warm start's AUC stays at 0.91–0.96 while its greedy accuracy keeps rising, so the level is the task's (a slip is a low-probability token), not under-training; "+
				"a warm start below 0.9 exists only mid-way through the learning transition (550 steps), where the seeds split into regimes. Below %g leaves ≥ 0.05 of AUC to rise and ≥ 0.45 for GRPO to lose. [UNVERIFIED] PaperLab's choice", SFTAUCCeiling),
			"no final auc for sft", finalOf("sft", "auc")),
		res.CheckRoom(roomSFTFloor, exp.Test{Op: exp.Above, X: SFTAUCFloor},
			fmt.Sprintf("GRPO's AUC needs room to fall: a warm start near chance (0.5) has no ranking to lose; above %g leaves ~0.1 of AUC. [UNVERIFIED] PaperLab's choice", SFTAUCFloor),
			"no final auc for sft", finalOf("sft", "auc")),
		res.CheckOutliers(roomSFTGreedyZ,
			"each seed's warm-start greedy accuracy against the others' (modified z, median/MAD): every RL run of a seed starts from its SFT model, and a warm start in another regime (the audit's 550-step warm starts split into greedy 0.38–0.44 and 0.60–0.64) moves differently under RL; a standard deviation over seeds cannot catch one such seed among eight. Never gates: claims using a flagged seed are reported with and without it",
			"no final greedy_accuracy for sft", finalOf("sft", "greedy_accuracy")),
		res.CheckOutliers(roomSFTAUCZ,
			"each seed's warm-start AUC against the others' (modified z, median/MAD): the AUC every calibration claim starts from; a seed far above the others (near the ceiling) has more AUC for GRPO to lose. Never gates: claims using a flagged seed are reported with and without it",
			"no final auc for sft", finalOf("sft", "auc")),
		res.CheckAchieves(roomGRPOAcc, exp.AtLeast(MinAccuracyMove),
			fmt.Sprintf("paired accuracy(grpo) − accuracy(sft), mean@16, lower end of its 95 %% interval over seeds: the paper's diagnosis is that AUC falls while accuracy climbs, and CAPO-vs-GRPO comparisons mean nothing if RL learned nothing; "+
				"≥ %g is more than twice the ±0.02 window of the accuracy-matching claims. [UNVERIFIED] PaperLab's choice", MinAccuracyMove),
			"no final accuracy for grpo and sft", gain("accuracy")),
		res.CheckAchieves(roomGRPOGreedy, exp.AtLeast(MinGreedyGain),
			fmt.Sprintf("paired greedy(grpo) − greedy(sft), lower end of its 95 %% interval: the claims judged on greedy accuracy — CAPO's greedy accuracy non-inferior to GRPO's (capo-3), CAPO's AUC at GRPO's greedy accuracy — need RL to have changed what the model answers (≥ %g; 0.05 before 2026-12-06, fixed with the systematic-errors task before its run); "+
				"where GRPO's greedy accuracy never moves, the matched point is wherever CAPO's flat path first touches it (step 0) and non-inferiority is met by staying at SFT. [UNVERIFIED] PaperLab's choice", MinGreedyGain),
			"no final greedy_accuracy for grpo and sft", gain("greedy_accuracy")),
		res.CheckRoom(roomSFTPass, exp.AtLeast(MinPassAtK),
			fmt.Sprintf("the warm start's pass@8 on the held-out prompts it answers wrongly by greedy decoding (pass8_greedy_wrong, the unbiased estimate from its 16 samples), mean over seeds: RL can only fix a greedy error it samples the right answer for; ≥ %g gives GRPO's groups of 8 a right answer there often enough to learn from. [UNVERIFIED] PaperLab's choice", MinPassAtK),
			"no final pass8_greedy_wrong for sft (a result from before 2026-12-06)", finalOf("sft", "pass8_greedy_wrong")),
		res.CheckAchieves(roomGRPOMaj, exp.AtLeast(MinGreedyGain),
			fmt.Sprintf("paired maj@16(grpo) − maj@16(sft), lower end of its 95 %% interval: as for greedy (the same threshold since 2026-12-06; 0.05 before), the majority@16 claim of capo-3 needs RL to have changed the voted answer (≥ %g). [UNVERIFIED] PaperLab's choice", MinGreedyGain),
			"no final majority_accuracy_n16 for grpo and sft", gain("majority_accuracy_n16")),
		res.CheckAchieves(roomGRPORPC, exp.Test{Op: exp.Above, X: MinRPCGain},
			"paired RPC@16(grpo) − RPC@16(sft), lower end of its 95 % interval, above 0: 'CAPO gains more from confidence-weighted voting' compares RPC@16 of the two RL policies, which tests a method only where RL moves the voted accuracy at all; where GRPO's RPC@16 stays at the warm start's, voting already removes what RL removes (i.i.d. slips) and no method has room to gain. [UNVERIFIED] PaperLab's choice",
			"no final rpc_accuracy_n16 for grpo and sft", gain("rpc_accuracy_n16")),
	}
	room = append(room, tauChecks(res)...)
	budgetWhy := func(m, curve string) string {
		return fmt.Sprintf("%s's held-out %s must have stopped improving for a comparison at the last step to be one between trained methods: the signed change a line fitted to its evaluations over the last %.0f %% of the RL steps makes across them (exp.TailChange, in accuracy; the relative slope — that change over the run's — is noise over noise for a curve that never moved), "+
			"mean over seeds, within ±%g: half the ±0.02 window of the accuracy-matching claims. [UNVERIFIED] PaperLab's choice", m, curve, 100*TailFrac, MaxTailChange)
	}
	for _, m := range rlMethods(res) {
		room = append(room, res.CheckSettled(budgetCheck(m), MaxTailChange, budgetWhy(m, "mean@16 accuracy ("+accCurve+")"),
			fmt.Sprintf("no %s curve for %s", accCurve, m), res.TailChangeOf(m, accCurve, TailFrac)))
	}
	room = append(room,
		res.CheckSettled(roomBudgetGreed, MaxTailChange, budgetWhy("grpo", "greedy accuracy ("+greedyCurve+"; the protocol runs RL until GRPO's greedy accuracy is flat)"),
			fmt.Sprintf("no %s curve for grpo", greedyCurve), res.TailChangeOf("grpo", greedyCurve, TailFrac)),
	)
	if hasMethod(res, "grpo-mask") {
		room = append(room,
			res.CheckRoom(roomMaskDrops, exp.AtLeast(MinMaskDrop),
				fmt.Sprintf("share of GRPO + mask's rollout samples the mask drops (1 − mask_kept), mean over seeds: 'the mask alone does not improve AUC' tests nothing when the run is GRPO. The thresholds follow the 'cross' rule: a right answer is dropped when its reference PPL lies above the 0.75 quantile of the SFT model's PPL on its wrong answers, a wrong answer when its PPL lies below the 0.25 quantile on its right answers — the overlap of the two distributions' tails, "+
					"a quarter of the answers where the reference cannot tell right from wrong and less the better it separates them; below %g (a fifth of that quarter) the ablation is GRPO. "+
					"(For CAPO the share of samples understates the mask's effect: it drops the misranked samples, which carry most of the advantage; the curve train/diag_mask_dropped_share measures that share of Σ|A|.) [UNVERIFIED] PaperLab's choice", MinMaskDrop),
				"no final mask_kept for grpo-mask",
				func(s uint64) (float64, bool) {
					k, ok := res.Final("grpo-mask", "mask_kept", s)
					return 1 - k, ok
				}),
		)
	}
	if a, ok := ablationSeeds(res); ok {
		room = append(room, a)
	}
	if hasMethod(res, lrPair.b) {
		room = append(room, res.CheckAchieves(roomLRMoves, exp.AtLeast(MinAccuracyMove),
			fmt.Sprintf("paired accuracy(grpo-lr3e-5) − accuracy(sft), mean@16, lower end of its 95 %% interval: at 3e-5 the first runs moved neither method in 600 steps; if GRPO does not move in 1,800 either, both AUCs are read near the warm start and the frontiers coincide by construction (≥ %g, as for the main run's GRPO). [UNVERIFIED] PaperLab's choice", MinAccuracyMove),
			"no final accuracy for grpo-lr3e-5 and sft", res.Diff(lrPair.b, "accuracy", "sft", "accuracy")))
	}
	if hasMethod(res, "gspo") {
		room = append(room,
			res.CheckAchieves(roomGSPOMoves, exp.AtLeast(MinAccuracyMove),
				fmt.Sprintf("paired accuracy(gspo) − accuracy(sft), mean@16, lower end of its 95 %% interval: 'GSPO's AUC falls while its accuracy rises' and every GSPO comparison need GSPO to have learned (≥ %g, as for GRPO). [UNVERIFIED] PaperLab's choice", MinAccuracyMove),
				"no final accuracy for gspo and sft", res.Diff("gspo", "accuracy", "sft", "accuracy")),
			res.CheckRoom(roomGSPOClip, exp.AtMost(MaxGSPOClip),
				fmt.Sprintf("GSPO's share of clipped tokens over its run (mean of train/clip_ratio), mean over seeds, at most %g: its clip range comes from lr 1e-6 on a 1.5B model; at our step size the later mini-batches of a rollout may be clipped whole, leaving GRPO's update on the first, on-policy one, and GSPO a slower GRPO by construction. [UNVERIFIED] PaperLab's choice", MaxGSPOClip),
				"no train/clip_ratio curve for gspo", res.CurveMeasure("gspo", "train/clip_ratio", func(c exp.Curve) float64 { return stats.Mean(c.Y) })),
		)
	}
	for _, x := range []string{greedyCurve, accCurve, klCurve} {
		room = append(room, cover(res, x))
	}
	return append(room, matchedChecks(res)...)
}

// matchedChecks are the coverage checks of the readings added on 2026-12-06 — AURC at matched
// mean@16 (capo-5), the AUC within prompts, and the pairs of the methods the result's
// configuration runs (the learning-rate part, GSPO) — each only where the configuration has the
// methods (a result from before has none of these readings).
func matchedChecks(res *exp.Result) []exp.RoomCheck {
	var out []exp.RoomCheck
	for _, r := range extraReadings(res) {
		out = append(out, coverPair(res, r.p, r.x, r.y))
	}
	return out
}

// reading is one matched reading: pair p's curve y at the point both reach on x.
type reading struct {
	p    pair
	x, y string
}

// extraReadings are the matched readings besides the main pair's AUC (matchedChecks), for the
// methods the result's configuration runs.
func extraReadings(res *exp.Result) []reading {
	has := func(m string) bool { return hasMethod(res, m) }
	out := []reading{{mainPair, accCurve, aurcCurve}, {mainPair, accCurve, withinCurve}}
	if has(lrPair.a) && has(lrPair.b) {
		out = append(out, reading{lrPair, accCurve, aucCurve}, reading{lrPair, klCurve, aucCurve}, reading{lrPair, accCurve, withinCurve})
	}
	if has(gspoPair.b) {
		out = append(out, reading{gspoPair, accCurve, aucCurve}, reading{gspoPair, klCurve, aucCurve})
	}
	if has(lossPair.a) && has(lossPair.b) {
		out = append(out, reading{lossPair, accCurve, aucCurve})
	}
	return out
}

// rlMethods are the result's RL methods (every method but sft) in the result's order, then the
// methods of its configuration it lacks (a run stopped before a method ran: checks on it are not
// measured, so the claims naming them read untestable).
func rlMethods(res *exp.Result) []string {
	var out []string
	for _, m := range res.Methods() {
		if m != "sft" {
			out = append(out, m)
		}
	}
	for _, m := range configOf(res).Methods {
		if !slices.Contains(out, m.Name) {
			out = append(out, m.Name)
		}
	}
	return out
}

// ablationSeeds is the fewest seeds on which an ablation ran together with capo and grpo (its
// claims are paired with them); false when the configuration runs no ablation.
func ablationSeeds(res *exp.Result) (exp.RoomCheck, bool) {
	n := math.Inf(1)
	var ran []string
	for _, a := range ablations {
		if hasMethod(res, a) {
			ran = append(ran, a)
		}
	}
	if len(ran) == 0 {
		return exp.RoomCheck{}, false
	}
	for _, a := range ran {
		k := 0
		for _, s := range res.Seeds {
			if hasRun(res, a, s) && hasRun(res, "capo", s) && hasRun(res, "grpo", s) {
				k++
			}
		}
		n = math.Min(n, float64(k))
	}
	return exp.Room(roomAblSeeds, n, exp.AtLeast(MinAblationSeeds),
		fmt.Sprintf("the fewest seeds on which an ablation (%v) ran beside capo and grpo: its claims are paired per seed; the protocol asks ≥ %d (with 3 the 95 %% t-interval uses t = 4.3, with 5 t = 2.8)", ran, MinAblationSeeds)), true
}

// hasMethod reports whether the result's configuration runs method m.
func hasMethod(res *exp.Result, m string) bool {
	return slices.ContainsFunc(configOf(res).Methods, func(x Method) bool { return x.Name == m })
}

// configOf is the result's configuration (the zero Config when it cannot be read).
func configOf(res *exp.Result) Config {
	var c Config
	_ = json.Unmarshal(res.Config, &c)
	return c
}

func hasRun(res *exp.Result, method string, seed uint64) bool {
	_, ok := res.Final(method, "accuracy", seed)
	return ok
}

// pair is a matched comparison's two methods: A's value minus B's.
type pair struct{ a, b string }

// The pairs the matched readings compare: CAPO and GRPO in the main run and at the learning-rate
// part's 3e-5, CAPO and GSPO (each at its own mini-batches, as the paper compares them), and GSPO
// and GRPO at the same four mini-batches.
var (
	mainPair = pair{"capo", "grpo"}
	lrPair   = pair{"capo-lr3e-5", "grpo-lr3e-5"}
	gspoPair = pair{"capo", "gspo"}
	lossPair = pair{"gspo", "grpo-mb4"}
)

// matchOn is the matched comparison of CAPO's AUC with GRPO's along curve x (matchPair).
func matchOn(x string) exp.Match { return matchPair(mainPair, x, aucCurve) }

// matchPair is the matched comparison of p.a's curve y with p.b's along curve x — an accuracy
// evaluation curve (both paths read where they first reach the lower of their two final
// accuracies, linear between evaluations), or klCurve by step (both read at the first step their KL
// from the SFT model, smoothed ±KLSmooth steps, reaches the lower of their final KLs, y linear
// between the evaluations around it); see exp.Match.
func matchPair(p pair, x, y string) exp.Match {
	if x == klCurve {
		return exp.Match{A: p.a, B: p.b, X: klCurve, Y: y, ByStep: true, Smooth: KLSmooth}
	}
	return exp.Match{A: p.a, B: p.b, X: x, Y: y}
}

// cover counts the seeds on which both CAPO's and GRPO's paths cross their common point on curve
// x, AUC read there (coverPair).
func cover(res *exp.Result, x string) exp.RoomCheck { return coverPair(res, mainPair, x, aucCurve) }

// coverPair counts the seeds on which both of p's paths cross their common point on curve x, y read
// there (matchPair; exp.MatchedOn leaves a seed out, naming it, where a path never does): the seeds
// the matched reading rests on, at least half of those with the curves and at least MinPairedSeeds.
func coverPair(res *exp.Result, p pair, x, y string) exp.RoomCheck {
	m := matchPair(p, x, y)
	crosses := func(s uint64) (yes, ok bool) {
		for _, k := range [][2]string{{m.A, m.X}, {m.A, m.Y}, {m.B, m.X}, {m.B, m.Y}} {
			if _, ok := res.CurveOf(k[0], k[1], s); !ok {
				return false, false
			}
		}
		return len(exp.MatchedOn(res, []uint64{s}, "", "", exp.Positive, m).Diffs) == 1, true
	}
	n := measured(res.Seeds, crosses)
	point := "the lower of the two methods' final values there"
	if x == klCurve {
		point = fmt.Sprintf("the lower of the two methods' mean KL over their last %d steps (each path's KL smoothed over ±%d steps)", KLSmooth, KLSmooth)
	}
	return res.CheckCount(coverName(p, x, y), minCrossing(n),
		fmt.Sprintf("seeds (of %d) on which both %s's and %s's paths on %s cross their common point, %s, so that both values of %s are read there (a seed where a path never crosses it is left out of the matched reading and named in its notes): at least half the seeds and at least %d. [UNVERIFIED] PaperLab's choice",
			n, p.a, p.b, x, point, y, MinPairedSeeds),
		fmt.Sprintf("no %s and %s curves for %s and %s", x, y, p.a, p.b), crosses)
}

// coverCheck names the coverage check of CAPO's and GRPO's matched AUC on curve x.
func coverCheck(x string) string { return coverName(mainPair, x, aucCurve) }

// coverName names the coverage check of p's matched y on curve x: "matched-seeds-<x>" for the main
// pair's AUC, with the pair and the read curve named otherwise.
func coverName(p pair, x, y string) string {
	name := "matched-seeds-"
	if p != mainPair {
		name += p.a + "-vs-" + p.b + "-"
	}
	name += curveName(x)
	if y != aucCurve {
		name += "-" + strings.TrimPrefix(y, "train/eval_")
	}
	return name
}

// curveName is the short name of a matching curve in check names.
func curveName(x string) string {
	switch x {
	case greedyCurve:
		return "greedy"
	case klCurve:
		return "kl"
	}
	return "mean16"
}

// measured is how many of seeds f measures.
func measured(seeds []uint64, f exp.SeedTest) int {
	n := 0
	for _, s := range seeds {
		if _, ok := f(s); ok {
			n++
		}
	}
	return n
}

// minCrossing is the fewest seeds a matched reading on n measured seeds needs: half of them, and
// at least MinPairedSeeds.
func minCrossing(n int) int { return max(MinPairedSeeds, (n+1)/2) }

// tauChecks compare each CAPO method's τ (the configuration's, or the method's own) with the
// typical |lpm gap| between a prompt's right and wrong answers under the SFT model (where RL
// starts), per seed on the seeds the method ran.
//
// The gap is the final metric lpm_gap_median of the sft run (median over the held-out prompts'
// (right, wrong) sample pairs of |lpm_i − lpm_j|) when the result has it; a result from before it
// was recorded reads the stored lpm_correct − lpm_wrong instead: the difference of the mean lpm of
// right and of wrong answers over all held-out samples — a mean, not a median, pooled over prompts
// and signed, so not the within-group |gap| CAPO's σ((lpm_j − lpm_i)/τ) sees.
func tauChecks(res *exp.Result) []exp.RoomCheck {
	median := false
	for _, r := range res.RunsOf("sft") {
		if _, ok := r.Final["lpm_gap_median"]; ok {
			median = true
		}
	}
	gap := func(s uint64) (float64, bool) {
		if median {
			g, ok := res.Final("sft", "lpm_gap_median", s)
			return g, ok && g > 0
		}
		c, ok1 := res.Final("sft", "lpm_correct", s)
		w, ok2 := res.Final("sft", "lpm_wrong", s)
		return c - w, ok1 && ok2 && c > w // a non-positive mean gap says nothing about the scale
	}
	measured := "the median |lpm_right − lpm_wrong| over each held-out prompt's (right, wrong) SFT sample pairs (lpm_gap_median)"
	if !median {
		measured = "the stored mean gap lpm_correct − lpm_wrong of the SFT model over all held-out samples (this result has no lpm_gap_median: a difference of means pooled over prompts and signed, not the median within-prompt |gap|)"
	}
	missing := "no sft lpm_gap_median, nor lpm_correct > lpm_wrong"
	why := func(tau float64, who string) string {
		return fmt.Sprintf("τ / typical |lpm gap| for %s (τ = %g) must be ≥ %g: CAPO's weight σ((lpm_j − lpm_i)/τ) falls to σ(−gap/τ) for a correctly ranked pair, so with τ well below the typical gap only misranked pairs carry weight (the saturated regime). "+
			"Audit 2026-12-02: τ 0.2 against a median gap of ~0.24 (ratio 0.83) was saturated and CAPO failed to learn accuracy (misranked pairs, 29 %%, carried 57 %% of the weight). The paper uses τ 0.5–0.6 and reports τ ∈ {0.4, 0.6, 1.0} robust. "+
			"Gap measured as %s. [UNVERIFIED] PaperLab's choice of %g", who, tau, MinTauGapRatio, measured, MinTauGapRatio)
	}
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil || cfg.RL.Adv.Tau <= 0 {
		return []exp.RoomCheck{exp.RoomMissing(tauCheck("capo"), exp.AtLeast(MinTauGapRatio), why(math.NaN(), "capo"), "the result's configuration has no RL τ")}
	}
	// Every CAPO method of the result's configuration (a method it lacks has no claims).
	var out []exp.RoomCheck
	for _, m := range cfg.Methods {
		if m.Estimator != "capo" {
			continue
		}
		tau := cfg.RL.Adv.Tau
		if m.Tau > 0 {
			tau = m.Tau
		}
		var seeds []uint64
		for _, r := range res.RunsOf(m.Name) {
			seeds = append(seeds, r.Seed)
		}
		ratio := func(s uint64) (float64, bool) {
			g, ok := gap(s)
			return tau / g, ok
		}
		miss := missing + " on " + m.Name + "'s seeds"
		if len(seeds) == 0 {
			miss = "no run of " + m.Name
		}
		out = append(out, exp.RoomOn(seeds, tauCheck(m.Name), exp.AtLeast(MinTauGapRatio), why(tau, m.Name), miss, ratio))
	}
	return out
}

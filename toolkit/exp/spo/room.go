package spo

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Thresholds of the room checks (measured preconditions of the claims, added 2026-12-02); each
// check's Why says where its number comes from.
const (
	// MinGain is the smallest change of a mean reward (letters per response) a check counts as
	// real: about two standard errors of the difference of two evaluations of 800 responses each
	// (per-response spread ≲ 1 letter, so SE ≲ 0.035 per evaluation, ≲ 0.05 for a difference).
	MinGain = 0.1
	// MinForgetting is the share of round 1's safe-helpfulness gain that naive sequential DPO must
	// lose for SPO to have forgetting to prevent: half, the midpoint between keeping everything (0)
	// and the paper's "h drops towards SFT level" (1).
	MinForgetting = 0.5
	// MaxOffsetRatio bounds SPO's offset |λ·Δr̂₁| against the margin β·Δθ that DPO itself builds on
	// the round-2 pairs: beyond 1 the offset, not the dimension-2 preference, decides the loss.
	MaxOffsetRatio = 1.0
	// MarginTail is the share of round 2's last steps whose mean batch margin is DPO's final margin.
	MarginTail = 0.2
)

// MinAgree is the share of round-2 pairs (with a difference in true helpfulness) on which round 1's
// implicit reward Δr̂₁ must have the sign of Δhelpful for SPO's offset to carry dimension 1 at all:
// chance is ½, and with ~1,500 such pairs per seed a share of 0.55 is ≥ 3 standard errors above it.
const MinAgree = 0.55

// Names of the room checks (claims name them in Needs).
const (
	roomGain      = "round 1 gained on reward 1"
	roomConverged = "round 1 converged"
	roomForget    = "naive sequential DPO loses round 1's safe gain"
	roomOffset    = "λ offset within DPO's own margin"
	roomHeadroom2 = "harmlessness left to gain in round 2"
	roomSettled   = "round 2 settled"
	roomReached   = "round 1 reached the probe's plateau"
	roomOutliers  = "outlier seeds (round 1's gain)"
	roomAgree     = "round 1's implicit reward agrees with helpfulness"
)

// metricOffset is the final metric of every SPO run (spo, spo-λ…, spo-flip): the mean |offset| over
// its round-2 pairs.
const metricOffset = "offset_abs_mean"

// Why "round 1 converged" and "round 2 settled" are arguments, not measurements, when each round's
// learning rate decays to 0 (Config.LRDecay): the policy's last steps are taken at a rate near 0,
// so the last fifth of a round is flat whatever the data, and a check on it could not fail. The
// claims that rest on them carry these notes (Claim.ByConstruction) instead of a room check; with a
// constant rate the checks are measured (Room).
const (
	noteConverged = "round 1 converged: its learning rate decays to 0 over its steps (cosine, LRDecay), so its last steps barely move the policy whatever the data; " +
		"not measured here (a constant-rate one-seed probe was flat from step ~150 to ~500)"
	noteSettled = "round 2 settled: its learning rate decays to 0 over its steps (cosine, LRDecay), so round 2's final step is a point where the policy has stopped moving " +
		"by construction, not a measured plateau"
)

// Room measures the preconditions of the claims on a stored result, each with the statistic of its
// kind (exp.RoomCheck):
//   - round 1's gain on reward 1 over SFT (achieved: the lower end of its 95 % interval over seeds);
//   - the share of round 1's gain on helpful_safe (the helpfulness harmlessness does not forbid)
//     that naive sequential DPO loses, 1 − (seq-dpo − sft)/(dpo-1 − sft): the room SPO has to keep
//     more (headroom: the mean over seeds);
//   - SPO's mean |offset| over naive DPO's final round-2 margin (a ceiling: the mean);
//   - the unsafe letters per response dpo-1 leaves for round 2 (headroom: the mean; the ceiling is 0);
//   - the share of round-2 pairs on which Δr̂₁ has the sign of Δhelpful (achieved against chance:
//     the lower end of its interval);
//   - that round 1 and round 2 have stopped moving: on the constant-rate probes where the result
//     has them (Config.ProbeSeeds; every probe seed's signed change over its last 20 % of
//     checkpoints within ±MinGain, and dpo-1 at the probe's plateau), else only with a constant
//     learning rate on the runs themselves (the mean of the signed per-seed changes). With the
//     decay and no probes they cannot fail: notes on the claims instead;
//   - the parts' preconditions (partRoom) and an outlier check on round 1's gain.
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	final := func(m, k string, seed uint64) (float64, bool) { return res.Final(m, k, seed) }
	checks := []exp.RoomCheck{
		res.CheckAchieves(roomGain, exp.AtLeast(MinGain),
			fmt.Sprintf("Losing, keeping or trading dimension 1 in round 2 can be seen only if round 1 raised it: reward_1(dpo-1) − reward_1(sft), distinct prompt letters per response, "+
				"read on the lower end of its 95 %% interval over seeds. Needs ≥ %g, about two standard errors of a difference of two evaluations (200 prompts × 4 samples each). "+
				"[UNVERIFIED] PaperLab's choice.", MinGain),
			"no reward_1 of dpo-1 or sft", res.Diff("dpo-1", "reward_1", "sft", "reward_1")),
	}
	probes := hasMethod(res, ProbeRound1) && hasMethod(res, ProbeRound2)
	if probes {
		pseeds := seedsOf(res, ProbeRound1)
		checks = append(checks,
			exp.RoomCount(pseeds, roomConverged, len(pseeds),
				fmt.Sprintf("Round 2 must start from a round 1 that has finished, or round 2's changes mix forgetting with round 1's unfinished drift. With the rate decaying to 0 round 1's own end "+
					"is flat by construction, so the check reads the constant-rate probe %s (round 1's data, steps and batches at a constant rate, on the first %d seeds): on every probe seed "+
					"the signed change of its held-out reward_1 over its last %.0f %% of checkpoints (exp.TailChange) lies within ±%g (MinGain), so that seeds moving in opposite "+
					"directions cannot cancel. At a constant rate, round 1's budget is then one where helpfulness has stopped improving. [UNVERIFIED] PaperLab's choice.", ProbeRound1, cfg.ProbeSeeds, 100*TailFrac, MinGain),
				"no round1/reward_1 curve of "+ProbeRound1, withinSeed(res.TailChangeOf(ProbeRound1, "round1/reward_1", TailFrac), MinGain)),
			exp.RoomCount(pseeds, roomReached, len(pseeds),
				fmt.Sprintf("The decayed round 1 takes about half the probe's total step (a cosine to 0), so the probe's plateau says round 1 has finished only if dpo-1 reached it: on every probe seed "+
					"|reward_1(dpo-1) − the mean of %s's held-out reward_1 over its last %.0f %% of checkpoints| ≤ %g (MinGain). [UNVERIFIED] PaperLab's choice.", ProbeRound1, 100*TailFrac, MinGain),
				"no reward_1 of dpo-1 or round1/reward_1 curve of "+ProbeRound1, withinSeed(func(seed uint64) (float64, bool) {
					v, ok1 := res.Final("dpo-1", "reward_1", seed)
					t, ok2 := res.CurveMeasure(ProbeRound1, "round1/reward_1", tailMean)(seed)
					return v - t, ok1 && ok2
				}, MinGain)))
	} else if !cfg.LRDecay {
		checks = append(checks, res.CheckSettled(roomConverged, MinGain,
			fmt.Sprintf("Round 2 must start from a round 1 that has finished, or round 2's changes mix forgetting with round 1's unfinished drift: mean over seeds of the signed change "+
				"of dpo-1's held-out reward_1 over the last %.0f %% of round 1 (a least-squares line through its checkpoints, exp.TailChange), within ±%g (MinGain). "+
				"Measured only at a constant learning rate: with LRDecay it holds by construction. [UNVERIFIED] PaperLab's choice.", 100*TailFrac, MinGain),
			"no round1/reward_1 curve of dpo-1", res.TailChangeOf("dpo-1", "round1/reward_1", TailFrac)))
	}
	checks = append(checks,
		res.CheckRoom(roomForget, exp.AtLeast(MinForgetting),
			fmt.Sprintf("SPO can keep more of round 1 than naive sequential DPO only where naive DPO loses it (SPO's room to gain). Part of round 1's gain on reward 1 is unsafe coverage "+
				"that harmlessness must remove whatever the method; the part it does not forbid is helpful_safe (safe prompt letters covered). Share of dpo-1's gain on helpful_safe over "+
				"SFT that seq-dpo loses, 1 − (seq-dpo − sft)/(dpo-1 − sft), on seeds whose gain is ≥ %g; the mean over seeds. Needs ≥ %g: the paper's picture is naive DPO dropping "+
				"towards SFT (1); below half, SPO's room to keep more is within the seed spread (the 2026-12-02 audit). [UNVERIFIED] PaperLab's choice.", MinGain, MinForgetting),
			"no helpful_safe of sft, dpo-1 or seq-dpo", func(seed uint64) (float64, bool) {
				s, ok1 := final("sft", "helpful_safe", seed)
				d, ok2 := final("dpo-1", "helpful_safe", seed)
				q, ok3 := final("seq-dpo", "helpful_safe", seed)
				if !ok1 || !ok2 || !ok3 || d-s < MinGain {
					return 0, false
				}
				return 1 - (q-s)/(d-s), true
			}),
		res.CheckRoom(roomOffset, exp.Test{Op: exp.Below, X: MaxOffsetRatio},
			fmt.Sprintf("SPO's offset λ·Δr̂₁ is meant to reweight the dimension-2 pairs by round 1's implicit preference, not to replace them: SPO's loss σ(β·Δθ − offset) reaches its "+
				"optimum only once the margin the policy builds exceeds the offset, so an offset larger than the margin DPO itself builds on these pairs makes round 2 mostly re-learn round 1's "+
				"implicit reward. A ceiling: mean over seeds of |offset| of spo (λ = %g, its %s) over seq-dpo's round-2 margin (mean batch rewards/margins over the last %.0f %% of steps); "+
				"needs < %g. [UNVERIFIED] PaperLab's choice.", cfg.Lambda, metricOffset, 100*MarginTail, MaxOffsetRatio),
			"no spo "+metricOffset+" or no seq-dpo round2/rewards/margins", func(seed uint64) (float64, bool) {
				off, ok := res.Final("spo", metricOffset, seed)
				m, ok2 := FinalMargin(res, "seq-dpo", seed)
				if !ok || !ok2 || m <= 0 {
					return 0, false
				}
				return off / m, true
			}),
		res.CheckRoom(roomHeadroom2, exp.AtLeast(MinGain),
			fmt.Sprintf("Round 2 can gain harmlessness, and a method can fall short of another on it, only if round 1 left unsafe letters to remove: −reward_2(dpo-1), unsafe letters per response "+
				"(the ceiling is 0; with none left every method matches trivially); the mean over seeds. Needs ≥ %g (MinGain). [UNVERIFIED] PaperLab's choice.", MinGain),
			"no reward_2 of dpo-1", func(seed uint64) (float64, bool) {
				v, ok := final("dpo-1", "reward_2", seed)
				return -v, ok // reward_2 = −(unsafe letters) ≤ 0
			}),
	)
	if probes {
		pseeds := seedsOf(res, ProbeRound2)
		checks = append(checks, exp.RoomCount(pseeds, roomSettled, len(pseeds),
			fmt.Sprintf("A comparison at round 2's final step needs a budget at which the methods have stopped moving. With the rate decaying to 0 round 2's end is flat by construction, "+
				"so the check reads the constant-rate probe %s (naive round 2 from dpo-1 at a constant rate, on the first %d seeds): on every probe seed the signed change of its held-out "+
				"reward_1, the dimension naive DPO loses, over its last %.0f %% of checkpoints (exp.TailChange) lies within ±%g (MinGain). The matched comparisons read the whole paths and do "+
				"not need it. [UNVERIFIED] PaperLab's choice.", ProbeRound2, cfg.ProbeSeeds, 100*TailFrac, MinGain),
			"no round2/reward_1 curve of "+ProbeRound2, withinSeed(res.TailChangeOf(ProbeRound2, pathHelpful, TailFrac), MinGain)))
	} else if !cfg.LRDecay {
		checks = append(checks, res.CheckSettled(roomSettled, MinGain,
			fmt.Sprintf("A comparison at round 2's final step needs a budget at which the methods have stopped moving: mean over seeds of the signed change of seq-dpo's held-out reward_1 "+
				"over the last %.0f %% of round 2 (exp.TailChange), the dimension naive DPO loses, within ±%g (MinGain). The matched comparisons read the whole paths and do not need it. "+
				"Measured only at a constant learning rate: with LRDecay it holds by construction. [UNVERIFIED] PaperLab's choice.", 100*TailFrac, MinGain),
			"no round2/reward_1 curve of seq-dpo", res.TailChangeOf("seq-dpo", pathHelpful, TailFrac)))
	}
	checks = append(checks, partRoom(res, cfg)...)
	checks = append(checks, res.CheckOutliers(roomOutliers,
		"A seed whose round 1 gained far more or less than the others' (modified z-score above the framework's threshold) can carry a comparison on 4 or 8 seeds alone: reward_1(dpo-1) − reward_1(sft) per seed; "+
			"every claim that uses a flagged seed is also read without it (a sensitivity check, never a verdict).",
		"no reward_1 of dpo-1 or sft", res.Diff("dpo-1", "reward_1", "sft", "reward_1")))
	return append(checks, res.CheckAchieves(roomAgree, exp.AtLeast(MinAgree),
		fmt.Sprintf("SPO's offset carries dimension 1 into round 2 only as far as round 1's implicit reward r̂₁ = β₁·log π₁/π_SFT ranks the round-2 pairs' responses as true helpfulness "+
			"does: share of the tracked round-2 pairs (with a difference in helpfulness) on which Δr̂₁ has the sign of Δhelpful (dpo-1's rhat_agree), read on the lower end of its 95 %% "+
			"interval over seeds. Needs ≥ %g (chance is ½). [UNVERIFIED] PaperLab's choice.", MinAgree),
		"no rhat_agree of dpo-1", func(seed uint64) (float64, bool) { return final("dpo-1", "rhat_agree", seed) }))
}

// settledGate is how a claim depends on a round having stopped moving: the measured room check
// where the result has the constant-rate probes (Config.ProbeSeeds) or the rate is constant; with
// the learning rate decaying to 0 (cfg.LRDecay) and no probes, a note (the argument, note).
func settledGate(cfg Config, probes bool, c exp.Claim, check, note string) exp.Claim {
	switch {
	case cfg.LRDecay && !probes:
		return c.ByConstruction(note)
	case probes && check == roomConverged:
		return c.Needs(check, roomReached)
	}
	return c.Needs(check)
}

// TailFrac is the share of a round's checkpoints over which "stopped moving" is measured: the last
// 20 %, as every settled check reads (exp.RoomSettled).
const TailFrac = 0.2

// FinalMargin is method's round-2 margin at the end: the mean of its batch rewards/margins
// (β·Δθ) over the last MarginTail of round 2's steps.
func FinalMargin(res *exp.Result, method string, seed uint64) (float64, bool) {
	c, ok := res.CurveOf(method, "round2/rewards/margins", seed)
	if !ok {
		return 0, false
	}
	n := len(c.Y)
	k := max(1, int(math.Ceil(MarginTail*float64(n))))
	s := 0.0
	for _, y := range c.Y[n-k:] {
		s += y
	}
	return s / float64(k), true
}

// withinSeed is whether a seed's value lies within ±tol (for exp.RoomCount).
func withinSeed(f exp.PerSeed, tol float64) exp.SeedTest {
	return func(seed uint64) (bool, bool) {
		v, ok := f(seed)
		return math.Abs(v) <= tol, ok
	}
}

// tailMean is the mean of a curve's last TailFrac of points (at least one).
func tailMean(c exp.Curve) float64 {
	k := max(1, int(math.Ceil(TailFrac*float64(len(c.Y)))))
	var s float64
	for _, y := range c.Y[len(c.Y)-k:] {
		s += y
	}
	return s / float64(k)
}

// forgetShare is, per seed, the share of round 1's gain on helpful_safe over SFT that naive round 2
// (seq) loses, 1 − (seq − sft)/(dpo1 − sft), on seeds whose gain is at least MinGain.
func forgetShare(res *exp.Result, dpo1, seq string) exp.PerSeed {
	return func(seed uint64) (float64, bool) {
		s, ok1 := res.Final("sft", "helpful_safe", seed)
		d, ok2 := res.Final(dpo1, "helpful_safe", seed)
		q, ok3 := res.Final(seq, "helpful_safe", seed)
		if !ok1 || !ok2 || !ok3 || d-s < MinGain {
			return 0, false
		}
		return 1 - (q-s)/(d-s), true
	}
}

// Names of the parts' room checks.
func roomForgetSlow(cfg Config) string {
	return fmt.Sprintf("naive sequential DPO loses round 1's safe gain at round-2 rate %g", cfg.SlowLR)
}
func roomGainShare(share float64) string {
	return fmt.Sprintf("round 1 gained on reward 1 (refusal share %g)", share)
}
func roomForgetShare(share float64) string {
	return fmt.Sprintf("naive sequential DPO loses round 1's safe gain (refusal share %g)", share)
}

const (
	roomThreeGain1   = "3d: round 1 gained on reward 1"
	roomThreeGain2   = "3d: naive round 2 gained on reward 2"
	roomThreeForget1 = "3d: naive round 3 loses dimension 1"
	roomThreeForget2 = "3d: naive round 3 loses dimension 2"
	roomForgetGrows  = "naive DPO forgets more at the larger refusal share"
)

// partRoom are the room checks of the parts the result holds: naive DPO's forgetting at the slow
// rate; round 1's gain and naive DPO's forgetting at each refusal share; in part three, round 1's
// gain, naive round 2's gain on harmlessness, and what naive round 3 loses of each earlier
// dimension (the room SPO's two offsets have to keep more).
func partRoom(res *exp.Result, cfg Config) []exp.RoomCheck {
	var out []exp.RoomCheck
	forgetWhy := func(where, seq string) string {
		return fmt.Sprintf("SPO can keep more of round 1 than naive sequential DPO only where naive DPO loses it: the share of round 1's gain on helpful_safe over SFT that %s loses "+
			"(%s), 1 − (seq − sft)/(dpo-1 − sft) on seeds whose gain is ≥ %g, the mean over seeds; needs ≥ %g as the main part's check. [UNVERIFIED] PaperLab's choice.", seq, where, MinGain, MinForgetting)
	}
	if slow := cfg.SlowName("seq-dpo"); cfg.SlowLR > 0 && hasMethod(res, slow) {
		out = append(out, res.CheckRoom(roomForgetSlow(cfg), exp.AtLeast(MinForgetting), forgetWhy(fmt.Sprintf("round 2 at Adam %g", cfg.SlowLR), slow),
			"no helpful_safe of sft, dpo-1 or "+slow, forgetShare(res, "dpo-1", slow)))
	}
	shares := refusalShares(cfg, res)
	if len(shares) < 2 {
		shares = nil // the main part's share alone: its checks are the main part's
	}
	if len(shares) > 0 {
		seeds := seedsOf(res, cfg.RefusalName("spo", shares[0]))
		for _, share := range shares {
			dpo1, seq := cfg.RefusalName("dpo-1", share), cfg.RefusalName("seq-dpo", share)
			out = append(out,
				exp.RoomAchieves(seeds, roomGainShare(share), exp.AtLeast(MinGain),
					fmt.Sprintf("As the main part's \"%s\", on the pairs with refusal share %g and the part's seeds %v: reward_1(%s) − reward_1(sft), lower end of its 95 %% interval, ≥ %g.", roomGain, share, seeds, dpo1, MinGain),
					"no reward_1 of "+dpo1+" or sft", res.Diff(dpo1, "reward_1", "sft", "reward_1")),
				exp.RoomOn(seeds, roomForgetShare(share), exp.AtLeast(MinForgetting), forgetWhy(fmt.Sprintf("refusal share %g, on the part's seeds %v", share, seeds), seq),
					"no helpful_safe of sft, "+dpo1+" or "+seq, forgetShare(res, dpo1, seq)))
		}
		lo, hi := shares[0], shares[len(shares)-1]
		flo := forgetShare(res, cfg.RefusalName("dpo-1", lo), cfg.RefusalName("seq-dpo", lo))
		fhi := forgetShare(res, cfg.RefusalName("dpo-1", hi), cfg.RefusalName("seq-dpo", hi))
		out = append(out, exp.RoomAchieves(seeds, roomForgetGrows, exp.Test{Op: exp.Above, X: 0},
			fmt.Sprintf("\"SPO's advantage follows forgetting\" compares the shares as more and less forgetting only if naive DPO forgets more at the larger share: per seed the forgetting share "+
				"at %g minus at %g, lower end of its 95 %% interval above 0.", hi, lo),
			"no forgetting share at both shares", func(seed uint64) (float64, bool) {
				a, ok1 := fhi(seed)
				b, ok2 := flo(seed)
				return a - b, ok1 && ok2
			}))
	}
	if !hasMethod(res, ThreeSPOSeq) {
		return out
	}
	// What naive round 3 from SPO's round 2 loses of the earlier dimensions: the room SPO's offsets
	// have, from the same start.
	loses := func(key string) exp.PerSeed {
		return func(seed uint64) (float64, bool) {
			a, ok1 := res.Final(ThreeSPO2, key, seed)
			b, ok2 := res.Final(ThreeSPOSeq, key, seed)
			return a - b, ok1 && ok2
		}
	}
	return append(out,
		res.CheckAchieves(roomThreeGain1, exp.AtLeast(MinGain),
			fmt.Sprintf("As the main part's \"%s\", on part three's pairs (labelled on three dimensions): reward_1(%s) − reward_1(sft), lower end of its 95 %% interval, ≥ %g.", roomGain, ThreeRound1, MinGain),
			"no reward_1 of "+ThreeRound1+" or sft", res.Diff(ThreeRound1, "reward_1", "sft", "reward_1")),
		res.CheckAchieves(roomThreeGain2, exp.AtLeast(MinGain),
			fmt.Sprintf("Round 3 can lose dimension 2 only if round 2 gained it: reward_2(%s) − reward_2(%s) (unsafe letters removed by naive round 2), lower end of its 95 %% interval, ≥ %g. [UNVERIFIED] PaperLab's choice.", ThreeSeq2, ThreeRound1, MinGain),
			"no reward_2 of "+ThreeSeq2+" or "+ThreeRound1, res.Diff(ThreeSeq2, "reward_2", ThreeRound1, "reward_2")),
		res.CheckRoom(roomThreeForget1, exp.AtLeast(MinGain),
			fmt.Sprintf("SPO's offsets can keep more of dimension 1 in round 3 only where naive round 3 from the same start loses it: reward_1(%s) − reward_1(%s), the mean over seeds, ≥ %g (MinGain). [UNVERIFIED] PaperLab's choice.", ThreeSPO2, ThreeSPOSeq, MinGain),
			"no reward_1 of "+ThreeSPO2+" or "+ThreeSPOSeq, loses("reward_1")),
		res.CheckRoom(roomThreeForget2, exp.AtLeast(MinGain),
			fmt.Sprintf("… and of dimension 2: reward_2(%s) − reward_2(%s), the mean over seeds, ≥ %g (MinGain): conciseness (fewer letters) may also remove unsafe letters, and then there is no dimension-2 forgetting to prevent. [UNVERIFIED] PaperLab's choice.", ThreeSPO2, ThreeSPOSeq, MinGain),
			"no reward_2 of "+ThreeSPO2+" or "+ThreeSPOSeq, loses("reward_2")),
	)
}

// refusalShares are the refusal shares the result has runs for, the main part's Task.RefusalShare
// included when the main part's runs exist, in increasing order.
func refusalShares(cfg Config, res *exp.Result) []float64 {
	var out []float64
	for _, sh := range append(slices.Clone(cfg.RefusalShares), cfg.Task.RefusalShare) {
		if hasMethod(res, cfg.RefusalName("seq-dpo", sh)) && hasMethod(res, cfg.RefusalName("spo", sh)) && !slices.Contains(out, sh) {
			out = append(out, sh)
		}
	}
	slices.Sort(out)
	return out
}

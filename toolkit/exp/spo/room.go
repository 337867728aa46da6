package spo

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Thresholds of the room checks (issue 31); each check's Why says where its number comes from.
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

// Names of the room checks (claims name them in Needs).
const (
	roomGain      = "round 1 gained on reward 1"
	roomForget    = "naive sequential DPO loses round 1's safe gain"
	roomOffset    = "λ offset within DPO's own margin"
	roomHeadroom2 = "harmlessness left to gain in round 2"
)

// metricOffset is the final metric of every SPO run (spo, spo-λ…, spo-flip) that runs from now on
// record: the mean |λ·Δr̂₁| over its round-2 pairs.
const metricOffset = "offset_abs_mean"

// Room measures the preconditions of the claims on a stored result, per seed (judged on the mean):
//   - round 1's gain on reward 1 over SFT;
//   - the share of round 1's gain on helpful_safe (the helpfulness harmlessness does not forbid)
//     that naive sequential DPO loses: 1 − (seq-dpo − sft)/(dpo-1 − sft);
//   - SPO's mean |offset| over naive DPO's final round-2 margin (the offset from spo's recorded
//     offset_abs_mean, or, for a result without it, a lower bound from the first round-2 losses of
//     spo and spo-flip: OffsetLowerBound);
//   - the unsafe letters per response dpo-1 leaves for round 2 (the ceiling is 0).
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	final := func(m, k string, seed uint64) (float64, bool) { return res.Final(m, k, seed) }
	return []exp.RoomCheck{
		res.CheckRoom(roomGain, exp.AtLeast(MinGain),
			fmt.Sprintf("Losing, keeping or trading dimension 1 in round 2 can be seen only if round 1 raised it: reward_1(dpo-1) − reward_1(sft), distinct prompt letters per response. "+
				"Needs ≥ %g, about two standard errors of a difference of two evaluations (200 prompts × 4 samples each). [UNVERIFIED] PaperLab's choice.", MinGain),
			"no reward_1 of dpo-1 or sft", res.Diff("dpo-1", "reward_1", "sft", "reward_1")),
		res.CheckRoom(roomForget, exp.AtLeast(MinForgetting),
			fmt.Sprintf("SPO can keep more of round 1 than naive sequential DPO only where naive DPO loses it. Part of round 1's gain on reward 1 is unsafe coverage that harmlessness "+
				"must remove whatever the method; the part it does not forbid is helpful_safe (safe prompt letters covered). Share of dpo-1's gain on helpful_safe over SFT that seq-dpo "+
				"loses, 1 − (seq-dpo − sft)/(dpo-1 − sft), on seeds whose gain is ≥ %g. Needs ≥ %g: the paper's picture is naive DPO dropping towards SFT (1), and below half "+
				"the claims that SPO keeps at least half would hold for naive DPO itself. [UNVERIFIED] PaperLab's choice.", MinGain, MinForgetting),
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
				"implicit reward (π₂ ∝ π₁·(π₁/π₀)^λ·e^{R₂/β}). Mean |offset| of spo (λ = %g) over seq-dpo's round-2 margin (mean batch rewards/margins over the last %.0f %% of steps); needs < %g. "+
				"Runs that record spo's %s use it; for the committed run it is a lower bound from the first round-2 step, where the policy equals its reference and the loss is mean softplus(±offset) "+
				"on the same batch for spo and spo-flip: mean |offset| ≥ L_spo + L_flip − 2 ln 2. [UNVERIFIED] PaperLab's choice.", cfg.Lambda, 100*MarginTail, MaxOffsetRatio, metricOffset),
			"no spo "+metricOffset+" and no first round-2 loss of spo and spo-flip, or no seq-dpo round2/rewards/margins", func(seed uint64) (float64, bool) {
				off, ok := res.Final("spo", metricOffset, seed)
				if !ok {
					if off, ok = OffsetLowerBound(res, seed); !ok {
						return 0, false
					}
				}
				m, ok := FinalMargin(res, "seq-dpo", seed)
				if !ok || m <= 0 {
					return 0, false
				}
				return off / m, true
			}),
		res.CheckRoom(roomHeadroom2, exp.AtLeast(MinGain),
			fmt.Sprintf("Round 2 can gain harmlessness, and a method can fall short of another on it, only if round 1 left unsafe letters to remove: −reward_2(dpo-1), unsafe letters per response "+
				"(the ceiling is 0; with none left every method matches trivially). Needs ≥ %g (MinGain). [UNVERIFIED] PaperLab's choice.", MinGain),
			"no reward_2 of dpo-1", func(seed uint64) (float64, bool) {
				v, ok := final("dpo-1", "reward_2", seed)
				return math.Abs(v), ok // reward_2 = −(unsafe letters) ≤ 0
			}),
	}
}

// OffsetLowerBound bounds SPO's mean |offset| on one seed from below by the first round-2 losses of
// spo and spo-flip. At step 1 the policy is a copy of its reference (π₁), so every pair's margin
// β·Δθ is 0 (checked: rewards/margins is 0 at step 1 for both) and the loss is the batch mean of
// softplus(offset) for spo and of softplus(−offset) for spo-flip, on the same batch (same seed and
// pairs). softplus(x) + softplus(−x) = |x| + 2·ln(1 + e^{−|x|}) ≤ |x| + 2 ln 2, so
// mean |offset| ≥ L_spo + L_flip − 2 ln 2. False when either run or curve is missing.
func OffsetLowerBound(res *exp.Result, seed uint64) (float64, bool) {
	var sum float64
	for _, m := range []string{"spo", "spo-flip"} {
		l, ok1 := res.CurveOf(m, "round2/loss", seed)
		g, ok2 := res.CurveOf(m, "round2/rewards/margins", seed)
		if !ok1 || !ok2 || l.X[0] != 1 || g.X[0] != 1 || math.Abs(g.Y[0]) > 1e-6 {
			return 0, false
		}
		sum += l.Y[0]
	}
	return math.Max(0, sum-2*math.Ln2), true
}

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

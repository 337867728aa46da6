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
	roomAgree     = "round 1's implicit reward agrees with helpfulness"
)

// metricOffset is the final metric of every SPO run (spo, spo-λ…, spo-flip): the mean |λ·Δr̂₁| over
// its round-2 pairs.
const metricOffset = "offset_abs_mean"

// Room measures the preconditions of the claims on a stored result, per seed (judged on the mean):
//   - round 1's gain on reward 1 over SFT, and that its held-out reward 1 has stopped moving;
//   - the share of round 1's gain on helpful_safe (the helpfulness harmlessness does not forbid)
//     that naive sequential DPO loses: 1 − (seq-dpo − sft)/(dpo-1 − sft);
//   - SPO's mean |offset| over naive DPO's final round-2 margin;
//   - the unsafe letters per response dpo-1 leaves for round 2 (the ceiling is 0), and that naive
//     DPO's harmlessness has stopped moving by round 2's end;
//   - the share of round-2 pairs on which Δr̂₁ has the sign of Δhelpful.
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	final := func(m, k string, seed uint64) (float64, bool) { return res.Final(m, k, seed) }
	abs := func(f exp.PerSeed) exp.PerSeed {
		return func(seed uint64) (float64, bool) { v, ok := f(seed); return math.Abs(v), ok }
	}
	return []exp.RoomCheck{
		res.CheckRoom(roomGain, exp.AtLeast(MinGain),
			fmt.Sprintf("Losing, keeping or trading dimension 1 in round 2 can be seen only if round 1 raised it: reward_1(dpo-1) − reward_1(sft), distinct prompt letters per response. "+
				"Needs ≥ %g, about two standard errors of a difference of two evaluations (200 prompts × 4 samples each). [UNVERIFIED] PaperLab's choice.", MinGain),
			"no reward_1 of dpo-1 or sft", res.Diff("dpo-1", "reward_1", "sft", "reward_1")),
		res.CheckRoom(roomConverged, exp.Test{Op: exp.Below, X: MinGain},
			fmt.Sprintf("Round 2 must start from a round 1 that has finished, or round 2's changes mix forgetting with round 1's unfinished drift: |change| of dpo-1's held-out reward_1 "+
				"over the last %.0f %% of round 1 (a least-squares line through its checkpoints, exp.TailChange). Needs < %g (MinGain). [UNVERIFIED] PaperLab's choice.", 100*TailFrac, MinGain),
			"no round1/reward_1 curve of dpo-1", abs(res.TailChangeOf("dpo-1", "round1/reward_1", TailFrac))),
		res.CheckRoom(roomForget, exp.AtLeast(MinForgetting),
			fmt.Sprintf("SPO can keep more of round 1 than naive sequential DPO only where naive DPO loses it. Part of round 1's gain on reward 1 is unsafe coverage that harmlessness "+
				"must remove whatever the method; the part it does not forbid is helpful_safe (safe prompt letters covered). Share of dpo-1's gain on helpful_safe over SFT that seq-dpo "+
				"loses, 1 − (seq-dpo − sft)/(dpo-1 − sft), on seeds whose gain is ≥ %g. Needs ≥ %g: the paper's picture is naive DPO dropping towards SFT (1); below half, "+
				"SPO's room to keep more is within the seed spread (the 2026-12-02 audit). [UNVERIFIED] PaperLab's choice.", MinGain, MinForgetting),
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
				"implicit reward. Mean |offset| of spo (λ = %g, its %s) over seq-dpo's round-2 margin (mean batch rewards/margins over the last %.0f %% of steps); needs < %g. "+
				"[UNVERIFIED] PaperLab's choice.", cfg.Lambda, metricOffset, 100*MarginTail, MaxOffsetRatio),
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
				"(the ceiling is 0; with none left every method matches trivially). Needs ≥ %g (MinGain). [UNVERIFIED] PaperLab's choice.", MinGain),
			"no reward_2 of dpo-1", func(seed uint64) (float64, bool) {
				v, ok := final("dpo-1", "reward_2", seed)
				return math.Abs(v), ok // reward_2 = −(unsafe letters) ≤ 0
			}),
		res.CheckRoom(roomSettled, exp.Test{Op: exp.Below, X: MinGain},
			fmt.Sprintf("A comparison at round 2's final step needs a budget at which the methods have stopped moving: |change| of seq-dpo's held-out reward_1 over the last %.0f %% "+
				"of round 2 (exp.TailChange), the dimension naive DPO loses. Needs < %g (MinGain). The matched-harmlessness comparisons read the whole paths and do not need it. "+
				"[UNVERIFIED] PaperLab's choice.", 100*TailFrac, MinGain),
			"no round2/reward_1 curve of seq-dpo", abs(res.TailChangeOf("seq-dpo", pathHelpful, TailFrac))),
		res.CheckRoom(roomAgree, exp.AtLeast(MinAgree),
			fmt.Sprintf("SPO's offset carries dimension 1 into round 2 only as far as round 1's implicit reward r̂₁ = β₁·log π₁/π_SFT ranks the round-2 pairs' responses as true helpfulness "+
				"does: share of the tracked round-2 pairs (with a difference in helpfulness) on which Δr̂₁ has the sign of Δhelpful (dpo-1's rhat_agree). Needs ≥ %g (chance is ½). "+
				"[UNVERIFIED] PaperLab's choice.", MinAgree),
			"no rhat_agree of dpo-1", func(seed uint64) (float64, bool) { return final("dpo-1", "rhat_agree", seed) }),
	}
}

// TailFrac is the share of a round's checkpoints over which "stopped moving" is measured.
const TailFrac = 0.25

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

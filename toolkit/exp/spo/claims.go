package spo

import (
	"encoding/json"
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// MatchMargin is how close SPO's reward 2 must come to naive sequential DPO's to "match" it: 0.1
// unsafe letters per response ([UNVERIFIED] PaperLab's margin; reward 2 spans about −2 to 0 here).
const MatchMargin = 0.1

// Claims checks the paper's qualitative claims (§2.3) on a result, seed by seed: round 1 raises
// dimension 1 beyond what a prompt-blind policy would get; naive sequential DPO loses it; SPO keeps
// more of it than naive DPO, at least half of round 1's gain on reward 1 and on its safe part, while
// matching naive DPO on dimension 2; the λ trade-off; and the sign diagnostic.
//
// Each claim names the room checks it needs (room.go). The first two (round 1 raises reward 1,
// beyond a prompt-blind policy) need none: they are the first link of the chain, measured from an
// SFT policy trained on random responses, and a failure there is a result, not a lack of room. The
// claims about SPO keeping round 1 need round 1 to have gained, naive DPO to lose its safe part, and
// the offset to stay within DPO's own margin; the claims on dimension 2 need harmlessness left to
// gain. A matched comparison (SPO's helpfulness at naive DPO's harmlessness along the round-2
// curves) is not made: both methods end within a few hundredths of the harmlessness ceiling 0,
// where SPO's path never reaches naive DPO's final point on 5 of the 8 committed seeds, and the
// curves hold 4 checkpoints (steps 0, 50, 100, 150) with nearly all of the change before step 50.
func Claims(res *exp.Result) []exp.Claim {
	// keptHalf: method m's gain over SFT on metric k minus half of dpo-1's (≥ 0: keeps ≥ 50 %).
	keptHalf := func(m, k string) exp.PerSeed {
		return func(seed uint64) (float64, bool) {
			x, ok1 := res.Final(m, k, seed)
			d, ok2 := res.Final("dpo-1", k, seed)
			s, ok3 := res.Final("sft", k, seed)
			return (x - s) - 0.5*(d-s), ok1 && ok2 && ok3
		}
	}
	// The λ sweep's extremes (method names spo-λ<value>; the main λ is "spo").
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	name := func(l float64) string {
		if l == cfg.Lambda {
			return "spo"
		}
		return fmt.Sprintf("spo-λ%g", l)
	}
	lo, hi := cfg.Lambda, cfg.Lambda
	for _, l := range cfg.Sweep {
		lo, hi = min(lo, l), max(hi, l)
	}
	claims := []exp.Claim{
		res.Check("round 1 (DPO on dimension 1) raises reward 1", "reward_1(dpo-1) − reward_1(sft)", exp.Positive, res.Diff("dpo-1", "reward_1", "sft", "reward_1")),
		res.Check("… by reading the prompt: dpo-1 scores above a prompt-blind policy with its responses", "reward_1(dpo-1) − blind_reward_1(dpo-1)",
			exp.Positive, res.Diff("dpo-1", "reward_1", "dpo-1", "blind_reward_1")),
		res.Check("naive sequential DPO loses dimension 1", "reward_1(seq-dpo) − reward_1(dpo-1)", exp.Negative, res.Diff("seq-dpo", "reward_1", "dpo-1", "reward_1")).Needs(roomGain),
		res.Check("SPO gains dimension 2", "reward_2(spo) − reward_2(dpo-1)", exp.Positive, res.Diff("spo", "reward_2", "dpo-1", "reward_2")).Needs(roomHeadroom2),
		res.Check("SPO keeps more of dimension 1 than naive sequential DPO", "reward_1(spo) − reward_1(seq-dpo)", exp.Positive, res.Diff("spo", "reward_1", "seq-dpo", "reward_1")).Needs(roomGain, roomForget, roomOffset),
		res.Check("SPO keeps at least half of round 1's gain on reward 1", "gain(spo) − ½·gain(dpo-1), reward_1", exp.AtLeast(0), keptHalf("spo", "reward_1")).Needs(roomGain, roomForget, roomOffset),
		res.Check("… and on its safe part (helpful_safe)", "gain(spo) − ½·gain(dpo-1), helpful_safe", exp.AtLeast(0), keptHalf("spo", "helpful_safe")).Needs(roomForget, roomOffset),
		res.Check(fmt.Sprintf("SPO matches naive sequential DPO on dimension 2 (within %g)", MatchMargin), "reward_2(spo) − reward_2(seq-dpo)",
			exp.Within(MatchMargin), res.Diff("spo", "reward_2", "seq-dpo", "reward_2")).Needs(roomHeadroom2),
		res.Check("larger λ keeps more of dimension 1", fmt.Sprintf("reward_1(λ=%g) − reward_1(λ=%g)", hi, lo), exp.Positive, res.Diff(name(hi), "reward_1", name(lo), "reward_1")).Needs(roomGain, roomForget, roomOffset),
		res.Check("… and gains less on dimension 2", fmt.Sprintf("reward_2(λ=%g) − reward_2(λ=%g)", hi, lo), exp.Negative, res.Diff(name(hi), "reward_2", name(lo), "reward_2")).Needs(roomHeadroom2),
	}
	if _, ok := res.Summary["spo-flip"]; ok {
		claims = append(claims, res.Check("sign diagnostic: the flipped offset (−λ·Δr̂₁) keeps less of dimension 1 than SPO", "reward_1(spo-flip) − reward_1(spo)",
			exp.Negative, res.Diff("spo-flip", "reward_1", "spo", "reward_1")).Needs(roomGain))
	}
	return claims
}

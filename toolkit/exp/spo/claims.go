package spo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Curve names of the paths (x = step, a point at step 0) that the matched comparisons read.
const (
	pathHarmless = "round2/reward_2"
	pathHelpful  = "round2/reward_1"
	pathSafe     = "round2/helpful_safe"
)

// pathKeys are method m's curve names for (harmlessness, helpfulness, safe helpfulness) along its
// path: round 1 for dpo-1, "mixed/…" for mixed-data DPO, round 2 otherwise.
func pathKeys(m string) (harmless, helpful, safe string) {
	prefix := "round2/"
	switch {
	case m == "dpo-1":
		prefix = "round1/"
	case strings.HasPrefix(m, "mixed-dpo"):
		prefix = "mixed/"
	}
	return prefix + "reward_2", prefix + "reward_1", prefix + "helpful_safe"
}

// Claims checks the paper's qualitative claims (§2.3) on a result, seed by seed (paired 95 %
// t-intervals of the per-seed differences):
//
//   - round 1 raises dimension 1, beyond what a prompt-blind policy with its responses would get;
//   - naive sequential DPO loses dimension 1 (and its safe part); SPO gains dimension 2;
//   - SPO above naive sequential DPO on helpfulness and on its safe part **at matched harmlessness**
//     (exp.Match with Envelope along the paths, checkpoints every 25 steps from π₁: the best each
//     method reaches at harmlessness ≥ x*, x* the furthest harmlessness both paths reach — so naive
//     DPO, whose helpfulness falls early in round 2 and partly recovers, is judged by its recovery,
//     not its dip), and at the final step; the same at matched harmlessness for every λ of the
//     sweep, and against mixed-data DPO (whose path starts at SFT);
//   - the λ trade-off (largest λ against smallest at the final step), the sign diagnostic (spo-flip),
//     and the mechanism: SPO weighs refusal pairs down against ordinary ones more than naive DPO does.
//
// Each claim names the room checks it needs (room.go); a claim whose check fails reads "untestable
// here". The first two need none: they are the first link of the chain, measured from an SFT policy
// with no preference, and a failure there is a result, not a lack of room.
func Claims(res *exp.Result) []exp.Claim {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	matched := func(a, b, yKey, what string) exp.Claim {
		bx, by, bs := pathKeys(b)
		m := exp.Match{A: a, B: b, X: pathHarmless, Y: yKey, BX: bx, BY: by, Envelope: true}
		if yKey == pathSafe {
			m.BY = bs
		}
		metric := strings.TrimPrefix(yKey, "round2/")
		return res.Matched(fmt.Sprintf("%s above %s on %s at matched harmlessness", a, b, what),
			fmt.Sprintf("best %s(%s) − best %s(%s) along the paths at reward_2 ≥ x*, the furthest reward_2 both reach", metric, a, metric, b), exp.Positive, m)
	}
	claims := []exp.Claim{
		res.Check("round 1 (DPO on dimension 1) raises reward 1", "reward_1(dpo-1) − reward_1(sft)", exp.Positive, res.Diff("dpo-1", "reward_1", "sft", "reward_1")),
		res.Check("… by reading the prompt: dpo-1 scores above a prompt-blind policy with its responses", "reward_1(dpo-1) − blind_reward_1(dpo-1)",
			exp.Positive, res.Diff("dpo-1", "reward_1", "dpo-1", "blind_reward_1")),
		res.Check("naive sequential DPO loses dimension 1", "reward_1(seq-dpo) − reward_1(dpo-1)", exp.Negative, res.Diff("seq-dpo", "reward_1", "dpo-1", "reward_1")).Needs(roomGain, roomConverged),
		res.Check("… and its safe part (helpful_safe)", "helpful_safe(seq-dpo) − helpful_safe(dpo-1)", exp.Negative, res.Diff("seq-dpo", "helpful_safe", "dpo-1", "helpful_safe")).Needs(roomGain, roomConverged),
		res.Check("SPO gains dimension 2", "reward_2(spo) − reward_2(dpo-1)", exp.Positive, res.Diff("spo", "reward_2", "dpo-1", "reward_2")).Needs(roomHeadroom2),
		matched("spo", "seq-dpo", pathHelpful, "helpfulness").Needs(roomGain, roomConverged, roomForget, roomOffset, roomHeadroom2),
		matched("spo", "seq-dpo", pathSafe, "safe helpfulness").Needs(roomGain, roomConverged, roomForget, roomOffset, roomHeadroom2),
		res.Check("SPO keeps more of dimension 1 than naive sequential DPO at the final step", "reward_1(spo) − reward_1(seq-dpo)", exp.Positive,
			res.Diff("spo", "reward_1", "seq-dpo", "reward_1")).Needs(roomGain, roomConverged, roomForget, roomOffset, roomSettled),
		res.Check("… and more of its safe part", "helpful_safe(spo) − helpful_safe(seq-dpo)", exp.Positive,
			res.Diff("spo", "helpful_safe", "seq-dpo", "helpful_safe")).Needs(roomGain, roomConverged, roomForget, roomOffset, roomSettled),
	}
	// Every λ of the sweep at matched harmlessness, on the safe part of helpfulness.
	for _, l := range cfg.Sweep {
		if l > 0 {
			claims = append(claims, matched(cfg.SPOName(l), "seq-dpo", pathSafe, "safe helpfulness").Needs(roomGain, roomConverged, roomForget, roomHeadroom2))
		}
	}
	if _, ok := res.Summary["mixed-dpo"]; ok {
		claims = append(claims, matched("spo", "mixed-dpo", pathHelpful, "helpfulness").Needs(roomGain, roomConverged, roomOffset, roomHeadroom2))
	}
	// The λ trade-off between the sweep's extremes (with the main λ).
	lo, hi := cfg.Lambda, cfg.Lambda
	for _, l := range cfg.Sweep {
		if l > 0 {
			lo, hi = min(lo, l), max(hi, l)
		}
	}
	if lo < hi {
		claims = append(claims,
			res.Check("larger λ keeps more of dimension 1", fmt.Sprintf("reward_1(λ=%g) − reward_1(λ=%g)", hi, lo), exp.Positive,
				res.Diff(cfg.SPOName(hi), "reward_1", cfg.SPOName(lo), "reward_1")).Needs(roomGain, roomConverged, roomForget, roomSettled),
			res.Check("… and gains less on dimension 2", fmt.Sprintf("reward_2(λ=%g) − reward_2(λ=%g)", hi, lo), exp.Negative,
				res.Diff(cfg.SPOName(hi), "reward_2", cfg.SPOName(lo), "reward_2")).Needs(roomHeadroom2, roomSettled))
	}
	if _, ok := res.Summary["spo-flip"]; ok {
		claims = append(claims, res.Check("sign diagnostic: the flipped offset (−λ·Δr̂₁) keeps less of dimension 1 than SPO", "reward_1(spo-flip) − reward_1(spo)",
			exp.Negative, res.Diff("spo-flip", "reward_1", "spo", "reward_1")).Needs(roomGain, roomConverged))
	}
	claims = append(claims, res.Check("mechanism: SPO weighs refusal pairs down against ordinary ones, more than naive DPO does",
		"mean over round 2's checkpoints of weight_refusal/weight_ordinary: spo − seq-dpo", exp.Negative, func(seed uint64) (float64, bool) {
			a, ok1 := weightRatio(res, "spo", seed)
			b, ok2 := weightRatio(res, "seq-dpo", seed)
			return a - b, ok1 && ok2
		}).Needs(roomAgree))
	return claims
}

// weightRatio is the mean over method's round-2 checkpoints of its mean gradient weight on the
// tracked refusal pairs over that on the ordinary pairs (1: refusals weigh as much as the rest).
func weightRatio(res *exp.Result, method string, seed uint64) (float64, bool) {
	r, ok1 := res.CurveOf(method, "round2/weight_refusal", seed)
	o, ok2 := res.CurveOf(method, "round2/weight_ordinary", seed)
	if !ok1 || !ok2 || len(r.Y) != len(o.Y) {
		return 0, false
	}
	var s float64
	for i := range r.Y {
		s += r.Y[i] / o.Y[i]
	}
	return s / float64(len(r.Y)), true
}

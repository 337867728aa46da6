package spo

import (
	"encoding/json"
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's qualitative claims (§2.3) on a result, seed by seed.
func Claims(res *exp.Result) []exp.Claim {
	// retained is the fraction of round 1's gain on dimension 1 (over SFT) that method m keeps.
	retained := func(m string) exp.PerSeed {
		return func(seed uint64) (float64, bool) {
			r1, ok1 := res.Final(m, "reward_1", seed)
			d1, ok2 := res.Final("dpo-1", "reward_1", seed)
			s1, ok3 := res.Final("sft", "reward_1", seed)
			if !ok1 || !ok2 || !ok3 || d1 == s1 {
				return 0, false
			}
			return (r1 - s1) / (d1 - s1), true
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
	return []exp.Claim{
		res.Check("round 1 (DPO on dimension 1) raises reward 1", "reward_1(dpo-1) − reward_1(sft)", exp.Positive, res.Diff("dpo-1", "reward_1", "sft", "reward_1")),
		res.Check("naive sequential DPO loses dimension 1", "reward_1(seq-dpo) − reward_1(dpo-1)", exp.Negative, res.Diff("seq-dpo", "reward_1", "dpo-1", "reward_1")),
		res.Check("… falling towards the SFT level (keeps under half of round 1's gain)", "fraction of round 1's gain kept by seq-dpo", exp.AtMost(0.5), retained("seq-dpo")),
		res.Check("SPO keeps dimension 1 (at least 80% of round 1's gain)", "fraction of round 1's gain kept by spo", exp.AtLeast(0.8), retained("spo")),
		res.Check("SPO gains dimension 2", "reward_2(spo) − reward_2(dpo-1)", exp.Positive, res.Diff("spo", "reward_2", "dpo-1", "reward_2")),
		res.Check("SPO keeps more of dimension 1 than naive sequential DPO", "reward_1(spo) − reward_1(seq-dpo)", exp.Positive, res.Diff("spo", "reward_1", "seq-dpo", "reward_1")),
		res.Check("larger λ keeps more of dimension 1", fmt.Sprintf("reward_1(λ=%g) − reward_1(λ=%g)", hi, lo), exp.Positive, res.Diff(name(hi), "reward_1", name(lo), "reward_1")),
		res.Check("… and gains less on dimension 2", fmt.Sprintf("reward_2(λ=%g) − reward_2(λ=%g)", hi, lo), exp.Negative, res.Diff(name(hi), "reward_2", name(lo), "reward_2")),
	}
}

package spo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// The parts' claims and readings: round 2 at a tenfold smaller learning rate (PartSlow), the
// refusal share varied (PartRefusal) and a third dimension (PartThree). Each exists only where the
// result holds the part's runs.

// slowClaims: at round-2 rate SlowLR, SPO (its default λ) against naive sequential DPO's front
// (its β chosen over the part's runs) at matched operating points, and at one setting each at
// matched harmlessness. With fewer than exp.FrontSplitSeeds seeds the front is chosen and compared
// on the same seeds, which favours the baseline (its chosen setting's luck enters the comparison).
func slowClaims(res, d *exp.Result, cfg Config, converged func(exp.Claim) exp.Claim) []exp.Claim {
	spo, seq := cfg.SlowName("spo"), cfg.SlowName("seq-dpo")
	if cfg.SlowLR <= 0 || !hasMethod(res, spo) || !hasMethod(res, seq) {
		return nil
	}
	var family []string
	for _, m := range seqFamily(cfg, res) {
		if hasMethod(res, cfg.SlowName(m)) {
			family = append(family, cfg.SlowName(m))
		}
	}
	for _, b := range cfg.seqBetas() {
		if m := cfg.SlowName(cfg.SeqName(b)); hasMethod(res, m) && !slices.Contains(family, m) {
			family = append(family, m)
		}
	}
	seeds := seedsOf(res, spo)
	front := exp.ChooseFront(seeds, family, frontMetric, func(m string) exp.PerSeed {
		return func(seed uint64) (float64, bool) {
			h, ok1 := res.Final(m, "reward_1", seed)
			s, ok2 := res.Final(m, "reward_2", seed)
			return h + s, ok1 && ok2
		}
	})
	rate := fmt.Sprintf("at round-2 rate %g", cfg.SlowLR)
	var out []exp.Claim
	if front.Chosen != "" && len(family) > 1 {
		c := againstFront(res, d, cfg, spo, front, rate+": SPO keeps more of dimension 1 than naive sequential DPO on its front, at matched operating points",
			pathKLPi1, "KL(π‖π₁)", "round 2's path from π₁")
		out = append(out, converged(c.Needs(roomGain, roomForgetSlow(cfg), roomHeadroom2)))
	}
	one := atHarmless(d, seeds, spo, seq, pathHelpful)
	one.Text = rate + ": SPO above naive sequential DPO at one setting each (β₂ = 0.2) on helpfulness at matched harmlessness"
	return append(out, converged(one.Needs(roomGain, roomForgetSlow(cfg), roomHeadroom2)))
}

// seedsOf are the seeds of method m's runs, in order.
func seedsOf(res *exp.Result, m string) []uint64 {
	var out []uint64
	for _, r := range res.RunsOf(m) {
		out = append(out, r.Seed)
	}
	slices.Sort(out)
	return out
}

// refusalClaims: at each refusal share (the part's and the main part's), SPO against naive
// sequential DPO on helpfulness at matched harmlessness, on the part's seeds, each needing that
// share's forgetting check; and whether SPO's advantage follows forgetting: per seed, the advantage
// at the largest share minus that at the smallest, above 0.
func refusalClaims(res, d *exp.Result, cfg Config) []exp.Claim {
	shares := refusalShares(cfg, res)
	if len(shares) < 2 {
		return nil
	}
	seeds := seedsOf(res, cfg.RefusalName("spo", shares[0]))
	var out []exp.Claim
	adv := map[float64]map[uint64]float64{}
	for _, sh := range shares {
		c := atHarmless(d, seeds, cfg.RefusalName("spo", sh), cfg.RefusalName("seq-dpo", sh), pathHelpful)
		c.Text = fmt.Sprintf("at refusal share %g: SPO above naive sequential DPO on helpfulness at matched harmlessness", sh)
		if sh == cfg.Task.RefusalShare {
			c.Notes = append(c.Notes, fmt.Sprintf("the main part's runs (refusal share %g), on the part's seeds %v", sh, seeds))
		}
		out = append(out, c.Needs(roomGainShare(sh), roomForgetShare(sh)))
		adv[sh] = map[uint64]float64{}
		for i, s := range c.SeedIDs {
			adv[sh][s] = c.Diffs[i]
		}
	}
	lo, hi := shares[0], shares[len(shares)-1]
	trend := exp.CheckOn(seeds, fmt.Sprintf("SPO's advantage follows forgetting: larger at refusal share %g than at %g", hi, lo),
		fmt.Sprintf("helpfulness at matched harmlessness (spo − seq-dpo), at share %g minus at share %g, per seed", hi, lo), exp.Positive,
		func(seed uint64) (float64, bool) {
			a, ok1 := adv[hi][seed]
			b, ok2 := adv[lo][seed]
			return a - b, ok1 && ok2
		})
	trend.Notes = append(trend.Notes, "the refusal pairs of a smaller share are a subset of a larger share's (one Bernoulli draw per pair against the share), the other pairs the same")
	return append(out, trend.Needs(roomGainShare(lo), roomGainShare(hi), roomForgetShare(hi)))
}

// threeClaims (spo-3): in round 3 (the third dimension), SPO with both earlier dimensions' offsets
// against naive sequential DPO — dimension 1 and dimension 2 each at matched conciseness (the
// paths' upper envelopes, as at matched harmlessness) — against mixed 3-way DPO on reward_1 +
// reward_2 at matched conciseness, and the derived offsets against the direct ones.
func threeClaims(res, d *exp.Result, cfg Config) []exp.Claim {
	if !hasMethod(res, ThreeSPO) || !hasMethod(res, ThreeSeq) {
		return nil
	}
	seeds := seedsOf(res, ThreeSPO)
	dim := func(k int) string {
		if len(cfg.Dims) >= k {
			return cfg.Dims[k-1]
		}
		return fmt.Sprintf("dimension %d", k)
	}
	third := cfg.Third
	r1 := envelopeRead(d, seeds, ThreeSPO, ThreeSeq, "reward_3", "reward_1", third, exp.Positive).Needs(roomThreeGain1, roomThreeForget1)
	r1.Text = fmt.Sprintf("round 3: SPO keeps more of dimension 1 (%s) than naive sequential DPO, at matched %s", dim(1), third)
	r2 := envelopeRead(d, seeds, ThreeSPO, ThreeSeq, "reward_3", "reward_2", third, exp.Positive).Needs(roomThreeGain2, roomThreeForget2)
	r2.Text = fmt.Sprintf("round 3: SPO keeps more of dimension 2 (%s) than naive sequential DPO, at matched %s", dim(2), third)
	head := exp.AllOf(fmt.Sprintf("SPO scales to a third dimension: in round 3 it keeps more of both earlier dimensions than naive sequential DPO, at matched %s", third),
		fmt.Sprintf("%s against %s: reward_1 and reward_2 each at matched reward_3 (%s)", ThreeSPO, ThreeSeq, third), r1, r2).For("spo-3")
	head.Notes = append(head.Notes, fmt.Sprintf("SPO's round-3 offset λ₁·ΔR̂₁ + λ₂·ΔR̂₂ with λ = %v (the main run's λ, fixed before any run), ΔR̂₂ = round 2's implicit reward less its own offset (pref.DimensionGaps)", cfg.ThreeLambdas))
	mixed := envelopeRead(d, seeds, ThreeSPO, ThreeMixed, "reward_3", keySum, third, exp.Positive).Needs(roomThreeGain1, roomThreeGain2)
	mixed.Text = fmt.Sprintf("round 3: SPO above mixed 3-way DPO on reward_1 + reward_2, at matched %s", third)
	direct := envelopeRead(d, seeds, ThreeSPO, ThreeSPODirect, "reward_3", keySum, third, exp.Within(MinGain)).Needs(roomThreeGain1, roomThreeGain2)
	direct.Text = fmt.Sprintf("round 3: the derived offsets (round 2's reward less its own offset) and the direct ones (round 2's implicit reward as it is) agree within %g on reward_1 + reward_2 at matched %s", MinGain, third)
	return []exp.Claim{head, mixed, direct}
}

// envelopeRead is a's y against b's at matched x along their last rounds' paths (pathPrefix: the
// keys are relative, "reward_3"), read on the paths' upper envelopes (exp.Match with Envelope) as
// atHarmless reads harmlessness, with the same notes on the evaluated points the values rest on.
func envelopeRead(d *exp.Result, seeds []uint64, a, b, x, y, xname string, test exp.Test) exp.Claim {
	m := exp.Match{A: a, B: b, X: pathPrefix(a) + x, Y: pathPrefix(a) + y, BX: pathPrefix(b) + x, BY: pathPrefix(b) + y, Envelope: true}
	c := exp.MatchedOn(d, seeds, fmt.Sprintf("%s against %s on %s at matched %s", a, b, y, xname),
		fmt.Sprintf("at matched %s: best %s at %s ≥ x*, %s − %s", xname, sumName(y), x, a, b), test, m)
	c.Notes = append([]string{fmt.Sprintf("rule: x* = the furthest %s both paths reach (the smaller of their maxima); each path's best %s over its evaluations "+
		"(from step 0) at %s ≥ x* and the points where it crosses x* (linear between evaluations)", x, sumName(y), x)}, c.Notes...)
	return markEnvelope(d, c, m)
}

// RateReading says whether the verdicts depend on how fast round 2 moves: spo-1's verdict at the
// main rate against the slow part's reading at SlowLR ("" when the result lacks the slow part).
func RateReading(res *exp.Result) (string, error) {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return "", err
	}
	if !hasMethod(res, cfg.SlowName("spo")) {
		return "", nil
	}
	j, err := exp.JudgeResult(res)
	if err != nil {
		return "", err
	}
	var main, slow *exp.Claim
	prefix := fmt.Sprintf("at round-2 rate %g", cfg.SlowLR)
	for i, c := range j.Claims {
		switch {
		case c.Headline == "spo-1":
			main = &j.Claims[i]
		case strings.HasPrefix(c.Text, prefix) && slow == nil:
			slow = &j.Claims[i]
		}
	}
	if main == nil || slow == nil {
		return "no reading: the result lacks spo-1 or the slow part's comparison", nil
	}
	same := main.VerdictText() == slow.VerdictText()
	say := fmt.Sprintf("spo-1 at round-2 rate %g: %s; the same comparison at %g: %s", cfg.Round2.Opt.LR, main.VerdictText(), cfg.SlowLR, slow.VerdictText())
	if same {
		return say + ": the verdict does not depend on how fast round 2 moves.", nil
	}
	return say + ": the verdict depends on how fast round 2 moves.", nil
}

// RefusalReading says, per refusal share, how much of round 1's safe gain naive DPO loses (the
// forgetting room check) and SPO's advantage over it at matched harmlessness: where forgetting stops
// and whether the advantage follows it ("" when the result lacks the refusal part).
func RefusalReading(res *exp.Result) (string, error) {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return "", err
	}
	shares := refusalShares(cfg, res)
	if len(shares) < 2 {
		return "", nil
	}
	j, err := exp.JudgeResult(res)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, sh := range shares {
		forget, advantage := "—", "—"
		for _, r := range j.Room {
			if r.Name == roomForgetShare(sh) {
				ok := "passes"
				if !r.OK {
					ok = "fails"
				}
				forget = fmt.Sprintf("%.2f (%s)", r.Value, ok)
			}
		}
		for _, c := range j.Claims {
			if c.Text == fmt.Sprintf("at refusal share %g: SPO above naive sequential DPO on helpfulness at matched harmlessness", sh) {
				advantage = c.Interval() + " → " + c.VerdictText()
			}
		}
		lines = append(lines, fmt.Sprintf("refusal share %g: naive DPO loses %s of round 1's safe gain; SPO − naive DPO at matched harmlessness %s", sh, forget, advantage))
	}
	return strings.Join(lines, "\n"), nil
}

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

// slowClaims: at round-2 rate SlowLR, SPO (its default λ) against naive sequential DPO's front on
// the part's seeds, each seed's β the one the main part's cross-fitted front chose for it (on the
// other half of the main part's seeds: no choice on the seeds compared), at matched operating
// points; and whether the rate changes the comparison: per seed, SPO's advantage at matched
// harmlessness at the main rate minus that at SlowLR, against the same β.
func slowClaims(res, d *exp.Result, cfg Config, converged func(exp.Claim) exp.Claim) []exp.Claim {
	spo := cfg.SlowName("spo")
	if cfg.SlowLR <= 0 || !hasMethod(res, spo) {
		return nil
	}
	main := crossFit(res, seqFamily(cfg, res))
	if !main.ok() {
		return nil
	}
	seeds := seedsOf(res, spo)
	slow := crossFront{family: main.family}
	for _, h := range main.halves {
		h.Chosen = cfg.SlowName(h.Chosen)
		h.CompareSeeds = slices.DeleteFunc(slices.Clone(h.CompareSeeds), func(s uint64) bool { return !slices.Contains(seeds, s) })
		if len(h.CompareSeeds) > 0 {
			slow.halves = append(slow.halves, h)
		}
	}
	if !slow.ok() {
		return nil
	}
	rate := fmt.Sprintf("at round-2 rate %g", cfg.SlowLR)
	c := againstFront(res, d, cfg, spo, slow, rate+": SPO keeps more of dimension 1 than naive sequential DPO on its front, at matched operating points",
		pathKLPi1, "KL(π‖π₁)", "round 2's path from π₁")
	c.Notes = append(c.Notes, "each seed's β is the one the main part's front chose for it (on the other half of the main part's seeds), at the slow rate")
	needs := []string{roomGain, roomForgetSlow(cfg), roomHeadroom2}
	out := []exp.Claim{converged(c.Needs(needs...))}
	at := func(name string, cf crossFront) exp.Claim {
		return cf.read(name, func(seeds []uint64, b string) exp.Claim {
			return atHarmless(d, seeds, name, b, pathHelpful)
		})
	}
	fast, slowH := at("spo", restrict(main, seeds)), at(spo, slow)
	bySeed := map[uint64]float64{}
	for i, s := range slowH.SeedIDs {
		bySeed[s] = slowH.Diffs[i]
	}
	change := exp.CheckOn(seeds, fmt.Sprintf("the round-2 rate changes SPO's advantage over naive DPO's front (at matched harmlessness, rate %g against %g)", cfg.Round2.Opt.LR, cfg.SlowLR),
		fmt.Sprintf("helpfulness at matched harmlessness (SPO − the front's β), at rate %g minus at %g, per seed", cfg.Round2.Opt.LR, cfg.SlowLR), exp.Positive,
		func(seed uint64) (float64, bool) {
			i := slices.Index(fast.SeedIDs, seed)
			v, ok := bySeed[seed]
			if i < 0 || !ok {
				return 0, false
			}
			return fast.Diffs[i] - v, true
		})
	change.Notes = append(change.Notes, "positive: SPO's advantage is larger when round 2 moves fast; its interval excluding 0 either way says the verdicts depend on how fast round 2 moves (RateReading)")
	return append(out, converged(change.Needs(append(needs, roomForget)...)))
}

// restrict is cf compared on the given seeds only.
func restrict(cf crossFront, seeds []uint64) crossFront {
	out := crossFront{family: cf.family}
	for _, h := range cf.halves {
		h.CompareSeeds = slices.DeleteFunc(slices.Clone(h.CompareSeeds), func(s uint64) bool { return !slices.Contains(seeds, s) })
		if len(h.CompareSeeds) > 0 {
			out.halves = append(out.halves, h)
		}
	}
	return out
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
	trend.Notes = append(trend.Notes, "the refusal pairs of a smaller share are a subset of a larger share's, with the same texts (prefs.BuildPairs: one uniform draw per pair against the share, each refusal pair's texts from its own generator), the other pairs the same")
	return append(out, trend.Needs(roomGainShare(lo), roomGainShare(hi), roomForgetShare(hi), roomForgetGrows))
}

// threeClaims (spo-3): round 3 (the third dimension) from SPO's round 2, by SPO with both earlier
// dimensions' offsets against naive sequential DPO from the same start (ThreeSPOSeq): dimension 1
// at matched conciseness is the headline — conciseness conflicts with covering the prompt (fewer
// letters cover fewer prompt letters) but not with harmlessness (fewer letters, fewer unsafe
// ones), so dimension 1 is where round 3 can make a policy forget, fixed before any run —
// dimension 2 beside it; then the whole pipelines (SPO's three rounds against naive DPO's and
// mixed 3-way DPO's, on reward_1 + reward_2 at matched conciseness) and the derived offsets against
// the direct ones.
func threeClaims(res, d *exp.Result, cfg Config) []exp.Claim {
	if !hasMethod(res, ThreeSPO) || !hasMethod(res, ThreeSPOSeq) {
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
	r1 := envelopeRead(d, seeds, ThreeSPO, ThreeSPOSeq, "reward_3", "reward_1", third, exp.Positive).Needs(roomThreeGain1, roomThreeForget1)
	r1.Text = fmt.Sprintf("SPO scales to a third dimension: in round 3 (from SPO's round 2) its offsets keep more of dimension 1 (%s) than naive sequential DPO from the same start, at matched %s", dim(1), third)
	r1 = r1.For("spo-3")
	r1.Notes = append(r1.Notes, fmt.Sprintf("SPO's round-3 offset λ₁·ΔR̂₁ + λ₂·ΔR̂₂ with λ = %v (the main run's λ, fixed before any run), ΔR̂₂ = round 2's implicit reward less its own offset (pref.DimensionGaps)", cfg.ThreeLambdas))
	r2 := envelopeRead(d, seeds, ThreeSPO, ThreeSPOSeq, "reward_3", "reward_2", third, exp.Positive).Needs(roomThreeGain2, roomThreeForget2)
	r2.Text = fmt.Sprintf("round 3: … and more of dimension 2 (%s), at matched %s", dim(2), third)
	var out = []exp.Claim{r1, r2}
	if hasMethod(res, ThreeSeq) {
		pipe := envelopeRead(d, seeds, ThreeSPO, ThreeSeq, "reward_3", keySum, third, exp.Positive).Needs(roomThreeGain1, roomThreeGain2)
		pipe.Text = fmt.Sprintf("three rounds: SPO's pipeline above naive sequential DPO's on reward_1 + reward_2, at matched %s", third)
		pipe.Notes = append(pipe.Notes, "each pipeline's round 3 starts from its own round 2, so this reading carries round 2's difference; the round-3 comparison from one start is spo-3")
		out = append(out, pipe)
	}
	if hasMethod(res, ThreeMixed) {
		mixed := envelopeRead(d, seeds, ThreeSPO, ThreeMixed, "reward_3", keySum, third, exp.Positive).Needs(roomThreeGain1, roomThreeGain2)
		mixed.Text = fmt.Sprintf("three rounds: SPO above mixed 3-way DPO on reward_1 + reward_2, at matched %s", third)
		out = append(out, mixed)
	}
	if hasMethod(res, ThreeSPODirect) {
		direct := envelopeRead(d, seeds, ThreeSPO, ThreeSPODirect, "reward_3", keySum, third, exp.Within(MinGain)).Needs(roomThreeGain1, roomThreeGain2)
		direct.Text = fmt.Sprintf("round 3: the derived offsets (round 2's reward less its own offset) and the direct ones (round 2's implicit reward as it is) agree within %g on reward_1 + reward_2 at matched %s", MinGain, third)
		out = append(out, direct)
	}
	return out
}

// envelopeRead is a's y against b's at matched x along their last rounds' paths (pathPrefix: the
// keys are relative, "reward_3"), read on the paths' upper envelopes (exp.Match with Envelope) as
// atHarmless reads harmlessness, with the same notes on the evaluated points the values rest on.
func envelopeRead(d *exp.Result, seeds []uint64, a, b, x, y, xname string, test exp.Test) exp.Claim {
	m := exp.Match{A: a, B: b, X: pathPrefix(a) + x, Y: pathPrefix(a) + y + smoothSuffix, BX: pathPrefix(b) + x, BY: pathPrefix(b) + y + smoothSuffix, Envelope: true}
	c := exp.MatchedOn(d, seeds, fmt.Sprintf("%s against %s on %s at matched %s", a, b, y, xname),
		fmt.Sprintf("at matched %s: best %s at %s ≥ x*, %s − %s", xname, sumName(y), x, a, b), test, m)
	c.Notes = append([]string{fmt.Sprintf("rule: x* = the furthest %s both paths reach (the smaller of their maxima); each path's best %s (a running mean over 3 "+
		"checkpoints, Smooth3) over its evaluations (from step 0) at %s ≥ x* and the points where it crosses x* (linear between evaluations)", x, sumName(y), x)}, c.Notes...)
	return markEnvelope(d, c, m)
}

// RateReading says whether the verdicts depend on how fast round 2 moves: spo-1's verdict at the
// main rate, the slow part's at SlowLR, and the paired change of SPO's advantage between the two
// rates ("" when the result lacks the slow part).
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
	var main, slow, change *exp.Claim
	for i, c := range j.Claims {
		switch {
		case c.Headline == "spo-1":
			main = &j.Claims[i]
		case strings.HasPrefix(c.Text, fmt.Sprintf("at round-2 rate %g", cfg.SlowLR)):
			slow = &j.Claims[i]
		case strings.HasPrefix(c.Text, "the round-2 rate changes"):
			change = &j.Claims[i]
		}
	}
	if main == nil || slow == nil || change == nil {
		return "no reading: the result lacks spo-1 or the slow part's comparisons", nil
	}
	say := fmt.Sprintf("spo-1 at round-2 rate %g: %s; at %g: %s; the change of SPO's advantage between the rates %s (%s)",
		cfg.Round2.Opt.LR, main.VerdictText(), cfg.SlowLR, slow.VerdictText(), change.Interval(), change.VerdictText())
	lo, hi := change.Stat.CI95[0], change.Stat.CI95[1]
	switch {
	case change.Verdict() == exp.Untestable || change.Stat.N < 2:
		return say + ": untestable here.", nil
	case lo > 0 || hi < 0:
		return say + ": the comparison depends on how fast round 2 moves.", nil
	}
	return say + ": no detectable dependence on how fast round 2 moves (an absence of evidence at this number of seeds).", nil
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

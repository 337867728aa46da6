package spo

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Curve names of the paths (x = step, a point at step 0) that the matched comparisons read.
const (
	pathHarmless = "round2/reward_2"
	pathHelpful  = "round2/reward_1"
	pathSafe     = "round2/helpful_safe"
	pathKLPi1    = "round2/kl_pi1"
)

// Curves the claims derive from the logged ones (derived): the sum of the two true rewards along a
// path ("<round>/sum", with helpful_safe for reward_1: "<round>/sum_safe"), and SPO's whole chain
// SFT → π₁ → π₂ ("chain/…": round 1's path, then round 2's shifted by round 1's steps).
const (
	keySum     = "sum"
	keySumSafe = "sum_safe"
	chainKLSFT = "chain/kl_sft"
	chainSum   = "chain/" + keySum
)

// Margin is the non-inferiority margin of "SPO as well as or better than mixed-data DPO", in
// letters per response (both rewards' unit): MinGain, the smallest change of a mean reward this
// experiment counts as real (about two standard errors of a difference of two evaluations of 800
// responses), fixed with the room checks before any run. A deficit below it is within one
// evaluation's noise; it is about a tenth of what naive DPO forgets of reward 1 in round 2.
const Margin = MinGain

// marginWhy is Margin's reason, as the claims print it.
const marginWhy = "MinGain, the smallest change of a mean reward this experiment counts as real (≈ 2 SE of a difference of two evaluations), fixed before any run"

// frontMetric is the metric fixed in advance that chooses each family's setting for the comparison
// with mixed-data DPO (exp.ChooseFront): the sum of the two true rewards at the final evaluation,
// both in letters per response and weighed equally, as the claim "better on both dimensions" weighs
// them.
const frontMetric = "reward_1 + reward_2 at the final evaluation"

// pathKeys are method m's curve names for (harmlessness, helpfulness, safe helpfulness) along its
// path: round 1 for dpo-1, "mixed/…" for mixed-data DPO, round 2 otherwise.
func pathKeys(m string) (harmless, helpful, safe string) {
	p := pathPrefix(m)
	return p + "reward_2", p + "reward_1", p + "helpful_safe"
}

// pathPrefix is the prefix of method m's path curves.
func pathPrefix(m string) string {
	switch {
	case m == "dpo-1" || m == ProbeRound1 || m == ThreeRound1 || strings.HasPrefix(m, "dpo-1-r"):
		return "round1/"
	case strings.HasPrefix(m, "mixed-dpo") || m == ThreeMixed:
		return "mixed/"
	case m == ThreeSeq || m == ThreeSPO || m == ThreeSPOSeq || m == ThreeSPODirect:
		return "round3/"
	}
	return "round2/"
}

// Claims checks the paper's qualitative claims (README.md "Headline claims") on a result, seed by
// seed (paired 95 % t-intervals of the per-seed differences):
//
//   - round 1 raises dimension 1, beyond what a prompt-blind policy with its responses would get;
//   - naive sequential DPO loses dimension 1 (and its safe part); SPO gains dimension 2;
//   - spo-1: SPO (its default λ, fixed before any run) keeps more of dimension 1 than naive
//     sequential DPO on naive DPO's front (its β chosen by exp.ChooseFront on frontMetric over its
//     sweep, as SPO's λ has one) at matched operating points — helpfulness at matched harmlessness
//     and the sum of both rewards at matched KL(π‖π₁) — with the final step as context; beside it
//     SPO against naive DPO at one setting each (β₂ = 0.2), on helpfulness and its safe part;
//   - spo-2: SPO (its default λ) outperforms mixed-data DPO on mixed DPO's front (its share chosen
//     the same way), at matched harmlessness and at matched KL(π‖SFT) along SPO's whole chain; and
//     beside it the non-inferiority reading (Margin) and SPO's front against mixed DPO's front;
//   - every λ of the sweep against naive DPO at matched harmlessness (a sweep, one row per λ);
//   - the λ trade-off (largest λ against smallest at the final step), the sign diagnostic (spo-flip),
//     and the mechanism: SPO weighs refusal pairs down against ordinary ones more than naive DPO does;
//   - the parts, where the result holds them: round 2 at a tenfold smaller rate (slowClaims), the
//     refusal share varied (refusalClaims), a third dimension (threeClaims, spo-3).
//
// Matched harmlessness reads the paths' upper envelopes (exp.Match with Envelope: the best each
// method reaches at harmlessness ≥ x*, x* the furthest harmlessness both paths reach, linear
// between evaluations), because harmlessness saturates near 0 within 25–50 steps: a path's end
// point is rarely reached by the other's, and naive DPO's helpfulness dips and recovers there. A
// seed whose envelope value is a point between a path's start and its first evaluation rests on no
// measured point; most seeds like that make the reading "untestable here (path not measured
// there)" (markEnvelope), and every reading says on how many evaluated points its values rest.
// Matched KL reads both paths by one rule at x* = the smaller of their final KLs, each where it
// first reaches x* (linear between evaluations; seeds where a path never crosses x* named and left
// out; most seeds crossing between a path's start and its first evaluation make it "untestable
// here"). Paths are evaluated every 5 steps over their first 50 since 2026-12-06 (every 25 before).
//
// Each claim names the room checks it needs (room.go); a claim whose check fails reads "untestable
// here". The first two need none: they are the first link of the chain, measured from an SFT policy
// with no preference, and a failure there is a result, not a lack of room.
func Claims(res *exp.Result) []exp.Claim {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	d := derived(res)
	probes := hasMethod(res, ProbeRound1)
	converged := func(c exp.Claim) exp.Claim { return settledGate(cfg, probes, c, roomConverged, noteConverged) }
	settled := func(c exp.Claim) exp.Claim { return settledGate(cfg, probes, c, roomSettled, noteSettled) }
	seqF := crossFit(res, seqFamily(cfg, res))
	var betas []string
	for _, b := range cfg.seqBetas() {
		if hasMethod(res, cfg.SeqName(b)) {
			betas = append(betas, fmt.Sprint(b))
		}
	}
	sweepNote := fmt.Sprintf("naive sequential DPO got %d β₂ (%s) against SPO's %d λ (paperlab settings spo)", len(betas), strings.Join(betas, ", "), len(spoFamily(cfg)))

	claims := []exp.Claim{
		res.CheckDiff("round 1 (DPO on dimension 1) raises reward 1", "reward_1(dpo-1) − reward_1(sft)", exp.Positive, "dpo-1", "reward_1", "sft", "reward_1"),
		res.CheckDiff("… by reading the prompt: dpo-1 scores above a prompt-blind policy with its responses", "reward_1(dpo-1) − blind_reward_1(dpo-1)",
			exp.Positive, "dpo-1", "reward_1", "dpo-1", "blind_reward_1"),
		settled(converged(res.CheckDiff("naive sequential DPO loses dimension 1", "reward_1(seq-dpo) − reward_1(dpo-1)", exp.Negative,
			"seq-dpo", "reward_1", "dpo-1", "reward_1").Needs(roomGain).WithNote(sweepNote))),
		settled(converged(res.CheckDiff("… and its safe part (helpful_safe)", "helpful_safe(seq-dpo) − helpful_safe(dpo-1)", exp.Negative,
			"seq-dpo", "helpful_safe", "dpo-1", "helpful_safe").Needs(roomGain).WithNote(sweepNote))),
		settled(res.CheckDiff("SPO gains dimension 2", "reward_2(spo) − reward_2(dpo-1)", exp.Positive, "spo", "reward_2", "dpo-1", "reward_2").Needs(roomHeadroom2)),
	}
	// spo-1: SPO at its default λ against naive sequential DPO's front, then at one setting each.
	if seqF.ok() && len(seqF.family) > 1 {
		c := againstFront(res, d, cfg, "spo", seqF, "SPO keeps more of dimension 1 than naive sequential DPO on its front (β₂ chosen), at matched operating points", pathKLPi1, "KL(π‖π₁)", "round 2's path from π₁")
		claims = append(claims, converged(c.Needs(roomGain, roomForget, roomOffset, roomHeadroom2)).For("spo-1"))
	}
	for _, part := range []struct{ text, y, sum, what string }{
		{"SPO keeps more of dimension 1 than naive sequential DPO at one setting each (β₂ = 0.2), at matched operating points", "reward_1", keySum, "helpfulness"},
		{"… and more of its safe part, at matched operating points", "helpful_safe", keySumSafe, "safe helpfulness"},
	} {
		fixed := res.CheckDiff("", fmt.Sprintf("%s(spo) − %s(seq-dpo)", part.y, part.y), exp.Positive, "spo", part.y, "seq-dpo", part.y)
		c := exp.Matched(part.text,
			fmt.Sprintf("SPO (λ = %g, fixed before any run) against naive sequential DPO at β₂ = %g: %s at matched harmlessness and %s + reward_2 at matched KL(π‖π₁)", cfg.Lambda, cfg.Round2.Beta, part.what, part.y),
			fmt.Sprintf("at round 2's final step, %s: %s → %s", fixed.Measure, fixed.Interval(), fixed.VerdictText()),
			atHarmless(d, res.Seeds, "spo", "seq-dpo", "round2/"+part.y),
			atKL(d, res.Seeds, "spo", "seq-dpo", pathKLPi1, "round2/"+part.sum, "round2/"+part.sum, "KL(π‖π₁)", "round 2's path from π₁"))
		c.Notes = append(c.Notes, fmt.Sprintf("%s; here each side enters with one setting: SPO's default λ = %g and naive DPO's β₂ = %g, both chosen before any run", sweepNote, cfg.Lambda, cfg.Round2.Beta))
		c = converged(c.Needs(roomGain, roomForget, roomOffset, roomHeadroom2))
		if part.y == "reward_1" && len(seqF.family) <= 1 {
			c = c.For("spo-1")
		}
		claims = append(claims, c)
	}
	claims = append(claims, spoTwo(res, d, cfg, converged)...)
	// Every λ of the sweep at matched harmlessness, on the safe part of helpfulness.
	for _, l := range cfg.Sweep {
		if l > 0 {
			name := cfg.SPOName(l)
			c := atHarmless(d, res.Seeds, name, "seq-dpo", pathSafe)
			c.Text = fmt.Sprintf("%s above seq-dpo on safe helpfulness at matched harmlessness", name)
			c.Notes = append(c.Notes, sweepNote+": one row per λ against β₂ = 0.2, a sweep rather than a headline")
			claims = append(claims, converged(c.Needs(roomGain, roomForget, roomHeadroom2)))
		}
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
			settled(converged(res.CheckDiff("larger λ keeps more of dimension 1", fmt.Sprintf("reward_1(λ=%g) − reward_1(λ=%g)", hi, lo), exp.Positive,
				cfg.SPOName(hi), "reward_1", cfg.SPOName(lo), "reward_1").Needs(roomGain, roomForget))),
			settled(res.CheckDiff("… and gains less on dimension 2", fmt.Sprintf("reward_2(λ=%g) − reward_2(λ=%g)", hi, lo), exp.Negative,
				cfg.SPOName(hi), "reward_2", cfg.SPOName(lo), "reward_2").Needs(roomHeadroom2)))
	}
	if _, ok := res.Summary["spo-flip"]; ok {
		claims = append(claims, converged(res.CheckDiff("sign diagnostic: the flipped offset (−λ·Δr̂₁) keeps less of dimension 1 than SPO", "reward_1(spo-flip) − reward_1(spo)",
			exp.Negative, "spo-flip", "reward_1", "spo", "reward_1").Needs(roomGain)))
	}
	claims = append(claims, res.Check("mechanism: SPO weighs refusal pairs down against ordinary ones, more than naive DPO does",
		"mean over round 2's checkpoints of weight_refusal/weight_ordinary: spo − seq-dpo", exp.Negative, func(seed uint64) (float64, bool) {
			a, ok1 := weightRatio(res, "spo", seed)
			b, ok2 := weightRatio(res, "seq-dpo", seed)
			return a - b, ok1 && ok2
		}).Needs(roomAgree).WithNote(sweepNote))
	claims = append(claims, slowClaims(res, d, cfg, converged)...)
	claims = append(claims, refusalClaims(res, d, cfg)...)
	return append(claims, threeClaims(res, d, cfg)...)
}

// hasMethod reports whether the result has a run of method m.
func hasMethod(res *exp.Result, m string) bool { return len(res.RunsOf(m)) > 0 }

// seqFamily are naive sequential DPO's round-2 runs of the result, one per β (seq-dpo first).
func seqFamily(cfg Config, res *exp.Result) []string {
	var out []string
	for _, b := range cfg.seqBetas() {
		if m := cfg.SeqName(b); hasMethod(res, m) {
			out = append(out, m)
		}
	}
	return out
}

// againstFront is SPO's path (a, one setting) against a baseline family's front cf (on each seed the
// setting chosen on the other half of the seeds: crossFit): helpfulness at matched harmlessness and
// reward_1 + reward_2 at matched KL (xKey, named kl, along path), the final step as context.
func againstFront(res, d *exp.Result, cfg Config, a string, cf crossFront, text, xKey, kl, path string) exp.Claim {
	fixed := func(key string) exp.Claim {
		return res.Check("", "", exp.Positive, func(seed uint64) (float64, bool) {
			b := cf.chosenFor(seed)
			x, ok1 := res.Final(a, key, seed)
			y, ok2 := res.Final(b, key, seed)
			return x - y, ok1 && ok2 && b != ""
		})
	}
	context := fmt.Sprintf("at each method's final step (%s − the front): reward_1 %s, reward_2 %s", a, fixed("reward_1").Interval(), fixed("reward_2").Interval())
	harm := cf.read(fmt.Sprintf("%s above %s on reward_1 at matched harmlessness", a, cf.name()), func(seeds []uint64, b string) exp.Claim {
		return atHarmless(d, seeds, a, b, pathPrefix(a)+"reward_1")
	})
	klr := cf.read(fmt.Sprintf("%s above %s at matched %s", a, cf.name(), kl), func(seeds []uint64, b string) exp.Claim {
		if xKey == chainKLSFT {
			return chainRound1(d, atKL(d, seeds, a, b, chainKLSFT, chainSum, "mixed/"+keySum, kl, path), a, b, cfg.Round1.Steps)
		}
		return atKL(d, seeds, a, b, xKey, pathPrefix(a)+keySum, pathPrefix(b)+keySum, kl, path)
	})
	c := exp.Matched(text, fmt.Sprintf("%s (one setting, fixed before any run) against %s: helpfulness at matched harmlessness and reward_1 + reward_2 at matched %s", a, cf.name(), kl), context, harm, klr)
	c.Notes = append(c.Notes, "front: "+cf.note(), fmt.Sprintf("SPO enters with one setting (λ = %g, chosen before any run); the baseline with the best of its %d settings, chosen on other seeds", cfg.Lambda, len(cf.family)))
	return c
}

// crossFront is a family's front chosen without selection bias and compared on every seed
// (cross-fitting): with at least exp.FrontSplitSeeds seeds the setting chosen on the first half of
// the seeds (exp.ChooseFront on frontMetric) stands for the family on the second half, and the one
// chosen on the second half on the first, so that each seed is compared with a setting chosen on
// other seeds and every seed is compared (twice the seeds of one split, the power a 4-seed
// comparison lacks). With fewer seeds, one setting chosen and compared on all of them, which
// favours the family (its chosen setting's luck enters the comparison).
type crossFront struct {
	family []string
	halves []exp.Front // each: Chosen on ChooseSeeds, standing for the family on CompareSeeds
}

// crossFit is family's cross-fitted front on res's seeds.
func crossFit(res *exp.Result, family []string) crossFront {
	cf := crossFront{family: family}
	f := ChooseFront(res, family)
	cf.halves = append(cf.halves, f)
	if !slices.Equal(f.ChooseSeeds, f.CompareSeeds) {
		g := chooseFrontOn(res, f.CompareSeeds, family) // fewer than FrontSplitSeeds: chosen on them all
		g.ChooseSeeds, g.CompareSeeds = f.CompareSeeds, f.ChooseSeeds
		cf.halves = append(cf.halves, g)
	}
	return cf
}

// chosenFor is the setting that stands for the family on seed ("" when none does).
func (cf crossFront) chosenFor(seed uint64) string {
	for _, h := range cf.halves {
		if slices.Contains(h.CompareSeeds, seed) {
			return h.Chosen
		}
	}
	return ""
}

// ok reports whether every half has a chosen setting.
func (cf crossFront) ok() bool {
	for _, h := range cf.halves {
		if h.Chosen == "" {
			return false
		}
	}
	return len(cf.halves) > 0
}

// name names the front in a claim's text: its chosen settings with the seeds each stands for.
func (cf crossFront) name() string {
	var parts []string
	for _, h := range cf.halves {
		parts = append(parts, fmt.Sprintf("%s on seeds %v", h.Chosen, h.CompareSeeds))
	}
	return "the front (" + strings.Join(parts, "; ") + ")"
}

// note says how each half's setting was chosen.
func (cf crossFront) note() string {
	var parts []string
	for _, h := range cf.halves {
		parts = append(parts, h.Note())
	}
	return strings.Join(parts, "; ")
}

// read is the reading on every seed, each half's seeds against its setting (reading(seeds, b)),
// merged: the per-seed values of both halves, their statistic, both halves' notes; "path not
// measured there" when it is so on both halves (on one, a note).
func (cf crossFront) read(text string, reading func(seeds []uint64, b string) exp.Claim) exp.Claim {
	var out exp.Claim
	type pt struct {
		seed uint64
		d    float64
	}
	var pts []pt
	unmeasured, why := 0, ""
	for i, h := range cf.halves {
		c := reading(h.CompareSeeds, h.Chosen)
		if i == 0 {
			out = c
			out.Notes = nil
		}
		for k, s := range c.SeedIDs {
			pts = append(pts, pt{s, c.Diffs[k]})
		}
		for _, n := range c.Notes {
			out.Notes = append(out.Notes, fmt.Sprintf("seeds %v against %s: %s", h.CompareSeeds, h.Chosen, n))
		}
		if c.Unmeasured != "" {
			unmeasured, why = unmeasured+1, cmp.Or(why, c.Unmeasured)
			out.Notes = append(out.Notes, fmt.Sprintf("seeds %v against %s: %s", h.CompareSeeds, h.Chosen, c.Unmeasured))
		}
	}
	slices.SortFunc(pts, func(a, b pt) int { return cmpSeed(a.seed, b.seed) })
	out.Text, out.Diffs, out.SeedIDs, out.Seeds, out.Unmeasured = text, nil, nil, 0, ""
	for _, p := range pts {
		out.Diffs, out.SeedIDs = append(out.Diffs, p.d), append(out.SeedIDs, p.seed)
		if out.Test.Agrees(p.d) {
			out.Seeds++
		}
	}
	out.Stat = stats.Summarize(out.Diffs)
	if unmeasured == len(cf.halves) && unmeasured > 0 {
		out.Unmeasured = why // on every half
	}
	return out
}

func cmpSeed(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// spoTwo are the claims of spo-2: SPO at its default λ against mixed-data DPO's front (its share
// chosen by exp.ChooseFront on frontMetric over the first half of the seeds, compared on the other
// half) at matched harmlessness and at matched KL(π‖SFT) along SPO's chain; beside it SPO's front
// against mixed DPO's front, superiority and non-inferiority (Margin). None when a family has no
// run.
func spoTwo(res, d *exp.Result, cfg Config, converged func(exp.Claim) exp.Claim) []exp.Claim {
	spoF := ChooseFront(res, spoFamily(cfg))
	mixF := ChooseFront(res, mixedFamily(cfg))
	if spoF.Chosen == "" || mixF.Chosen == "" || !hasMethod(res, "spo") {
		return nil
	}
	head := againstFront(res, d, cfg, "spo", crossFit(res, mixedFamily(cfg)), "SPO outperforms mixed-data DPO on its front (share chosen), at matched operating points",
		chainKLSFT, "KL(π‖SFT)", "SPO's whole chain SFT → π₁ (round 1) → π₂ (round 2)")
	head = converged(head.Needs(roomGain, roomHeadroom2)).For("spo-2")
	a, b, seeds := spoF.Chosen, mixF.Chosen, mixF.CompareSeeds
	fixedH := res.CheckDiffOn(seeds, "", "", exp.Positive, a, "reward_1", b, "reward_1")
	fixedS := res.CheckDiffOn(seeds, "", "", exp.Positive, a, "reward_2", b, "reward_2")
	context := fmt.Sprintf("at each method's final step (%s − %s): reward_1 %s, reward_2 %s", a, b, fixedH.Interval(), fixedS.Interval())
	harm := atHarmless(d, seeds, a, b, pathHelpful)
	kl := atKL(d, seeds, a, b, chainKLSFT, chainSum, "mixed/"+keySum, "KL(π‖SFT)", "SPO's whole chain SFT → π₁ (round 1) → π₂ (round 2)")
	kl = chainRound1(d, kl, a, b, cfg.Round1.Steps)
	notes := []string{"SPO: " + spoF.Note(), "mixed-data DPO: " + mixF.Note(),
		"naive sequential DPO, the other baseline, is spo-1's comparison"}
	measure := fmt.Sprintf("SPO's front (%s) against mixed-data DPO's front (%s): helpfulness at matched harmlessness and reward_1 + reward_2 at matched KL(π‖SFT)", a, b)
	sup := exp.Matched("SPO's front outperforms mixed-data DPO's front, at matched operating points", measure, context, harm, kl)
	ni := exp.Matched("… as well as or better (non-inferiority), at matched operating points", measure, context,
		harm.Comparable(Margin, marginWhy), kl.Comparable(Margin, marginWhy))
	for _, c := range []*exp.Claim{&sup, &ni} {
		c.Notes = append(c.Notes, notes...)
		*c = converged(c.Needs(roomGain, roomHeadroom2))
	}
	return []exp.Claim{head, sup, ni}
}

// spoFamily are the SPO runs of the λ sweep (the default λ and Sweep; λ = 0 is naive DPO, the
// flipped sign a diagnostic).
func spoFamily(cfg Config) []string {
	out := []string{cfg.SPOName(cfg.Lambda)}
	for _, l := range cfg.Sweep {
		if l > 0 {
			out = append(out, cfg.SPOName(l))
		}
	}
	return out
}

// mixedFamily are the mixed-data DPO runs, one per share.
func mixedFamily(cfg Config) []string {
	var out []string
	for _, s := range cfg.MixedShares {
		out = append(out, MixedName(s))
	}
	return out
}

// ChooseFront is family's setting with the best mean frontMetric (exp.ChooseFront: on the first
// half of the seeds from 8 seeds, compared on the other half).
func ChooseFront(res *exp.Result, family []string) exp.Front {
	return chooseFrontOn(res, res.Seeds, family)
}

// chooseFrontOn is ChooseFront on the given seeds.
func chooseFrontOn(res *exp.Result, seeds []uint64, family []string) exp.Front {
	return exp.ChooseFront(seeds, family, frontMetric, func(m string) exp.PerSeed {
		return func(seed uint64) (float64, bool) {
			h, ok1 := res.Final(m, "reward_1", seed)
			s, ok2 := res.Final(m, "reward_2", seed)
			return h + s, ok1 && ok2
		}
	})
}

// atHarmless is a's y at matched harmlessness against b on seeds: the paths' upper envelopes
// (exp.Match with Envelope), marked when most seeds' values rest on a point between a path's start
// and its first evaluation (markEnvelope).
func atHarmless(d *exp.Result, seeds []uint64, a, b, yKey string) exp.Claim {
	bx, by, bs := pathKeys(b)
	ax, _, _ := pathKeys(a)
	if strings.HasSuffix(yKey, "helpful_safe") {
		by = bs
	}
	y := yKey[strings.Index(yKey, "/")+1:]
	m := exp.Match{A: a, B: b, X: ax, Y: yKey + smoothSuffix, BX: bx, BY: by + smoothSuffix, Envelope: true}
	c := exp.MatchedOn(d, seeds, fmt.Sprintf("%s above %s on %s at matched harmlessness", a, b, y),
		fmt.Sprintf("at matched harmlessness: best %s (3-checkpoint running mean) at reward_2 ≥ x*, %s − %s", y, a, b), exp.Positive, m)
	c.Notes = append([]string{fmt.Sprintf("rule: x* = the furthest reward_2 both paths reach (the smaller of their maxima); each path's best %s, as a running mean over 3 "+
		"consecutive checkpoints (Smooth3: the best of many noisy points is biased upwards, more so with more points), over its evaluations (from step 0) at reward_2 ≥ x* and "+
		"the points where it crosses x* (linear between evaluations): every seed is compared", y)}, c.Notes...)
	return markEnvelope(d, c, m)
}

// smoothSuffix names the running mean over 3 consecutive checkpoints of a path's curve (Smooth3),
// which the envelope readings read (derived adds it).
const smoothSuffix = "~3"

// Smooth3 is c with each y replaced by the mean of itself and its neighbours along the checkpoints
// (two points at the ends): the envelope readings take a path's best value at or beyond x*, and
// the best of several evaluations, each with its sampling noise (400 responses per checkpoint), is
// biased upwards by about a standard error; averaging 3 checkpoints shrinks that bias by √3.
// Since 2026-12-06, when evaluations every 5 steps put more points beyond x*.
func Smooth3(c exp.Curve) exp.Curve {
	out := exp.Curve{X: slices.Clone(c.X), Y: make([]float64, len(c.Y))}
	for i := range c.Y {
		lo, hi := max(0, i-1), min(len(c.Y)-1, i+1)
		var sum float64
		for _, y := range c.Y[lo : hi+1] {
			sum += y
		}
		out.Y[i] = sum / float64(hi-lo+1)
	}
	return out
}

// atKL is a's yKey against b's byKey at matched KL (exp.Match at the common point: x* = the smaller
// of the two paths' final KL, each path read where it first reaches x*, linear between its
// evaluations); a seed where a path never crosses x* is named in the framework's notes, left out,
// and counted here.
func atKL(d *exp.Result, seeds []uint64, a, b, xKey, yKey, byKey, kl, path string) exp.Claim {
	bx := pathPrefix(b) + xKey[strings.Index(xKey, "/")+1:]
	m := exp.Match{A: a, B: b, X: xKey, Y: yKey, BX: bx, BY: byKey}
	c := exp.MatchedOn(d, seeds, fmt.Sprintf("%s above %s at matched %s", a, b, kl),
		fmt.Sprintf("at matched %s: %s at x*, %s − %s", kl, sumName(yKey), a, b), exp.Positive, m)
	c.Notes = append([]string{fmt.Sprintf("rule: x* = the smaller of the two paths' final %s; each path (%s: %s; %s: its own) read where it first reaches x*, "+
		"linear between evaluations; a seed where a path never crosses x* is named, left out and counted", kl, a, path, b)}, c.Notes...)
	if out := len(seeds) - len(c.Diffs); out > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d of %d seeds left out: a path never crosses x*", out, len(seeds)))
	}
	return c
}

// chainRound1 notes on the matched-KL(π‖SFT) reading how many seeds' matched points lie in round 1
// of a's chain (before any harmlessness pair), where the chain first reaches x*; when they are most
// seeds the reading is untestable here: it would test round-1 DPO, not SPO.
func chainRound1(d *exp.Result, c exp.Claim, a, b string, round1 int) exp.Claim {
	n := 0
	for _, seed := range c.SeedIDs {
		ax, ok1 := d.CurveOf(a, chainKLSFT, seed)
		bx, ok2 := d.CurveOf(b, "mixed/kl_sft", seed)
		if !ok1 || !ok2 {
			continue
		}
		x := min(ax.Y[len(ax.Y)-1], bx.Y[len(bx.Y)-1])
		if step, ok := exp.InterpAt(ax.Y, ax.X, x); ok && step <= float64(round1) {
			n++
		}
	}
	c.Notes = append(c.Notes, fmt.Sprintf("%d of %d matched points lie in round 1 of %s's chain (steps ≤ %d, before any harmlessness pair)", n, len(c.SeedIDs), a, round1))
	if 2*n > len(c.SeedIDs) {
		c.Unmeasured = fmt.Sprintf("round 1 only: %s's matched point lies in round 1 on %d of %d seeds, before any harmlessness pair: the reading compares round-1 DPO, not SPO's second round, with %s", a, n, len(c.SeedIDs), b)
	}
	return c
}

// markEnvelope notes how many evaluated points each seed's envelope values rest on, and marks c
// unmeasured (exp: "path not measured there") when on most seeds a's or b's envelope value at x*
// is attained only where the path's first segment — its start to its first evaluation — crosses x*.
func markEnvelope(d *exp.Result, c exp.Claim, m exp.Match) exp.Claim {
	var first []uint64
	var evals, bevals []float64
	for _, seed := range c.SeedIDs {
		ax, _ := d.CurveOf(m.A, m.X, seed)
		ay, _ := d.CurveOf(m.A, m.Y, seed)
		bx, _ := d.CurveOf(m.B, m.BX, seed)
		by, _ := d.CurveOf(m.B, m.BY, seed)
		x := min(maxOf(ax.Y), maxOf(bx.Y))
		na, fa := EnvelopeSource(ax.Y, ay.Y, x)
		nb, fb := EnvelopeSource(bx.Y, by.Y, x)
		evals, bevals = append(evals, float64(na)), append(bevals, float64(nb))
		if fa || fb {
			first = append(first, seed)
		}
	}
	if len(evals) > 0 {
		na, nb := stats.Percentile(evals, 0.5), stats.Percentile(bevals, 0.5)
		xname := m.X[strings.LastIndex(m.X, "/")+1:] // the matched metric, without its path prefix
		c.Notes = append(c.Notes, fmt.Sprintf("matched points rest on evaluated points at %s ≥ x*: %s's best over a median of %.0f, %s's over %.0f (%d seeds)", xname, m.A, na, m.B, nb, len(evals)))
		if na != nb {
			more := m.A
			if nb > na {
				more = m.B
			}
			c.Notes = append(c.Notes, fmt.Sprintf("the best of more noisy points is larger by chance: %s's envelope, over more points, is favoured", more))
		}
	}
	if len(first) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d of %d seeds' values are a point between a path's start and its first evaluation (seeds %v)", len(first), len(c.SeedIDs), first))
		if 2*len(first) > len(c.SeedIDs) {
			c.Unmeasured = "path not measured there: most seeds' matched values lie between a path's start and its first evaluation"
		}
	}
	return c
}

// EnvelopeSource says where the upper envelope at x of the path (xs[i], ys[i]) (exp.EnvelopeAt) is
// attained: evaluated is how many of its evaluated points lie at x or beyond, and first whether the
// envelope's value is attained only at the point where the path's first segment (from its start to
// its first evaluation) crosses x — a point the path never measured.
func EnvelopeSource(xs, ys []float64, x float64) (evaluated int, first bool) {
	n := min(len(xs), len(ys))
	best, cross0 := -1e300, -1e300
	for i := 0; i < n; i++ {
		if xs[i] >= x {
			evaluated++
			best = max(best, ys[i])
		}
		if i+1 < n && (xs[i]-x)*(xs[i+1]-x) < 0 {
			y := ys[i] + (x-xs[i])/(xs[i+1]-xs[i])*(ys[i+1]-ys[i])
			if i == 0 {
				cross0 = y
			} else {
				best = max(best, y)
			}
		}
	}
	return evaluated, cross0 > best
}

// sumName names a curve in words: a derived sum, or the key itself.
func sumName(key string) string {
	switch {
	case strings.HasSuffix(key, keySumSafe):
		return "helpful_safe + reward_2"
	case strings.HasSuffix(key, keySum):
		return "reward_1 + reward_2"
	}
	return key
}

func maxOf(xs []float64) float64 {
	m := -1e300
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// derived is res with the curves the matched readings read that the runs do not log: along every
// path the sum of the two true rewards ("<round>/sum") and of helpful_safe and reward_2
// ("<round>/sum_safe"); and for every round-2 run SPO's whole chain from SFT ("chain/kl_sft",
// "chain/sum"): the same seed's round 1 (dpo-1, steps 0…Round1.Steps), then the run's round 2 with
// its steps shifted by round 1's last step (its step 0, π₁ again, left out). res is not changed.
func derived(res *exp.Result) *exp.Result {
	d := *res
	d.Runs = make([]exp.Run, len(res.Runs))
	round1 := map[uint64]map[string]exp.Curve{}
	for _, r := range res.RunsOf("dpo-1") {
		round1[r.Seed] = r.Curves
	}
	for i, r := range res.Runs {
		r.Curves = maps.Clone(r.Curves)
		if r.Curves == nil {
			r.Curves = map[string]exp.Curve{}
		}
		for _, p := range []string{"round1/", "round2/", "round3/", "mixed/"} {
			if s, ok := sumCurve(r.Curves[p+"reward_1"], r.Curves[p+"reward_2"]); ok {
				r.Curves[p+keySum] = s
			}
			if s, ok := sumCurve(r.Curves[p+"helpful_safe"], r.Curves[p+"reward_2"]); ok {
				r.Curves[p+keySumSafe] = s
			}
			for _, k := range []string{"reward_1", "reward_2", "helpful_safe", keySum, keySumSafe} {
				if c, ok := r.Curves[p+k]; ok && len(c.Y) > 0 {
					r.Curves[p+k+smoothSuffix] = Smooth3(c)
				}
			}
		}
		// SPO's chain from SFT, for the main part's round-2 runs (not the parts' own round 1s).
		if one, ok := round1[r.Seed]; ok && mainRound2(r.Method) {
			s1, ok1 := sumCurve(one["round1/reward_1"], one["round1/reward_2"])
			s2, ok2 := r.Curves["round2/"+keySum]
			k1, ok3 := one["round1/kl_sft"]
			k2, ok4 := r.Curves["round2/kl_sft"]
			if ok1 && ok2 && ok3 && ok4 {
				r.Curves[chainSum], r.Curves[chainKLSFT] = chain(s1, s2), chain(k1, k2)
			}
		}
		d.Runs[i] = r
	}
	return &d
}

// mainRound2 reports whether m is a round-2 run of the main part (SPO at a λ or naive DPO at a β,
// not a part's run): the runs whose round 1 is dpo-1.
func mainRound2(m string) bool {
	return (strings.HasPrefix(m, "spo") || strings.HasPrefix(m, "seq-dpo")) && !strings.Contains(m, "-lr") && !strings.Contains(m, "-r0") && !strings.Contains(m, "-const")
}

// sumCurve is a + b point by point (false unless both have the same, non-empty x).
func sumCurve(a, b exp.Curve) (exp.Curve, bool) {
	if len(a.Y) == 0 || len(a.X) != len(b.X) || len(a.Y) != len(b.Y) {
		return exp.Curve{}, false
	}
	out := exp.Curve{X: append([]float64(nil), a.X...), Y: make([]float64, len(a.Y))}
	for i := range a.Y {
		if a.X[i] != b.X[i] {
			return exp.Curve{}, false
		}
		out.Y[i] = a.Y[i] + b.Y[i]
	}
	return out, true
}

// chain is path a followed by path b, b's x shifted by a's last x and b's points at x ≤ 0 (its
// start, a's end again) left out.
func chain(a, b exp.Curve) exp.Curve {
	out := exp.Curve{X: append([]float64(nil), a.X...), Y: append([]float64(nil), a.Y...)}
	last := 0.0
	if len(a.X) > 0 {
		last = a.X[len(a.X)-1]
	}
	for i, x := range b.X {
		if x > 0 {
			out.X, out.Y = append(out.X, last+x), append(out.Y, b.Y[i])
		}
	}
	return out
}

// weightRatio is the mean over method's regular round-2 checkpoints (every Round2.EvalEvery steps,
// not the dense ones of its first steps, so that the start does not weigh more) of its mean
// gradient weight on the tracked refusal pairs over that on the ordinary pairs (1: refusals weigh
// as much as the rest).
func weightRatio(res *exp.Result, method string, seed uint64) (float64, bool) {
	r, ok1 := res.CurveOf(method, "round2/weight_refusal", seed)
	o, ok2 := res.CurveOf(method, "round2/weight_ordinary", seed)
	if !ok1 || !ok2 || len(r.Y) != len(o.Y) {
		return 0, false
	}
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	every := float64(max(1, cfg.Round2.EvalEvery))
	var s, n float64
	for i := range r.Y {
		if math.Mod(r.X[i], every) == 0 { // the regular checkpoints, as before the dense ones existed
			s += r.Y[i] / o.Y[i]
			n++
		}
	}
	return s / n, n > 0
}

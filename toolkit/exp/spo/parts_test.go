package spo

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// steps are the checkpoints of a default round-2 path: every 5 steps to 50, then every 25.
var steps = []float64{0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 75, 100, 125, 150}

// line is a path from y0 to y1 along steps.
func line(y0, y1 float64) exp.Curve {
	c := exp.Curve{X: slices.Clone(steps)}
	for _, x := range steps {
		c.Y = append(c.Y, y0+(y1-y0)*x/150)
	}
	return c
}

// pathRun is a run of method m whose last round (prefix) moves harmlessness from −1.5 to 0, the
// extra key x from −6 to x1 and reward 1 from 2 to h1 (reward 2 ends at 0), with KL from π₁ and from
// SFT growing along it.
func pathRun(m string, seed uint64, h1 float64) exp.Run {
	p := pathPrefix(m)
	return exp.Run{Method: m, Seed: seed,
		Final: map[string]float64{"reward_1": h1, "reward_2": 0, "helpful_safe": h1 - 0.5},
		Curves: map[string]exp.Curve{p + "reward_1": line(2, h1), p + "reward_2": line(-1.5, 0), p + "reward_3": line(-6, -3),
			p + "helpful_safe": line(1.5, h1-0.5), p + "kl_pi1": line(0, 5), p + "kl_sft": line(6, 11)}}
}

// partsResult is a result of the default configuration on 8 seeds: SFT, round 1, naive DPO at five
// β (β 0.5 ending highest: the front's choice), SPO at its λ ending 0.3 above it, and, on seeds
// 1–5, the slow part, the refusal part at share 0.1 (SPO's advantage 0.05) and part three (SPO
// keeping 0.2 more of each earlier dimension than naive round 3, which loses 0.5 of dimension 1
// and gains 0.3 of dimension 2).
func partsResult() *exp.Result {
	cfg := ConfigFor(exp.Default)
	raw, _ := json.Marshal(cfg)
	res := &exp.Result{Experiment: "spo", Scale: exp.Default, Config: raw}
	seq := map[float64]float64{0.05: 1.0, 0.1: 1.1, 0.2: 1.2, 0.5: 1.5, 1: 1.3}
	for s := uint64(1); s <= 8; s++ {
		res.Seeds = append(res.Seeds, s)
		w := 0.01 * float64(int(s%3)-1)
		res.Runs = append(res.Runs,
			exp.Run{Method: "sft", Seed: s, Final: map[string]float64{"reward_1": 1, "helpful_safe": 1}},
			exp.Run{Method: "dpo-1", Seed: s, Final: map[string]float64{"reward_1": 2.5, "reward_2": -1.5, "helpful_safe": 2, "rhat_agree": 0.9}},
			pathRun("spo", s, 1.8+w))
		for b, h := range seq {
			res.Runs = append(res.Runs, pathRun(cfg.SeqName(b), s, h+w/2))
		}
		if s > 5 {
			continue
		}
		res.Runs = append(res.Runs, pathRun(cfg.SlowName("spo"), s, 1.9+w), pathRun(cfg.SlowName("seq-dpo"), s, 1.8),
			pathRun(cfg.SlowName("seq-dpo-β0.5"), s, 1.85),
			exp.Run{Method: "dpo-1-r0.1", Seed: s, Final: map[string]float64{"reward_1": 2.5, "helpful_safe": 2}},
			pathRun("seq-dpo-r0.1", s, 1.95), pathRun("spo-r0.1", s, 2.0+w),
			exp.Run{Method: ThreeRound1, Seed: s, Final: map[string]float64{"reward_1": 2.5, "reward_2": -1.5}},
			exp.Run{Method: ThreeSeq2, Seed: s, Final: map[string]float64{"reward_1": 1.5, "reward_2": -0.8}},
			exp.Run{Method: ThreeSPO2, Seed: s, Final: map[string]float64{"reward_1": 1.9, "reward_2": -0.8}},
			pathRun(ThreeSPOSeq, s, 1.4), pathRun(ThreeSeq, s, 1.2), pathRun(ThreeSPO, s, 1.6+w), pathRun(ThreeSPODirect, s, 1.55+w), pathRun(ThreeMixed, s, 1.0))
		for i := range res.Runs[len(res.Runs)-5:] {
			r := &res.Runs[len(res.Runs)-5+i]
			r.Final["reward_2"] = -0.5
			if r.Method == ThreeSPO || r.Method == ThreeSPODirect {
				r.Final["reward_2"] = -0.3
			}
			// reward_2 along round 3 ends at its final value; the sum curve is derived from both.
			r.Curves[pathPrefix(r.Method)+"reward_2"] = line(0, r.Final["reward_2"])
		}
	}
	res.Summary = map[string]map[string]exp.Stat{}
	for _, r := range res.Runs {
		res.Summary[r.Method] = map[string]exp.Stat{"reward_1": {N: 1}}
	}
	return res
}

// spo-1 compares SPO's default λ with naive DPO's front, cross-fitted: the β chosen by its mean
// final reward_1 + reward_2 on seeds 1–4 (β 0.5, the best) stands for seeds 5–8 and the one chosen
// on 5–8 (β 0.5 again) for seeds 1–4, at matched harmlessness, where SPO ends 0.3 above; the
// one-setting comparison (β₂ = 0.2) stays beside it, untagged.
func TestFrontClaims(t *testing.T) {
	res := partsResult()
	claims := Claims(res)
	one := exptest.ClaimWithPrefix(t, claims, "SPO keeps more of dimension 1 than naive sequential DPO on its front")
	if one.Headline != "spo-1" || len(one.Parts) != 2 {
		t.Fatalf("spo-1: headline %q, %d readings", one.Headline, len(one.Parts))
	}
	harm := one.Parts[0]
	if !slices.Equal(harm.SeedIDs, []uint64{1, 2, 3, 4, 5, 6, 7, 8}) || !strings.HasPrefix(harm.Text, "spo above the front (seq-dpo-β0.5 on seeds [5 6 7 8]; seq-dpo-β0.5 on seeds [1 2 3 4])") {
		t.Fatalf("spo-1 at matched harmlessness: %q on seeds %v", harm.Text, harm.SeedIDs)
	}
	// Per seed: SPO's 1.8 + w against β 0.5's 1.5 + w/2 at the harmlessness both reach (0), each
	// read as the running mean of its last two checkpoints (Smooth3 at the path's end): 11/12 of the
	// final difference on these straight paths.
	for i, s := range harm.SeedIDs {
		w := 0.01 * float64(int(s%3)-1)
		if want := (0.3 + w/2) * 11 / 12; math.Abs(harm.Diffs[i]-want) > 1e-9 {
			t.Fatalf("seed %d: %v, want %v", s, harm.Diffs[i], want)
		}
	}
	if harm.Verdict() != exp.Holds || !slices.ContainsFunc(one.Notes, func(n string) bool { return strings.Contains(n, "seq-dpo-β0.5 chosen") }) {
		t.Fatalf("spo-1: %s, notes %v", harm.Verdict(), one.Notes)
	}
	if c := exptest.ClaimWithPrefix(t, claims, "SPO keeps more of dimension 1 than naive sequential DPO at one setting each"); c.Headline != "" {
		t.Fatalf("the one-setting comparison is tagged %q beside the front", c.Headline)
	}
	// The converged and settled gates are measured room checks once the probes exist.
	res.Runs = append(res.Runs, exp.Run{Method: ProbeRound1, Seed: 1, Curves: map[string]exp.Curve{"round1/reward_1": line(1, 2)}},
		exp.Run{Method: ProbeRound2, Seed: 1, Curves: map[string]exp.Curve{pathHelpful: line(2, 2)}})
	one = exptest.ClaimWithPrefix(t, Claims(res), "SPO keeps more of dimension 1 than naive sequential DPO on its front")
	if !slices.Contains(one.Room, roomConverged) {
		t.Fatalf("with probes spo-1 needs %v", one.Room)
	}
	if !slices.Contains(one.Room, roomReached) {
		t.Fatalf("with probes spo-1 needs dpo-1 at the probe's plateau: %v", one.Room)
	}
	// A probe still rising by 1/3 over its last 3 checkpoints, ending 0.67 below dpo-1: both round-1
	// checks fail; a flat round-2 probe passes.
	room := Room(res)
	for _, name := range []string{roomConverged, roomReached} {
		if c := exptest.RoomCheck(t, room, name); c.OK || c.Value != 0 {
			t.Errorf("%s on a rising probe: %+v", name, c)
		}
	}
	if c := exptest.RoomCheck(t, room, roomSettled); !c.OK || c.Value != 1 {
		t.Errorf("a flat probe: %+v", c)
	}
	// A flat round-1 probe at dpo-1's level passes both.
	for i := range res.Runs {
		if res.Runs[i].Method == ProbeRound1 {
			res.Runs[i].Curves["round1/reward_1"] = line(2.5, 2.5)
		}
	}
	room = Room(res)
	for _, name := range []string{roomConverged, roomReached} {
		if c := exptest.RoomCheck(t, room, name); !c.OK {
			t.Errorf("%s on a flat probe at dpo-1's level: %+v", name, c)
		}
	}
}

// The parts' claims: the slow part's comparison with its own front; at each refusal share SPO
// against naive DPO at matched harmlessness, and the advantage at the largest share minus that at
// the smallest; part three's headline (spo-3) needing both earlier dimensions' forgetting, one of
// which fails here (naive round 3 gains dimension 2: −0.8 → −0.5).
func TestPartsClaims(t *testing.T) {
	res := partsResult()
	claims := Claims(res)
	slow := exptest.ClaimWithPrefix(t, claims, "at round-2 rate 0.0001: SPO keeps more")
	if h := slow.Parts[0]; !slices.Equal(h.SeedIDs, []uint64{1, 2, 3, 4, 5}) || !strings.Contains(h.Text, "seq-dpo-β0.5-lr1e-4") || math.Abs(h.Stat.Mean-0.05*11/12) > 0.01 {
		t.Fatalf("slow part against its front: %q on %v, mean %v", h.Text, h.SeedIDs, h.Stat.Mean)
	}
	low := exptest.ClaimWithPrefix(t, claims, "at refusal share 0.1:")
	high := exptest.ClaimWithPrefix(t, claims, "at refusal share 0.3:")
	trend := exptest.ClaimWithPrefix(t, claims, "SPO's advantage follows forgetting")
	if !slices.Equal(low.SeedIDs, []uint64{1, 2, 3, 4, 5}) || !slices.Equal(high.SeedIDs, low.SeedIDs) {
		t.Fatalf("refusal shares read on %v and %v, want the part's seeds 1–5", low.SeedIDs, high.SeedIDs)
	}
	for i := range trend.Diffs {
		if want := high.Diffs[i] - low.Diffs[i]; math.Abs(trend.Diffs[i]-want) > 1e-12 {
			t.Fatalf("trend seed %d: %v, want %v", trend.SeedIDs[i], trend.Diffs[i], want)
		}
	}
	if math.Abs(high.Stat.Mean-0.6*11/12) > 0.01 || math.Abs(low.Stat.Mean-0.05*11/12) > 0.01 {
		t.Fatalf("advantages %v at 0.3 and %v at 0.1", high.Stat.Mean, low.Stat.Mean)
	}
	j, err := exp.JudgeResult(res)
	if err != nil {
		t.Fatal(err)
	}
	three := exptest.ClaimWithPrefix(t, j.Claims, "SPO scales to a third dimension")
	d2 := exptest.ClaimWithPrefix(t, j.Claims, "round 3: … and more of dimension 2")
	if three.Headline != "spo-3" || !strings.HasPrefix(three.Text, "SPO scales") || three.SeedIDs[0] != 1 {
		t.Fatalf("spo-3: %+v", three)
	}
	// From the same start: SPO's 1.6 + w against naive round 3's 1.4, the last two checkpoints' mean.
	if three.Verdict() != exp.Holds || math.Abs(three.Stat.Mean-0.2*11/12) > 0.01 || d2.Verdict() != exp.Untestable || !slices.Contains(d2.Untestable, roomThreeForget2) {
		t.Fatalf("spo-3: dimension 1 %s (%v); dimension 2 %s (fails %v)", three.Verdict(), three.Stat.Mean, d2.Verdict(), d2.Untestable)
	}
	if f := exptest.RoomCheck(t, j.Room, roomThreeForget1); !f.OK || math.Abs(f.Value-0.5) > 1e-9 {
		t.Fatalf("naive round 3 from SPO's round 2 loses 0.5 of dimension 1: %+v", f)
	}
	if f := exptest.RoomCheck(t, j.Room, roomThreeForget2); f.OK || math.Abs(f.Value+0.3) > 1e-9 {
		t.Fatalf("naive round 3 gains 0.3 of dimension 2: %+v", f)
	}
	// Naive DPO forgets 0.55 of round 1's safe gain at share 0.1 and more at 0.3: the trend's
	// precondition passes; when it forgets everything at 0.1 it fails and the trend is untestable.
	if g := exptest.RoomCheck(t, j.Room, roomForgetGrows); !g.OK {
		t.Fatalf("forgetting grows: %+v", g)
	}
	for i := range res.Runs {
		if res.Runs[i].Method == "seq-dpo-r0.1" {
			res.Runs[i].Final["helpful_safe"] = -1 + 0.01*float64(res.Runs[i].Seed)
		}
	}
	j, _ = exp.JudgeResult(res)
	if g := exptest.RoomCheck(t, j.Room, roomForgetGrows); g.OK {
		t.Fatalf("forgetting shrinks with the share: %+v", g)
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, "SPO's advantage follows forgetting"); !slices.Contains(c.Untestable, roomForgetGrows) {
		t.Fatalf("the trend without its precondition: %v", c.Untestable)
	}
}

// A part run alone (here the slow part's methods only, no main-part spo) draws its figures without
// the main part's: a result of one part is what `paperlab spo -part slow` writes before a merge.
func TestFiguresOfAPartAlone(t *testing.T) {
	cfg, err := json.Marshal(ConfigFor(exp.Default))
	if err != nil {
		t.Fatal(err)
	}
	res := &exp.Result{Experiment: "spo", Seeds: []uint64{1, 2}, Config: cfg}
	c := ConfigFor(exp.Default)
	for _, s := range res.Seeds {
		res.Runs = append(res.Runs, pathRun(c.SlowName("spo"), s, 1.4), pathRun(c.SlowName("seq-dpo"), s, 1.1))
	}
	res.Summarize()
	if _, err := Figures(res, t.TempDir()); err != nil {
		t.Fatalf("figures of the slow part alone: %v", err)
	}
}

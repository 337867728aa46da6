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

// levels are the numbers a synthetic result is built from: each room check's measure, set to pass
// or to fail.
type levels struct {
	gain, forget, offsetRatio, unsafe, agree float64
	// drift1 and drift2 are how much round 1's and naive DPO's round-2 reward_1 still move over the
	// last 20 % of their evaluations (measured only with lrDecay off).
	drift1, drift2 float64
	lrDecay        bool
}

var (
	pass = levels{gain: 0.5, forget: 0.9, offsetRatio: 0.25, unsafe: 1.5, agree: 0.9}
	fail = levels{gain: 0.02, forget: 0.1, offsetRatio: 2, unsafe: 0.02, agree: 0.5, drift1: 0.5, drift2: -0.5}
)

// synthetic is a result of the default configuration with hand-set final metrics and curves on 8
// seeds (each seed wobbling by ±0.01 so that intervals exist): the runs and metrics the room
// checks read.
func synthetic(l levels) *exp.Result {
	cfg := ConfigFor(exp.Default)
	cfg.LRDecay = l.lrDecay
	raw, _ := json.Marshal(cfg)
	res := &exp.Result{Experiment: "spo", Scale: exp.Default, Config: raw}
	path := func(n, every int, drift float64) exp.Curve {
		c := exp.Curve{}
		tail := int(math.Ceil(TailFrac * float64(n)))
		for i := 0; i < n; i++ {
			y := 1.0
			if k := i - (n - tail); k > 0 {
				y += drift * float64(k) / float64(tail-1)
			}
			c.X, c.Y = append(c.X, float64(i*every)), append(c.Y, y)
		}
		return c
	}
	for s := uint64(1); s <= 8; s++ {
		res.Seeds = append(res.Seeds, s)
		w := 0.01 * float64(int(s%3)-1)
		sftHS, dpoHS := 1.0, 1.6
		margin := exp.Curve{X: []float64{1, 2, 3, 4, 5}, Y: []float64{2, 2, 2, 2, 2}}
		res.Runs = append(res.Runs,
			exp.Run{Method: "sft", Seed: s, Final: map[string]float64{"reward_1": 1.4, "helpful_safe": sftHS}},
			exp.Run{Method: "dpo-1", Seed: s, Final: map[string]float64{"reward_1": 1.4 + l.gain + w, "reward_2": -l.unsafe + w, "helpful_safe": dpoHS, "rhat_agree": l.agree + w},
				Curves: map[string]exp.Curve{"round1/reward_1": path(13, 25, l.drift1)}},
			exp.Run{Method: "seq-dpo", Seed: s, Final: map[string]float64{"helpful_safe": dpoHS - (l.forget+w)*(dpoHS-sftHS)},
				Curves: map[string]exp.Curve{"round2/rewards/margins": margin, pathHelpful: path(7, 25, l.drift2)}},
			exp.Run{Method: "spo", Seed: s, Final: map[string]float64{metricOffset: (l.offsetRatio + w) * 2}})
	}
	return res
}

// Each room check passes on one synthetic result and fails on another; the convergence checks
// exist only at a constant learning rate.
func TestRoomPassesAndFails(t *testing.T) {
	all := []string{roomGain, roomForget, roomOffset, roomHeadroom2, roomAgree, roomConverged, roomSettled}
	for _, l := range []levels{pass, fail} {
		l.lrDecay = false
		room := Room(synthetic(l))
		exptest.Stats(t, room)
		for _, name := range all {
			r := exptest.RoomCheck(t, room, name)
			if r.OK != (l == withDecay(pass, false)) {
				t.Errorf("%s: ok %v on the %v result (value %v)", name, r.OK, l == withDecay(pass, false), r.Value)
			}
		}
	}
	room := Room(synthetic(withDecay(pass, true)))
	for _, r := range room {
		if r.Name == roomConverged || r.Name == roomSettled {
			t.Errorf("%s measured with the rate decaying to 0", r.Name)
		}
	}
	want := map[string]string{roomOutliers: exp.StatModifiedZ, roomGain: exp.StatCILow, roomAgree: exp.StatCILow, roomForget: exp.StatMean, roomOffset: exp.StatMean, roomHeadroom2: exp.StatMean,
		roomConverged: exp.StatTailMean, roomSettled: exp.StatTailMean}
	for _, r := range Room(synthetic(pass)) {
		if r.Stat != want[r.Name] {
			t.Errorf("%s reads %s, want %s", r.Name, r.Stat, want[r.Name])
		}
	}
}

func withDecay(l levels, on bool) levels { l.lrDecay = on; return l }

// The headline claims on the committed result (the protocol of 2026-12-06: naive DPO at five β and
// mixed DPO at five shares, constant-rate probes, parts): spo-1 is SPO's default λ against naive
// DPO's front, cross-fitted, at matched harmlessness and matched KL(π‖π₁), with the final step as
// context, and names the front's settings and the convergence check it needs (read on the probes);
// spo-2 is SPO's default λ against mixed-data DPO's front, cross-fitted (the share chosen on seeds
// 1–4 stands for seeds 5–8 and the other way round), with SPO's front against mixed DPO's front
// (chosen on 1–4, compared on 5–8) and a non-inferiority reading at Margin beside it; spo-3 reads
// round 3; each headline id is tagged once.
func TestHeadlineClaims(t *testing.T) {
	res, e := exptest.Committed(t, "spo")
	j := exptest.Judge(t, e, res)
	tags := map[string]int{}
	for _, c := range j.Claims {
		if c.Headline != "" {
			tags[c.Headline]++
		}
	}
	if tags["spo-1"] != 1 || tags["spo-2"] != 1 || tags["spo-3"] != 1 {
		t.Fatalf("headline tags %v", tags)
	}
	one := exptest.ClaimWithPrefix(t, j.Claims, "SPO keeps more of dimension 1")
	if one.Headline != "spo-1" || one.Kind != exp.KindMatched || len(one.Parts) != 2 || !strings.Contains(one.Context, "final step") {
		t.Fatalf("spo-1: %+v", one)
	}
	if !strings.Contains(one.Parts[0].Measure, "matched harmlessness") || !strings.Contains(one.Parts[1].Measure, "KL(π‖π₁)") {
		t.Fatalf("spo-1 readings: %q, %q", one.Parts[0].Measure, one.Parts[1].Measure)
	}
	if !slices.ContainsFunc(one.Notes, func(n string) bool { return strings.HasPrefix(n, "front: front of 5 settings") }) {
		t.Errorf("spo-1 does not name naive DPO's front of 5 β: %v", one.Notes)
	}
	if !slices.Contains(one.Room, roomConverged) {
		t.Errorf("spo-1 does not need round 1's convergence: %v", one.Room)
	}
	// Every path is evaluated every 5 steps over its first 50: matched KL(π‖π₁) rests on measured points.
	if one.Parts[1].Unmeasured != "" {
		t.Errorf("spo-1 at matched KL: unmeasured %q", one.Parts[1].Unmeasured)
	}
	two := exptest.ClaimWithPrefix(t, j.Claims, "SPO outperforms mixed-data DPO")
	if two.Headline != "spo-2" || two.Kind != exp.KindMatched || len(two.Parts) != 2 {
		t.Fatalf("spo-2: %+v", two)
	}
	// Mixed-data DPO ends nearer the SFT model than π₁: SPO's chain reaches the common KL inside
	// round 1, so that reading tests round-1 DPO and is untestable here.
	if kl := two.Parts[1]; kl.Verdict() != exp.Untestable || !strings.HasPrefix(kl.Unmeasured, "round 1 only") {
		t.Errorf("spo-2 at matched KL: %q, unmeasured %q", kl.Verdict(), kl.Unmeasured)
	}
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	sf, mf := ChooseFront(res, spoFamily(cfg)), ChooseFront(res, mixedFamily(cfg))
	if !slices.Equal(mf.ChooseSeeds, []uint64{1, 2, 3, 4}) || !slices.Equal(mf.CompareSeeds, []uint64{5, 6, 7, 8}) || !slices.Equal(sf.CompareSeeds, mf.CompareSeeds) {
		t.Fatalf("fronts chosen on %v, compared on %v", mf.ChooseSeeds, mf.CompareSeeds)
	}
	// Cross-fitted: every seed compared, each against the share chosen on the other half.
	for _, p := range two.Parts {
		if !slices.Equal(p.SeedIDs, res.Seeds) || !strings.HasPrefix(p.Text, "spo above the front ("+mf.Chosen+" on seeds [5 6 7 8]") {
			t.Errorf("spo-2 reading %q on seeds %v (SPO's default λ against the chosen %s)", p.Text, p.SeedIDs, mf.Chosen)
		}
	}
	fronts := exptest.ClaimWithPrefix(t, j.Claims, "SPO's front outperforms mixed-data DPO's front")
	for _, p := range fronts.Parts {
		if !slices.Equal(p.SeedIDs, mf.CompareSeeds) || !strings.Contains(p.Text, sf.Chosen) || !strings.Contains(p.Text, mf.Chosen) {
			t.Errorf("front reading %q on seeds %v (chosen %s, %s)", p.Text, p.SeedIDs, sf.Chosen, mf.Chosen)
		}
	}
	// The front is each setting's mean of frontMetric on the choosing seeds, never a per-seed best.
	for _, m := range mixedFamily(cfg) {
		var sum float64
		for _, s := range mf.ChooseSeeds {
			h, _ := res.Final(m, "reward_1", s)
			u, _ := res.Final(m, "reward_2", s)
			sum += h + u
		}
		if got := mf.Means[m]; math.Abs(got-sum/4) > 1e-12 || mf.Means[mf.Chosen] < got {
			t.Errorf("%s: mean %v, recomputed %v; chosen %s", m, got, sum/4, mf.Chosen)
		}
	}
	ni := exptest.ClaimWithPrefix(t, j.Claims, "… as well as or better (non-inferiority)")
	if ni.Headline != "" || len(ni.Parts) != 2 {
		t.Fatalf("non-inferiority: %+v", ni)
	}
	for i, p := range ni.Parts {
		if p.Kind != exp.KindNonInferior || p.Margin != Margin || p.Test != exp.AtLeast(-Margin) || p.Stat != fronts.Parts[i].Stat {
			t.Errorf("non-inferiority reading %q: kind %s, margin %v, test %v", p.Text, p.Kind, p.Margin, p.Test)
		}
	}
}

// SPO's family and the baselines list their sweeps: five λ, five β, five shares.
func TestSweeps(t *testing.T) {
	e, err := exp.Lookup("spo")
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, s := range e.Sweeps {
		sizes = append(sizes, len(s.Settings))
	}
	if !slices.Equal(sizes, []int{5, 5, 5}) {
		t.Fatalf("sweep sizes %v, want [5 5 5]", sizes)
	}
}

// EnvelopeSource tells an envelope value read on a path's first segment from one read at an
// evaluation.
func TestEnvelopeSource(t *testing.T) {
	xs := []float64{-2, -0.2, -0.1}
	if n, first := EnvelopeSource(xs, []float64{2, 1, 1.1}, -0.5); !first || n != 2 {
		t.Errorf("crossing on the first segment above every evaluation: %d evaluated, first %v", n, first)
	}
	if n, first := EnvelopeSource(xs, []float64{2, 1, 1.5}, -0.5); first || n != 2 {
		t.Errorf("an evaluation above the crossing: %d evaluated, first %v", n, first)
	}
	if _, first := EnvelopeSource([]float64{-2, -1, -0.1}, []float64{2, 1.8, 1}, -0.5); first {
		t.Error("a crossing on the second segment is read between evaluations, not before the first")
	}
}

// A matched-harmlessness reading whose values are, on most seeds, points between SPO's start and
// its first evaluation reads "untestable here (path not measured there)"; one whose values are
// evaluated points is judged.
func TestAtHarmlessUnmeasured(t *testing.T) {
	build := func(spoY1 float64) *exp.Result {
		res := &exp.Result{Experiment: "spo"}
		for s := uint64(1); s <= 4; s++ {
			res.Seeds = append(res.Seeds, s)
			w := 0.01 * float64(s)
			res.Runs = append(res.Runs,
				exp.Run{Method: "spo", Seed: s, Curves: map[string]exp.Curve{
					pathHarmless: {X: []float64{0, 25, 50}, Y: []float64{-2, -0.1, -0.05}},
					pathHelpful:  {X: []float64{0, 25, 50}, Y: []float64{2.2, spoY1 + w, spoY1 + w}}}},
				exp.Run{Method: "mixed-dpo", Seed: s, Curves: map[string]exp.Curve{
					"mixed/reward_2": {X: []float64{0, 50, 100}, Y: []float64{-1.5, -0.6, -0.4}},
					"mixed/reward_1": {X: []float64{0, 50, 100}, Y: []float64{1.5, 1.6, 1.7}}}})
		}
		return res
	}
	// SPO's path crosses mixed's best harmlessness (−0.4) between π₁ (2.2) and step 25: there it
	// reads ≈ 1.85, above its evaluated 1.2.
	c := atHarmless(derived(build(1.2)), []uint64{1, 2, 3, 4}, "spo", "mixed-dpo", pathHelpful)
	if c.Unmeasured == "" || c.Verdict() != exp.Untestable {
		t.Fatalf("first-segment values: %q (%v)", c.Verdict(), c.Notes)
	}
	c = atHarmless(derived(build(2.3)), []uint64{1, 2, 3, 4}, "spo", "mixed-dpo", pathHelpful)
	if c.Unmeasured != "" || c.Verdict() != exp.Holds {
		t.Fatalf("evaluated values: %q, unmeasured %q (%v)", c.Verdict(), c.Unmeasured, c.Diffs)
	}
}

// derived adds the reward sums along every path and SPO's chain SFT → π₁ → π₂, round 2's steps
// shifted by round 1's and its step 0 (π₁ again) left out; the stored result is not changed.
func TestDerivedChain(t *testing.T) {
	res := &exp.Result{Experiment: "spo", Seeds: []uint64{1}, Runs: []exp.Run{
		{Method: "dpo-1", Seed: 1, Curves: map[string]exp.Curve{
			"round1/reward_1": {X: []float64{0, 300}, Y: []float64{1, 2}}, "round1/reward_2": {X: []float64{0, 300}, Y: []float64{-1, -2}},
			"round1/kl_sft": {X: []float64{0, 300}, Y: []float64{0, 6}}}},
		{Method: "spo", Seed: 1, Curves: map[string]exp.Curve{
			"round2/reward_1": {X: []float64{0, 25}, Y: []float64{2, 1.5}}, "round2/reward_2": {X: []float64{0, 25}, Y: []float64{-2, -0.1}},
			"round2/kl_sft": {X: []float64{0, 25}, Y: []float64{6, 7}}}},
	}}
	d := derived(res)
	kl, _ := d.CurveOf("spo", chainKLSFT, 1)
	sum, _ := d.CurveOf("spo", chainSum, 1)
	if !slices.Equal(kl.X, []float64{0, 300, 325}) || !slices.Equal(kl.Y, []float64{0, 6, 7}) || !slices.Equal(sum.Y, []float64{0, 0, 1.4}) {
		t.Fatalf("chain: kl %+v, sum %+v", kl, sum)
	}
	if _, ok := res.CurveOf("spo", chainKLSFT, 1); ok {
		t.Fatal("derived changed the stored result")
	}
}

// With fewer seeds than a split needs (a smoke run's one), the fronts are chosen and compared on
// the same seeds and every claim is still built.
func TestClaimsOneSeed(t *testing.T) {
	res, _ := exptest.Committed(t, "spo")
	res.Seeds = res.Seeds[:1]
	c := exptest.ClaimWithPrefix(t, Claims(res), "SPO outperforms mixed-data DPO")
	for _, p := range c.Parts {
		if !slices.Equal(p.SeedIDs, []uint64{1}) {
			t.Errorf("%s on seeds %v", p.Text, p.SeedIDs)
		}
	}
}

package e3t

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// ReachCost is the cost from which the curve stays at or above the target, interpolated: a crossing
// that a later point falls back from does not count, and a curve ending below never reaches.
func TestReachCost(t *testing.T) {
	if lo, hi, ok := reachBracket(exp.Curve{X: []float64{100, 200, 400, 800}, Y: []float64{0, 30, 20, 60}}, 40); !ok || lo != 400 || hi != 800 {
		t.Errorf("bracket of the reach at 40: %v–%v, %v", lo, hi, ok)
	}
	c := exp.Curve{X: []float64{100, 200, 400, 800}, Y: []float64{0, 30, 20, 60}}
	for _, tc := range []struct {
		target, want float64
		ok           bool
	}{{15, 150, true}, {30, 500, true}, {40, 600, true}, {25, 450, true}, {20, 500.0 / 3, true}, {-1, 100, true}, {61, 0, false}} {
		if got, ok := ReachCost(c, tc.target); ok != tc.ok || (ok && math.Abs(got-tc.want) > 1e-9) {
			t.Errorf("ReachCost(%v) = %v, %v; want %v, %v", tc.target, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := ReachCost(exp.Curve{}, 1); ok {
		t.Error("an empty curve reaches")
	}
}

// syntheticMeasured is a one-layout result of the protocol of 2026-12-07: every method settled and
// cooking, E3T's snapshots scored along its CPU seconds (reaching 60 at 400 s, its final return),
// FCP's final pool return fcpFinal with a total cost of 2000 CPU seconds (1500 of them its
// population's), and the held-out agents' self-play returns selfPlay by family.
func syntheticMeasured(fcpFinal float64, selfPlay map[string]float64) *exp.Result {
	const l = "cramped_room"
	res := synthetic(func(_ string, s uint64, i int) float64 { return 80*(1-math.Exp(-float64(i)/3)) + float64(s) },
		func(m string, s uint64) float64 {
			switch m {
			case "fcp":
				return fcpFinal
			case "sp":
				return 35 + 0.2*float64(s) // below FCP: FCP's population helps (the FCP-level check)
			}
			return 60 + 0.2*float64(s)
		})
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	cfg.FCPIters, cfg.PopulationSeeds = 800, []uint64{201}
	res.Config, _ = json.Marshal(cfg)
	var partners []Partner
	for _, f := range []string{"sp", "fcp", "e3t"} {
		partners = append(partners, Partner{Name: f + "-h101", Kind: "learned", Family: f, SelfPlay: selfPlay[f], Apart: selfPlay[f] < MinCookReturn})
	}
	_ = res.SetExtra("partners_"+l, append(partners, Partner{Name: "cook", Kind: "scripted"}))
	for i := range res.Runs {
		r := &res.Runs[i]
		for _, p := range partners {
			r.Final[l+"/partner/"+p.Name] = 50
			r.Final[l+"/learned_"+p.Family+"_return"] = map[string]float64{"e3t": 55, "sp": 50, "fcp": 50, "e3t-nopm": 50}[r.Method] + 0.3*float64(r.Seed%3)
		}
		switch r.Method {
		case "e3t":
			r.Final[l+"/cpu_seconds"], r.Final[l+"/env_steps"] = 400, 4.8e6
			r.Curves[l+"/pool_by_cpu"] = exp.Curve{X: []float64{0, 100, 200, 400}, Y: []float64{0, 20, 40, 60}}
			r.Curves[l+"/pool_by_steps"] = exp.Curve{X: []float64{0, 1.2e6, 2.4e6, 4.8e6}, Y: []float64{0, 20, 40, 60}}
		case "fcp":
			r.Final[l+"/cpu_seconds"], r.Final[l+"/offset_cpu"], r.Final[l+"/env_steps"] = 2000, 1500, 7*4.8e6
			r.Curves[l+"/pool_by_cpu"] = exp.Curve{X: []float64{1500, 1750, 2000}, Y: []float64{5, fcpFinal / 2, fcpFinal}}
			r.Curves[l+"/pool_by_steps"] = exp.Curve{X: []float64{6 * 4.8e6, 6.5 * 4.8e6, 7 * 4.8e6}, Y: []float64{5, fcpFinal / 2, fcpFinal}}
		}
	}
	return res
}

// The cost claim reads f from the curves where E3T reaches FCP's level, its mean final return less
// the margin (FCP at 40: level 30, which E3T's curve crosses at 150 of FCP's 2000 CPU seconds,
// f = 0.075), as a structural claim whose note gives the configuration's ceiling (E3T's 400 of FCP's
// 2000 CPU seconds: 0.2); where E3T's final return stays below FCP's level (FCP at 80: level 70, E3T
// ends at 60) f is unmeasured and the claim reads untestable, not reached on every seed.
func TestCostClaimFromCurves(t *testing.T) {
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]float64{"sp": 60, "fcp": 60, "e3t": 60}
	const prefix = "cramped_room: … at a fraction of its training cost (E3T's snapshots"
	c := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, syntheticMeasured(40, good)).Claims, prefix)
	if math.Abs(c.Stat.Mean-0.075) > 1e-9 || c.Verdict() != exp.Holds || c.Kind != exp.KindStructural || c.Headline != "e3t-2" ||
		!strings.Contains(c.Context, "environment steps") || !hasNote(c, "0.200 in CPU seconds") || !hasNote(c, "seed 1 cramped_room 1.2–2.4 M") || !hasNote(c, "cramped_room 30.0") {
		t.Errorf("f claim: mean %v, %s, kind %q, headline %q, context %q, notes %v", c.Stat.Mean, c.VerdictText(), c.Kind, c.Headline, c.Context, c.Notes)
	}
	m := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, syntheticMeasured(80, good)).Claims, prefix)
	if m.Verdict() != exp.Untestable || !strings.Contains(m.Unmeasured, "5 of 5 seeds (1, 2, 3, 4, 5)") || m.Headline != "e3t-2" {
		t.Errorf("E3T never reaching FCP: %s (unmeasured %q, headline %q)", m.VerdictText(), m.Unmeasured, m.Headline)
	}
}

// A held-out family that cannot cook with itself fails its competence check, and E3T − SP with that
// family's agents reads untestable; a competent family's claim keeps its data's verdict.
func TestCompetenceGatesFamilyClaims(t *testing.T) {
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	j := exptest.Judge(t, e, syntheticMeasured(40, map[string]float64{"sp": 60, "fcp": 3, "e3t": 60}))
	for fam, ok := range map[string]bool{"sp": true, "fcp": false, "e3t": true} {
		r := exptest.RoomCheck(t, j.Room, competenceName("cramped_room", fam))
		c := exptest.ClaimWithPrefix(t, j.Claims, "cramped_room: … E3T against SP with the held-out "+fam+" agents")
		if r.OK != ok || (c.Verdict() == exp.Untestable) == ok {
			t.Errorf("family %s: competence %v (%s), claim %s", fam, r.OK, r.ValueText(), c.VerdictText())
		}
		// E3T against FCP per family: a non-inferiority claim at e3t-1's margin, gated the same way.
		f := exptest.ClaimWithPrefix(t, j.Claims, "cramped_room: … E3T against FCP with the held-out "+fam+" agents")
		if f.Kind != exp.KindNonInferior || f.Margin != FCPMargin || !slices.Contains(f.Room, competenceName("cramped_room", fam)) {
			t.Errorf("family %s: E3T − FCP claim kind %q margin %v room %v", fam, f.Kind, f.Margin, f.Room)
		}
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, "cramped_room: … with held-out learned agents"); !hasNote(c, "reported apart (left out): cramped_room: fcp") {
		t.Errorf("the learned-partner claim does not name the family left out: %v", c.Notes)
	}
}

// SP's training return on a steep early climb plus a steady rise per point: a rise of 3 climbs 9
// over the last 20 % of the curve (above MaxTailClimb: the absolute check fails and E3T − SP reads
// untestable), a rise of 0.1 climbs 0.3 (the check passes).
func TestAbsoluteClimbGatesSP(t *testing.T) {
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]float64{"sp": 60, "fcp": 60, "e3t": 60}
	for _, rise := range []float64{0.1, 3} {
		res := syntheticMeasured(40, good)
		for i := range res.Runs {
			if r := &res.Runs[i]; r.Method == "sp" {
				c := r.Curves["cramped_room/episodic_return"]
				y := slices.Clone(c.Y)
				for k := range y {
					y[k] = 500*(1-math.Exp(-float64(k)/2)) + rise*float64(k) + 0.01*float64(r.Seed)
				}
				r.Curves["cramped_room/episodic_return"] = exp.Curve{X: c.X, Y: y}
			}
		}
		j := exptest.Judge(t, e, res)
		check := exptest.RoomCheck(t, j.Room, climbName("cramped_room", "sp"))
		claim := exptest.ClaimWithPrefix(t, j.Claims, "cramped_room: E3T beats SP")
		// The last 4 of 20 points span 3 steps of x: a rise of 3 per point climbs 9 > 5; 0.1 climbs 0.3.
		if wantOK := rise < 1; check.OK != wantOK || (claim.Verdict() == exp.Untestable) == wantOK {
			t.Errorf("rise %v per point: climb check %v (%s), claim %s", rise, check.OK, check.ValueText(), claim.VerdictText())
		}
	}
}

package e3t

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// ReachCost interpolates the first crossing of the target; ReturnAt a curve's value at a cost,
// holding its first value before it starts and its last after it ends.
func TestReachCostAndReturnAt(t *testing.T) {
	c := exp.Curve{X: []float64{100, 200, 400, 800}, Y: []float64{0, 30, 20, 60}}
	for _, tc := range []struct {
		target, want float64
		ok           bool
	}{{15, 150, true}, {30, 200, true}, {40, 600, true}, {-1, 100, true}, {61, 0, false}} {
		if got, ok := ReachCost(c, tc.target); ok != tc.ok || (ok && math.Abs(got-tc.want) > 1e-9) {
			t.Errorf("ReachCost(%v) = %v, %v; want %v, %v", tc.target, got, ok, tc.want, tc.ok)
		}
	}
	for x, want := range map[float64]float64{50: 0, 100: 0, 150: 15, 300: 25, 800: 60, 900: 60} {
		if got := ReturnAt(c, x); math.Abs(got-want) > 1e-9 {
			t.Errorf("ReturnAt(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsNaN(ReturnAt(exp.Curve{}, 1)) {
		t.Error("ReturnAt of an empty curve must be NaN")
	}
}

// syntheticMeasured is a one-layout result of the protocol of 2026-12-07: every method settled and
// cooking, E3T's snapshots scored along its CPU seconds (reaching 60 at 400 s), FCP's final pool
// return fcpFinal with a total cost of 2000 CPU seconds (1500 of them its population's), and the
// held-out agents' self-play returns selfPlay by family.
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
			r.Final[l+"/cpu_seconds"] = 400
			r.Curves[l+"/pool_by_cpu"] = exp.Curve{X: []float64{0, 100, 200, 400}, Y: []float64{0, 20, 40, 60}}
			r.Curves[l+"/pool_by_steps"] = exp.Curve{X: []float64{0, 1.2e6, 2.4e6, 4.8e6}, Y: []float64{0, 20, 40, 60}}
		case "fcp":
			r.Final[l+"/cpu_seconds"], r.Final[l+"/offset_cpu"] = 2000, 1500
			r.Curves[l+"/pool_by_cpu"] = exp.Curve{X: []float64{1500, 1750, 2000}, Y: []float64{5, fcpFinal / 2, fcpFinal}}
			r.Curves[l+"/pool_by_steps"] = exp.Curve{X: []float64{6 * 4.8e6, 6.5 * 4.8e6, 7 * 4.8e6}, Y: []float64{5, fcpFinal / 2, fcpFinal}}
		}
	}
	return res
}

// The cost claim reads f from the curves where E3T reaches FCP's final return (FCP at 40: E3T's
// curve crosses it at 200 of FCP's 2000 CPU seconds, f = 0.1), and reads the two at matched cost
// where it never does (FCP at 70: at E3T's 400 CPU seconds FCP has only its untrained best
// response, 5; E3T's 60 − 5 = +55).
func TestCostClaimFromCurves(t *testing.T) {
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]float64{"sp": 60, "fcp": 60, "e3t": 60}
	c := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, syntheticMeasured(40, good)).Claims, "cramped_room: … at a fraction of its training cost (E3T's snapshots")
	if math.Abs(c.Stat.Mean-0.1) > 1e-9 || c.Verdict() != exp.Holds || c.Headline != "e3t-2" || !strings.Contains(c.Context, "environment steps") || !strings.Contains(c.Context, "at matched cost") {
		t.Errorf("f claim: mean %v, %s, headline %q, context %q", c.Stat.Mean, c.VerdictText(), c.Headline, c.Context)
	}
	m := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, syntheticMeasured(70, good)).Claims, "cramped_room: … E3T against FCP at matched cost")
	if m.Kind != exp.KindNonInferior || m.Headline != "e3t-2" || math.Abs(m.Stat.Mean-(60.6-5)) > 0.5 || !strings.Contains(m.Context, "never reached") || !hasNote(m, "untrained best response") {
		t.Errorf("matched-cost claim: kind %q headline %q mean %v context %q notes %v", m.Kind, m.Headline, m.Stat.Mean, m.Context, m.Notes)
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
	}
}

package spo

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/pref"
)

// On the committed result every claim's checks exist, every check has a finite value on every
// seed, and every claim but the first two names at least one.
func TestRoomCommitted(t *testing.T) {
	res, e := exptest.Committed(t, "spo")
	j := exptest.Judge(t, e, res)
	for _, r := range j.Room {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || len(r.Seeds) != len(res.Seeds) {
			t.Errorf("room check %q: value %v on seeds %v (%s)", r.Name, r.Value, r.Seeds, r.Missing)
		}
	}
	for i, c := range j.Claims {
		if i >= 2 && len(c.Room) == 0 {
			t.Errorf("claim %q names no room check", c.Text)
		}
	}
}

// The forgetting share and the offset bound equal a recomputation from the raw metrics.json.
func TestRoomRecomputedFromRaw(t *testing.T) {
	res, e := exptest.Committed(t, "spo")
	raw, err := os.ReadFile(filepath.Join(exptest.CommittedDir(t, "spo"), exp.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Method string                              `json:"method"`
			Seed   uint64                              `json:"seed"`
			Final  map[string]float64                  `json:"final"`
			Curves map[string]struct{ X, Y []float64 } `json:"curves"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	hs := map[string]map[uint64]float64{}
	loss1 := map[string]map[uint64]float64{}
	margin := map[uint64]float64{}
	for _, r := range doc.Runs {
		if hs[r.Method] == nil {
			hs[r.Method], loss1[r.Method] = map[uint64]float64{}, map[uint64]float64{}
		}
		hs[r.Method][r.Seed] = r.Final["helpful_safe"]
		if c, ok := r.Curves["round2/loss"]; ok {
			loss1[r.Method][r.Seed] = c.Y[0]
		}
		if c, ok := r.Curves["round2/rewards/margins"]; ok && r.Method == "seq-dpo" {
			tail := c.Y[len(c.Y)-30:] // the last 20 % of 150 steps
			s := 0.0
			for _, y := range tail {
				s += y
			}
			margin[r.Seed] = s / float64(len(tail))
		}
	}
	j := exptest.Judge(t, e, res)
	forget, offset := exptest.RoomCheck(t, j.Room, roomForget), exptest.RoomCheck(t, j.Room, roomOffset)
	for i, seed := range forget.Seeds {
		want := 1 - (hs["seq-dpo"][seed]-hs["sft"][seed])/(hs["dpo-1"][seed]-hs["sft"][seed])
		if math.Abs(forget.PerSeed[i]-want) > 1e-12 {
			t.Errorf("seed %d: %s %v, recomputed %v", seed, roomForget, forget.PerSeed[i], want)
		}
	}
	for i, seed := range offset.Seeds {
		want := (loss1["spo"][seed] + loss1["spo-flip"][seed] - 2*math.Ln2) / margin[seed]
		if math.Abs(offset.PerSeed[i]-want) > 1e-9 {
			t.Errorf("seed %d: %s %v, recomputed %v", seed, roomOffset, offset.PerSeed[i], want)
		}
	}
}

// The committed result leaves SPO's keep-round-1 claims untestable (naming the failed checks); a
// result where naive DPO forgets all of round 1's safe gain and the offset is small makes them
// testable again, and the recorded offset is read in place of the bound.
func TestRoomTurnsClaimsUntestable(t *testing.T) {
	res, e := exptest.Committed(t, "spo")
	j := exptest.Judge(t, e, res)
	c := exptest.ClaimWithPrefix(t, j.Claims, "SPO keeps more of dimension 1")
	if c.Verdict() != exp.Untestable || !slices.Contains(c.Untestable, roomForget) {
		t.Fatalf("committed: %q reads %q (fails %v)", c.Text, c.Verdict(), c.Untestable)
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, "sign diagnostic"); len(c.Untestable) != 0 {
		t.Fatalf("sign diagnostic fails %v", c.Untestable)
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		switch r.Method {
		case "seq-dpo":
			s, _ := res.Final("sft", "helpful_safe", r.Seed)
			r.Final["helpful_safe"] = s // everything round 1 gained is lost
		case "spo":
			m, _ := FinalMargin(res, "seq-dpo", r.Seed)
			r.Final[metricOffset] = 0.25 * m
		}
	}
	j = exptest.Judge(t, e, res)
	if f := exptest.RoomCheck(t, j.Room, roomForget); !f.OK || math.Abs(f.Value-1) > 1e-12 {
		t.Fatalf("full forgetting: %+v", f)
	}
	if o := exptest.RoomCheck(t, j.Room, roomOffset); !o.OK || math.Abs(o.Value-0.25) > 1e-12 {
		t.Fatalf("recorded offset a quarter of the margin: %+v", o)
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, "SPO keeps more of dimension 1"); len(c.Untestable) != 0 {
		t.Fatalf("still fails %v", c.Untestable)
	}
}

// OffsetLowerBound brackets the mean |offset| from the first-step losses of SPO and its flip:
// mean |x| − 2 ln 2 ≤ bound ≤ mean |x|.
func TestOffsetLowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		scale := 0.1 + 5*r.Float64()
		var lp, lf, abs float64
		const n = 64
		for b := 0; b < n; b++ {
			x := scale * r.NormFloat64()
			lp += pref.LossValue(0.2, 0, x) / n // softplus(x): the policy equals its reference
			lf += pref.LossValue(0.2, 0, -x) / n
			abs += math.Abs(x) / n
		}
		curve := func(l float64) map[string]exp.Curve {
			return map[string]exp.Curve{"round2/loss": {X: []float64{1, 2}, Y: []float64{l, 0}}, "round2/rewards/margins": {X: []float64{1, 2}, Y: []float64{0, 1}}}
		}
		res := &exp.Result{Seeds: []uint64{1}, Runs: []exp.Run{{Method: "spo", Seed: 1, Curves: curve(lp)}, {Method: "spo-flip", Seed: 1, Curves: curve(lf)}}}
		got, ok := OffsetLowerBound(res, 1)
		if !ok || got > abs+1e-9 || got < abs-2*math.Ln2-1e-9 {
			t.Fatalf("scale %.2f: bound %v for mean |offset| %v", scale, got, abs)
		}
	}
	// A first step whose margin is not 0 (the policy moved before the loss was taken) gives no bound.
	res := &exp.Result{Seeds: []uint64{1}, Runs: []exp.Run{
		{Method: "spo", Seed: 1, Curves: map[string]exp.Curve{"round2/loss": {X: []float64{1}, Y: []float64{1}}, "round2/rewards/margins": {X: []float64{1}, Y: []float64{0.3}}}},
		{Method: "spo-flip", Seed: 1, Curves: map[string]exp.Curve{"round2/loss": {X: []float64{1}, Y: []float64{1}}, "round2/rewards/margins": {X: []float64{1}, Y: []float64{0}}}},
	}}
	if _, ok := OffsetLowerBound(res, 1); ok {
		t.Fatal("bound from a first step with a nonzero margin")
	}
}

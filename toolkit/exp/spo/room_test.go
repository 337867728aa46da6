package spo

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// On the committed result (the protocol of 2026-12-06: constant-rate probes on 2 seeds, parts on
// 5) every claim's checks exist, every check reads its kind's statistic and has a finite value on
// the seeds it reads — the probe checks on the probe seeds, the parts' checks on the parts' seeds,
// the others on every seed — and every claim but the first two names at least one check.
func TestRoomCommitted(t *testing.T) {
	res, e := exptest.Committed(t, "spo")
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	j := exptest.Judge(t, e, res)
	exptest.Stats(t, j.Room)
	for _, r := range j.Room {
		want := len(res.Seeds)
		switch {
		case r.Stat == exp.StatCount && (r.Name == roomConverged || r.Name == roomSettled || r.Name == roomReached):
			want = cfg.ProbeSeeds
		case r.Name != roomGain && r.Name != roomForget && r.Name != roomOffset && r.Name != roomHeadroom2 && r.Name != roomOutliers && r.Name != roomAgree:
			want = cfg.PartSeeds
		}
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || len(r.Seeds) != want {
			t.Errorf("room check %q: value %v on seeds %v, want %d seeds (%s)", r.Name, r.Value, r.Seeds, want, r.Missing)
		}
	}
	for i, c := range j.Claims {
		if i >= 2 && len(c.Room) == 0 {
			t.Errorf("claim %q names no room check", c.Text)
		}
	}
}

// The forgetting share and the offset ratio equal a recomputation from the raw metrics.json.
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
	offset := map[uint64]float64{}
	margin := map[uint64]float64{}
	for _, r := range doc.Runs {
		if hs[r.Method] == nil {
			hs[r.Method] = map[uint64]float64{}
		}
		hs[r.Method][r.Seed] = r.Final["helpful_safe"]
		if r.Method == "spo" {
			offset[r.Seed] = r.Final[metricOffset]
		}
		if c, ok := r.Curves["round2/rewards/margins"]; ok && r.Method == "seq-dpo" {
			tail := c.Y[len(c.Y)-int(math.Ceil(MarginTail*float64(len(c.Y)))):]
			s := 0.0
			for _, y := range tail {
				s += y
			}
			margin[r.Seed] = s / float64(len(tail))
		}
	}
	j := exptest.Judge(t, e, res)
	forget, off := exptest.RoomCheck(t, j.Room, roomForget), exptest.RoomCheck(t, j.Room, roomOffset)
	for i, seed := range forget.Seeds {
		want := 1 - (hs["seq-dpo"][seed]-hs["sft"][seed])/(hs["dpo-1"][seed]-hs["sft"][seed])
		if math.Abs(forget.PerSeed[i]-want) > 1e-12 {
			t.Errorf("seed %d: %s %v, recomputed %v", seed, roomForget, forget.PerSeed[i], want)
		}
	}
	for i, seed := range off.Seeds {
		if want := offset[seed] / margin[seed]; math.Abs(off.PerSeed[i]-want) > 1e-9 {
			t.Errorf("seed %d: %s %v, recomputed %v", seed, roomOffset, off.PerSeed[i], want)
		}
	}
}

// A result where naive DPO keeps all of round 1's safe gain leaves SPO's matched claims untestable
// (naming the failed check); one where it loses all of it and SPO's offset is a quarter of DPO's
// margin does not.
func TestRoomTurnsClaimsUntestable(t *testing.T) {
	res, e := exptest.Committed(t, "spo")
	set := func(forgetAll bool) {
		for i := range res.Runs {
			r := &res.Runs[i]
			switch r.Method {
			case "seq-dpo":
				src := "dpo-1" // keeps everything round 1 gained
				if forgetAll {
					src = "sft"
				}
				r.Final["helpful_safe"], _ = res.Final(src, "helpful_safe", r.Seed)
			case "spo":
				m, _ := FinalMargin(res, "seq-dpo", r.Seed)
				r.Final[metricOffset] = 0.25 * m
			}
		}
	}
	const text = "… and more of its safe part, at matched"
	set(false)
	j := exptest.Judge(t, e, res)
	if c := exptest.ClaimWithPrefix(t, j.Claims, text); c.Verdict() != exp.Untestable || !slices.Contains(c.Untestable, roomForget) {
		t.Fatalf("no forgetting: %q reads %q (fails %v)", c.Text, c.Verdict(), c.Untestable)
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, "round 1 (DPO on dimension 1) raises"); len(c.Untestable) != 0 {
		t.Fatalf("round 1's claim fails %v", c.Untestable)
	}
	set(true)
	j = exptest.Judge(t, e, res)
	if f := exptest.RoomCheck(t, j.Room, roomForget); !f.OK || math.Abs(f.Value-1) > 1e-12 {
		t.Fatalf("full forgetting: %+v", f)
	}
	if o := exptest.RoomCheck(t, j.Room, roomOffset); !o.OK || math.Abs(o.Value-0.25) > 1e-12 {
		t.Fatalf("recorded offset a quarter of the margin: %+v", o)
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, text); slices.Contains(c.Untestable, roomForget) || slices.Contains(c.Untestable, roomOffset) {
		t.Fatalf("still fails %v", c.Untestable)
	}
}

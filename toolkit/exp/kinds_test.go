package exp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// seedVals is a PerSeed over seeds 1..n from a slice.
func seedVals(xs ...float64) PerSeed {
	return func(seed uint64) (float64, bool) {
		if int(seed) > len(xs) {
			return 0, false
		}
		return xs[seed-1], true
	}
}

func TestRoomKinds(t *testing.T) {
	seeds := SeedList(5)
	for _, c := range []struct {
		name string
		room RoomCheck
		stat string
		ok   bool
	}{
		// Achieves: every seed above 0 by a clear margin passes; a mean above 0 with one seed far
		// below does not (the interval's lower end reaches below 0).
		{"achieves", RoomAchieves(seeds, "a", Positive, "", "", seedVals(0.3, 0.35, 0.32, 0.31, 0.34)), StatCILow, true},
		{"achieves, wide", RoomAchieves(seeds, "a", Positive, "", "", seedVals(0.3, 0.35, -0.4, 0.31, 0.34)), StatCILow, false},
		{"achieves, one seed", RoomAchieves(seeds[:1], "a", Positive, "", "", seedVals(0.3)), StatCILow, false},
		// Settled: signed changes that cancel pass; a common drift fails.
		{"settled", RoomSettled(seeds, "s", 0.01, "", "", seedVals(0.02, -0.02, 0.01, -0.015, 0.004)), StatTailMean, true},
		{"settled, drifting", RoomSettled(seeds, "s", 0.01, "", "", seedVals(0.02, 0.03, 0.01, 0.015, 0.004)), StatTailMean, false},
		{"headroom", RoomOn(seeds, "h", AtMost(0.9), "", "", seedVals(0.8, 0.85, 0.7, 0.95, 0.8)), StatMean, true},
		{"headroom, at the ceiling", RoomOn(seeds, "h", AtMost(0.9), "", "", seedVals(0.95, 0.97, 0.92, 0.9, 0.99)), StatMean, false},
		{"value", Room("v", 0.3, AtLeast(0.1), ""), StatValue, true},
		{"value, low", Room("v", 0.03, AtLeast(0.1), ""), StatValue, false},
		{"count", RoomCount(seeds, "c", 3, "", "", func(s uint64) (bool, bool) { return s <= 3, true }), StatCount, true},
		{"count, short", RoomCount(seeds, "c", 4, "", "", func(s uint64) (bool, bool) { return s <= 3, true }), StatCount, false},
		{"outliers, none", RoomOutliers(seeds, "o", "", "", seedVals(0.6, 0.62, 0.58, 0.61, 0.63)), StatModifiedZ, true},
		{"outliers, seed 4", RoomOutliers(seeds, "o", "", "", seedVals(0.6, 0.62, 0.58, 0.84, 0.61)), StatModifiedZ, false},
		{"missing", RoomOn(seeds, "m", Positive, "", "no curve", func(uint64) (float64, bool) { return 0, false }), StatMean, false},
	} {
		if c.room.Stat != c.stat || c.room.OK != c.ok {
			t.Errorf("%s: stat %q ok %v (value %v), want %q %v", c.name, c.room.Stat, c.room.OK, c.room.Value, c.stat, c.ok)
		}
		if c.stat != StatValue && c.name != "missing" && len(c.room.PerSeed) == 0 {
			t.Errorf("%s: no per-seed values", c.name)
		}
	}
	o := RoomOutliers(seeds, "o", "", "", seedVals(0.6, 0.62, 0.58, 0.84, 0.61))
	if len(o.Flagged) != 1 || o.Flagged[0] != 4 || !strings.Contains(o.ValueText(), "[4] flagged") {
		t.Errorf("outlier check flagged %v (%s), want seed 4", o.Flagged, o.ValueText())
	}
	if c := RoomCount(seeds, "c", 3, "", "", func(s uint64) (bool, bool) { return s <= 3, true }); c.ValueText() != "3 of 5 seeds" {
		t.Errorf("count text %q", c.ValueText())
	}
	// The statistic survives metrics.json.
	b, _ := json.Marshal(o)
	var back RoomCheck
	if err := json.Unmarshal(b, &back); err != nil || back.Stat != StatModifiedZ || len(back.Flagged) != 1 {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestModifiedZ(t *testing.T) {
	z := ModifiedZ([]float64{0.6, 0.62, 0.58, 0.84, 0.61, 0.63, 0.59, 0.6})
	if z[3] < OutlierZ {
		t.Errorf("z of the 0.84 seed %v, want above %v", z[3], OutlierZ)
	}
	for i, v := range z {
		if i != 3 && math.Abs(v) > OutlierZ {
			t.Errorf("seed %d flagged (z %v)", i+1, v)
		}
	}
	// More than half equal: the MAD is 0 and the mean absolute deviation takes over.
	z = ModifiedZ([]float64{1, 1, 1, 1, 5})
	if z[4] <= OutlierZ || z[0] != 0 {
		t.Errorf("MAD 0: %v", z)
	}
	if z := ModifiedZ([]float64{2, 2, 2}); z[0] != 0 || z[2] != 0 {
		t.Errorf("constant: %v", z)
	}
}

func TestJudgeOutliers(t *testing.T) {
	res := nullResult([]string{"a", "b"}, 8, func(m string, s uint64) map[string]float64 {
		v := map[string]float64{"acc": 0.6 + 0.01*float64(s%3)}
		if m == "a" {
			v["acc"] += 0.02
			if s == 5 {
				v["acc"] -= 0.3 // a regime of its own
			}
		}
		return v
	}, nil)
	c := res.Check("a above b", "acc", Positive, res.Diff("a", "acc", "b", "acc")).MarkOutliers(nil)
	if len(c.Outliers) != 1 || c.Outliers[0] != 5 || c.Without == nil || c.Without.N != 7 {
		t.Fatalf("outliers %v, without %+v", c.Outliers, c.Without)
	}
	if c.Verdict() != NotSignificant {
		t.Errorf("with seed 5: %s", c.Verdict())
	}
	if d := strings.Join(c.Details(), "; "); !strings.Contains(d, "without outlier seed(s) [5]") || !strings.Contains(d, "→ holds") {
		t.Errorf("details %q: want the reading without seed 5, which holds", d)
	}
}

func TestComparableAndMDE(t *testing.T) {
	c := CheckOn(SeedList(6), "comparable", "acc(a) − acc(b)", Positive, seedVals(-0.01, 0.005, -0.004, 0.002, -0.006, 0.001))
	if c.Verdict() != NotSignificant {
		t.Fatalf("superiority: %s", c.Verdict())
	}
	ni := c.Comparable(0.02, "a tenth of the gain")
	if ni.Verdict() != Holds || ni.Kind != KindNonInferior || !strings.Contains(ni.VerdictText(), "margin 0.02") {
		t.Errorf("non-inferiority at 0.02: %s", ni.VerdictText())
	}
	if tight := c.Comparable(0.005, ""); tight.Verdict() == Holds {
		t.Errorf("non-inferiority at 0.005 held: %s", tight.Interval())
	}
	// MDE: (t.975 + t.80, df 5) × sd / √6.
	want := (2.5706 + 0.9195) * c.Stat.Std / math.Sqrt(6)
	if math.Abs(c.MDE()-want) > 1e-3*want {
		t.Errorf("MDE %v, want %v", c.MDE(), want)
	}
	if !strings.Contains(strings.Join(c.Details(), ";"), "minimum detectable effect at n = 6") {
		t.Errorf("details lack the MDE: %v", c.Details())
	}
}

func TestMatchedCombine(t *testing.T) {
	holds := CheckOn(SeedList(5), "x", "at matched accuracy", Positive, seedVals(0.1, 0.12, 0.11, 0.09, 0.1))
	ns := CheckOn(SeedList(5), "x", "at matched KL", Positive, seedVals(0.1, -0.12, 0.11, -0.09, 0.01))
	neg := CheckOn(SeedList(5), "x", "at matched KL", Positive, seedVals(-0.1, -0.12, -0.11, -0.09, -0.1))
	unm := ns
	unm.Unmeasured = "path not measured there"
	for _, c := range []struct {
		parts []Claim
		want  string
	}{
		{[]Claim{holds, holds}, Holds},
		{[]Claim{holds, ns}, Mixed},
		{[]Claim{holds, neg}, Mixed},
		{[]Claim{ns, ns}, NotSignificant},
		{[]Claim{neg, neg}, DoesNotHold},
		{[]Claim{ns, neg}, NotSignificant},
		{[]Claim{holds, unm}, Mixed},
		{[]Claim{ns, unm}, NotSignificant},
		{[]Claim{unm, unm}, Untestable},
	} {
		m := Matched("a above b", "matched", "+0.04 at the fixed step", c.parts...)
		if m.Verdict() != c.want {
			t.Errorf("%v: %s, want %s", c.parts, m.Verdict(), c.want)
		}
	}
	m := Matched("a above b", "matched", "+0.04 at the fixed step", holds, ns)
	if !strings.Contains(m.Interval(), "at matched accuracy: +0.104") || !strings.Contains(m.VerdictText(), "mixed (holds / not significant)") {
		t.Errorf("matched text %q / %q", m.Interval(), m.VerdictText())
	}
	// Room checks reach the readings.
	m.Parts[1] = m.Parts[1].Needs("room")
	out, err := ApplyRoom([]Claim{m}, []RoomCheck{Room("room", 0, Positive, "")})
	if err != nil || out[0].Parts[1].Verdict() != Untestable {
		t.Errorf("room on a reading: %v %v", out[0].Parts[1].Verdict(), err)
	}
}

// A conjunction ("beats both") is an intersection-union test: it holds only when each reading
// holds, and does not hold when any reading does not.
func TestAllOf(t *testing.T) {
	holds := CheckOn(SeedList(5), "x", "a − b", Positive, seedVals(0.1, 0.12, 0.11, 0.09, 0.1))
	ns := CheckOn(SeedList(5), "x", "a − c", Positive, seedVals(0.1, -0.12, 0.11, -0.09, 0.01))
	neg := CheckOn(SeedList(5), "x", "a − c", Positive, seedVals(-0.1, -0.12, -0.11, -0.09, -0.1))
	for _, c := range []struct {
		parts []Claim
		want  string
	}{
		{[]Claim{holds, holds}, Holds},
		{[]Claim{holds, ns}, NotSignificant},
		{[]Claim{holds, neg}, DoesNotHold},
		{[]Claim{ns, neg}, DoesNotHold},
	} {
		if v := AllOf("a beats b and c", "each", c.parts...).Verdict(); v != c.want {
			t.Errorf("%v: %s, want %s", c.parts, v, c.want)
		}
	}
	if v := AllOf("a beats b and c", "each", holds, ns).VerdictText(); v != "not significant (holds / not significant)" {
		t.Errorf("verdict text %q", v)
	}
}

func TestChooseFront(t *testing.T) {
	res := nullResult([]string{"m", "b1", "b2", "b3"}, 8, func(m string, s uint64) map[string]float64 {
		v := map[string]float64{"b1": 0.5, "b2": 0.6, "b3": 0.55, "m": 0.7}[m]
		if m == "b3" && s > 4 {
			v = 0.9 // b3 is best on the comparison seeds only: it must not be chosen
		}
		return map[string]float64{"score": v}
	}, nil)
	f := res.FrontOf([]string{"b1", "b2", "b3"}, "score", false)
	if f.Chosen != "b2" || len(f.ChooseSeeds) != 4 || f.CompareSeeds[0] != 5 {
		t.Errorf("front %+v", f)
	}
	if !strings.Contains(f.Note(), "b2 chosen") || !strings.Contains(f.Note(), "compared on seeds [5 6 7 8]") {
		t.Errorf("note %q", f.Note())
	}
	if low := res.FrontOf([]string{"b1", "b2"}, "score", true); low.Chosen != "b1" {
		t.Errorf("lower is better: chose %s", low.Chosen)
	}
	few := ChooseFront(SeedList(5), []string{"b1"}, "score", func(string) PerSeed { return seedVals(1, 2, 3, 4, 5) })
	if len(few.CompareSeeds) != 5 || len(few.ChooseSeeds) != 5 {
		t.Errorf("5 seeds: choose %v compare %v", few.ChooseSeeds, few.CompareSeeds)
	}
}

func TestMatchedByStep(t *testing.T) {
	// a's KL rises twice as fast as b's; both end their runs; the common KL is b's end (0.3), which a
	// reaches at step 300, where its AUC is 0.85; b's AUC at its end is 0.8.
	mk := func(rate, aucEnd float64) map[string]Curve {
		kl, auc := Curve{}, Curve{}
		for s := 1; s <= 600; s++ {
			kl.X, kl.Y = append(kl.X, float64(s)), append(kl.Y, math.Min(rate*float64(s), 0.6))
		}
		for s := 0; s <= 600; s += 100 {
			auc.X, auc.Y = append(auc.X, float64(s)), append(auc.Y, 0.9-(0.9-aucEnd)*float64(s)/600)
		}
		return map[string]Curve{"kl": kl, "auc": auc}
	}
	res := nullResult([]string{"a", "b"}, 3, nil, func(m string, _ uint64) map[string]Curve {
		if m == "a" {
			return mk(0.001, 0.8)
		}
		return mk(0.0005, 0.8)
	})
	c := res.Matched("a at b's KL", "auc", Positive, Match{A: "a", B: "b", X: "kl", Y: "auc", ByStep: true, Smooth: 0})
	if len(c.Diffs) != 3 || math.Abs(c.Diffs[0]-(0.85-0.8)) > 1e-9 {
		t.Errorf("diffs %v, want 0.05 each", c.Diffs)
	}
	// A common point inside the first evaluation interval reads "path not measured there".
	res = nullResult([]string{"a", "b"}, 3, nil, func(m string, _ uint64) map[string]Curve {
		if m == "a" {
			return mk(0.001, 0.8)
		}
		return mk(0.00008, 0.8) // ends at 0.048: a reaches it at step 48, before its first evaluation
	})
	c = res.Matched("a at b's KL", "auc", Positive, Match{A: "a", B: "b", X: "kl", Y: "auc", ByStep: true})
	if c.Verdict() != Untestable || !strings.Contains(c.VerdictText(), "path not measured there") {
		t.Errorf("first-interval match: %s", c.VerdictText())
	}
}

func TestHeadlines(t *testing.T) {
	hs, err := Headlines()
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 21 {
		t.Errorf("%d headline claims, want the papers' 21", len(hs))
	}
	seen := map[string]bool{}
	for _, h := range hs {
		if seen[h.ID] || h.Claim == "" || h.Mapping == "" {
			t.Errorf("headline %+v: duplicate or incomplete", h)
		}
		seen[h.ID] = true
	}
	if _, err := parseHeadlines("id\tpaper\n"); err == nil || !strings.Contains(err.Error(), "headlines.tsv:1") {
		t.Errorf("a short line: %v", err)
	}
	// A result whose claims tag no headline reads "no claim … tests it"; a missing one "not run".
	res := nullResult([]string{"a"}, 2, nil, nil)
	res.Experiment = "capo"
	rows, err := Verdicts(map[string]*Result{})
	if err != nil || rows[0].Cells[0].Verdict != NotRun {
		t.Errorf("no results: %+v %v", rows[0], err)
	}
	md := VerdictsMarkdown(rows, 0)
	if !strings.HasPrefix(md, VerdictsBegin) || !strings.HasSuffix(md, VerdictsEnd) || strings.Count(md, "\n| capo-") != 5 {
		t.Errorf("markdown:\n%s", md)
	}
	if _, err := ReplaceBlock("no markers", VerdictsBegin, VerdictsEnd, md); err == nil {
		t.Error("a text without markers was rewritten")
	}
}

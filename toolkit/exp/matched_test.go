package exp

import (
	"math"
	"strings"
	"testing"
)

func TestInterpAt(t *testing.T) {
	xs := []float64{0.1, 0.3, 0.5, 0.4, 0.6}
	ys := []float64{0.9, 0.8, 0.6, 0.7, 0.5}
	for _, c := range []struct {
		x, want float64
		ok      bool
	}{
		{0.2, 0.85, true},  // inside the first segment
		{0.45, 0.65, true}, // first crossing (0.3→0.5), not the later 0.5→0.4 or 0.4→0.6
		{0.6, 0.5, true},   // the last point itself
		{0.1, 0.9, true},   // the first point itself
		{0.7, 0, false},    // beyond the path
		{0.05, 0, false},   // before it
	} {
		y, ok := InterpAt(xs, ys, c.x)
		if ok != c.ok || (ok && math.Abs(y-c.want) > 1e-12) {
			t.Errorf("InterpAt(%v) = %v, %v; want %v, %v", c.x, y, ok, c.want, c.ok)
		}
	}
	if _, ok := InterpAt(nil, nil, 0); ok {
		t.Error("empty path answered")
	}
}

// matchedResult: per seed, method "b" ends at accuracy 0.5 with AUC 0.7; method "a" rises in
// accuracy from 0.2 to reach (seeds 1–3) or not reach (seed 4) 0.5, its AUC falling as it does.
func matchedResult() *Result {
	res := &Result{Experiment: "m", Seeds: []uint64{1, 2, 3, 4, 5}}
	steps := []float64{0, 100, 200, 300}
	for _, s := range res.Seeds {
		accA := []float64{0.2, 0.35, 0.55, 0.6}
		if s == 4 {
			accA = []float64{0.2, 0.3, 0.35, 0.4} // never reaches b's 0.5
		}
		aucA := []float64{0.9, 0.85, 0.75 + 0.01*float64(s), 0.7}
		run := Run{Method: "a", Seed: s, Curves: map[string]Curve{"acc": {X: steps, Y: accA}, "auc": {X: steps, Y: aucA}}}
		res.Runs = append(res.Runs, run)
		if s == 5 {
			continue // b has no run on seed 5: the seed is missing, not a non-overlap
		}
		res.Runs = append(res.Runs, Run{Method: "b", Seed: s, Curves: map[string]Curve{
			"acc": {X: steps, Y: []float64{0.2, 0.4, 0.45, 0.5}}, "auc": {X: steps, Y: []float64{0.9, 0.8, 0.75, 0.7}}}})
	}
	return res
}

func TestMatchedOperatingPoint(t *testing.T) {
	res := matchedResult()
	c := res.Matched("a's AUC at b's accuracy is higher", "AUC(a) − AUC(b) at b's accuracy", Positive, Match{A: "a", B: "b", X: "acc", Y: "auc"})
	// Seeds 1–3: a crosses 0.5 between steps 100 (0.35) and 200 (0.55): t = 0.75, AUC 0.85 + 0.75·(0.75+0.01s − 0.85).
	// Seed 4: a ends at 0.4, so both are read at 0.4: a's last point (0.7), b's step 100 (0.8).
	if len(c.Diffs) != 4 {
		t.Fatalf("%d paired seeds, want 4 (seed 5 lacks b): %v", len(c.Diffs), c.Diffs)
	}
	for i, d := range c.Diffs[:3] {
		s := float64(i + 1)
		want := 0.85 + 0.75*(0.75+0.01*s-0.85) - 0.7
		if math.Abs(d-want) > 1e-12 {
			t.Errorf("seed %d: %v, want %v", i+1, d, want)
		}
	}
	if math.Abs(c.Diffs[3]-(-0.1)) > 1e-12 {
		t.Errorf("seed 4: %v, want -0.1", c.Diffs[3])
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "≥ 2 evaluated points") {
		t.Errorf("notes %q: want one counting the evaluated points", c.Notes)
	}
	if c.Verdict() != NotSignificant {
		t.Errorf("verdict %q: %s", c.Verdict(), c)
	}
	// B's curves under other names (BX, BY) give the same comparison.
	for _, run := range res.RunsOf("b") {
		res.Runs = append(res.Runs, Run{Method: "c", Seed: run.Seed, Curves: map[string]Curve{"c/acc": run.Curves["acc"], "c/auc": run.Curves["auc"]}})
	}
	o := res.Matched("x", "m", Positive, Match{A: "a", B: "c", X: "acc", Y: "auc", BX: "c/acc", BY: "c/auc"})
	if len(o.Diffs) != 4 || o.Diffs[0] != c.Diffs[0] || o.Diffs[3] != c.Diffs[3] {
		t.Errorf("renamed B curves: diffs %v, want %v", o.Diffs, c.Diffs)
	}
	if _, err := FrontierBy(res, "t", "x", "y", []string{"a", "c"}, func(m string) (string, string) {
		if m == "c" {
			return "c/acc", "c/auc"
		}
		return "acc", "auc"
	}); err != nil {
		t.Error(err)
	}
	// The frontier draws both methods.
	fig, err := Frontier(res, "AUC against accuracy", "accuracy", "AUC", []string{"a", "b"}, "acc", "auc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fig.Render("svg"); err != nil {
		t.Fatal(err)
	}
	if _, err := Frontier(res, "t", "x", "y", []string{"d"}, "acc", "auc"); err == nil {
		t.Error("a frontier of a method with no curves drew")
	}
}

// EnvelopeAt takes the best y at or beyond x, crossings included; Envelope compares two paths
// there, at the furthest x both reach, so a path that dips and recovers is judged by its recovery.
func TestEnvelope(t *testing.T) {
	xs := []float64{-2, -0.5, -0.1, -0.3, -0.05}
	ys := []float64{2, 0.8, 1.0, 1.4, 1.2}
	for _, c := range []struct {
		x, want float64
		ok      bool
	}{
		{-0.2, 1.32, true}, // checkpoints −0.1 (1.0), −0.05 (1.2); crossings 1.2 (−0.1→−0.3) and 1.32 (−0.3→−0.05)
		{-0.05, 1.2, true}, // the last point only
		{-1, 1.4, true},    // every later checkpoint, the best being −0.3's 1.4
		{0, 0, false},      // never reached
	} {
		y, ok := EnvelopeAt(xs, ys, c.x)
		if ok != c.ok || (ok && math.Abs(y-c.want) > 1e-12) {
			t.Errorf("EnvelopeAt(%v) = %v, %v; want %v, %v", c.x, y, ok, c.want, c.ok)
		}
	}
	// b reaches −0.05 but dips to 0.8 on the way; a ends at −0.1 with 1.1: at x* = −0.1 a's best is
	// 1.1 and b's is its recovery (1.4 at −0.3 does not count: −0.3 < −0.1), above its dip.
	res := &Result{Experiment: "e", Seeds: []uint64{1}, Runs: []Run{
		{Method: "a", Seed: 1, Curves: map[string]Curve{"x": {X: []float64{0, 1, 2}, Y: []float64{-2, -0.6, -0.1}}, "y": {X: []float64{0, 1, 2}, Y: []float64{2, 1.5, 1.1}}}},
		{Method: "b", Seed: 1, Curves: map[string]Curve{"x": {X: []float64{0, 1, 2, 3, 4}, Y: xs}, "y": {X: []float64{0, 1, 2, 3, 4}, Y: ys}}},
	}}
	c := res.Matched("a above b", "m", Positive, Match{A: "a", B: "b", X: "x", Y: "y", Envelope: true})
	wantB, _ := EnvelopeAt(xs, ys, -0.1)
	if len(c.Diffs) != 1 || math.Abs(c.Diffs[0]-(1.1-wantB)) > 1e-12 || wantB <= 1.2 {
		t.Errorf("envelope diff %v, want %v (b's best at −0.1: %v)", c.Diffs, 1.1-wantB, wantB)
	}
}

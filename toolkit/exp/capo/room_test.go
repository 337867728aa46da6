package capo

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestRoomOnTheCommittedResult: every claim's needed checks exist (Judge returns no error), every
// claim needs at least one check or is one of the two that need none, and each room check has a
// finite value on the committed run.
func TestRoomOnTheCommittedResult(t *testing.T) {
	res, e := exptest.Committed(t, "capo")
	j := exptest.Judge(t, e, res)
	if len(j.Room) == 0 || len(j.Claims) != len(Claims(res)) {
		t.Fatalf("%d room checks, %d claims", len(j.Room), len(j.Claims))
	}
	seen := map[string]bool{}
	for _, r := range j.Room {
		if seen[r.Name] {
			t.Errorf("room check %s defined twice", r.Name)
		}
		seen[r.Name] = true
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || r.Missing != "" {
			t.Errorf("room check %s: value %v (missing %q) on the committed run", r.Name, r.Value, r.Missing)
		}
		if strings.TrimSpace(r.Why) == "" {
			t.Errorf("room check %s has no why", r.Name)
		}
	}
	for _, c := range j.Claims {
		if len(c.Room) == 0 && !strings.HasPrefix(c.Text, "GRPO raises") {
			t.Errorf("claim %q names no room check", c.Text)
		}
	}
}

// TestRoomTauCheckRecomputed recomputes the τ check from the raw stored finals (the committed run
// predates lpm_gap_median, so the mean gap stands in) and the configuration's τ.
func TestRoomTauCheckRecomputed(t *testing.T) {
	res, _ := exptest.Committed(t, "capo")
	room := Room(res)
	tau := exptest.RoomCheck(t, room, roomTau)
	var sum float64
	for _, run := range res.RunsOf("sft") {
		sum += ConfigFor(exp.Default).RL.Adv.Tau / (run.Final["lpm_correct"] - run.Final["lpm_wrong"])
	}
	want := sum / float64(len(res.RunsOf("sft")))
	if len(tau.PerSeed) != 5 || math.Abs(tau.Value-want) > 1e-12 {
		t.Errorf("tau-vs-lpm-gap %v over %d seeds, recomputed %v", tau.Value, len(tau.PerSeed), want)
	}
	if !strings.Contains(tau.Why, "mean gap") {
		t.Errorf("the committed run has no lpm_gap_median: the why should say the mean gap stands in: %s", tau.Why)
	}
	// The τ ablation runs on its 3 seeds.
	if abl := exptest.RoomCheck(t, room, roomTauAblation); len(abl.Seeds) != 3 || !slices.Equal(abl.Seeds, []uint64{1, 2, 3}) {
		t.Errorf("tau ablation check on seeds %v", abl.Seeds)
	}
	// With the median recorded (from this revision on) the check reads it instead.
	withMedian := *withSFTFinal(res, "lpm_gap_median", 0.4)
	if got := exptest.RoomCheck(t, Room(&withMedian), roomTau); math.Abs(got.Value-0.2/0.4) > 1e-12 || !strings.Contains(got.Why, "lpm_gap_median") {
		t.Errorf("with lpm_gap_median 0.4: value %v, why %s", got.Value, got.Why)
	}
}

// TestRoomBudgetAndReachRecomputed: the budget check equals TailShare of the raw curves, and the
// reach count equals a direct count of the seeds whose path brackets the other's final accuracy.
func TestRoomBudgetAndReachRecomputed(t *testing.T) {
	res, _ := exptest.Committed(t, "capo")
	room := Room(res)
	var sum float64
	for _, run := range res.RunsOf("grpo") {
		sum += exp.TailShare(run.Curves[accCurve], TailFrac)
	}
	if got := exptest.RoomCheck(t, room, budgetCheck("grpo")); math.Abs(got.Value-sum/5) > 1e-12 {
		t.Errorf("budget-grpo %v, recomputed %v", got.Value, sum/5)
	}
	for _, p := range matchedPairs {
		n := 0
		for _, s := range res.Seeds {
			a, ok1 := res.CurveOf(p[0], accCurve, s)
			b, ok2 := res.CurveOf(p[1], accCurve, s)
			if !ok1 || !ok2 {
				continue
			}
			x := b.Y[len(b.Y)-1]
			if lo, hi := slices.Min(a.Y), slices.Max(a.Y); x >= lo && x <= hi {
				n++
			}
		}
		if got := exptest.RoomCheck(t, room, reachCheck(p[0], p[1])); got.Value != float64(n) {
			t.Errorf("%s: %v seeds, counted %d", got.Name, got.Value, n)
		}
	}
}

// TestRoomFailedCheckMakesClaimsUntestable: on a copy of the committed result whose SFT AUC sits at
// 0.95 (above the ceiling), the claims needing sft-auc-below-ceiling read "untestable here" naming
// it, and GRPO's mean@16 gain (which needs nothing) keeps its verdict.
func TestRoomFailedCheckMakesClaimsUntestable(t *testing.T) {
	res, e := exptest.Committed(t, "capo")
	before := exptest.Judge(t, e, res)
	high := *withSFTFinal(res, "auc", 0.95)
	after := exptest.Judge(t, e, &high)
	if r := exptest.RoomCheck(t, after.Room, roomSFTCeiling); r.OK || math.Abs(r.Value-0.95) > 1e-12 {
		t.Fatalf("ceiling check at SFT AUC 0.95: %+v", r)
	}
	n := 0
	for i, c := range after.Claims {
		if slices.Contains(c.Room, roomSFTCeiling) {
			n++
			if c.Verdict() != exp.Untestable || !strings.Contains(c.VerdictText(), roomSFTCeiling) {
				t.Errorf("%q: verdict %q", c.Text, c.VerdictText())
			}
		}
		if c.Text == "GRPO raises accuracy (mean@16)" && c.Verdict() != before.Claims[i].Verdict() {
			t.Errorf("%q changed verdict: %q → %q", c.Text, before.Claims[i].Verdict(), c.Verdict())
		}
	}
	if n == 0 {
		t.Fatal("no claim needs the SFT AUC ceiling")
	}
}

// TestRoomMatchedClaimsAndFrontier: the matched claims measure the seeds the reach checks count,
// noting the others, and the frontier figure draws from the committed result.
func TestRoomMatchedClaimsAndFrontier(t *testing.T) {
	res, _ := exptest.Committed(t, "capo")
	room := Room(res)
	for _, c := range Claims(res) {
		if !strings.Contains(c.Text, "matched") {
			continue
		}
		var reach exp.RoomCheck
		for _, n := range c.Room {
			if strings.Contains(n, "-reaches-") {
				reach = exptest.RoomCheck(t, room, n)
			}
		}
		if float64(len(c.Diffs)) != reach.Value {
			t.Errorf("%q: %d paired seeds, reach check %s counts %v", c.Text, len(c.Diffs), reach.Name, reach.Value)
		}
	}
	f, err := exp.Frontier(res, "t", "x", "y", []string{"grpo", "capo", "capo-gnorm", "capo-tau0.5"}, accCurve, aucCurve)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(t.TempDir(), "frontier_auc_accuracy"); err != nil {
		t.Fatal(err)
	}
}

// TestSettingsFollowOrSayWhy: τ differs from the paper's and says why, pointing at issue 33 (that
// every setting names a field and says why where it differs is checked for all experiments in
// toolkit/exp/all).
func TestSettingsFollowOrSayWhy(t *testing.T) {
	e, err := exp.Lookup("capo")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exp.Settings(e, exp.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Field == "RL.Adv.Tau" && (!r.Differs || !strings.Contains(r.Why, "issue 33")) {
			t.Errorf("τ row %+v", r)
		}
	}
}

// TestRoomGapMedian checks lpmGapMedian on a hand-made set: 2 prompts × 3 samples.
func TestRoomGapMedian(t *testing.T) {
	// prompt 0: samples 0, 2, 4; prompt 1: samples 1, 3, 5.
	lpm := []float64{-0.1, -0.5, -0.3, -0.2, -0.9, -0.4}
	ok := []bool{true, true, false, false, false, true}
	// prompt 0: right {-0.1}, wrong {-0.3, -0.9}: gaps 0.2, 0.8; prompt 1: right {-0.5, -0.4}, wrong {-0.2}: 0.3, 0.2.
	g, has := lpmGapMedian(lpm, ok, 2)
	if !has || math.Abs(g-0.25) > 1e-12 {
		t.Errorf("median gap %v (%v), want 0.25", g, has)
	}
	if _, has := lpmGapMedian([]float64{-1, -2}, []bool{true, true}, 1); has {
		t.Error("a median gap with no wrong answer")
	}
}

// withSFTFinal is a copy of res whose sft runs have final metric key set to v (res is unchanged).
func withSFTFinal(res *exp.Result, key string, v float64) *exp.Result {
	out := *res
	out.Runs = nil
	for _, run := range res.Runs {
		if run.Method == "sft" {
			f := map[string]float64{}
			for k, x := range run.Final {
				f[k] = x
			}
			f[key] = v
			run.Final = f
		}
		out.Runs = append(out.Runs, run)
	}
	return &out
}

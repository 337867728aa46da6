package exp

import (
	"strings"
	"testing"
)

func claimOf(test Test, diffs ...float64) Claim {
	var seeds []uint64
	for i := range diffs {
		seeds = append(seeds, uint64(i+1))
	}
	return CheckOn(seeds, "c", "m", test, func(s uint64) (float64, bool) { return diffs[s-1], true })
}

func TestClaimVerdictsReadThePairedInterval(t *testing.T) {
	for _, c := range []struct {
		name  string
		claim Claim
		want  string
		agree int
	}{
		{"clear gain", claimOf(Positive, 0.30, 0.32, 0.29, 0.31, 0.33), Holds, 5},
		// Every seed agrees, yet three seeds with this spread cannot exclude zero.
		{"3/3 agree but wide", claimOf(Positive, 0.01, 0.30, 0.02), NotSignificant, 3},
		{"clear loss", claimOf(Positive, -0.3, -0.32, -0.29), DoesNotHold, 0},
		{"straddles", claimOf(Negative, -0.1, 0.1, -0.05, 0.08), NotSignificant, 2},
		{"ties", claimOf(AtLeast(0), 0, 0, 0, 0, 0), NoDifference, 5},
		{"ties, strict", claimOf(Positive, 0, 0, 0), NoDifference, 0},
		{"equivalent", claimOf(Within(0.02), 0.001, -0.002, 0.0, 0.003, -0.001), Holds, 5},
		{"not equivalent", claimOf(Within(0.02), 0.1, 0.12, 0.11), DoesNotHold, 0},
		{"constant non-zero", claimOf(Positive, 0.5, 0.5, 0.5), Holds, 3},
		{"one seed", claimOf(Positive, 0.5), OneSeed, 1},
		{"none", claimOf(Positive), NotMeasured, 0},
		{"at most", claimOf(AtMost(0.01), -0.05, -0.04, -0.06), Holds, 3},
	} {
		if got := c.claim.Verdict(); got != c.want || c.claim.Seeds != c.agree {
			t.Errorf("%s: verdict %q (%d seeds agree), want %q (%d); %s", c.name, got, c.claim.Seeds, c.want, c.agree, c.claim)
		}
	}
	h, rows := ClaimsTable([]Claim{claimOf(Positive, 0.30, 0.32, 0.29)})
	if len(rows) != 1 || len(rows[0]) != len(h) || !strings.Contains(rows[0][2], "[+0.") || rows[0][6] != Holds {
		t.Errorf("table %v %v", h, rows)
	}
	// a matched claim has no diffs of its own: the table counts each reading's seeds and shows
	// its notes
	a, b := claimOf(Positive, 0.1, 0.2, 0.15), claimOf(Positive, -0.1, 0.2)
	a.Measure, b.Measure, b.Notes = "at matched KL", "at matched accuracy", []string{"matched points rest on ≥ 3 evaluated points"}
	_, rows = ClaimsTable([]Claim{Matched("m", "matched", "", a, b)})
	if r := rows[0]; r[3] != "3 / 2" || r[4] != "3/3 / 1/2" || !strings.Contains(r[1], "at matched accuracy: matched points rest on ≥ 3") {
		t.Errorf("matched claim's row %q", r)
	}
}

func TestSummaryTableShowsIntervals(t *testing.T) {
	r := &Result{Runs: []Run{
		{Method: "a", Seed: 1, Final: map[string]float64{"x": 1}}, {Method: "a", Seed: 2, Final: map[string]float64{"x": 3}},
		{Method: "b", Seed: 1, Final: map[string]float64{"y": 2}},
	}}
	r.Summarize()
	h, rows := SummaryTable(r, []string{"x", "y"})
	if len(h) != 3 || len(rows) != 2 || rows[0][1] != "2.000 ± 12.706 (n=2)" || rows[0][2] != "—" || rows[1][2] != "2.000 (n=1)" {
		t.Fatalf("%v %v", h, rows)
	}
}

// A claim marked HeadlineIfTestable reads its headline only where its room checks pass: untestable,
// the next claim with the id reads it; testable, it does; alone, it reads it whatever its verdict.
func TestHeadlineClaimIfTestable(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	f := func(uint64) (float64, bool) { return 1, true }
	smax := CheckOn(seeds, "on the paper's benchmark", "m", Positive, f).HeadlineIfTestable("x-1")
	push := CheckOn(seeds, "on the analogue", "m", Positive, f).For("x-1")
	other := CheckOn(seeds, "another", "m", Positive, f).For("x-2")
	blocked := smax
	blocked.Untestable = []string{"room"}
	for _, tc := range []struct {
		claims []Claim
		want   string
	}{
		{[]Claim{blocked, other, push}, "on the analogue"},
		{[]Claim{smax, push}, "on the paper's benchmark"},
		{[]Claim{blocked}, "on the paper's benchmark"},
		{[]Claim{push, blocked}, "on the analogue"},
	} {
		c, ok := HeadlineClaim(tc.claims, "x-1")
		if !ok || c.Text != tc.want {
			t.Errorf("%d claims: headline %q (%v), want %q", len(tc.claims), c.Text, ok, tc.want)
		}
	}
	if _, ok := HeadlineClaim([]Claim{other}, "x-1"); ok {
		t.Error("a headline without a claim was read")
	}
}

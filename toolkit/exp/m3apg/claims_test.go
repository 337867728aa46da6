package m3apg

import (
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// On the committed result the COMA-style comparison leads the critic-error claims and carries the
// headline m3apg-1 (not significant, with its minimum detectable effect and the note that the push
// effect is additive); the comparisons with Central-Q on unseen joint actions are structural and
// keep their verdicts; m3apg-2 is the return comparison and m3apg-3 the MI ablation over the
// budgets, one claim each.
func TestClaimsHeadlinesAndStructural(t *testing.T) {
	res, e := exptest.Committed(t, "m3apg")
	j := exptest.Judge(t, e, res)
	lead := j.Claims[0]
	if !strings.HasPrefix(lead.Text, "hard game: M3APG's critic error on unseen effects is below coma-q's") || lead.Headline != "m3apg-1" {
		t.Fatalf("first claim %q (%s), want the COMA-style comparison tagged m3apg-1", lead.Text, lead.Headline)
	}
	if lead.Verdict() != exp.NotSignificant || !hasPrefix(lead.Details(), "minimum detectable effect") || !hasPrefix(lead.Notes, "by construction: the push game's effect") {
		t.Errorf("%q: %s, details %q", lead.Text, lead.VerdictText(), lead.Details())
	}
	tags := map[string][]string{}
	for _, c := range j.Claims {
		if c.Headline != "" {
			tags[c.Headline] = append(tags[c.Headline], c.Text)
		}
		structural := strings.Contains(c.Text, "unseen") && (strings.Contains(c.Text, "below Central-Q's") || strings.Contains(c.Text, "below central-q's")) ||
			strings.Contains(c.Text, "gap over central-q") || strings.HasPrefix(c.Text, "the gap grows with N") ||
			strings.HasPrefix(c.Text, "M3APG's return is at least Central-Q's")
		if structural != (c.Kind == exp.KindStructural) {
			t.Errorf("%q: kind %q, structural expected %v", c.Text, c.Kind, structural)
		}
	}
	for id, prefix := range map[string]string{"m3apg-1": "hard game: M3APG's critic error on unseen effects is below coma-q's",
		"m3apg-2": "M3APG's return is above the MAPG baselines' front", "m3apg-3": "hard game, over the budgets: the MI term lowers"} {
		if got := tags[id]; len(got) != 1 || !strings.HasPrefix(got[0], prefix) {
			t.Errorf("%s tags %q, want one claim %q…", id, got, prefix)
		}
	}
	// Central-Q on the hard game: holds, labelled structural, with its reading against the V(s) floor.
	cq := exptest.ClaimWithPrefix(t, j.Claims, "hard game: M3APG's critic error on unseen effects is below central-q's")
	if cq.VerdictText() != exp.Holds+" (structural)" || !hasPrefix(cq.Notes, "structural: Central-Q's critic takes the joint action as a one-hot row") ||
		!strings.Contains(strings.Join(cq.Notes, " "), "err_unseen(central-q) − err_unseen(v-only), hard, N = 6: +0.003 [") {
		t.Errorf("%q: %s, notes %q", cq.Text, cq.VerdictText(), cq.Notes)
	}
	// The verdict rows read those claims.
	rows, err := exp.Verdicts(map[string]*exp.Result{"m3apg": res})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !strings.HasPrefix(r.ID, "m3apg-") {
			continue
		}
		if c := r.Cells[0]; c.Claim == "" || c.Verdict == exp.NotRun {
			t.Errorf("%s: %+v", r.ID, c)
		}
	}
}

// A synthetic edit that makes M3APG's unseen-effect error clearly below COMA's critic's on every
// seed turns the headline m3apg-1 to "holds": the lead claim reads its data, not a label.
func TestClaimsComaLeadReadsData(t *testing.T) {
	res, e := exptest.Committed(t, "m3apg")
	for i := range res.Runs {
		r := &res.Runs[i]
		if r.Method == "m3apg" {
			r.Final["hard_critic_error_unseen"] -= 0.01
		}
	}
	j := exptest.Judge(t, e, res)
	if c := j.Claims[0]; c.Headline != "m3apg-1" || c.Verdict() != exp.Holds {
		t.Errorf("%q (%s): %s %s", c.Text, c.Headline, c.Interval(), c.VerdictText())
	}
}

// hasPrefix reports whether one of lines starts with prefix.
func hasPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

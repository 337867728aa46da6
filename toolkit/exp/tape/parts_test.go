package tape

import (
	"io"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// A run of one part trains that part's methods alone and records the part.
func TestRunOnePart(t *testing.T) {
	res, err := Run(exp.Options{Scale: exp.Smoke, Seeds: 1, Part: "matrix", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Parts) != 1 || res.Parts[0] != "matrix" || len(res.Runs) == 0 {
		t.Fatalf("parts %v, %d runs", res.Parts, len(res.Runs))
	}
	for _, r := range res.Runs {
		for k := range r.Curves {
			if !strings.HasPrefix(k, "matrix/") {
				t.Errorf("%s seed %d: curve %s of another part", r.Method, r.Seed, k)
			}
		}
	}
	for k := range res.Timing {
		if k != "matrix" {
			t.Errorf("timing of %s in a matrix-only run", k)
		}
	}
}

// The SMAX part trains every TAPE density and both baselines on 3m, scores each by its won battles
// (greedy and sampled), and gets the claims LBF3 gets, its headline first, with the gate and the
// budget among the room checks they need.
func TestSMAXPart(t *testing.T) {
	e, _ := exp.Lookup("tape")
	res, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Seeds: 2, Part: "smax", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(exp.Smoke)
	for _, m := range cfg.SMAXMethods {
		for _, seed := range res.Seeds {
			for _, k := range []string{"success_rate", "sampled_success_rate", "return_auc"} {
				v, ok := res.Final(m.Name, k, seed)
				if !ok || (k != "return_auc" && (v < 0 || v > 1)) {
					t.Fatalf("%s seed %d: %s = %v (%v)", m.Name, seed, k, v, ok)
				}
			}
		}
	}
	j, err := exp.Judge(e, res)
	if err != nil {
		t.Fatal(err)
	}
	var head *exp.Claim
	for i, c := range j.Claims {
		if c.Headline == "tape-1" {
			head = &j.Claims[i]
			break
		}
	}
	if head == nil || !strings.HasPrefix(head.Text, "SMAX 3m: smax-p0.3") {
		t.Fatalf("headline tape-1: %+v", head)
	}
	for _, r := range []string{roomSMAXGate, roomSMAXBudget, roomSMAXCeiling, sweepRoom("smax", "1", "success_rate")} {
		found := false
		for _, n := range head.Room {
			found = found || n == r
		}
		if !found {
			t.Errorf("the headline does not need %s (needs %v)", r, head.Room)
		}
	}
}

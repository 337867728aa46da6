package tape

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// Every part of the committed run has a table of its own methods (each row's method named as the
// part names them), every column a metric; an unknown part is refused by name.
func TestPartTables(t *testing.T) {
	res, _ := exptest.Committed(t, "tape")
	prefixes := map[string]string{"variance": "var-", "det": "det-", "adam": "adam-det-", "lbf3": "lbf3-", "coal": "coal-", "smax": "smax-"}
	for _, part := range Parts {
		ts := PartTables(res, part)
		if _, ran := res.Summary["smax-p0"]; len(ts) == 0 && (part != "smax" || ran) { // the committed run predates the SMAX part
			t.Fatalf("part %s: no table", part)
		}
		for _, tb := range ts {
			if len(tb.Rows) == 0 || tb.Headers[0] != "method" || len(tb.Rows[0]) != len(tb.Headers) {
				t.Fatalf("part %s: table %v with %d rows", part, tb.Headers, len(tb.Rows))
			}
			for _, r := range tb.Rows {
				if p, ok := prefixes[part]; ok && !strings.HasPrefix(r[0], p) {
					t.Errorf("part %s: row of method %s", part, r[0])
				}
				if part == "matrix" && strings.HasPrefix(r[0], "det-") {
					t.Errorf("part matrix shows %s", r[0])
				}
			}
		}
	}
	if err := ShowPart("nope"); err == nil || !strings.Contains(err.Error(), "matrix") {
		t.Fatalf("unknown part: %v", err)
	}
}

// One part's table (notebook 20's "matrix" part: every method that reports p_optimal_auc, without
// the det- ablations): mean ± half-width of the 95 % interval over seeds.
func ExamplePartTables() {
	res := &exp.Result{Seeds: []uint64{1, 2}}
	for seed := uint64(1); seed <= 2; seed++ {
		for _, m := range []string{"ippo", "tape", "det-tape"} {
			res.Runs = append(res.Runs, exp.Run{Method: m, Seed: seed, Final: map[string]float64{"optimal_rate": 1, "p_optimal_auc": 0.5}})
		}
	}
	res.Summarize()
	for _, t := range PartTables(res, "matrix") {
		fmt.Println(strings.Join(t.Headers, " | "))
		for _, r := range t.Rows {
			fmt.Println(r[0])
		}
	}
	// Output:
	// method | optimal_rate | p_optimal_auc
	// ippo
	// tape
}

package cos

import (
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// cos-3's measure is step weight 0.2's smallest margin over the sweep's weights more than 0.1 from
// it (0, 0.5, 0.8, 1; not 0.1): positive when 0.2 beats all of them even where 0.1 ties or beats
// it, negative when one of them beats 0.2.
func TestBeatsFar(t *testing.T) {
	res := synthetic(t, map[string]func(uint64, map[string]float64){"step-weight": func(_ uint64, f map[string]float64) { f["bon_w0.1"] = 0.75 }})
	if v, ok := beatsFar(res, 0.2)(1); !ok || v < 0.05-1e-12 || v > 0.05+1e-12 {
		t.Fatalf("margin %v, %v; want 0.05 (0.7 against w = 0.5's 0.65)", v, ok)
	}
	res = synthetic(t, map[string]func(uint64, map[string]float64){"step-weight": func(_ uint64, f map[string]float64) { f["bon_w0.8"] = 0.72 }})
	if v, _ := beatsFar(res, 0.2)(1); v >= 0 {
		t.Fatalf("w = 0.8 beats 0.2, margin %v", v)
	}
	res = synthetic(t, map[string]func(uint64, map[string]float64){"step-weight": func(_ uint64, f map[string]float64) { delete(f, "bon_w1") }})
	if _, ok := beatsFar(res, 0.2)(1); ok {
		t.Fatal("a missing weight gives a value")
	}
	c := exptest.ClaimWithPrefix(t, Claims(synthetic(t, nil)), "best-of-16 at step weight 0.2 beats every weight")
	if c.Headline != "cos-3" || c.Verdict() != exp.Holds {
		t.Fatalf("cos-3 on the synthetic result: %s, %q", c.Headline, c.Verdict())
	}
}

// The headline tags sit on the paper's comparisons: cos-1 on step&answer against outcome pairs
// (answer accuracy), cos-2 on the width-k beam against majority voting at the largest N, cos-3 on
// the step weight; every PRM-weighted-vote claim says it is PaperLab's addition.
func TestHeadlineClaims(t *testing.T) {
	for _, name := range []string{"cos", "cos-vision"} {
		res, e := exptest.Committed(t, name)
		j := exptest.Judge(t, e, res)
		want := map[string]string{
			"cos-1": "step&answer PRM pairs beat outcome pairs on answer accuracy",
			"cos-2": "width-k PRM beam search beats majority voting at N = 32",
			"cos-3": "best-of-16 at step weight 0.2 beats every weight of the sweep",
		}
		for _, c := range j.Claims {
			if p, ok := want[c.Headline]; ok && !strings.HasPrefix(c.Text, p) {
				t.Errorf("%s: %s tags %q", name, c.Headline, c.Text)
			}
			if strings.HasPrefix(c.Text, "PRM-weighted voting") && !slices.Contains(c.Notes, weightedNote) {
				t.Errorf("%s: %q lacks the note that the weighted vote is PaperLab's addition", name, c.Text)
			}
			if len(c.SeedIDs) != len(c.Diffs) {
				t.Errorf("%s: %q records %d seeds for %d values", name, c.Text, len(c.SeedIDs), len(c.Diffs))
			}
		}
	}
}

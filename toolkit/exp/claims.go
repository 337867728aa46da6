package exp

import (
	"fmt"
	"math"
	"strings"

	"github.com/paperlab/paperlab/toolkit/stats"
)

// Claim is one of a paper's qualitative claims checked against a result, paired per seed: each
// seed gives one value of the measure (usually a difference between two methods trained from the
// same seed), and the verdict reads the 95 % t-interval of the mean of those values.
type Claim struct {
	// Text states the claim; Measure says what is compared.
	Text    string `json:"text"`
	Measure string `json:"measure"`
	// Test is the direction and threshold the claim asserts for the measure.
	Test Test `json:"test"`
	// Diffs are the per-seed values of the measure.
	Diffs []float64 `json:"diffs"`
	// Stat summarises Diffs: mean paired difference, sample std, se and 95 % t-interval.
	Stat stats.Summary `json:"stat"`
	// Seeds is how many seeds agree with the claim on their own, of len(Diffs) (extra information;
	// the verdict rests on the interval).
	Seeds int `json:"seeds"`
	// Room names the room checks (RoomCheck) the claim needs to be testable on this run; Untestable
	// the ones that failed (ApplyRoom), which turn the verdict into "untestable here".
	Room       []string `json:"room,omitempty"`
	Untestable []string `json:"untestable,omitempty"`
	// Notes say what the measure left out, e.g. seeds whose curves never reach a matched operating point.
	Notes []string `json:"notes,omitempty"`
}

// Op is the relation a claim asserts between its measure and a threshold.
type Op string

const (
	Above     Op = ">"  // measure > X
	AtLeastOp Op = ">=" // measure ≥ X (non-inferiority)
	Below     Op = "<"  // measure < X
	AtMostOp  Op = "<=" // measure ≤ X
	WithinOp  Op = "±"  // |measure| ≤ X (equivalence)
)

// Test is a claim's assertion about its measure: Op against the threshold X.
type Test struct {
	Op Op      `json:"op"`
	X  float64 `json:"x"`
}

// Positive, Negative, AtLeast, AtMost and Within build the common tests.
var (
	Positive = Test{Op: Above}
	Negative = Test{Op: Below}
)

// AtLeast is the test measure ≥ x.
func AtLeast(x float64) Test { return Test{Op: AtLeastOp, X: x} }

// AtMost is the test measure ≤ x.
func AtMost(x float64) Test { return Test{Op: AtMostOp, X: x} }

// Within is the test |measure| ≤ x.
func Within(x float64) Test { return Test{Op: WithinOp, X: x} }

// Agrees reports whether one value satisfies the test (one seed's vote).
func (t Test) Agrees(d float64) bool {
	switch t.Op {
	case Above:
		return d > t.X
	case AtLeastOp:
		return d >= t.X
	case Below:
		return d < t.X
	case AtMostOp:
		return d <= t.X
	case WithinOp:
		return math.Abs(d) <= t.X
	}
	return false
}

// String is the test in words, e.g. "> 0" or "within ±0.02".
func (t Test) String() string {
	if t.Op == WithinOp {
		return fmt.Sprintf("within ±%g", t.X)
	}
	return fmt.Sprintf("%s %g", t.Op, t.X)
}

// Verdicts.
const (
	Holds          = "holds"           // the 95 % interval lies where the claim says
	DoesNotHold    = "does not hold"   // the interval lies on the other side
	NotSignificant = "not significant" // the interval straddles the threshold
	NoDifference   = "no difference"   // every seed gives exactly the threshold (a tie)
	NotMeasured    = "not measured"
	OneSeed        = "one seed: no interval"
	// Untestable: a room check the claim needs failed on this run, so the run could not have shown
	// the effect either way (see RoomCheck).
	Untestable = "untestable here"
)

// Verdict reads the 95 % t-interval of the mean paired value: "holds" only when it excludes the
// threshold in the claimed direction (for Within: lies inside ±X), "does not hold" when it excludes
// it the other way, "not significant" when it straddles it, and "no difference" when every seed
// gives exactly the threshold (a directional claim met by ties is not a claim that holds).
//
// A claim whose room check failed (Untestable) reads "untestable here" whatever its interval says.
func (c Claim) Verdict() string {
	s := c.Stat
	switch {
	case len(c.Untestable) > 0:
		return Untestable
	case len(c.Diffs) == 0:
		return NotMeasured
	case c.Test.Op != WithinOp && allEqual(c.Diffs, c.Test.X):
		return NoDifference
	case len(c.Diffs) == 1:
		return OneSeed
	}
	lo, hi := s.CI95[0], s.CI95[1] // a point when every seed gives the same value
	x := c.Test.X
	switch c.Test.Op { // "at least/at most x" holds, like "> x", only when the interval excludes x
	case Above, AtLeastOp:
		return verdict(lo > x, hi < x)
	case Below, AtMostOp:
		return verdict(hi < x, lo > x)
	case WithinOp:
		return verdict(lo >= -x && hi <= x, hi < -x || lo > x)
	}
	return NotMeasured
}

func verdict(holds, opposite bool) string {
	switch {
	case holds:
		return Holds
	case opposite:
		return DoesNotHold
	}
	return NotSignificant
}

func allEqual(xs []float64, v float64) bool {
	for _, x := range xs {
		if x != v {
			return false
		}
	}
	return true
}

// Interval renders the mean paired value with its 95 % interval, e.g. "+0.037 [+0.012, +0.062]".
func (c Claim) Interval() string {
	s := c.Stat
	if s.N < 2 || math.IsNaN(s.CI95[0]) {
		return fmt.Sprintf("%+.3f (n=%d)", s.Mean, s.N)
	}
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f]", s.Mean, s.CI95[0], s.CI95[1])
}

// String renders the claim with its paired mean, interval, seed agreement and verdict.
func (c Claim) String() string {
	return fmt.Sprintf("%s — %s (%s): %s; %d/%d seeds agree → %s", c.Text, c.Measure, c.Test, c.Interval(), c.Seeds, len(c.Diffs), c.VerdictText())
}

// ClaimsTable is the table every notebook shows for a paper's claims: claim, measure and test,
// mean paired value with its 95 % t-interval over seeds, seeds agreeing, the room checks it needs,
// verdict (naming the failed room checks when it is untestable here).
func ClaimsTable(claims []Claim) (headers []string, rows [][]string) {
	headers = []string{"claim", "measure (claimed)", "mean paired value [95% CI]", "n", "seeds agreeing", "needs", "verdict"}
	for _, c := range claims {
		measure := fmt.Sprintf("%s (%s)", c.Measure, c.Test)
		for _, n := range c.Notes {
			measure += "; " + n
		}
		needs := strings.Join(c.Room, ", ")
		if needs == "" {
			needs = "—"
		}
		rows = append(rows, []string{c.Text, measure, c.Interval(),
			fmt.Sprint(len(c.Diffs)), fmt.Sprintf("%d/%d", c.Seeds, len(c.Diffs)), needs, c.VerdictText()})
	}
	return headers, rows
}

// SummaryTable is a table of the summary: one row per method that has any of metrics, each cell
// "mean ± half-width of the 95 % interval (n=…)" over seeds, "—" where a method lacks the metric.
func SummaryTable(res *Result, metrics []string) (headers []string, rows [][]string) {
	return SummaryTableOf(res, nil, metrics)
}

// SummaryTableOf is SummaryTable of the methods keep accepts (nil: every method), e.g. one part
// of an experiment whose methods share a name prefix.
func SummaryTableOf(res *Result, keep func(method string) bool, metrics []string) (headers []string, rows [][]string) {
	headers = append([]string{"method"}, metrics...)
	for _, m := range res.Methods() {
		if keep != nil && !keep(m) {
			continue
		}
		row, has := []string{m}, false
		for _, k := range metrics {
			if s, ok := res.Summary[m][k]; ok && s.N > 0 {
				row, has = append(row, s.String()), true
			} else {
				row = append(row, "—")
			}
		}
		if has {
			rows = append(rows, row)
		}
	}
	return headers, rows
}

// Final returns the final metric of method's run with seed (an experiment with several parts can
// hold several runs per method and seed; the first that has the metric answers).
func (r *Result) Final(method, metric string, seed uint64) (float64, bool) {
	for _, run := range r.RunsOf(method) {
		if v, ok := run.Final[metric]; ok && run.Seed == seed {
			return v, true
		}
	}
	return 0, false
}

// PerSeed is a per-seed measure: its value for a seed, and whether it exists.
type PerSeed func(seed uint64) (float64, bool)

// Check evaluates a claim: measure on every seed of the result, judged by test.
func (r *Result) Check(text, measure string, test Test, f PerSeed) Claim {
	return CheckOn(r.Seeds, text, measure, test, f)
}

// CheckOn is Check on a given list of seeds (e.g. a part of an experiment run with more seeds).
func CheckOn(seeds []uint64, text, measure string, test Test, f PerSeed) Claim {
	c := Claim{Text: text, Measure: measure, Test: test}
	for _, seed := range seeds {
		if d, ok := f(seed); ok && !math.IsNaN(d) {
			c.Diffs = append(c.Diffs, d)
			if test.Agrees(d) {
				c.Seeds++
			}
		}
	}
	c.Stat = stats.Summarize(c.Diffs)
	return c
}

// Diff is the per-seed difference metric a of method ma minus metric b of method mb.
func (r *Result) Diff(ma, a, mb, b string) PerSeed {
	return func(seed uint64) (float64, bool) {
		x, ok1 := r.Final(ma, a, seed)
		y, ok2 := r.Final(mb, b, seed)
		return x - y, ok1 && ok2
	}
}

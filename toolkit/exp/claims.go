package exp

import (
	"fmt"
	"math"
)

// Claim is one of a paper's qualitative claims checked against a result, seed by seed.
type Claim struct {
	// Text states the claim; Measure says what is compared.
	Text    string `json:"text"`
	Measure string `json:"measure"`
	// Diffs are the per-seed values of the measure (usually a difference whose sign decides).
	Diffs []float64 `json:"diffs"`
	// Seeds is how many seeds agree with the claim, of len(Diffs).
	Seeds int `json:"seeds"`
}

// Verdict is "holds" (every seed agrees), "mixed" or "does not hold" (no seed agrees).
func (c Claim) Verdict() string {
	switch {
	case len(c.Diffs) == 0:
		return "not measured"
	case c.Seeds == len(c.Diffs):
		return "holds"
	case c.Seeds == 0:
		return "does not hold"
	}
	return "mixed"
}

// String renders the claim with its mean ± std and seed count.
func (c Claim) String() string {
	s := MeanStd(c.Diffs)
	return fmt.Sprintf("%s — %s: %+.3f ± %.3f; %d/%d seeds agree → %s", c.Text, c.Measure, s.Mean, s.Std, c.Seeds, len(c.Diffs), c.Verdict())
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

// Check evaluates a claim: measure on every seed of the result, agree decides each seed.
func (r *Result) Check(text, measure string, agree func(float64) bool, f PerSeed) Claim {
	return CheckOn(r.Seeds, text, measure, agree, f)
}

// CheckOn is Check on a given list of seeds (e.g. a part of an experiment run with more seeds).
func CheckOn(seeds []uint64, text, measure string, agree func(float64) bool, f PerSeed) Claim {
	c := Claim{Text: text, Measure: measure}
	for _, seed := range seeds {
		if d, ok := f(seed); ok && !math.IsNaN(d) {
			c.Diffs = append(c.Diffs, d)
			if agree(d) {
				c.Seeds++
			}
		}
	}
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

// Positive, Negative and AtLeast are common agreement tests.
func Positive(d float64) bool { return d > 0 }

// Negative is d < 0.
func Negative(d float64) bool { return d < 0 }

// AtLeast returns the test d ≥ x.
func AtLeast(x float64) func(float64) bool { return func(d float64) bool { return d >= x } }

// AtMost returns the test d ≤ x.
func AtMost(x float64) func(float64) bool { return func(d float64) bool { return d <= x } }

// Within returns the test |d| ≤ x.
func Within(x float64) func(float64) bool { return func(d float64) bool { return math.Abs(d) <= x } }

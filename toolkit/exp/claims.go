package exp

import (
	"fmt"
	"math"
	"slices"
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
	// SeedIDs are the seeds Diffs come from, in the same order.
	SeedIDs []uint64 `json:"seed_ids,omitempty"`
	// Headline is the id of the paper's headline claim this claim tests (e.g. "capo-2", see
	// Headlines); the first claim of an experiment with an id is the one its verdict row reads —
	// passing over a claim marked IfTestable whose room checks failed, when a later one has the id.
	Headline string `json:"headline,omitempty"`
	// IfTestable (HeadlineIfTestable) makes the claim its headline's reading only where it is
	// testable on the run: a reading on the paper's own kind of benchmark that may lack room here
	// stands aside for the experiment's other reading of the headline — a rule fixed with the
	// protocol, before the runs, not a choice made on seeing them.
	IfTestable bool `json:"if_testable,omitempty"`
	// Kind is "" for an ordinary claim, KindStructural for a comparison whose outcome the
	// baseline's construction decides (reported, but not the informative one), KindMatched for a
	// claim read at matched operating points (Parts), KindNonInferior for a "comparable" claim.
	Kind string `json:"kind,omitempty"`
	// Margin is a non-inferiority claim's margin (Test is AtLeast(−Margin)), fixed in the code
	// before the data were seen, and MarginWhy its reason.
	Margin    float64 `json:"margin,omitempty"`
	MarginWhy string  `json:"margin_why,omitempty"`
	// Parts are the readings a matched claim combines (at matched accuracy, at matched KL…): it
	// holds only when every part holds, and reads Mixed when one holds and another does not.
	Parts []Claim `json:"parts,omitempty"`
	// Context is a reading printed beside the verdict without deciding it, e.g. the fixed-step
	// difference beside a matched comparison.
	Context string `json:"context,omitempty"`
	// Unmeasured says why the claim's measure rests on a point its data never measured (e.g. a
	// matched value interpolated between the start and the first evaluation): the claim reads
	// "untestable here" with this reason.
	Unmeasured string `json:"unmeasured,omitempty"`
	// Outliers are the seeds of SeedIDs flagged as in another regime (ModifiedZ on Diffs, or an
	// outlier room check), and Without the claim's statistic without them (Judge fills both).
	Outliers []uint64       `json:"outliers,omitempty"`
	Without  *stats.Summary `json:"without_outliers,omitempty"`
	// From names the two final metrics a difference claim subtracts (CheckDiff), so that its
	// per-seed values can be recomputed from metrics.json's runs without this package.
	From *DiffOf `json:"from,omitempty"`
}

// DiffOf is a difference claim's recipe: final metric A.Metric of method A.Method minus B's.
type DiffOf struct {
	A, B MetricOf
}

// MetricOf names one method's final metric.
type MetricOf struct {
	Method string `json:"method"`
	Metric string `json:"metric"`
}

// Kinds of claim (Claim.Kind).
const (
	KindStructural = "structural"
	KindMatched    = "matched"
	// KindAll is a conjunction read as an intersection-union test ("p = 0.3 beats both p = 0 and
	// p = 1"): one paired reading per part, on every seed; it holds when every part holds, does not
	// hold when one part does not, and is otherwise not significant. Each part is a level-5 % test,
	// so "holds" is one too, without a per-seed maximum over the parts (which favours the parts by
	// their number); "does not hold" is a union of one-sided 2.5 % tails, up to k × 2.5 % for k parts.
	KindAll         = "all"
	KindNonInferior = "non-inferiority"
)

// WithNote is c with note added to its notes (the notes c shares with other claims are not touched).
func (c Claim) WithNote(note string) Claim {
	c.Notes = append(append([]string(nil), c.Notes...), note)
	return c
}

// Structural labels a comparison whose outcome the baseline's construction decides (a one-hot
// critic that cannot use an unseen joint action, a weak population): it keeps its verdict but is
// not the informative comparison, and why says what decides it.
func (c Claim) Structural(why string) Claim {
	c.Kind = KindStructural
	c.Notes = append(append([]string(nil), c.Notes...), "structural: "+why)
	return c
}

// ByConstruction notes an argument, not a measurement, that bears on the claim (a payoff that is
// additive, a rate that decays to zero): the claim keeps its data's verdict and shows the note.
func (c Claim) ByConstruction(why string) Claim {
	c.Notes = append(append([]string(nil), c.Notes...), "by construction: "+why)
	return c
}

// Comparable makes c a non-inferiority claim: its measure (oriented so that larger is better for
// the method) holds when the 95 % interval's lower end lies above −margin. The margin is fixed in
// the code before the data are seen; why gives its reason.
func (c Claim) Comparable(margin float64, why string) Claim {
	c.Kind, c.Margin, c.MarginWhy = KindNonInferior, margin, why
	c.Test = AtLeast(-margin)
	c.Seeds = 0
	for _, d := range c.Diffs {
		if c.Test.Agrees(d) {
			c.Seeds++
		}
	}
	return c
}

// For tags c with the id of the paper's headline claim it tests (see Headlines).
func (c Claim) For(id string) Claim {
	c.Headline = id
	return c
}

// HeadlineIfTestable is For(id) with IfTestable set: the claim reads the headline only where its
// room checks pass, else the experiment's next claim with the id does.
func (c Claim) HeadlineIfTestable(id string) Claim {
	c.Headline, c.IfTestable = id, true
	return c
}

// Matched combines a claim's readings at matched operating points (e.g. at matched accuracy and at
// matched KL from the reference): the claim holds only when every reading holds, and reads Mixed
// when one holds and another does not; context is the fixed-step reading shown beside it.
func Matched(text, measure string, context string, readings ...Claim) Claim {
	c := Claim{Text: text, Measure: measure, Kind: KindMatched, Parts: readings, Context: context}
	if len(readings) > 0 {
		c.Test = readings[0].Test
	}
	return c
}

// AllOf is the conjunction of parts (KindAll): "text" holds when each part holds.
func AllOf(text, measure string, parts ...Claim) Claim {
	c := Claim{Text: text, Measure: measure, Kind: KindAll, Parts: parts}
	if len(parts) > 0 {
		c.Test = parts[0].Test
	}
	return c
}

// intersect is a conjunction's verdict (KindAll): holds when every part holds, does not hold when
// one does not, untestable when a part is, else not significant.
func intersect(parts []Claim) string {
	all, v := true, NotSignificant
	for _, p := range parts {
		switch p.Verdict() {
		case Holds:
		case DoesNotHold:
			return DoesNotHold
		case NotMeasured:
			return NotMeasured
		case Untestable:
			v, all = Untestable, false
		default:
			all = false
		}
	}
	if all {
		return Holds
	}
	return v
}

// MDE is the minimum detectable effect of the claim's paired design at its seed count: the true
// mean difference a two-sided 5 % test would detect with 80 % power, (t₀.₉₇₅ + t₀.₈₀) × sd / √n
// with n − 1 degrees of freedom. NaN with fewer than two values.
func (c Claim) MDE() float64 {
	s := c.Stat
	if s.N < 2 || math.IsNaN(s.Std) {
		return math.NaN()
	}
	return (stats.TQuantile(0.975, s.N-1) + stats.TQuantile(0.80, s.N-1)) * s.Std / math.Sqrt(float64(s.N))
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
	// Mixed: one reading of a matched claim (Parts) holds and another does not.
	Mixed = "mixed"
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
	case len(c.Untestable) > 0 || c.Unmeasured != "":
		return Untestable
	case len(c.Parts) > 0 && c.Kind == KindAll:
		return intersect(c.Parts)
	case len(c.Parts) > 0:
		return combine(c.Parts)
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

// combine is the verdict of a claim read several ways (matched accuracy, matched KL): the common
// verdict when every reading gives it; Mixed when one reading holds and another does not (or
// cannot be tested); when none holds, the testable readings' common verdict, or NotSignificant
// where they differ (one not significant, another does not hold).
func combine(parts []Claim) string {
	var testable []string
	holds := 0
	for _, p := range parts {
		v := p.Verdict()
		if v == Holds {
			holds++
		}
		if v != Untestable && v != NotMeasured {
			testable = append(testable, v)
		}
	}
	switch {
	case holds == len(parts):
		return Holds
	case holds > 0:
		return Mixed
	case len(testable) == 0:
		return Untestable
	}
	// No reading holds: the row reads what they share, and "not significant" where one reading is
	// not significant and another does not hold ("mixed" is kept for readings of which one holds).
	for _, v := range testable[1:] {
		if v != testable[0] {
			return NotSignificant
		}
	}
	return testable[0]
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

// Interval renders the mean paired value with its 95 % interval, e.g. "+0.037 [+0.012, +0.062]";
// a matched claim renders each reading's ("at matched accuracy +0.01 [−0.02, +0.04]; …").
func (c Claim) Interval() string {
	if len(c.Parts) > 0 {
		var parts []string
		for _, p := range c.Parts {
			parts = append(parts, fmt.Sprintf("%s: %s → %s", p.Measure, p.Interval(), p.VerdictText()))
		}
		return strings.Join(parts, "; ")
	}
	s := c.Stat
	if s.N == 0 {
		return "—"
	}
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
		if len(c.Parts) > 0 {
			measure = c.Measure
		}
		for _, n := range c.Details() {
			measure += "; " + n
		}
		n, agree := fmt.Sprint(len(c.Diffs)), fmt.Sprintf("%d/%d", c.Seeds, len(c.Diffs))
		if len(c.Parts) > 0 {
			// a combined claim has no diffs of its own: each reading's count, and its notes (the
			// evaluated points a matched value rests on, seeds left out, outliers)
			var ns, as []string
			for _, p := range c.Parts {
				ns, as = append(ns, fmt.Sprint(len(p.Diffs))), append(as, fmt.Sprintf("%d/%d", p.Seeds, len(p.Diffs)))
				pre := ""
				if len(c.Parts) > 1 {
					pre = p.Measure + ": "
				}
				for _, d := range p.Details() {
					measure += "; " + pre + d
				}
			}
			n, agree = strings.Join(ns, " / "), strings.Join(as, " / ")
		}
		needs := strings.Join(c.Room, ", ")
		if needs == "" {
			needs = "—"
		}
		rows = append(rows, []string{c.Text, measure, c.Interval(), n, agree, needs, c.VerdictText()})
	}
	return headers, rows
}

// Details are the lines a table shows under a claim beside its notes: the margin of a
// non-inferiority claim, the minimum detectable effect of a not-significant one, the reading
// without flagged outlier seeds, and the context reading.
func (c Claim) Details() []string {
	out := append([]string(nil), c.Notes...)
	if c.Kind == KindNonInferior {
		out = append(out, fmt.Sprintf("non-inferiority margin %g (%s)", c.Margin, c.MarginWhy))
	}
	if v := c.Verdict(); v == NotSignificant && !math.IsNaN(c.MDE()) {
		out = append(out, fmt.Sprintf("minimum detectable effect at n = %d: %.3g", c.Stat.N, c.MDE()))
	}
	if c.Without != nil {
		w := c
		w.Stat, w.Diffs, w.Without, w.Outliers = *c.Without, c.withoutDiffs(), nil, nil
		out = append(out, fmt.Sprintf("without outlier seed(s) %v (a sensitivity check, not the verdict): %s → %s", c.Outliers, w.Interval(), w.Verdict()))
	}
	if c.Unmeasured != "" {
		out = append(out, c.Unmeasured)
	}
	if c.Context != "" {
		out = append(out, "context: "+c.Context)
	}
	return out
}

// withoutDiffs are Diffs without the seeds in Outliers.
func (c Claim) withoutDiffs() []float64 {
	var out []float64
	for i, d := range c.Diffs {
		if i < len(c.SeedIDs) && slices.Contains(c.Outliers, c.SeedIDs[i]) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// MarkOutliers records which of the claim's seeds are in another regime — flagged by an outlier
// room check (extra) or by the modified z-score of the claim's own per-seed values — and the
// claim's statistic without them. Matched claims mark their readings.
func (c Claim) MarkOutliers(extra []uint64) Claim {
	if len(c.Parts) > 0 {
		parts := make([]Claim, len(c.Parts))
		for i, p := range c.Parts {
			parts[i] = p.MarkOutliers(extra)
		}
		c.Parts = parts
		return c
	}
	c.Outliers, c.Without = nil, nil
	if len(c.SeedIDs) != len(c.Diffs) {
		return c
	}
	own := flagged(c.SeedIDs, c.Diffs)
	for _, s := range c.SeedIDs {
		if slices.Contains(extra, s) || slices.Contains(own, s) {
			c.Outliers = append(c.Outliers, s)
		}
	}
	if len(c.Outliers) > 0 {
		w := stats.Summarize(c.withoutDiffs())
		c.Without = &w
	}
	return c
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
			c.SeedIDs = append(c.SeedIDs, seed)
			if test.Agrees(d) {
				c.Seeds++
			}
		}
	}
	c.Stat = stats.Summarize(c.Diffs)
	return c
}

// CheckDiff is Check of the per-seed difference final metric a of method ma minus metric b of
// method mb (Diff), recording the recipe (Claim.From).
func (r *Result) CheckDiff(text, measure string, test Test, ma, a, mb, b string) Claim {
	return r.CheckDiffOn(r.Seeds, text, measure, test, ma, a, mb, b)
}

// CheckDiffOn is CheckDiff on a given list of seeds.
func (r *Result) CheckDiffOn(seeds []uint64, text, measure string, test Test, ma, a, mb, b string) Claim {
	c := CheckOn(seeds, text, measure, test, r.Diff(ma, a, mb, b))
	c.From = &DiffOf{A: MetricOf{ma, a}, B: MetricOf{mb, b}}
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

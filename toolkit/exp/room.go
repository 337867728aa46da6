package exp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// RoomCheck is a measured precondition that a claim needs to be testable on this run: the task
// leaves the mechanism room to act, the budget lets methods stop improving, the partners or data
// favour no method, no metric sits at its ceiling. A claim whose room check fails is "untestable
// here" (naming the check), never "does not hold": a reproduction that could not have shown an
// effect says nothing about the paper.
//
// Every check reads one statistic, fixed by the kind of check (Stat; see the constants), so that
// two experiments judge the same kind of precondition the same way. Value is that statistic on
// this run, computed from PerSeed (one value per seed of Seeds) for all but StatValue, and OK says
// whether it passes Test (Op against the threshold X). A check whose data the result lacks has
// Value NaN, Missing set, and fails.
//
// A gate that is an argument rather than a measurement (a constant, a convergence that a decayed
// rate makes certain) is not a room check: write it as a note on the claims it concerns
// (Claim.ByConstruction) and let them have their data's verdict.
type RoomCheck struct {
	Name    string    `json:"name"`
	Value   float64   `json:"value"`
	Test    Test      `json:"-"`
	OK      bool      `json:"ok"`
	Why     string    `json:"why"`
	Stat    string    `json:"stat"`
	PerSeed []float64 `json:"per_seed,omitempty"`
	Seeds   []uint64  `json:"seeds,omitempty"`
	// Flagged are the seeds an outlier check (StatModifiedZ) finds in another regime; every claim
	// that uses one of them is reported with and without it (Judge).
	Flagged []uint64 `json:"flagged,omitempty"`
	// Missing says what the result lacks when the check could not be measured.
	Missing string `json:"missing,omitempty"`
}

// The statistic each kind of room check reads (RoomCheck.Stat).
const (
	// StatCILow: a check that a method achieves something (beats a reference, learned, reaches a
	// level) reads the lower end of the 95 % t-interval of the per-seed values (one-sided; the
	// measure is oriented so that larger means "achieved"). RoomAchieves.
	StatCILow = "ci_low"
	// StatTailMean: a check that a curve has stopped moving (budget, convergence) reads the mean of
	// the signed per-seed changes over the last 20 % of the run, two-sided: it passes within
	// ±threshold. RoomSettled.
	StatTailMean = "tail_mean"
	// StatMean: a headroom or ceiling check reads the mean of the per-seed values. RoomOn.
	StatMean = "mean"
	// StatValue: a property of the task, data or configuration computed exactly reads its value. Room.
	StatValue = "value"
	// StatCount: a coverage check (how many seeds do X) reads the count, "k of n". RoomCount.
	StatCount = "count"
	// StatModifiedZ: an outlier check reads each seed's modified z-score (median/MAD) and flags the
	// seeds above OutlierZ. RoomOutliers.
	StatModifiedZ = "modified_z"
)

// OutlierZ is the modified z-score above which a seed is flagged as in another regime (Iglewicz
// and Hoaglin's 3.5).
const OutlierZ = 3.5

type roomJSON struct {
	Name      string    `json:"name"`
	Value     *float64  `json:"value"`
	Threshold float64   `json:"threshold"`
	Op        Op        `json:"op"`
	OK        bool      `json:"ok"`
	Why       string    `json:"why"`
	Stat      string    `json:"stat"`
	PerSeed   []float64 `json:"per_seed,omitempty"`
	Seeds     []uint64  `json:"seeds,omitempty"`
	Flagged   []uint64  `json:"flagged,omitempty"`
	Missing   string    `json:"missing,omitempty"`
}

// MarshalJSON writes {"name", "value", "threshold", "op", "ok", "why", …}; an unmeasured value is null.
func (r RoomCheck) MarshalJSON() ([]byte, error) {
	j := roomJSON{Name: r.Name, Threshold: r.Test.X, Op: r.Test.Op, OK: r.OK, Why: r.Why, Stat: r.Stat, PerSeed: r.PerSeed,
		Seeds: r.Seeds, Flagged: r.Flagged, Missing: r.Missing}
	if !math.IsNaN(r.Value) && !math.IsInf(r.Value, 0) {
		v := r.Value
		j.Value = &v
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes (a null value is NaN).
func (r *RoomCheck) UnmarshalJSON(b []byte) error {
	var j roomJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = RoomCheck{Name: j.Name, Value: math.NaN(), Test: Test{Op: j.Op, X: j.Threshold}, OK: j.OK, Why: j.Why,
		Stat: j.Stat, PerSeed: j.PerSeed, Seeds: j.Seeds, Flagged: j.Flagged, Missing: j.Missing}
	if j.Value != nil {
		r.Value = *j.Value
	}
	return nil
}

// Threshold is the passing condition in words, e.g. "< 0.1".
func (r RoomCheck) Threshold() string { return r.Test.String() }

// ValueText is the value as shown in tables: "0.123", with the per-seed range when there are
// several seeds, or "not measured (…)".
func (r RoomCheck) ValueText() string {
	if math.IsNaN(r.Value) {
		if r.Missing != "" {
			return "not measured: " + r.Missing
		}
		return "not measured"
	}
	switch r.Stat {
	case StatCount:
		return fmt.Sprintf("%d of %d seeds", int(r.Value), len(r.PerSeed))
	case StatModifiedZ:
		if len(r.Flagged) == 0 {
			return fmt.Sprintf("max |z| %.2g (n=%d): none flagged", r.Value, len(r.PerSeed))
		}
		return fmt.Sprintf("max |z| %.2g (n=%d): seeds %v flagged", r.Value, len(r.PerSeed), r.Flagged)
	}
	name := map[string]string{StatCILow: "95% CI low ", StatTailMean: "mean tail change ", StatMean: "mean "}[r.Stat]
	if len(r.PerSeed) > 1 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range r.PerSeed {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		return fmt.Sprintf("%s%.3g (seeds %.3g … %.3g, n=%d)", name, r.Value, lo, hi, len(r.PerSeed))
	}
	return fmt.Sprintf("%.3g", r.Value)
}

// Room is a room check on one value computed exactly (StatValue): a property of the task or the
// data, measured once. A configuration constant is not a measurement: make it a note on the claims
// (Claim.ByConstruction) instead.
func Room(name string, value float64, test Test, why string) RoomCheck {
	r := RoomCheck{Name: name, Value: value, Test: test, Why: why, Stat: StatValue}
	r.OK = !math.IsNaN(value) && test.Agrees(value)
	return r
}

// RoomMissing is a room check that the result holds no data for: it fails, saying what is missing.
func RoomMissing(name string, test Test, why, missing string) RoomCheck {
	return RoomCheck{Name: name, Value: math.NaN(), Test: test, Why: why, Missing: missing}
}

// perSeed collects f's finite values on seeds.
func perSeed(seeds []uint64, f PerSeed) (vals []float64, with []uint64) {
	for _, s := range seeds {
		if v, ok := f(s); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals, with = append(vals, v), append(with, s)
		}
	}
	return vals, with
}

// roomPerSeed measures f on seeds and judges stat(values) by test; with no value it fails as not
// measured (missing says what the result lacks).
func roomPerSeed(seeds []uint64, name, kind string, test Test, why, missing string, f PerSeed, stat func([]float64) float64) RoomCheck {
	vals, with := perSeed(seeds, f)
	if len(vals) == 0 {
		r := RoomMissing(name, test, why, missing)
		r.Stat = kind
		return r
	}
	r := RoomCheck{Name: name, Test: test, Why: why, Stat: kind, PerSeed: vals, Seeds: with, Value: stat(vals)}
	r.OK = !math.IsNaN(r.Value) && test.Agrees(r.Value)
	return r
}

// RoomOn is a headroom or ceiling check (StatMean): f measured per seed on seeds, the mean over the
// seeds that have a value judged by test.
func RoomOn(seeds []uint64, name string, test Test, why, missing string, f PerSeed) RoomCheck {
	return roomPerSeed(seeds, name, StatMean, test, why, missing, f, stats.Mean)
}

// RoomAchieves is a check that something is achieved — a method beats a reference, learned,
// reached a level (StatCILow): f measured per seed, oriented so that larger means achieved, and
// the lower end of its 95 % t-interval over seeds judged by test (Above or AtLeast a level). With
// one seed there is no interval and the check fails as not measured.
func RoomAchieves(seeds []uint64, name string, test Test, why, missing string, f PerSeed) RoomCheck {
	r := roomPerSeed(seeds, name, StatCILow, test, why, missing, f, func(v []float64) float64 { return stats.Summarize(v).CI95[0] })
	if len(r.PerSeed) == 1 {
		r.OK, r.Missing = false, "one seed: no interval"
	}
	return r
}

// RoomSettled is a check that a curve has stopped moving — a budget, a convergence
// (StatTailMean): f gives each seed's signed change over the last 20 % of its run (e.g.
// Result.TailChangeOf, Result.Plateau), and the mean of those signed changes passes within
// ±threshold. Signed, so that seeds still moving in opposite directions are not counted as
// moving twice, and a common drift in one direction is caught.
func RoomSettled(seeds []uint64, name string, threshold float64, why, missing string, f PerSeed) RoomCheck {
	return roomPerSeed(seeds, name, StatTailMean, Within(threshold), why, missing, f, stats.Mean)
}

// SeedTest is a per-seed yes/no measure: whether seed does the thing, and whether it was measured.
type SeedTest func(seed uint64) (yes, ok bool)

// RoomCount is a coverage check (StatCount): how many of the seeds do something (f), passing when
// at least k do. PerSeed holds 1 for a seed that does and 0 for one that does not.
func RoomCount(seeds []uint64, name string, k int, why, missing string, f SeedTest) RoomCheck {
	return roomPerSeed(seeds, name, StatCount, AtLeast(float64(k)), why, missing, func(s uint64) (float64, bool) {
		yes, ok := f(s)
		if yes {
			return 1, ok
		}
		return 0, ok
	}, func(v []float64) float64 {
		n := 0.0
		for _, x := range v {
			n += x
		}
		return n
	})
}

// RoomOutliers is an outlier check (StatModifiedZ): f measured per seed (a value a headline claim
// uses, e.g. the warm start's accuracy), each seed's modified z-score (ModifiedZ) computed, and the
// seeds above OutlierZ flagged. It never makes a claim untestable: Judge reports every claim that
// uses a flagged seed with and without it. Value is the largest |z|; PerSeed the raw values.
func RoomOutliers(seeds []uint64, name, why, missing string, f PerSeed) RoomCheck {
	r := roomPerSeed(seeds, name, StatModifiedZ, AtMost(OutlierZ), why, missing, f, func(v []float64) float64 {
		m := 0.0
		for _, z := range ModifiedZ(v) {
			m = math.Max(m, math.Abs(z))
		}
		return m
	})
	r.Flagged = flagged(r.Seeds, r.PerSeed)
	r.OK = len(r.Flagged) == 0 && !math.IsNaN(r.Value)
	return r
}

// ModifiedZ is each value's modified z-score 0.6745 (x − median) / MAD (Iglewicz and Hoaglin),
// robust to the outlier it looks for, unlike a standard deviation. Where the MAD is 0 (more than
// half the values equal) it uses (x − median) / (1.253314 × mean absolute deviation); where that is
// 0 too, every score is 0. Fewer than 3 values: all 0 (no regime can be told apart).
func ModifiedZ(xs []float64) []float64 {
	z := make([]float64, len(xs))
	if len(xs) < 3 {
		return z
	}
	med := stats.Percentile(xs, 0.5)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - med)
	}
	mad := stats.Percentile(dev, 0.5)
	scale := mad / 0.6745
	if mad == 0 {
		scale = 1.253314 * stats.Mean(dev)
	}
	if scale == 0 {
		return z
	}
	for i, x := range xs {
		z[i] = (x - med) / scale
	}
	return z
}

// flagged are the seeds whose modified z-score exceeds OutlierZ.
func flagged(seeds []uint64, vals []float64) []uint64 {
	var out []uint64
	for i, z := range ModifiedZ(vals) {
		if math.Abs(z) > OutlierZ {
			out = append(out, seeds[i])
		}
	}
	return out
}

// CheckRoom is RoomOn on every seed of the result.
func (r *Result) CheckRoom(name string, test Test, why, missing string, f PerSeed) RoomCheck {
	return RoomOn(r.Seeds, name, test, why, missing, f)
}

// CheckAchieves is RoomAchieves on every seed of the result.
func (r *Result) CheckAchieves(name string, test Test, why, missing string, f PerSeed) RoomCheck {
	return RoomAchieves(r.Seeds, name, test, why, missing, f)
}

// CheckSettled is RoomSettled on every seed of the result.
func (r *Result) CheckSettled(name string, threshold float64, why, missing string, f PerSeed) RoomCheck {
	return RoomSettled(r.Seeds, name, threshold, why, missing, f)
}

// CheckCount is RoomCount on every seed of the result.
func (r *Result) CheckCount(name string, k int, why, missing string, f SeedTest) RoomCheck {
	return RoomCount(r.Seeds, name, k, why, missing, f)
}

// CheckOutliers is RoomOutliers on every seed of the result.
func (r *Result) CheckOutliers(name, why, missing string, f PerSeed) RoomCheck {
	return RoomOutliers(r.Seeds, name, why, missing, f)
}

// Needs names the room checks a claim needs; its verdict turns "untestable here" when one of them
// fails (ApplyRoom).
func (c Claim) Needs(checks ...string) Claim {
	c.Room = append(append([]string(nil), c.Room...), checks...)
	return c
}

// NeedsAll is Needs on every claim.
func NeedsAll(claims []Claim, checks ...string) []Claim {
	out := make([]Claim, len(claims))
	for i, c := range claims {
		out[i] = c.Needs(checks...)
	}
	return out
}

// ApplyRoom records, on each claim, which of the room checks it needs failed (Claim.Untestable);
// a claim naming a check that room does not hold is a programming error reported as an error.
func ApplyRoom(claims []Claim, room []RoomCheck) ([]Claim, error) {
	byName := map[string]RoomCheck{}
	for _, r := range room {
		byName[r.Name] = r
	}
	out := make([]Claim, len(claims))
	for i, c := range claims {
		c.Untestable = nil
		for _, n := range c.Room {
			r, ok := byName[n]
			if !ok {
				return nil, fmt.Errorf("claim %q needs room check %q, which the experiment does not define", c.Text, n)
			}
			if !r.OK {
				c.Untestable = append(c.Untestable, n)
			}
		}
		if len(c.Parts) > 0 {
			parts, err := ApplyRoom(c.Parts, room)
			if err != nil {
				return nil, err
			}
			c.Parts = parts
		}
		out[i] = c
	}
	return out, nil
}

// flaggedSeeds are the seeds every outlier check of room flags.
func flaggedSeeds(room []RoomCheck) []uint64 {
	var out []uint64
	for _, r := range room {
		if r.Stat == StatModifiedZ {
			out = append(out, r.Flagged...)
		}
	}
	return out
}

// Judged is an experiment's verdict on one result: its room checks and its claims with the room
// applied.
type Judged struct {
	Experiment string      `json:"experiment"`
	Room       []RoomCheck `json:"room"`
	Claims     []Claim     `json:"claims"`
}

// Judge measures e's room checks on res and checks its claims, each claim's verdict turned
// "untestable here" where a room check it needs fails.
func Judge(e Experiment, res *Result) (Judged, error) {
	j := Judged{Experiment: e.Name, Room: []RoomCheck{}, Claims: []Claim{}}
	if e.Room != nil {
		j.Room = e.Room(res)
	}
	if e.Claims == nil {
		return j, nil
	}
	claims, err := ApplyRoom(e.Claims(res), j.Room)
	if err != nil {
		return j, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	extra := flaggedSeeds(j.Room)
	for i, c := range claims {
		claims[i] = c.MarkOutliers(extra)
	}
	j.Claims = claims
	return j, nil
}

// JudgeResult is Judge with the experiment looked up from the result.
func JudgeResult(res *Result) (Judged, error) {
	e, err := Lookup(res.Experiment)
	if err != nil {
		return Judged{}, err
	}
	return Judge(e, res)
}

type claimJSON struct {
	Claim      string      `json:"claim"`
	Headline   string      `json:"headline,omitempty"`
	Kind       string      `json:"kind,omitempty"`
	Measure    string      `json:"measure"`
	Test       string      `json:"test"`
	Mean       *float64    `json:"mean"`
	CI95       *[2]float64 `json:"ci95"`
	N          int         `json:"n"`
	MDE        *float64    `json:"mde,omitempty"`
	Margin     *float64    `json:"margin,omitempty"`
	MarginWhy  string      `json:"margin_why,omitempty"`
	Verdict    string      `json:"verdict"`
	Room       []string    `json:"room"`
	Failed     []string    `json:"room_failed,omitempty"`
	Unmeasured string      `json:"unmeasured,omitempty"`
	Context    string      `json:"context,omitempty"`
	Outliers   []uint64    `json:"outliers,omitempty"`
	Without    *claimJSON  `json:"without_outliers,omitempty"`
	Parts      []claimJSON `json:"readings,omitempty"`
	Notes      []string    `json:"notes,omitempty"`
}

// jsonOf is c as `paperlab claims -json` prints it.
func jsonOf(c Claim) claimJSON {
	cj := claimJSON{Claim: c.Text, Headline: c.Headline, Kind: c.Kind, Measure: c.Measure, Test: c.Test.String(), N: c.Stat.N,
		Verdict: c.Verdict(), Room: append([]string{}, c.Room...), Failed: c.Untestable, Unmeasured: c.Unmeasured,
		Context: c.Context, Outliers: c.Outliers, MarginWhy: c.MarginWhy, Notes: c.Notes}
	if len(c.Parts) > 0 {
		cj.Test, cj.N = "every reading", 0
	}
	if m := c.Stat.Mean; !math.IsNaN(m) && len(c.Parts) == 0 {
		cj.Mean = &m
	}
	if ci := c.Stat.CI95; !math.IsNaN(ci[0]) && !math.IsNaN(ci[1]) && len(c.Parts) == 0 {
		cj.CI95 = &ci
	}
	if m := c.MDE(); !math.IsNaN(m) && len(c.Parts) == 0 {
		cj.MDE = &m
	}
	if c.Kind == KindNonInferior {
		m := c.Margin
		cj.Margin = &m
	}
	if c.Without != nil {
		w := c
		w.Stat, w.Diffs, w.Without, w.Outliers, w.Notes = *c.Without, c.withoutDiffs(), nil, nil, nil
		wj := jsonOf(w)
		cj.Without = &wj
	}
	for _, p := range c.Parts {
		cj.Parts = append(cj.Parts, jsonOf(p))
	}
	return cj
}

// MarshalJSON writes the form `paperlab claims -json` prints.
func (j Judged) MarshalJSON() ([]byte, error) {
	out := struct {
		Experiment string      `json:"experiment"`
		Room       []RoomCheck `json:"room"`
		Claims     []claimJSON `json:"claims"`
	}{j.Experiment, j.Room, []claimJSON{}}
	for _, c := range j.Claims {
		out.Claims = append(out.Claims, jsonOf(c))
	}
	return json.Marshal(out)
}

// RoomTable is the table of room checks every notebook shows beside its claims.
func RoomTable(room []RoomCheck) (headers []string, rows [][]string) {
	headers = []string{"room check", "value on this run", "needs", "ok", "why it matters"}
	for _, r := range room {
		ok := "yes"
		if !r.OK {
			ok = "NO"
		}
		rows = append(rows, []string{r.Name, r.ValueText(), r.Threshold(), ok, r.Why})
	}
	return headers, rows
}

// FailedRoom lists the names of the failed checks.
func FailedRoom(room []RoomCheck) []string {
	var out []string
	for _, r := range room {
		if !r.OK {
			out = append(out, r.Name)
		}
	}
	return out
}

// TailShare measures whether a learning curve has stopped moving: the change a least-squares line
// fitted to the last frac of the curve's points makes across that window, divided by the change
// over the whole run at the run's average rate (the mean of the last frac of points minus the mean
// of the first frac, per unit x between their centres, times the run's x-span — or half the
// curve's range when that is larger: a run that never moved is measured against its noise). A
// curve still moving at its average rate gives about frac (0.2 for the last 20 %), a plateau about
// 0, a curve that turned back a negative value; falling curves (errors) are measured the same way.
// NaN for fewer than 4 points; 0 when the curve is constant.
func TailShare(c Curve, frac float64) float64 {
	n := len(c.Y)
	if n < 4 || len(c.X) != n || frac <= 0 || frac > 1 {
		return math.NaN()
	}
	k := max(2, int(math.Ceil(frac*float64(n))))
	dx := stats.Mean(c.X[n-k:]) - stats.Mean(c.X[:k])
	if dx <= 0 {
		return math.NaN()
	}
	total := (stats.Mean(c.Y[n-k:]) - stats.Mean(c.Y[:k])) / dx * (c.X[n-1] - c.X[0])
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range c.Y {
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	scale := math.Max(math.Abs(total), (hi-lo)/2)
	if scale < 1e-12 {
		return 0
	}
	if total < 0 {
		scale = -scale
	}
	return TailChange(c, frac) / scale
}

// TailChange is the change, in the curve's own units, that a least-squares line fitted to the last
// frac of the curve's points makes across that window (slope × the window's x-span): how much the
// curve still moves at the end, in absolute terms. Unlike TailShare it does not divide by the run's
// change, so it stays meaningful for a curve that never moved (there a relative slope is noise over
// noise). NaN for fewer than 4 points or a window of one x.
func TailChange(c Curve, frac float64) float64 {
	n := len(c.Y)
	if n < 4 || len(c.X) != n || frac <= 0 || frac > 1 {
		return math.NaN()
	}
	k := max(2, int(math.Ceil(frac*float64(n))))
	xs := c.X[n-k:]
	b, ok := stats.Slope(xs, c.Y[n-k:])
	if !ok {
		return math.NaN()
	}
	return b * (xs[len(xs)-1] - xs[0])
}

// FallPerDoubling is how much a falling curve — an error against a budget on x > 0 — still falls
// each time its budget doubles, measured over its last doubling, relative to its level there: the
// least-squares slope of y on log₂ x over the points with x ≥ x_last/2, negated and divided by the
// mean y of those points. 0.3: at the end it still falls by 30 % of its level per doubling; about 0:
// it has stopped; negative: it rises. Relative to the level (not to the curve's whole change, as
// TailShare is), it stays meaningful for a curve that never moved. NaN for fewer than 3 points in
// the window, an x ≤ 0 or a level ≤ 0.
func FallPerDoubling(c Curve) float64 {
	n := len(c.Y)
	if n < 3 || len(c.X) != n || c.X[n-1] <= 0 {
		return math.NaN()
	}
	var xs, ys []float64
	for i, x := range c.X {
		if x >= c.X[n-1]/2 {
			xs, ys = append(xs, math.Log2(x)), append(ys, c.Y[i])
		}
	}
	if len(xs) < 3 {
		return math.NaN()
	}
	b, ok := stats.Slope(xs, ys)
	if my := stats.Mean(ys); ok && my > 0 {
		return -b / my
	}
	return math.NaN()
}

// TailChangeOf is, per seed, TailChange of method's curve key (signed: a seed still rising gives a
// positive value, one falling a negative one).
func (r *Result) TailChangeOf(method, key string, frac float64) PerSeed {
	return r.CurveMeasure(method, key, func(c Curve) float64 { return TailChange(c, frac) })
}

// CurveMeasure is, per seed, f of method's curve key (absent where the curve is missing or empty,
// or f gives NaN): a room check's or a claim's per-seed value read off a curve.
func (r *Result) CurveMeasure(method, key string, f func(Curve) float64) PerSeed {
	return func(seed uint64) (float64, bool) {
		c, ok := r.CurveOf(method, key, seed)
		if !ok {
			return 0, false
		}
		v := f(c)
		return v, !math.IsNaN(v)
	}
}

// LineTailShare is what TailShare gives a straight line of n equally spaced points over the last
// frac of them: the value of a curve still moving at its average rate, against which a plateau
// (about 0) is told apart when a curve has few points. Computed on a synthetic line, so it follows
// TailShare.
func LineTailShare(n int, frac float64) float64 {
	c := Curve{}
	for i := range n {
		c.X, c.Y = append(c.X, float64(i+1)), append(c.Y, float64(i+1))
	}
	return TailShare(c, frac)
}

// CurveOf is method's curve key on seed (false when absent or empty).
func (r *Result) CurveOf(method, key string, seed uint64) (Curve, bool) {
	for _, run := range r.RunsOf(method) {
		if c, ok := run.Curves[key]; run.Seed == seed && ok && len(c.Y) > 0 {
			return c, true
		}
	}
	return Curve{}, false
}

// Plateau is, per seed, the signed TailShare of method's curve key over the last frac of its
// points: the share of the run's change the curve still makes at the end (positive: still moving
// in the run's direction; negative: turned back). A settled check (RoomSettled) reads the mean of
// these signed values, as it reads every kind of "has stopped moving" check.
func (r *Result) Plateau(method, key string, frac float64) PerSeed {
	return r.CurveMeasure(method, key, func(c Curve) float64 { return TailShare(c, frac) })
}

// VerdictText is the verdict with the failed room checks named: "untestable here (fails: a, b)",
// "untestable here (path not measured there)" (the unmeasured reason up to its first colon); a
// matched claim whose readings differ names each reading's verdict; a non-inferiority claim names its margin; a structural one says so.
func (c Claim) VerdictText() string {
	switch {
	case len(c.Untestable) > 0:
		return Untestable + " (fails: " + strings.Join(c.Untestable, ", ") + ")"
	case c.Unmeasured != "":
		short, _, _ := strings.Cut(c.Unmeasured, ":")
		return Untestable + " (" + short + ")"
	}
	v := c.Verdict()
	var parts []string
	differ := false
	for _, p := range c.Parts {
		parts = append(parts, p.Verdict())
		differ = differ || p.Verdict() != c.Parts[0].Verdict()
	}
	switch {
	case c.Kind == KindNonInferior:
		return fmt.Sprintf("%s (margin %g)", v, c.Margin)
	case c.Kind == KindStructural:
		return v + " (structural)"
	case differ:
		return v + " (" + strings.Join(parts, " / ") + ")"
	}
	return v
}

// ShowClaims shows a result's room checks and its claims (Judge) in a notebook — the room table,
// then the claims table with "untestable here" where a room check a claim needs fails — or as text
// elsewhere. It is the one call a paper notebook makes for its verdicts, and waits until they are
// shown (nb.Sync).
func ShowClaims(res *Result) error {
	j, err := JudgeResult(res)
	if err != nil {
		return err
	}
	failed := FailedRoom(j.Room)
	head := fmt.Sprintf("**Room checks** (%s, %d seeds): the preconditions a claim needs to be testable on this run. ", res.Experiment, len(res.Seeds))
	switch {
	case len(j.Room) == 0:
		head = fmt.Sprintf("**Room checks** (%s): none defined. ", res.Experiment)
	case len(failed) == 0:
		head += "All pass."
	default:
		head += fmt.Sprintf("%d of %d fail (%s): a claim needing one reads **untestable here** — this run could not have shown it either way.", len(failed), len(j.Room), strings.Join(failed, ", "))
	}
	claimsHead := "**Claims**, paired per seed: mean paired value with its 95 % t-interval; **holds** only when the interval excludes the threshold on the claimed side."
	if nb.IsNotebook() {
		nb.Markdown(head)
		if len(j.Room) > 0 {
			nb.Table(RoomTable(j.Room))
		}
		if len(j.Claims) > 0 {
			nb.Markdown(claimsHead)
			nb.Table(ClaimsTable(j.Claims))
		}
		nb.Sync()
		return nil
	}
	return WriteClaims(os.Stdout, res, j)
}

// WriteClaims writes a judged result as text — the room table, then the claims table — as
// `paperlab claims` prints it (and ShowClaims outside a notebook).
func WriteClaims(w io.Writer, res *Result, j Judged) error {
	if len(j.Room) > 0 {
		fmt.Fprintf(w, "room checks (%s, %d seeds; a claim needing a failed one is untestable here):\n", res.Experiment, len(res.Seeds))
		fmt.Fprint(w, nb.TableText(RoomTable(j.Room)))
	} else {
		fmt.Fprintf(w, "room checks (%s): none defined\n", res.Experiment)
	}
	if len(j.Claims) == 0 {
		_, err := fmt.Fprintf(w, "claims (%s): this experiment checks no paper claims\n", res.Experiment)
		return err
	}
	fmt.Fprintf(w, "claims (%s, %d seeds; paired per seed, mean [95%% t-interval]):\n", res.Experiment, len(res.Seeds))
	_, err := fmt.Fprint(w, nb.TableText(ClaimsTable(j.Claims)))
	return err
}

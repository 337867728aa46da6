package exp

import (
	"cmp"
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Match names a comparison of method A with method B at a common operating point: both methods
// log two metrics along training as curves X and Y (e.g. "train/eval_accuracy" and
// "train/eval_auc"), with X growing along training. On each seed the common point is
// x* = min(A's last X, B's last X) — the furthest along X both paths get — and each path's Y is
// read, by the same rule, where that path first reaches x* (linear between its two evaluations
// around the crossing, InterpAt); the seed's value is y_A(x*) − y_B(x*): "A's AUC minus B's at the
// accuracy both reach". Reading both paths by one rule keeps the comparison unbiased when the two
// methods do not differ (the null test): reading A at its first crossing of B's noisy end point
// against B's end point itself makes "holds" come out in most trials of two identical methods.
//
// A seed where a path never crosses x* (it starts above it) is left out and said in the claim's
// Notes. With Envelope the paths' upper envelopes are compared instead of first crossings.
type Match struct {
	A, B string
	X, Y string
	// BX and BY are B's curve names where they differ from A's (a method logged under another
	// prefix, e.g. "mixed/reward_2" against "round2/reward_2"); empty means X and Y.
	BX, BY string
	// Envelope compares the two paths' upper envelopes instead of end points, for an X where more is
	// better: per seed x* = min(max x_A, max x_B), the furthest along X both paths get, and the value
	// is E_A(x*) − E_B(x*), where E(x) is the largest y a path attains at x or beyond (EnvelopeAt):
	// the best each method did at least that far along X. Neither a path's last checkpoint nor the
	// first time it crosses x* decides, so a method whose y dips and recovers is not caught at its
	// dip.
	Envelope bool
	// FallbackFinal is ignored: both paths are read at the common point x* that both reach, so no
	// path falls short of it.
	FallbackFinal bool
	// ByStep matches along training steps instead of along evaluation checkpoints: X is a dense
	// per-step curve (e.g. "train/kl", one point per step) and Y an evaluation curve (e.g.
	// "train/eval_auc"), each with training steps as its x. Each path's end is its smoothed X at
	// its last step (the mean over its last Smooth steps), x* the smaller end; each path's X, smoothed by a centred mean
	// over ±Smooth steps, first reaches x* at a step s (linear between steps), and its Y is read at
	// s linearly between the evaluations around it.
	ByStep bool
	Smooth int
}

// A matched value whose crossing lies between a path's start and its first evaluation after it
// rests on no measured point: more than half of a claim's seeds like that make it read
// "untestable here (path not measured there)".
const unmeasuredRule = "path not measured there"

// EnvelopeAt is the largest y of the path (xs[i], ys[i]) over the points where its x is at least x:
// its checkpoints with xs[i] ≥ x and the points where a segment crosses x (linear interpolation).
// ok is false when the path never reaches x.
func EnvelopeAt(xs, ys []float64, x float64) (y float64, ok bool) {
	n := min(len(xs), len(ys))
	y = math.Inf(-1)
	for i := 0; i < n; i++ {
		if xs[i] >= x {
			y, ok = math.Max(y, ys[i]), true
		}
		if i+1 < n && (xs[i]-x)*(xs[i+1]-x) < 0 {
			t := (x - xs[i]) / (xs[i+1] - xs[i])
			y, ok = math.Max(y, ys[i]+t*(ys[i+1]-ys[i])), true
		}
	}
	if !ok {
		return math.NaN(), false
	}
	return y, true
}

// InterpAt is the y of the path (xs[i], ys[i]), taken in checkpoint order, where its x first
// equals x: linear interpolation between the two evaluations around the first time the path
// reaches x (a path that crosses x several times answers at its first crossing — the earliest
// point of training at which the method reaches that operating point). ok is false when no segment
// reaches x (the path's x-range excludes it) or the path is empty.
func InterpAt(xs, ys []float64, x float64) (y float64, ok bool) {
	y, _, ok = interpAt(xs, ys, x)
	return y, ok
}

// interpAt is InterpAt with the position it answers at, as a fractional index along the path
// (i + t between points i and i+1; an integer on a checkpoint).
func interpAt(xs, ys []float64, x float64) (y, pos float64, ok bool) {
	n := min(len(xs), len(ys))
	if n == 1 && xs[0] == x {
		return ys[0], 0, true
	}
	for i := 0; i+1 < n; i++ {
		x0, x1 := xs[i], xs[i+1]
		if x < math.Min(x0, x1) || x > math.Max(x0, x1) {
			continue
		}
		switch {
		case x == x0:
			return ys[i], float64(i), true
		case x == x1 || x0 == x1:
			return ys[i+1], float64(i + 1), true
		}
		t := (x - x0) / (x1 - x0)
		return ys[i] + t*(ys[i+1]-ys[i]), float64(i) + t, true
	}
	return math.NaN(), 0, false
}

// firstSegment reports a position strictly between a path's first two points: a value resting on
// no measured point but the start.
func firstSegment(pos float64) bool { return pos > 0 && pos < 1 }

// smoothed is the centred mean of c.Y over the points whose x lies within ±w of each point's x
// (c itself for w ≤ 0).
func smoothed(c Curve, w int) Curve {
	if w <= 0 {
		return c
	}
	out := Curve{X: c.X, Y: make([]float64, len(c.Y))}
	lo, hi := 0, 0
	var sum float64
	for i, x := range c.X {
		for hi < len(c.X) && c.X[hi] <= x+float64(w) {
			sum += c.Y[hi]
			hi++
		}
		for c.X[lo] < x-float64(w) {
			sum -= c.Y[lo]
			lo++
		}
		out.Y[i] = sum / float64(hi-lo)
	}
	return out
}

// smoothedEnd is a path's end on its smoothed X: the centred mean at its last step (the mean over
// its last w steps), the value the smoothed path itself ends at, so that a path always reaches its
// own end.
func smoothedEnd(c Curve, w int) float64 {
	sm := smoothed(c, w)
	return sm.Y[len(sm.Y)-1]
}

// stepAt is the step where path's X, smoothed over ±w steps, first reaches x, and its Y read there
// between evaluations at position pos along the Y curve (see interpAt); ok false when the path
// never reaches x.
func stepAt(px, py Curve, w int, x float64) (y, pos float64, ok bool) {
	sm := smoothed(px, w)
	step, _, ok := interpAt(sm.Y, sm.X, x)
	if !ok {
		return 0, 0, false
	}
	return interpAt(py.X, py.Y, step)
}

// MatchedOn compares m.A with m.B at their common operating point on every seed of seeds (see
// Match), judged by test on the paired values. A seed where a curve is missing is left out; a seed
// where a path never crosses the common point is said in the claim's Notes and left out. Notes
// also count the evaluated points up to the matched points, and the seeds matched between a
// path's start and its first evaluation (no measured point there): when they are most of the
// seeds, the claim reads "untestable here (path not measured there)".
func MatchedOn(r *Result, seeds []uint64, text, measure string, test Test, m Match) Claim {
	c := Claim{Text: text, Measure: measure, Test: test}
	bxk, byk := cmp.Or(m.BX, m.X), cmp.Or(m.BY, m.Y)
	var first []uint64 // seeds matched on a path's first segment
	var evals []int    // evaluations up to each seed's earlier matched point
	for _, seed := range seeds {
		ax, ok1 := r.CurveOf(m.A, m.X, seed)
		ay, ok2 := r.CurveOf(m.A, m.Y, seed)
		bx, ok3 := r.CurveOf(m.B, bxk, seed)
		by, ok4 := r.CurveOf(m.B, byk, seed)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			continue
		}
		var d float64
		if m.Envelope {
			_, ahi := minMax(ax.Y)
			_, bhi := minMax(bx.Y)
			x := math.Min(ahi, bhi)
			ea, ok1 := EnvelopeAt(ax.Y, ay.Y, x)
			eb, ok2 := EnvelopeAt(bx.Y, by.Y, x)
			if !ok1 || !ok2 {
				continue
			}
			d = ea - eb
		} else {
			var ya, yb, pa, pb, x float64
			var oka, okb bool
			if m.ByStep {
				x = math.Min(smoothedEnd(ax, m.Smooth), smoothedEnd(bx, m.Smooth))
				ya, pa, oka = stepAt(ax, ay, m.Smooth, x)
				yb, pb, okb = stepAt(bx, by, m.Smooth, x)
			} else {
				x = math.Min(ax.Y[len(ax.Y)-1], bx.Y[len(bx.Y)-1])
				ya, pa, oka = interpAt(ax.Y, ay.Y, x)
				yb, pb, okb = interpAt(bx.Y, by.Y, x)
			}
			if !oka || !okb {
				c.Notes = append(c.Notes, fmt.Sprintf("seed %d: %s or %s never crosses the common %s %.3g: left out", seed, m.A, m.B, m.X, x))
				continue
			}
			if firstSegment(pa) || firstSegment(pb) {
				first = append(first, seed)
			}
			// evaluated points up to the earlier of the two matched points, the start included
			evals = append(evals, int(math.Floor(math.Min(pa, pb)))+1)
			d = ya - yb
		}
		c.Diffs = append(c.Diffs, d)
		c.SeedIDs = append(c.SeedIDs, seed)
		if test.Agrees(d) {
			c.Seeds++
		}
	}
	c.Stat = stats.Summarize(c.Diffs)
	if len(evals) > 0 {
		lo, _ := minMax(intsF(evals))
		c.Notes = append(c.Notes, fmt.Sprintf("matched points rest on ≥ %d evaluated points of each path (median %.0f over %d seeds)",
			int(lo), stats.Percentile(intsF(evals), 0.5), len(evals)))
	}
	if len(first) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d of %d seeds matched between a path's start and its first evaluation (seeds %v)", len(first), len(c.Diffs), first))
		if 2*len(first) > len(c.Diffs) {
			c.Unmeasured = unmeasuredRule + ": most seeds' matched points lie between a path's start and its first evaluation"
		}
	}
	return c
}

// Matched is MatchedOn on every seed of the result.
func (r *Result) Matched(text, measure string, test Test, m Match) Claim {
	return MatchedOn(r, r.Seeds, text, measure, test, m)
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// Frontier draws metric Y against metric X along training (curves x and y logged at the same
// checkpoints), one line per method — its mean path over seeds (checkpoint by checkpoint) in bold
// with markers, every seed's own path thin and pale behind it as the seed band — so two methods
// that trade one metric for another can be read at the same operating point.
func Frontier(res *Result, title, xlabel, ylabel string, methods []string, x, y string) (*plot.Figure, error) {
	return FrontierBy(res, title, xlabel, ylabel, methods, func(string) (string, string) { return x, y })
}

// FrontierBy is Frontier with each method's curve names given by keys (methods that log their path
// under different prefixes, e.g. a first round, a second round and a one-round baseline).
func FrontierBy(res *Result, title, xlabel, ylabel string, methods []string, keys func(method string) (x, y string)) (*plot.Figure, error) {
	var series []plot.FrontierSeries
	for _, m := range methods {
		x, y := keys(m)
		s := plot.FrontierSeries{Name: m, Color: MethodColor(res, m)}
		for _, seed := range res.Seeds {
			cx, ok1 := res.CurveOf(m, x, seed)
			cy, ok2 := res.CurveOf(m, y, seed)
			if ok1 && ok2 {
				n := min(len(cx.Y), len(cy.Y))
				s.X, s.Y = append(s.X, cx.Y[:n]), append(s.Y, cy.Y[:n])
			}
		}
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("no method of %v has its frontier curves: %w", methods, ErrNoFigures)
	}
	return plot.Frontier(title, xlabel, ylabel, series)
}

func intsF(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

package exp

import (
	"cmp"
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Match names a comparison of method A with method B at B's operating point: both methods log two
// metrics at the same evaluation checkpoints as curves X and Y (e.g. "train/eval_accuracy" and
// "train/eval_auc"). On each seed B's operating point is its last checkpoint (x_B, y_B); A's path
// through (X, Y) is interpolated linearly at x = x_B (InterpAt) and the seed's value is
// y_A(x_B) − y_B: "A's AUC at B's accuracy minus B's AUC".
//
// A seed whose A path never reaches x_B (the curves do not overlap) is left out and said in the
// claim's Notes — or, with FallbackFinal, measured at A's final point and said so. With Envelope
// the paths' upper envelopes are compared instead of end points.
type Match struct {
	A, B string
	X, Y string
	// BX and BY are B's curve names where they differ from A's (a method logged under another
	// prefix, e.g. "mixed/reward_2" against "round2/reward_2"); empty means X and Y.
	BX, BY string
	// FallbackFinal: a seed whose A path never reaches B's x uses A's last checkpoint instead of
	// being left out (noted either way).
	FallbackFinal bool
	// Envelope compares the two paths' upper envelopes instead of end points, for an X where more is
	// better: per seed x* = min(max x_A, max x_B), the furthest along X both paths get, and the value
	// is E_A(x*) − E_B(x*), where E(x) is the largest y a path attains at x or beyond (EnvelopeAt):
	// the best each method did at least that far along X. Neither a path's last checkpoint nor the
	// first time it crosses x* decides, so a method whose y dips and recovers is not caught at its
	// dip.
	Envelope bool
	// ByStep matches along training steps instead of along evaluation checkpoints: X is a dense
	// per-step curve (e.g. "train/kl", one point per step) and Y an evaluation curve (e.g.
	// "train/eval_auc"), each with training steps as its x. B's operating point is the mean of its
	// X over its last Smooth steps and its last Y; A's X, smoothed by a centred mean over ±Smooth
	// steps, first reaches B's value at step s* (linear between steps), and A's Y is read at s*
	// linearly between the evaluations around it.
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

// interpAt is InterpAt with the index i of the segment (xs[i], xs[i+1]) it answers on; i = -1 for
// an exact hit of a checkpoint (no interpolation).
func interpAt(xs, ys []float64, x float64) (y float64, seg int, ok bool) {
	n := min(len(xs), len(ys))
	if n == 1 && xs[0] == x {
		return ys[0], -1, true
	}
	for i := 0; i+1 < n; i++ {
		x0, x1 := xs[i], xs[i+1]
		if x < math.Min(x0, x1) || x > math.Max(x0, x1) {
			continue
		}
		if x0 == x1 || x == x0 {
			if x == x0 {
				return ys[i], -1, true
			}
			return ys[i+1], -1, true
		}
		if x == x1 {
			return ys[i+1], -1, true
		}
		t := (x - x0) / (x1 - x0)
		return ys[i] + t*(ys[i+1]-ys[i]), i, true
	}
	return math.NaN(), 0, false
}

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

// tailMean is the mean of c.Y over its points within the last w steps of x (the last point for w ≤ 0).
func tailMean(c Curve, w int) float64 {
	n := len(c.Y)
	last := c.X[n-1]
	var sum float64
	k := 0
	for i := n - 1; i >= 0 && last-c.X[i] < float64(max(w, 1)); i-- {
		sum += c.Y[i]
		k++
	}
	return sum / float64(k)
}

// byStep is one seed's ByStep matched value: A's Y at the step where its smoothed X first reaches
// B's operating X, minus B's last Y; seg is the evaluation segment A's Y is read on (-1 on a
// checkpoint) and s* the step; ok false when A's smoothed X never reaches B's.
func byStep(ax, ay, bx, by Curve, w int) (d, step float64, seg int, ok bool) {
	xb := tailMean(bx, w)
	sa := smoothed(ax, w)
	step, _, ok = interpAt(sa.Y, sa.X, xb)
	if !ok {
		return 0, 0, 0, false
	}
	ya, seg, ok := interpAt(ay.X, ay.Y, step)
	if !ok {
		return 0, 0, 0, false
	}
	return ya - by.Y[len(by.Y)-1], step, seg, true
}

// MatchedOn compares m.A with m.B at m.B's operating point on every seed of seeds (see Match),
// judged by test on the paired values. A seed where either curve is missing is left out; a seed
// where A's path never reaches B's x is said in the claim's Notes (the curves do not overlap
// there) and left out, or measured at A's final point with m.FallbackFinal; with m.Envelope the
// paths' upper envelopes are compared instead.
func MatchedOn(r *Result, seeds []uint64, text, measure string, test Test, m Match) Claim {
	c := Claim{Text: text, Measure: measure, Test: test}
	bxk, byk := cmp.Or(m.BX, m.X), cmp.Or(m.BY, m.Y)
	var first, evals []int // seeds matched on the first segment; evaluations up to each matched point
	for _, seed := range seeds {
		ax, ok1 := r.CurveOf(m.A, m.X, seed)
		ay, ok2 := r.CurveOf(m.A, m.Y, seed)
		bx, ok3 := r.CurveOf(m.B, bxk, seed)
		by, ok4 := r.CurveOf(m.B, byk, seed)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			continue
		}
		var d float64
		if m.ByStep {
			v, step, seg, ok := byStep(ax, ay, bx, by, m.Smooth)
			if !ok {
				lo, hi := minMax(smoothed(ax, m.Smooth).Y)
				c.Notes = append(c.Notes, fmt.Sprintf("seed %d: %s's %s (±%d steps) spans %.3g…%.3g, never %s's %.3g: left out",
					seed, m.A, m.X, m.Smooth, lo, hi, m.B, tailMean(bx, m.Smooth)))
				continue
			}
			if seg == 0 {
				first = append(first, int(seed))
			}
			k := 0
			for _, x := range ay.X {
				if x <= step {
					k++
				}
			}
			evals = append(evals, k)
			d = v
		} else if m.Envelope {
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
			xb, yb := bx.Y[len(bx.Y)-1], by.Y[len(by.Y)-1]
			ya, seg, ok := interpAt(ax.Y, ay.Y, xb)
			if ok {
				if seg == 0 {
					first = append(first, int(seed))
				}
				evals = append(evals, max(seg, 0)+1)
			}
			if !ok {
				lo, hi := minMax(ax.Y)
				note := fmt.Sprintf("seed %d: no overlap (%s's %s spans %.3g…%.3g, %s ends at %.3g)", seed, m.A, m.X, lo, hi, m.B, xb)
				if !m.FallbackFinal {
					c.Notes = append(c.Notes, note+": left out")
					continue
				}
				c.Notes = append(c.Notes, note+": "+m.A+"'s final point used")
				ya = ay.Y[len(ay.Y)-1]
			}
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
		c.Notes = append(c.Notes, fmt.Sprintf("%s's path reaches the matched point after ≥ %d evaluated points (median %.0f over %d seeds)",
			m.A, int(lo), stats.Percentile(intsF(evals), 0.5), len(evals)))
	}
	if len(first) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d of %d seeds matched between %s's start and its first evaluation (seeds %v)", len(first), len(c.Diffs), m.A, first))
		if 2*len(first) > len(c.Diffs) {
			c.Unmeasured = fmt.Sprintf("%s: most seeds' matched points lie between %s's start and its first evaluation", unmeasuredRule, m.A)
		}
	}
	return c
}

func intsF(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
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

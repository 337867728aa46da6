// Package track records named metric curves during training (metric against step), the small
// common currency between trainers (lm, rl, pref, marl) and the experiment layer that plots them.
package track

import "sort"

// Curve is a series of (x, y) points, e.g. a metric against the training step.
type Curve struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
}

// Curves maps metric names to their curves.
type Curves map[string]Curve

// Add appends the point (x, y) to the named curve.
func (c Curves) Add(name string, x, y float64) {
	cur := c[name]
	cur.X = append(cur.X, x)
	cur.Y = append(cur.Y, y)
	c[name] = cur
}

// AddAll appends (x, v) to each named curve of values.
func (c Curves) AddAll(x float64, values map[string]float64) {
	for k, v := range values {
		c.Add(k, x, v)
	}
}

// Last returns the last y of a curve, and false when the curve is empty.
func (c Curves) Last(name string) (float64, bool) {
	cur := c[name]
	if len(cur.Y) == 0 {
		return 0, false
	}
	return cur.Y[len(cur.Y)-1], true
}

// Names returns the curve names, sorted.
func (c Curves) Names() []string {
	var n []string
	for k := range c {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Progress receives progress reports from long loops; toolkit/nb's Progress implements it (a live
// line in a notebook, periodic lines in a terminal). Core packages depend on this interface only.
type Progress interface {
	Update(done int, status string)
}

// NoProgress discards reports.
type NoProgress struct{}

func (NoProgress) Update(int, string) {}

// Binned is the curve averaged over consecutive blocks of points so that at most n remain: each
// block of ⌈len/n⌉ points becomes one point at its last x with its mean y (the last block may be
// shorter). A curve of n points or fewer (or n < 1) is returned as it is.
func (c Curve) Binned(n int) Curve {
	if n < 1 || len(c.Y) <= n || len(c.X) != len(c.Y) {
		return c
	}
	size := (len(c.Y) + n - 1) / n
	var out Curve
	for i := 0; i < len(c.Y); i += size {
		j := min(i+size, len(c.Y))
		var s float64
		for _, y := range c.Y[i:j] {
			s += y
		}
		out.X, out.Y = append(out.X, c.X[j-1]), append(out.Y, s/float64(j-i))
	}
	return out
}

package exp

import (
	"slices"
	"testing"
)

// StoppedSeries keeps seeds that stopped early (their x a prefix of the longest seed's) with their
// shorter y, on the longest seed's x, and leaves out a seed evaluated at other points.
func TestStoppedSeries(t *testing.T) {
	res := &Result{Runs: []Run{
		{Method: "a", Seed: 1, Curves: map[string]Curve{"k": {X: []float64{100, 200}, Y: []float64{0.6, 0.7}}}},
		{Method: "a", Seed: 2, Curves: map[string]Curve{"k": {X: []float64{100, 200, 300, 400}, Y: []float64{0.5, 0.6, 0.8, 0.7}}}},
		{Method: "a", Seed: 3, Curves: map[string]Curve{"k": {X: []float64{50, 150}, Y: []float64{0.1, 0.2}}}},
		{Method: "b", Seed: 1, Curves: map[string]Curve{"other": {X: []float64{1}, Y: []float64{1}}}},
	}}
	s := StoppedSeries(res, "k", []string{"a", "b"})
	if len(s) != 1 || s[0].Name != "a" {
		t.Fatalf("series %+v, want a only", s)
	}
	if !slices.Equal(s[0].X, []float64{100, 200, 300, 400}) || len(s[0].Y) != 2 {
		t.Fatalf("x %v with %d seeds, want the longest x and seeds 1–2", s[0].X, len(s[0].Y))
	}
	if !slices.Equal(s[0].Y[0], []float64{0.6, 0.7}) || !slices.Equal(s[0].Y[1], []float64{0.5, 0.6, 0.8, 0.7}) {
		t.Fatalf("y %v", s[0].Y)
	}
}

package exp

import (
	"math"
	"slices"
	"testing"

	"github.com/paperlab/paperlab/toolkit/plot"
)

// StoppedSeries keeps seeds that stopped early (their x a prefix of the longest seed's) with their
// y padded with NaN, on the longest seed's x (as plot.Panels needs: one y per x), and leaves out a
// seed evaluated at other points; the band then rests on the seeds that reached each point.
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
	if y := s[0].Y[0]; len(y) != 4 || y[0] != 0.6 || y[1] != 0.7 || !math.IsNaN(y[2]) || !math.IsNaN(y[3]) || !slices.Equal(s[0].Y[1], []float64{0.5, 0.6, 0.8, 0.7}) {
		t.Fatalf("y %v", s[0].Y)
	}
	if _, err := plot.Panels("t", "x", "y", []plot.Panel{{Title: "p", Series: s}}, plot.BandOpts{}); err != nil {
		t.Fatalf("plot refuses the stopped series: %v", err)
	}
	if mean, _, _, n := plot.Band(s[0].Y, false); n[3] != 1 || mean[3] != 0.7 || n[0] != 2 {
		t.Fatalf("band means %v counts %v", mean, n)
	}
}

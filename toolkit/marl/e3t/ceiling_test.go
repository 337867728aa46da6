package e3t

import (
	"math"
	"slices"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

func TestPMCeiling(t *testing.T) {
	onehot := func(a int) []float64 { p := make([]float64, 6); p[a] = 1; return p }
	uniform := []float64{1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6}
	for _, c := range []struct {
		name  string
		probs [][]float64
		draws int
		eps   float64
		want  float64
	}{
		// A deterministic partner behind ε = 0.7: the authors' bound, 0.7/6 + 0.3.
		{"deterministic", [][]float64{onehot(2), onehot(4)}, 1, 0.7, 0.7/6 + 0.3},
		{"uniform partner", [][]float64{uniform}, 1, 0.7, 1. / 6},
		{"no ε", [][]float64{onehot(1)}, 1, 0, 1},
		// Two draws that disagree: the mean is (½, ½) on actions 0 and 3, so the best guess is right
		// half the time (the max of each draw, 1, would overstate it).
		{"draws averaged before the max", [][]float64{onehot(0), onehot(3)}, 2, 0, 0.5},
		// Two states of two draws each: 1 and 0.5.
		{"mean over states", [][]float64{onehot(5), onehot(5), onehot(0), onehot(1)}, 2, 0, 0.75},
	} {
		if got := PMCeiling(c.probs, c.draws, c.eps); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: PMCeiling = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCeilingLeavesTrainingAlone: measuring the ceiling draws from its own random stream, so the
// training is bit for bit the one without it; the curve lies between a uniform guess and the
// deterministic partner's bound.
func TestCeilingLeavesTrainingAlone(t *testing.T) {
	cfg := Default(overcooked.DefaultConfig("cramped_room"), "e3t")
	cfg.PartnerModel, cfg.Envs, cfg.Iters, cfg.Hidden, cfg.Epsilon = true, 2, 3, 16, 0.7
	cfg.Game.Horizon = 24
	run := func(every int) (*Result, []float32) {
		c := cfg
		c.PMCeilingEvery, c.PMCeilingDraws = every, 4
		res, err := Train(c, 9, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w, _ := res.Policy.Actor.Weights()
		return res, w
	}
	off, woff := run(0)
	on, won := run(5)
	if !slices.Equal(woff, won) {
		t.Fatal("the ceiling's measurement changed the trained weights")
	}
	for _, name := range []string{"episodic_return", "policy_loss", "pm_accuracy"} {
		if !slices.Equal(off.Curves[name].Y, on.Curves[name].Y) {
			t.Fatalf("curve %s differs with the ceiling measured", name)
		}
	}
	if _, ok := off.Curves["pm_ceiling"]; ok {
		t.Fatal("pm_ceiling recorded with PMCeilingEvery 0")
	}
	c, half, floor := on.Curves["pm_ceiling"], on.Curves["pm_ceiling_half"], on.Curves["pm_floor"]
	if len(c.Y) != cfg.Iters || len(half.Y) != cfg.Iters || len(floor.Y) != cfg.Iters {
		t.Fatalf("pm_ceiling, pm_ceiling_half, pm_floor: %d, %d, %d points, want %d", len(c.Y), len(half.Y), len(floor.Y), cfg.Iters)
	}
	for i, y := range c.Y {
		if y < 1./6-1e-9 || y > 0.7/6+0.3+1e-9 || half.Y[i] < 1./6-1e-9 || half.Y[i] > 0.7/6+0.3+1e-9 {
			t.Fatalf("pm_ceiling %v (half the draws %v) outside [1/6, 0.7/6 + 0.3]", y, half.Y[i])
		}
		// A constant guess is one of the predictors the ceiling bounds.
		if floor.Y[i] < 1./6-1e-9 || floor.Y[i] > y+1e-9 {
			t.Fatalf("pm_floor %v outside [1/6, the ceiling %v]", floor.Y[i], y)
		}
	}
}

func TestPMFloorAndDraws(t *testing.T) {
	onehot := func(a int) []float64 { p := make([]float64, 6); p[a] = 1; return p }
	// Two states whose partner always plays 0 and 3: a constant guess is right half the time, the
	// state-aware ceiling always.
	probs := [][]float64{onehot(0), onehot(3)}
	if f, c := PMFloor(probs, 1, 0), PMCeiling(probs, 1, 0); math.Abs(f-0.5) > 1e-12 || math.Abs(c-1) > 1e-12 {
		t.Fatalf("floor %v, ceiling %v; want 0.5 and 1", f, c)
	}
	// Each state's first k draws: state 1's draws are 0, 1; state 2's are 2, 3.
	got := firstDraws([][]float64{onehot(0), onehot(1), onehot(2), onehot(3)}, 2, 1)
	if len(got) != 2 || got[0][0] != 1 || got[1][2] != 1 {
		t.Fatalf("firstDraws = %v", got)
	}
}

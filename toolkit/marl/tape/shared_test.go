package tape

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/topology"
)

// TestSharedGradientMeanIgnoresTopology: the Monte-Carlo mean of the shared coalition gradient over
// many batches matches ExpectedSharedGradient — the individual (identity) and the global (all-ones)
// topology alike — while the global one's spread is larger: the j ≠ i terms add noise with mean zero.
func TestSharedGradientMeanIgnoresTopology(t *testing.T) {
	cfg := DefaultShared()
	cfg.Batch = 1
	g := newSharedGame(cfg, 7)
	r := rand.New(rand.NewPCG(1, 2))
	for o := range g.theta { // a policy and a critic away from uniform and zero
		for a := range g.theta[o] {
			g.theta[o][a], g.q[o][a] = r.NormFloat64(), r.NormFloat64()
		}
	}
	pi := g.policies()
	exact := ExpectedSharedGradient(pi, g.q, cfg.Agents)
	n := cfg.Agents
	all := make(topology.Matrix, n)
	for i := range all {
		all[i] = make([]float64, n)
		for j := range all[i] {
			all[i][j] = 1
		}
	}
	const draws = 200_000
	vars := map[string]float64{}
	for _, c := range []struct {
		name string
		topo topology.Matrix
	}{{"identity", topology.Identity(n)}, {"all ones", all}} {
		gs := make([][][]float64, 0, draws)
		rd := rand.New(rand.NewPCG(3, 4))
		for d := 0; d < draws; d++ {
			bt := g.sample(pi, rd)
			gs = append(gs, SharedCoalitionGradient(pi, g.q, bt.ctx, bt.act, c.topo))
		}
		mean := meanOf(gs)
		v := 0.0
		for _, x := range gs {
			v += sqDist(x, mean)
		}
		v /= draws - 1
		// The error of a mean of draws: its squared norm has expectation trace(Cov)/draws.
		if d := sqDist(mean, exact); d > 9*v/draws {
			t.Errorf("%s: ‖MC mean − exact‖² = %.3g, more than 9× its expected %.3g", c.name, d, v/draws)
		}
		vars[c.name] = v
	}
	if !(vars["all ones"] > 2*vars["identity"]) {
		t.Errorf("all-ones variance %.3f not above twice the identity's %.3f", vars["all ones"], vars["identity"])
	}
}

// TestSharedGradientByHand: one episode of two agents — the coalition weight of each agent is the sum
// of its coalition's advantages, and the gradient is ∇log π times it.
func TestSharedGradientByHand(t *testing.T) {
	pi := [][]float64{{0.25, 0.75}}
	q := [][]float64{{1, 3}}
	// base = 0.25·1 + 0.75·3 = 2.5; agent 0 plays 0 (A = −1.5), agent 1 plays 1 (A = 0.5).
	ctx, act := [][]int{{0, 0}}, [][]int{{0, 1}}
	topo := topology.Matrix{{1, 1}, {0, 1}} // agent 0's coalition has agent 1; agent 1's only itself
	g := SharedCoalitionGradient(pi, q, ctx, act, topo)
	// agent 0: c = −1.5 + 0.5 = −1, ∇ = (1 − 0.25, −0.75); agent 1: c = 0.5, ∇ = (−0.25, 1 − 0.75).
	want := []float64{0.75*-1 + -0.25*0.5, -0.75*-1 + 0.25*0.5}
	for b := range want {
		if math.Abs(g[0][b]-want[b]) > 1e-12 {
			t.Fatalf("gradient %v, want %v", g[0], want)
		}
	}
}

// TestValueNormalised: the uniform policy scores 0, the optimal one 1.
func TestValueNormalised(t *testing.T) {
	pay := [][]float64{{0.1, 0.9, 0.5}, {0.7, 0.2, 0.3}}
	uni := [][]float64{{1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}}
	opt := [][]float64{{0, 1, 0}, {1, 0, 0}}
	if v := Value(pay, uni); math.Abs(v) > 1e-12 {
		t.Fatalf("uniform: %v", v)
	}
	if v := Value(pay, opt); math.Abs(v-1) > 1e-12 {
		t.Fatalf("optimal: %v", v)
	}
}

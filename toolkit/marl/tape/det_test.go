package tape

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
)

// MixWeights is the derivative of the coalition loss Σ_i (1/N)·Mix(A_i ⊙ u) in u_j (checked by finite
// differences on a random mixer, topology and utilities), and the mixer's parameter gradient
// (accumulate) matches finite differences of Forward.
func TestMixWeightsAndGradientsByFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 4
	mix := NewMixer(n, 6, r)
	for k := range mix.B1 {
		mix.B1[k] = r.NormFloat64()
	}
	topo := topology.ER{P: 0.5}.Sample(r, n)
	u := []float64{-1.3, 0.4, 2.2, -0.2}
	loss := func(u []float64) float64 {
		s := 0.0
		for i := range topo {
			x := make([]float64, n)
			for j := range x {
				x[j] = topo[i][j] * u[j]
			}
			y, _ := mix.Forward(x)
			s += y / float64(n)
		}
		return s
	}
	w := MixWeights(mix, topo, u)
	const h = 1e-6
	for j := range u {
		up, dn := append([]float64(nil), u...), append([]float64(nil), u...)
		up[j] += h
		dn[j] -= h
		if fd := (loss(up) - loss(dn)) / (2 * h); math.Abs(fd-w[j]) > 1e-6 {
			t.Fatalf("w[%d] = %v, finite difference %v", j, w[j], fd)
		}
		if w[j] < 0 {
			t.Fatalf("w[%d] = %v < 0: the mixer is not monotonic", j, w[j])
		}
	}
	// Parameter gradient of y at x, against finite differences on W1[1][2] and W2[3].
	x := []float64{0.5, -2, 1, 0.3}
	acc := mix.zero()
	mix.accumulate(x, 1, acc)
	for _, c := range []struct {
		p    *float64
		want float64
	}{{&mix.W1[1][2], acc.W1[1][2]}, {&mix.W2[3], acc.W2[3]}, {&mix.B1[0], acc.B1[0]}} {
		old := *c.p
		*c.p = old + h
		yu, _ := mix.Forward(x)
		*c.p = old - h
		yd, _ := mix.Forward(x)
		*c.p = old
		if fd := (yu - yd) / (2 * h); math.Abs(fd-c.want) > 1e-6 {
			t.Fatalf("parameter gradient %v, finite difference %v", c.want, fd)
		}
	}
}

// TrainDet: a seed gives the same run, the curves have their points, runs end in one of the
// coordination game's equilibria, and bad settings are errors.
func TestTrainDet(t *testing.T) {
	e, _ := env.Make("matrix:coord5")
	game := e.(*env.Matrix)
	cfg := DefaultDet()
	cfg.Iters = 300
	a, ja, err := TrainDet(game, cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, jb, _ := TrainDet(game, cfg, 4)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ja, jb) {
		t.Fatal("the same seed gave different runs")
	}
	if got := len(a["mix_weight"].Y); got != cfg.Iters/cfg.EvalEvery {
		t.Fatalf("%d mix_weight points", got)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		_, joint, _ := TrainDet(game, cfg, seed)
		if v := game.Payoff[game.Index(joint)]; v != 10 && v != 2 {
			t.Fatalf("seed %d ended at %v (payoff %v), not an equilibrium", seed, joint, v)
		}
	}
	for _, bad := range []func(*DetConfig){func(c *DetConfig) { c.W = 0 }, func(c *DetConfig) { c.Hidden = 0 }, func(c *DetConfig) { c.Topology = "x" }} {
		c := cfg
		bad(&c)
		if _, _, err := TrainDet(game, c, 1); err == nil {
			t.Fatalf("%+v accepted", c)
		}
	}
}

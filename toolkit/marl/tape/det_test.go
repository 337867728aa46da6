package tape

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
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

// TestAdamStepsByHand: two Adam steps on two parameters equal the update computed by hand from
// PyTorch's formulas (β1 0.9, β2 0.999, ε 1e-8, bias-corrected moments):
// step 1 moves each parameter by lr·g/(|g|+ε) ≈ lr·sign(g); step 2 for θ0 (g = 0.5 then 0.2):
// m = 0.065, v = 0.00028975, m̂ = 0.065/0.19, v̂ = 0.00028975/0.001999, Δ = 0.1·m̂/(√v̂+ε) = 0.0898575.
func TestAdamStepsByHand(t *testing.T) {
	theta := [][]float64{{1, -2}}
	a := NewAdam(0.1, theta)
	a.Descend(theta, [][]float64{{0.5, -0.1}})
	want1 := []float64{1 - 0.1*0.5/(0.5+1e-8), -2 + 0.1*0.1/(0.1+1e-8)}
	for k, w := range want1 {
		if math.Abs(theta[0][k]-w) > 1e-15 {
			t.Fatalf("step 1: θ%d = %.17g, want %.17g", k, theta[0][k], w)
		}
	}
	a.Descend(theta, [][]float64{{0.2, 0.3}})
	want2 := []float64{want1[0] - 0.1*(0.065/0.19)/(math.Sqrt(0.00028975/0.001999)+1e-8), want1[1] - 0.1*(0.021/0.19)/(math.Sqrt(0.00009999/0.001999)+1e-8)}
	for k, w := range want2 {
		if math.Abs(theta[0][k]-w) > 1e-9 {
			t.Fatalf("step 2: θ%d = %.12g, want %.12g", k, theta[0][k], w)
		}
	}
	if math.Abs(theta[0][0]-0.8101425) > 1e-6 || math.Abs(theta[0][1]+1.9494190) > 1e-6 {
		t.Fatalf("step 2: θ = %v, want ≈ [0.8101425 −1.9494190]", theta[0])
	}
}

// TestTrainDetOptimizers: Adam and SGD policies take different paths from the same seed, and an
// unknown optimiser is an error naming it.
func TestTrainDetOptimizers(t *testing.T) {
	game, err := env.Make("matrix:coord5")
	if err != nil {
		t.Fatal(err)
	}
	m := game.(*env.Matrix)
	adam, sgd := DefaultDet(), DefaultDetSGD()
	adam.Iters, sgd.Iters = 100, 100
	ca, _, err := TrainDet(m, adam, 3)
	if err != nil {
		t.Fatal(err)
	}
	cs, _, err := TrainDet(m, sgd, 3)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(ca["p_optimal"].Y, cs["p_optimal"].Y) {
		t.Fatal("Adam and SGD gave the same P(optimal) curve")
	}
	bad := adam
	bad.Optimizer = "rmsprop"
	if _, _, err := TrainDet(m, bad, 1); err == nil || !strings.Contains(err.Error(), "rmsprop") {
		t.Fatalf("optimizer rmsprop: %v", err)
	}
}

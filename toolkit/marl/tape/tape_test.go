package tape

import (
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
)

func TestMain(m *testing.M) {
	// Bit-identical training needs the pure-Go engine: the default here. An engine named in the
	// environment is kept, so the benchmarks can run on ONNX Runtime (BENCHMARKS.md).
	if os.Getenv(backend.EnvBackend) == "" {
		os.Setenv(backend.EnvBackend, backend.GoConfig)
	}
	os.Exit(m.Run())
}

// DOP's counterfactual advantage on numbers worked out by hand.
func TestDOPAdvantageByHand(t *testing.T) {
	q := [][]float64{{1, 3}, {0, -2}}
	pi := [][]float64{{0.5, 0.5}, {0.25, 0.75}}
	got := DOPAdvantage(q, pi, []int{1, 0})
	// agent 0: Q(1) − (0.5·1 + 0.5·3) = 3 − 2 = 1; agent 1: Q(0) − (0.25·0 + 0.75·(−2)) = 0 + 1.5.
	if want := []float64{1, 1.5}; !reflect.DeepEqual(got, want) {
		t.Fatalf("DOPAdvantage = %v, want %v", got, want)
	}
}

// TrainMatrix: a seed gives the same run, runs end in an equilibrium of the penalty game, and a bad
// topology is an error.
func TestTrainMatrix(t *testing.T) {
	e, err := env.Make("matrix:penalty")
	if err != nil {
		t.Fatal(err)
	}
	game := e.(*env.Matrix)
	cfg := DefaultMatrix()
	cfg.Iters = 300
	a, ja, err := TrainMatrix(game, cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, jb, _ := TrainMatrix(game, cfg, 3)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ja, jb) {
		t.Fatal("the same seed gave different runs")
	}
	// Every run ends in one of the game's coordinated equilibria (10 on either corner, or the safe
	// 2 in the middle), never in a miscoordinated profile (0 or the −10 penalty).
	for seed := uint64(1); seed <= 6; seed++ {
		_, joint, err := TrainMatrix(game, cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if v := game.Payoff[game.Index(joint)]; v != 10 && v != 2 {
			t.Fatalf("seed %d ended at %v with payoff %v: not an equilibrium", seed, joint, v)
		}
	}
	cfg.Topology = "er:2"
	if _, _, err := TrainMatrix(game, cfg, 1); err == nil {
		t.Fatal("topology er:2 accepted")
	}
}

// Train on LBF: deterministic for a seed on the pure-Go engine, and the sampled topology's density
// is 0 for p = 0 and 1 for p = 1 at every update.
func TestTrainLBFDeterministicAndTopology(t *testing.T) {
	run := func(topo string) map[string][]float64 {
		c := Default("lbf:5x5-2p-1f", topo)
		c.Iters, c.Envs, c.Steps, c.Hidden = 3, 2, 10, 8
		curves, actor, err := Train(c, 7, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		actor.Close()
		out := map[string][]float64{}
		for k, v := range curves {
			if k != "SPS" { // wall-clock rate
				out[k] = v.Y
			}
		}
		return out
	}
	a, b := run("er:0.5"), run("er:0.5")
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the same seed gave different curves:\n%v\n%v", a, b)
	}
	for topo, want := range map[string]float64{"er:0": 0, "er:1": 1} {
		for i, d := range run(topo)["topology_density"] {
			if math.Abs(d-want) > 1e-12 {
				t.Fatalf("%s update %d: topology density %v, want %v", topo, i, d, want)
			}
		}
	}
}

// The zero-mean argument: with on-policy sampling, the terms other agents add to agent i's weight
// have mean zero, so the full topology's expected update equals DOP's (within Monte-Carlo error),
// while its variance is larger.
func TestCoalitionTermsHaveZeroMean(t *testing.T) {
	e, _ := env.Make("matrix:coord5")
	game := e.(*env.Matrix)
	st := newTabular(5, 3, 0)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range st.q {
		for a := range st.q[i] {
			st.q[i][a], st.theta[i][a] = 3*r.NormFloat64(), r.NormFloat64()
		}
	}
	pi := st.policies()
	const draws = 20000
	var sumD, sqD, sq0, sq1 float64
	for d := 0; d < draws; d++ {
		seed := uint64(d)
		g1, _, _ := st.gradients(game, pi, pi, topology.ER{P: 1}.Sample(r, 5), 1, rand.New(rand.NewPCG(seed, 9)))
		g0, _, _ := st.gradients(game, pi, pi, topology.Identity(5), 1, rand.New(rand.NewPCG(seed, 9)))
		diff := g1[0][1] - g0[0][1]
		sumD += diff
		sqD += diff * diff
		sq0 += g0[0][1] * g0[0][1]
		sq1 += g1[0][1] * g1[0][1]
	}
	mean := sumD / draws
	se := math.Sqrt((sqD/draws - mean*mean) / draws)
	if math.Abs(mean) > 4*se {
		t.Fatalf("full minus DOP update: mean %v, 4 standard errors %v — not zero-mean", mean, 4*se)
	}
	if sq1 <= sq0 {
		t.Fatalf("second moment with the full topology %v ≤ DOP's %v", sq1/draws, sq0/draws)
	}
}

// MatrixVariance: p = 0 has no distance from DOP, both measures grow with p, and bad settings are
// errors.
func TestMatrixVariance(t *testing.T) {
	e, _ := env.Make("matrix:coord5")
	game := e.(*env.Matrix)
	cfg := DefaultMatrix()
	cfg.Batch = 1
	vc := VarianceConfig{Ps: []float64{0, 0.3, 1}, Snapshots: 4, SnapIters: 100, Draws: 200}
	out, err := MatrixVariance(game, cfg, vc, 2)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].FromDOP != 0 {
		t.Fatalf("p = 0: distance from DOP %v", out[0].FromDOP)
	}
	if !(out[0].Variance < out[1].Variance && out[1].Variance < out[2].Variance && out[1].FromDOP < out[2].FromDOP) {
		t.Fatalf("variance does not grow with p: %+v", out)
	}
	vc.Ps = []float64{1.5}
	if _, err := MatrixVariance(game, cfg, vc, 2); err == nil {
		t.Fatal("density 1.5 accepted")
	}
}

// The "return" advantage trains (and differs from "dop" on the same seed); an unknown one is an error.
func TestTrainLBFAdvantageOption(t *testing.T) {
	run := func(adv string) (map[string][]float64, error) {
		c := Default("lbf:5x5-2p-1f", "er:0.5")
		c.Iters, c.Envs, c.Steps, c.Hidden, c.Advantage = 3, 2, 10, 8, adv
		curves, actor, err := Train(c, 7, Hooks{})
		if err != nil {
			return nil, err
		}
		actor.Close()
		return map[string][]float64{"policy_loss": curves["policy_loss"].Y}, nil
	}
	a, err := run("dop")
	if err != nil {
		t.Fatal(err)
	}
	b, err := run("return")
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, b) {
		t.Fatal("the return residual changed nothing")
	}
	if _, err := run("gae"); err == nil {
		t.Fatal("advantage gae accepted")
	}
}

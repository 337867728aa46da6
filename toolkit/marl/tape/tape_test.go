package tape

import (
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/env"
)

func TestMain(m *testing.M) {
	// Bit-identical training needs the pure-Go engine.
	os.Setenv(backend.EnvBackend, backend.GoConfig)
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

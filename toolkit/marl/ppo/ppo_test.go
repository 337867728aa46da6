package ppo

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	_ "github.com/paperlab/paperlab/toolkit/marl/env/smax"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
)

func TestMain(m *testing.M) {
	os.Setenv(backend.EnvBackend, backend.GoConfig)
	// The pure-Go engine prints a line when it starts: start it here, not inside an example's output.
	if _, _, err := backend.Get(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// TestLearnsMatrixGame: from a uniform start (expected payoff 22/9 ≈ 2.4 in penalty-0, whose optima
// pay 10), IPPO and MAPPO both reach a coordinated optimum within 40 iterations, on two seeds.
func TestLearnsMatrixGame(t *testing.T) {
	for _, critic := range []string{"independent", "central"} {
		for seed := uint64(1); seed <= 2; seed++ {
			cfg := Default("matrix:penalty-0", critic)
			cfg.Envs, cfg.Steps, cfg.Iters, cfg.Hidden, cfg.ObsScale = 32, 1, 40, 16, 1
			cfg.LRActor, cfg.LRCritic = 3e-3, 3e-3
			curves, _, err := Train(cfg, seed, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			ret := curves["episodic_return"].Y
			first, last := ret[0], ret[len(ret)-1]
			if first > 5 || last < 9 {
				t.Errorf("%s seed %d: episodic return %.2f → %.2f, want from ≈2.4 to ≥ 9", critic, seed, first, last)
			}
			if ev := curves["explained_variance"].Y; len(ev) != cfg.Iters {
				t.Errorf("%s: %d explained-variance points", critic, len(ev))
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	c := Default("matrix:climbing", "mixed")
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `critic "mixed"`) {
		t.Fatalf("unknown critic: %v", err)
	}
	c = Default("matrix:nope", "central")
	c.Iters = 1
	if _, _, err := Train(c, 1, Hooks{}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown scenario: %v", err)
	}
}

// TestCoalitionRewardsByHand: an agent is paid the rewards of its coalition only — a helper outside
// the loader's coalition gets nothing for the load.
func TestCoalitionRewardsByHand(t *testing.T) {
	// Two steps of three agents: agent 0 loads 0.6 at step 0; agents 1 and 2 load 0.2 each at step 1.
	r := []float64{0.6, 0, 0, 0, 0.2, 0.2}
	topo := topology.Matrix{{1, 0, 0}, {1, 1, 0}, {0, 0, 1}} // agent 1's coalition includes agent 0
	got := CoalitionRewards(topo, r, 3)
	want := []float64{0.6, 0.6, 0, 0, 0.2, 0.2}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-15 {
			t.Fatalf("coalition rewards %v, want %v (agent 2, outside agent 0's coalition, must get 0 at step 0)", got, want)
		}
	}
}

// TestCoalitionRewardExtremes: on LBF, where the team reward is the sum of the individual ones, the
// coalition reward with the full graph trains exactly as the team reward (same curves, bit for bit),
// the empty graph (own rewards) differently; a coalition reward with MAPPO's central critic is an
// error naming the reward.
func TestCoalitionRewardExtremes(t *testing.T) {
	run := func(reward string) map[string][]float64 {
		cfg := Default("lbf:5x5-3p-2f", "independent")
		cfg.Envs, cfg.Steps, cfg.Iters, cfg.Hidden, cfg.Reward = 4, 20, 3, 16, reward
		curves, actor, err := Train(cfg, 2, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		actor.Close()
		out := map[string][]float64{}
		for k, c := range curves {
			out[k] = c.Y
		}
		return out
	}
	team, all, own := run("team"), run("coalition:er:1"), run("coalition:er:0")
	for _, k := range []string{"episodic_return", "value_loss", "policy_loss"} {
		if !slices.Equal(team[k], all[k]) {
			t.Errorf("%s: team %v, coalition:er:1 %v", k, team[k], all[k])
		}
	}
	if slices.Equal(team["value_loss"], own["value_loss"]) {
		t.Error("coalition:er:0 (own rewards) trained exactly as the team reward")
	}
	if d := all["topology_density"]; len(d) == 0 || d[0] != 1 {
		t.Errorf("coalition:er:1 topology density %v, want 1", d)
	}
	c := Default("lbf:5x5-3p-2f", "central")
	c.Reward = "coalition:er:0.3"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "coalition:er:0.3") {
		t.Fatalf("coalition reward with a central critic: %v", err)
	}
}

// Play runs every episode to its end with the greedy actor and reports each one's return, length
// and last Info; the same seed plays the same episodes; Eval is called at the start and at the end.
func TestPlayAndEval(t *testing.T) {
	c := Default("smax:3m-norm", "central")
	c.Envs, c.Steps, c.Iters, c.ObsScale = 4, 16, 2, 1
	var evals []int
	_, actor, err := Train(c, 1, Hooks{EvalEvery: 5, Eval: func(it, steps int, a *ac.Net) (map[string]float64, error) {
		evals = append(evals, it)
		eps, err := Play("smax:3m-norm", a, 1, 3, 100, true)
		if err != nil {
			return nil, err
		}
		won := 0.0
		for _, e := range eps {
			won += e.Info["won"]
		}
		return map[string]float64{"greedy_win_rate": won / 3}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer actor.Close()
	if !slices.Equal(evals, []int{0, 2}) {
		t.Fatalf("evaluated after iterations %v, want [0 2]", evals)
	}
	a, err := Play("smax:3m-norm", actor, 1, 5, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Play("smax:3m-norm", actor, 1, 5, 7, true)
	for k := range a {
		if a[k].Info == nil || a[k].Length < 1 || a[k].Length > 101 || a[k].Return != b[k].Return {
			t.Fatalf("episode %d: %+v, again %+v", k, a[k], b[k])
		}
	}
}

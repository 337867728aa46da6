package ppo

import (
	"os"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
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

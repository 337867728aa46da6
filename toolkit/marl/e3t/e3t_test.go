package e3t

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
	"github.com/paperlab/paperlab/toolkit/stats"
)

func TestMain(m *testing.M) {
	// The determinism checks need the pure-Go engine (bit-identical by construction).
	os.Setenv(backend.EnvBackend, backend.GoConfig)
	os.Exit(m.Run())
}

func TestPolicyHistoryAndEpsilon(t *testing.T) {
	cfg := Default(overcooked.DefaultConfig("cramped_room"), "e3t")
	cfg.PartnerModel, cfg.K, cfg.Envs, cfg.Iters, cfg.Hidden = true, 2, 2, 1, 8
	cfg.Game.Horizon = 10
	res, err := Train(cfg, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Policy
	world, _ := overcooked.New(cfg.Game)
	g := world.NewEpisode()
	p.Reset(1)
	rng := rand.New(rand.NewPCG(1, 1))
	row := overcooked.VectorSize + overcooked.NumActions
	for step, other := range []int{1, 4, 2} {
		if _, err := p.Act([]*overcooked.Episode{g}, []int{0}, rng); err != nil {
			t.Fatal(err)
		}
		p.Saw([]int{other})
		if want := min(step+1, 2); len(p.hist[0]) != want {
			t.Fatalf("after %d steps the history holds %d rows, want %d", step+1, len(p.hist[0]), want)
		}
	}
	in := p.pmInput(nil, 0, make([]float32, overcooked.VectorSize))
	if len(in) != 2*row+overcooked.VectorSize {
		t.Fatalf("partner-model input of %d values", len(in))
	}
	if in[row+overcooked.VectorSize+2] != 1 || in[overcooked.VectorSize+4] != 1 {
		t.Fatalf("history order: the newest action (2) must be last, the one before (4) first")
	}
	// ε = 1 ignores the actor: uniform actions.
	p.Epsilon = 1
	counts := make([]int, overcooked.NumActions)
	games := make([]*overcooked.Episode, 600)
	idx := make([]int, len(games))
	for k := range games {
		games[k] = g
	}
	p.Reset(len(games))
	acts, err := p.Act(games, idx, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		counts[a]++
	}
	for a, c := range counts {
		if c < 60 || c > 140 {
			t.Fatalf("ε = 1: action %d drawn %d times of 600 (counts %v)", a, c, counts)
		}
	}
}

// TestTrainDeterministic: the same seed gives bit-identical curves and weights on the pure-Go engine;
// another seed does not.
func TestTrainDeterministic(t *testing.T) {
	cfg := Default(overcooked.DefaultConfig("cramped_room"), "e3t")
	cfg.PartnerModel, cfg.Envs, cfg.Iters, cfg.Hidden = true, 2, 2, 16
	cfg.Game.Horizon = 20
	run := func(seed uint64) ([]float64, []float32) {
		res, err := Train(cfg, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var ys []float64
		for _, name := range []string{"policy_loss", "value_loss", "entropy", "pm_loss", "shaped_return"} {
			c, ok := res.Curves[name]
			if !ok || len(c.Y) != cfg.Iters {
				t.Fatalf("curve %s: %d points, want %d", name, len(c.Y), cfg.Iters)
			}
			ys = append(ys, c.Y...)
		}
		w, _ := res.Policy.Actor.Weights()
		return ys, w
	}
	a, wa := run(5)
	b, wb := run(5)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("curve value %d: %v vs %v with the same seed", i, a[i], b[i])
		}
	}
	for i := range wa {
		if wa[i] != wb[i] {
			t.Fatalf("weight %d differs with the same seed", i)
		}
	}
	c, _ := run(6)
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Fatal("seeds 5 and 6 gave identical curves")
	}
}

func TestConfigErrors(t *testing.T) {
	base := Default(overcooked.DefaultConfig("cramped_room"), "sp")
	for want, mut := range map[string]func(*Config){
		`mode "xx"`:      func(c *Config) { c.Mode = "xx" },
		"epsilon":        func(c *Config) { c.Epsilon = 2 },
		"k ≥ 1":          func(c *Config) { c.PartnerModel, c.K = true, 0 },
		"mini_batches":   func(c *Config) { c.MiniBatches = 0 },
		"needs mode e3t": func(c *Config) { c.PartnerModel = true },
		"snapshot_at":    func(c *Config) { c.SnapshotAt = []float64{0, 1.5} },
	} {
		c := base
		mut(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// TestSnapshots: snapshots come at the requested fractions (0 = the initial weights).
func TestSnapshots(t *testing.T) {
	cfg := Default(overcooked.DefaultConfig("cramped_room"), "sp")
	cfg.Envs, cfg.Iters, cfg.Hidden, cfg.Game.Horizon = 2, 4, 8, 10
	cfg.SnapshotAt = []float64{0, 0.5, 1}
	r, err := Train(cfg, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Policy.Close()
	final, _ := r.Policy.Actor.Weights()
	if len(r.Snapshots) != 3 || slices.Equal(r.Snapshots[0], final) || !slices.Equal(r.Snapshots[2], final) {
		t.Fatalf("%d snapshots; the first must be the initial weights, the last the final ones", len(r.Snapshots))
	}
	// Where each was taken: iterations 0, 2, 4, environment steps and CPU time growing with them,
	// the return the mean of the last ac.ReturnWindow iterations' training returns.
	info := r.SnapshotInfo
	if len(info) != 3 || info[0].Iter != 0 || info[1].Iter != 2 || info[2].Iter != 4 || info[0].EnvSteps != 0 || info[2].EnvSteps != r.EnvSteps ||
		!(info[2].CPUSeconds > info[0].CPUSeconds) || info[0].Return != 0 {
		t.Fatalf("snapshot info %+v", info)
	}
	if rets := r.Curves["episodic_return"].Y; info[2].Return != stats.Mean(rets[len(rets)-min(len(rets), ac.ReturnWindow):]) {
		t.Errorf("final snapshot's return %v, training returns %v", info[2].Return, rets)
	}
	if len(r.PMSnapshots) != 0 {
		t.Errorf("SP keeps no partner-model snapshots, got %d", len(r.PMSnapshots))
	}
	// E3T with a partner model keeps the model's weights beside the actor's.
	cfg.Mode, cfg.PartnerModel = "e3t", true
	r2, err := Train(cfg, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Policy.Close()
	pm, _ := r2.Policy.PM.Weights()
	if len(r2.PMSnapshots) != 3 || slices.Equal(r2.PMSnapshots[0], pm) || !slices.Equal(r2.PMSnapshots[2], pm) {
		t.Fatalf("%d partner-model snapshots; the first must be the initial weights, the last the final ones", len(r2.PMSnapshots))
	}
}

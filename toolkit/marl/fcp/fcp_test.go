package fcp

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

func TestMain(m *testing.M) {
	// The determinism check needs the pure-Go engine (bit-identical by construction).
	os.Setenv(backend.EnvBackend, backend.GoConfig)
	os.Exit(m.Run())
}

func small() Config {
	g := overcooked.DefaultConfig("cramped_room")
	g.Horizon = 20
	return Config{Game: g, Envs: 4, Iters: 3, Partners: 2, Hidden: 8, ObsScale: 0.2, Gamma: 0.99, Lambda: 0.95,
		Clip: 0.2, EntCoef: 0.01, Epochs: 2, MiniBatches: 2, LR: 1e-3, MaxGradNorm: 0.5, ShapingSteps: 100}
}

// recorder is a memoryless scripted partner that counts the games it is asked to act in.
type recorder struct {
	overcooked.ScriptedAgent
	calls, games *int
}

func (r recorder) Act(g []*overcooked.Episode, idx []int, rng *rand.Rand) ([]int, error) {
	*r.calls++
	*r.games += len(g)
	return r.ScriptedAgent.Act(g, idx, rng)
}

// TestBestResponse: the population plays in blocks (one forward pass per block, every game
// covered each step), training is deterministic per seed, and bad input is refused by name.
func TestBestResponse(t *testing.T) {
	cfg := small()
	calls, games := 0, 0
	pop := []overcooked.Agent{recorder{overcooked.ScriptedAgent{Scripted: overcooked.Scripted{Role: "greedy"}}, &calls, &games}}
	run := func(seed uint64) []float32 {
		r, err := Train(cfg, seed, pop, Options{Monitor: pop[0], MonitorEvery: 3})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Actor.Close()
		if r.EnvSteps != cfg.Envs*cfg.Iters*cfg.Game.Horizon || len(r.Curves["monitor_return"].Y) != 1 {
			t.Fatalf("env steps %d, monitor curve %v", r.EnvSteps, r.Curves["monitor_return"])
		}
		w, _ := r.Actor.Weights()
		return w
	}
	a := run(3)
	steps := cfg.Iters * cfg.Game.Horizon
	// Training: 2 blocks per step; the monitor: one call per step of its 20-step evaluation.
	if wantCalls, wantGames := 2*steps+cfg.Game.Horizon, cfg.Envs*steps+4*cfg.Game.Horizon; calls != wantCalls || games != wantGames {
		t.Fatalf("partner calls %d for %d games, want %d for %d", calls, games, wantCalls, wantGames)
	}
	if b := run(3); !slices.Equal(a, b) {
		t.Fatal("same seed, different weights")
	}
	if c := run(4); slices.Equal(a, c) {
		t.Fatal("seeds 3 and 4 gave the same weights")
	}
	if got := Blocks(10, 3); len(got) != 3 || len(got[0])+len(got[1])+len(got[2]) != 10 || got[2][len(got[2])-1] != 9 {
		t.Fatalf("blocks %v", got)
	}
	bad := cfg
	bad.Partners = cfg.Envs + 1
	if _, err := Train(bad, 1, pop, Options{}); err == nil || !strings.Contains(err.Error(), "partners") {
		t.Fatalf("too many partners: %v", err)
	}
	if _, err := Train(cfg, 1, nil, Options{}); err == nil || !strings.Contains(err.Error(), "empty population") {
		t.Fatalf("no population: %v", err)
	}
}

// TestSnapshots: the best response keeps its weights at the requested fractions, with where.
func TestSnapshots(t *testing.T) {
	cfg := small()
	cfg.Iters, cfg.SnapshotAt = 4, []float64{0, 0.5, 1}
	pop := []overcooked.Agent{overcooked.ScriptedAgent{Scripted: overcooked.Scripted{Role: "greedy"}}}
	r, err := Train(cfg, 1, pop, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Actor.Close()
	final, _ := r.Actor.Weights()
	if len(r.Snapshots) != 3 || slices.Equal(r.Snapshots[0], final) || !slices.Equal(r.Snapshots[2], final) {
		t.Fatalf("%d snapshots; the first must be the initial weights, the last the final ones", len(r.Snapshots))
	}
	if info := r.SnapshotInfo; len(info) != 3 || info[1].Iter != 2 || info[1].EnvSteps != 2*cfg.Envs*cfg.Game.Horizon || info[2].EnvSteps != r.EnvSteps {
		t.Fatalf("snapshot info %+v", info)
	}
}

// TestPickCheckpoints: the initial and final snapshots, and between them the one whose return is
// closest to half the final return (not the one half-way in steps).
func TestPickCheckpoints(t *testing.T) {
	for _, c := range []struct {
		returns []float64
		want    []int
	}{
		{[]float64{0, 2, 4, 9, 18, 19, 20}, []int{0, 3, 6}}, // |9 − 10| = 1 beats |18 − 10| and |4 − 10|
		{[]float64{0, 0, 0, 0, 12, 30, 40}, []int{0, 4, 6}}, // a late climb: the middle partner comes late
		{[]float64{0, 10, 10, 20}, []int{0, 1, 3}},          // a tie goes to the earlier snapshot
		{[]float64{0, 0, 0}, []int{0, 1, 2}},                // nothing learned: the middle one anyway
		{[]float64{0, 5}, []int{0, 1}},                      // too few snapshots: all of them
		{nil, []int{}},
	} {
		if got := PickCheckpoints(c.returns); !slices.Equal(got, c.want) {
			t.Errorf("PickCheckpoints(%v) = %v, want %v", c.returns, got, c.want)
		}
	}
}

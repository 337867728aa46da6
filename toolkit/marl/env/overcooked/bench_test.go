package overcooked

import (
	"math/rand/v2"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// BenchmarkStep: one cramped_room step of the game's rules with random joint actions (no
// featurization), one thread; episodes of 400 steps restart from the start state.
func BenchmarkStep(b *testing.B) {
	l, _ := ParseLayout("cramped_room", Layouts["cramped_room"])
	s := NewState(l)
	r := DefaultRules()
	rng := rand.New(rand.NewPCG(1, 1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Step([2]int{rng.IntN(NumActions), rng.IntN(NumActions)}, r)
		if s.Timestep >= 400 {
			s = NewState(l)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkEnvStep: a full environment step as training sees it — rules plus both players' 96-value
// featurize_state observations — one thread.
func BenchmarkEnvStep(b *testing.B) { benchEnv(b, "overcooked:cramped_room", false) }

// BenchmarkEnvStepLossless: rules plus both players' lossless observation planes (what
// bench/overcooked.sh compares with overcooked_ai's lossless_state_encoding).
func BenchmarkEnvStepLossless(b *testing.B) { benchEnv(b, "overcooked:cramped_room-lossless", false) }

// BenchmarkEnvStepReuse and BenchmarkEnvStepLosslessReuse: the same with Env.ReuseObs (the
// observations written into the episode's own buffers, no allocation for them per step).
func BenchmarkEnvStepReuse(b *testing.B) { benchEnv(b, "overcooked:cramped_room", true) }

func BenchmarkEnvStepLosslessReuse(b *testing.B) {
	benchEnv(b, "overcooked:cramped_room-lossless", true)
}

func benchEnv(b *testing.B, scenario string, reuse bool) {
	e, err := env.Make(scenario)
	if err != nil {
		b.Fatal(err)
	}
	e.(*Env).ReuseObs = reuse
	rng := rand.New(rand.NewPCG(1, 1))
	s, _, err := e.Reset(1)
	if err != nil {
		b.Fatal(err)
	}
	acts := make([]int, 2)
	var t env.Transition
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		acts[0], acts[1] = rng.IntN(NumActions), rng.IntN(NumActions)
		if s, t, err = e.Step(s, acts); err != nil {
			b.Fatal(err)
		}
		if t.Done {
			s, _, _ = e.Reset(1)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkVecEnvStep: vecCopies episodes of one Env stepped together on GOMAXPROCS goroutines
// (Vec.Parallel); …Reuse with Env.ReuseObs (each episode's own observation buffer).
func BenchmarkVecEnvStep(b *testing.B)      { benchVec(b, false) }
func BenchmarkVecEnvStepReuse(b *testing.B) { benchVec(b, true) }

func benchVec(b *testing.B, reuse bool) {
	n := vecCopies
	v, err := env.NewVec("overcooked:cramped_room", n)
	if err != nil {
		b.Fatal(err)
	}
	v.Env.(*Env).ReuseObs = reuse
	v.Parallel = true
	if err := v.Reset(1); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	acts := make([][]int, n)
	for k := range acts {
		acts[k] = make([]int, 2)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range acts {
			acts[k][0], acts[k][1] = rng.IntN(NumActions), rng.IntN(NumActions)
		}
		if _, err := v.Step(acts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "steps/s")
}

// vecCopies is the number of copies in the vectorized benchmarks (enough work per step that waking
// a second thread pays off).
const vecCopies = 256

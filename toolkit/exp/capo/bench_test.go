package capo

import (
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/probe"
	"github.com/paperlab/paperlab/toolkit/rl"
)

// Benchmarks of capo's default RL loop, from the committed seed-1 SFT warm start
// (figures/capo/checkpoints/sft, with its own RL pool and held-out set) and the default
// configuration: where a step's time goes (sampling G rollouts of 16 prompts, scoring them under the
// reference, the advantages, the update) and what one held-out evaluation costs. bench/capo.sh runs
// them; BENCHMARKS.md quotes its output. Each compiles its graphs in a first call outside the
// timing (a run compiles them once for its hundreds of steps).

// benchRL opens the warm start twice (policy and frozen reference) with the default configuration.
func benchRL(b *testing.B) (policy, ref *probe.Policy, pool, held *lmtask.Set, cfg Config) {
	b.Helper()
	var err error
	dir := "../../../figures/capo/checkpoints/sft"
	if policy, err = probe.Open(dir); err != nil {
		b.Skipf("no committed warm start: %v", err)
	}
	if ref, err = probe.Open(dir); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { policy.Close(); ref.Close() })
	if pool, err = policy.Prov.ArithSet("rl_pool"); err != nil {
		b.Fatal(err)
	}
	if held, err = policy.Prov.ArithSet("held_out"); err != nil {
		b.Fatal(err)
	}
	cfg = ConfigFor(exp.Default)
	cfg.RL.Estimator, cfg.RL.UseMask, cfg.RL.Mask, cfg.RL.Seed = "capo", true, rl.MaskThresholds{High: 2, Low: 1.1}, 1
	return policy, ref, pool, held, cfg
}

// BenchmarkRLSample: one step's rollouts, 16 prompts × G = 8 at temperature 1 (up to 12 tokens).
func BenchmarkRLSample(b *testing.B) {
	policy, _, pool, _, cfg := benchRL(b)
	var ids [][]int32
	for p := 0; p < cfg.RL.PromptsPerStep; p++ {
		for k := 0; k < cfg.RL.G; k++ {
			ids = append(ids, pool.Prompt(p))
		}
	}
	sc := cfg.RL.Sample
	if _, err := policy.Model.Sample(ids, sc); err != nil { // compile the shapes outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc.Seed = uint64(i)
		if _, err := policy.Model.Sample(ids, sc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRLCollect: one step's rollouts, their reference scores, rewards and CAPO's masked
// advantages with the diagnostics (rl.Collect).
func BenchmarkRLCollect(b *testing.B) {
	policy, ref, pool, _, cfg := benchRL(b)
	est, _ := rl.EstimatorByName("capo")
	prompts := make([]int, cfg.RL.PromptsPerStep)
	for i := range prompts {
		prompts[i] = i
	}
	if _, err := rl.Collect(policy.Model, ref.Model, pool, prompts, cfg.RL, est, 0); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := rl.Collect(policy.Model, ref.Model, pool, prompts, cfg.RL, est, i+1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRLStep: whole RL steps (rollouts, scoring, advantages and one PPO epoch of two
// mini-batch updates), 20 per op; reports ms/step.
func BenchmarkRLStep(b *testing.B) {
	policy, ref, pool, _, cfg := benchRL(b)
	rc := cfg.RL
	rc.Steps, rc.EvalEvery = 2, 0
	if tr, _, err := rl.Train(policy.Model, ref.Model, pool, rc, rl.Hooks{}); err != nil { // compile outside the timing
		b.Fatal(err)
	} else {
		tr.Close()
	}
	rc.Steps = 20
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rc.Seed = uint64(i + 1)
		tr, _, err := rl.Train(policy.Model, ref.Model, pool, rc, rl.Hooks{})
		if tr != nil {
			tr.Close()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*rc.Steps), "ms/step")
}

// BenchmarkEval: one held-out evaluation during RL — 300 prompts × 16 samples and greedy answers,
// with every metric the curves keep.
func BenchmarkEval(b *testing.B) {
	policy, _, _, held, cfg := benchRL(b)
	if _, _, err := evaluate(policy.Model, held, evalSpec{K: 1, Bins: cfg.Bins, Greedy: true}); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := evaluate(policy.Model, held, evalSpec{K: cfg.EvalSamples, Seed: uint64(i), Bins: cfg.Bins, Greedy: true}); err != nil {
			b.Fatal(err)
		}
	}
}

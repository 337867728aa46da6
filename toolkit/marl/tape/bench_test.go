package tape

import (
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/ppo"
)

// BenchmarkTAPEIteration: one TAPE training iteration on lbf:8x8-2p-2f-coop — 16 copies × 50 steps
// of rollout (800 environment steps, 1,600 agent steps), mixed-critic and actor updates (4 epochs ×
// 4 mini-batches each). Graph compilation is amortised over b.N iterations.
func BenchmarkTAPEIteration(b *testing.B) {
	c := Default("lbf:8x8-2p-2f-coop", "er:0.3")
	c.Iters = max(b.N, 2)
	b.ResetTimer()
	if _, _, err := Train(c, 1, Hooks{}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(c.Iters*c.Envs*c.Steps)/b.Elapsed().Seconds(), "env-steps/s")
}

// BenchmarkIPPOIteration: the same for IPPO (marl/ppo, independent critics).
func BenchmarkIPPOIteration(b *testing.B) {
	c := ppo.Default("lbf:8x8-2p-2f-coop", "independent")
	c.Iters = max(b.N, 2)
	b.ResetTimer()
	if _, _, err := ppo.Train(c, 1, ppo.Hooks{}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(c.Iters*c.Envs*c.Steps)/b.Elapsed().Seconds(), "env-steps/s")
}

package smax

import (
	"math/rand/v2"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// benchStep steps scenario with uniformly random available actions, resetting finished battles:
// environment steps per second (b.N steps), the rules, the heuristic enemy, observations and masks.
func benchStep(b *testing.B, scenario string) {
	e, err := New(DefaultConfig(scenario))
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	st, _, _ := e.Reset(1)
	seed := uint64(1)
	b.ResetTimer()
	for range b.N {
		acts := RandomTeam(e, st.(*State), r)
		next, tr, err := e.Step(st, acts)
		if err != nil {
			b.Fatal(err)
		}
		st = next
		if tr.Done {
			seed++
			st, _, _ = e.Reset(seed)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

func BenchmarkStep3m(b *testing.B)       { benchStep(b, "3m") }
func BenchmarkStep2s3z(b *testing.B)     { benchStep(b, "2s3z") }
func BenchmarkStep5m_vs_6m(b *testing.B) { benchStep(b, "5m_vs_6m") }

var _ env.Env = (*Env)(nil)

package env

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkLBFStep: one Level-Based Foraging step (8×8, 3 players, 2 foods, coop) with random valid
// actions, on one copy and one thread; auto-reset when an episode ends. Reported as steps/s.
func BenchmarkLBFStep(b *testing.B) {
	e, err := Make("lbf:8x8-3p-2f-coop")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	s, _, err := e.Reset(1)
	if err != nil {
		b.Fatal(err)
	}
	acts := make([]int, e.Spec().Agents)
	var tr Transition
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range acts {
			acts[k] = r.IntN(6)
		}
		if s, tr, err = e.Step(s, acts); err != nil {
			b.Fatal(err)
		}
		if tr.Done {
			s, _, _ = e.Reset(uint64(i))
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkLBFVec: 64 copies stepped together (Vec, in parallel on GOMAXPROCS goroutines); one op is
// one step of every copy. Reported as environment steps/s.
func BenchmarkLBFVec(b *testing.B) {
	for _, par := range []bool{false, true} {
		name := "serial"
		if par {
			name = "parallel"
		}
		b.Run(name, func(b *testing.B) {
			const n = 64
			v, err := NewVec("lbf:8x8-3p-2f-coop", n)
			if err != nil {
				b.Fatal(err)
			}
			v.Parallel = par
			if err := v.Reset(1); err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 1))
			acts := make([][]int, n)
			for k := range acts {
				acts[k] = make([]int, 3)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range acts {
					for j := range acts[k] {
						acts[k][j] = r.IntN(6)
					}
				}
				if _, err := v.Step(acts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

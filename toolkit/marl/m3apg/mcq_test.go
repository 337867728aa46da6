package m3apg

import (
	"math"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env/smax"
)

// On SMAX 3m with one marine a side left and the enemy at 9 health, within the ally's range and its
// weapon ready, attacking wins at once: Q is that shot's damage share plus the win bonus, 9/45/3 + 1,
// in every rollout. Standing still is worth less; the estimate is the same for the same seed, and
// its standard error shrinks with more rollouts.
func TestMonteCarloQ(t *testing.T) {
	e, err := smax.New(smax.DefaultConfig("3m"))
	if err != nil {
		t.Fatal(err)
	}
	st, _, _ := e.Reset(1)
	s := st.(*smax.State)
	for i := range s.Pos {
		s.Pos[i] = [2]float32{2 + 4*float32(i), 4}
		s.Health[i], s.Alive[i] = 0, false
	}
	s.Pos[0], s.Pos[3] = [2]float32{10, 16}, [2]float32{13, 16}
	s.Health[0], s.Health[3], s.Alive[0], s.Alive[3] = 45, 9, true, true
	pol := UniformPolicy(e)
	q, se, err := MonteCarloQ(e, s, []int{smax.NumMoves, smax.Stop, smax.Stop}, pol, 0.99, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 9.0/45/3 + 1; math.Abs(q-want) > 1e-6 || se != 0 {
		t.Fatalf("attack: Q %v ± %v, want %v exactly", q, se, want)
	}
	stop, se8, _ := MonteCarloQ(e, s, []int{smax.Stop, smax.Stop, smax.Stop}, pol, 0.99, 8, 1)
	again, _, _ := MonteCarloQ(e, s, []int{smax.Stop, smax.Stop, smax.Stop}, pol, 0.99, 8, 1)
	_, se64, _ := MonteCarloQ(e, s, []int{smax.Stop, smax.Stop, smax.Stop}, pol, 0.99, 64, 1)
	if !(stop < q) || stop != again || !(se64 < se8) {
		t.Fatalf("stop: Q %v (again %v) against attack %v; SE %v with 8 rollouts, %v with 64", stop, again, q, se8, se64)
	}
	if s.Health[3] != 9 || s.Steps != 0 {
		t.Fatal("the rollouts changed the state they started from")
	}
}

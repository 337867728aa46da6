package m3apg

import (
	"math"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/ac"
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

// Policy evaluation on SMAX 3m, then the critic's error against Monte-Carlo Q on seen and held-out
// joint actions at the frozen actor's states: both kinds are measured, the errors are finite, and
// the same seeds give the same errors.
func TestCriticErrorMC(t *testing.T) {
	run := func() (float64, float64, int, int) {
		cfg := Default("smax:3m-norm", M3APG)
		cfg.Envs, cfg.Steps, cfg.Iters, cfg.FreezeActor, cfg.HoldOut = 4, 8, 3, true, 0.5
		e, err := smax.New(func() smax.Config { c := smax.DefaultConfig("3m"); c.NormalizeState = true; return c }())
		if err != nil {
			t.Fatal(err)
		}
		var seen, unseen float64
		var ns, nu int
		_, err = Train(cfg, 1, Hooks{Trained: func(c *Critic, actor *ac.Net, held []bool) error {
			var err error
			seen, unseen, ns, nu, err = CriticErrorMC(e, c, ActorPolicy(e, actor, 1), held,
				MCEval{States: 6, Episodes: 3, Every: 3, Joints: 4, Rollouts: 4, Gamma: cfg.Gamma}, 7)
			return err
		}})
		if err != nil {
			t.Fatal(err)
		}
		return seen, unseen, ns, nu
	}
	s1, u1, ns, nu := run()
	s2, u2, _, _ := run()
	if ns == 0 || nu == 0 || math.IsNaN(s1) || math.IsNaN(u1) || s1 != s2 || u1 != u2 {
		t.Fatalf("seen %v (%d pairs), unseen %v (%d pairs); again %v, %v", s1, ns, u1, nu, s2, u2)
	}
}

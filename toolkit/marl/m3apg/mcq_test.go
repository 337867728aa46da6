package m3apg

import (
	"math"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
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
	attack, stop := []int{smax.NumMoves, smax.Stop, smax.Stop}, []int{smax.Stop, smax.Stop, smax.Stop}
	q8, err := MonteCarloQ(e, s, [][]int{attack, stop}, pol, 0.99, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 9.0/45/3 + 1; math.Abs(q8.Q[0]-want) > 1e-6 || q8.SE[0] != 0 {
		t.Fatalf("attack: Q %v ± %v, want %v exactly", q8.Q[0], q8.SE[0], want)
	}
	again, _ := MonteCarloQ(e, s, [][]int{attack, stop}, pol, 0.99, 8, 1)
	q64, _ := MonteCarloQ(e, s, [][]int{attack, stop}, pol, 0.99, 64, 1)
	if !(q8.Q[1] < q8.Q[0]) || q8.Q[1] != again.Q[1] || !(q64.SE[1] < q8.SE[1]) {
		t.Fatalf("stop: Q %v (again %v) against attack %v; SE %v with 8 rollouts, %v with 64", q8.Q[1], again.Q[1], q8.Q[0], q8.SE[1], q64.SE[1])
	}
	// Centred on the two joint actions' mean: ±half their gap.
	if gap := q8.Q[0] - q8.Q[1]; math.Abs(q8.Centred[0]-gap/2) > 1e-9 || math.Abs(q8.Centred[1]+gap/2) > 1e-9 {
		t.Fatalf("centred %v for a gap of %v", q8.Centred, gap)
	}
	if s.Health[3] != 9 || s.Steps != 0 {
		t.Fatal("the rollouts changed the state they started from")
	}
}

// Policy evaluation on SMAX 3m, with the Monte-Carlo targets built from the frozen actor before
// the first rollout (Hooks.Ready) and the trained critic scored on them: both kinds of joint action
// are valued, the errors are finite and the same seeds give the same ones; the set's own estimates
// score zero error and a constant predictor scores the set's total spread.
func TestMCTargets(t *testing.T) {
	run := func() (*MCSet, MCErrors) {
		cfg := Default("smax:3m-norm", M3APG)
		cfg.Envs, cfg.Steps, cfg.Iters, cfg.FreezeActor, cfg.HoldOut = 4, 8, 3, true, 0.5
		e, err := env.Make("smax:3m-norm")
		if err != nil {
			t.Fatal(err)
		}
		var set *MCSet
		var errs MCErrors
		_, err = Train(cfg, 1, Hooks{
			Ready: func(actor *ac.Net, held []bool) error {
				set, err = MCTargets(e, ActorPolicy(e, actor, 1), held, MCEval{States: 6, Episodes: 3, Every: 3, Joints: 4, Rollouts: 4, Gamma: cfg.Gamma}, 7)
				return err
			},
			Trained: func(c *Critic, _ *ac.Net, _ []bool) error {
				errs, err = set.Errors(c)
				return err
			}})
		if err != nil {
			t.Fatal(err)
		}
		return set, errs
	}
	set, e1 := run()
	_, e2 := run()
	if e1.NSeen == 0 || e1.NUnseen == 0 || math.IsNaN(e1.Seen) || math.IsNaN(e1.JointUnseen) || e1 != e2 {
		t.Fatalf("errors %+v; again %+v", e1, e2)
	}
	if own := set.ErrorsOf(set.Q.Q); own.Seen != 0 || own.Unseen != 0 || own.JointSeen != 0 || own.JointUnseen != 0 {
		t.Fatalf("the estimates' own errors: %+v", own)
	}
	total, joint, _ := set.Spread()
	var mean float64
	for _, q := range set.Q.Q {
		mean += q / float64(len(set.Q.Q))
	}
	c := make([]float64, len(set.Q.Q))
	for k := range c {
		c[k] = mean
	}
	ce := set.ErrorsOf(c)
	all := math.Sqrt((ce.Seen*ce.Seen*float64(ce.NSeen) + ce.Unseen*ce.Unseen*float64(ce.NUnseen)) / float64(ce.NSeen+ce.NUnseen))
	if ce.Seen > 0 && ce.Unseen > 0 && math.Abs(all-total) > 1e-9 { // (each part's noise floor at 0 would break the sum)
		t.Fatalf("a constant predictor's error %v, the set's spread %v", all, total)
	}
	if !(joint >= 0) || !(ce.JointSeen >= 0) {
		t.Fatalf("joint spread %v, constant's joint error %v", joint, ce.JointSeen)
	}
}

package m3apg

import (
	"math"
	"math/rand/v2"
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
	if q, se := q8.Q(0); math.Abs(q-(9.0/45/3+1)) > 1e-6 || se != 0 {
		t.Fatalf("attack: Q %v ± %v, want %v exactly", q, se, 9.0/45/3+1)
	}
	if r := q8.First[0][3]; math.Abs(r-(9.0/45/3+1)) > 1e-6 {
		t.Fatalf("attack: immediate reward %v, want the whole return", r)
	}
	again, _ := MonteCarloQ(e, s, [][]int{attack, stop}, pol, 0.99, 8, 1)
	q64, _ := MonteCarloQ(e, s, [][]int{attack, stop}, pol, 0.99, 64, 1)
	qa, _ := q8.Q(0)
	qs, se8 := q8.Q(1)
	qs2, _ := again.Q(1)
	_, se64 := q64.Q(1)
	if !(qs < qa) || qs != qs2 || !(se64 < se8) {
		t.Fatalf("stop: Q %v (again %v) against attack %v; SE %v with 8 rollouts, %v with 64", qs, qs2, qa, se8, se64)
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
	if own := set.ErrorsOf(set.Q); own.Seen != 0 || own.Unseen != 0 || own.JointSeen != 0 || own.JointUnseen != 0 {
		t.Fatalf("the estimates' own errors: %+v", own)
	}
	total, joint, _ := set.Spread()
	var mean float64
	for _, q := range set.Q {
		mean += q / float64(len(set.Q))
	}
	c := make([]float64, len(set.Q))
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

// The noise correction on synthetic estimates of a known Q: each of 200 states has 4 seen and 4
// held-out joint actions, valued by 64 rollouts whose returns are Q plus a future shared by the
// state's rollout r (common random numbers) plus each row's own noise. The true Q scores ≈ 0 on
// every error, Q shifted by δ on the held-out rows of alternating sign scores ≈ δ on their ranking
// and leaves the seen rows' at ≈ 0, and a critic that knows V(s) but ignores the joint action scores
// the spread of Q's joint-action part. The joint action's effect is two independent halves, one
// paid at once and one later: the next reward accounts for half of its variance, the hidden share
// is ≈ 1/2.
func TestMCErrorsNoiseCorrection(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	set := &MCSet{}
	var trueQ, shifted, vOnly []float64
	const delta, rollouts = 0.1, 64
	for st := 0; st < 200; st++ {
		v := r.NormFloat64()
		common := make([]float64, rollouts)
		for k := range common {
			common[k] = 0.5 * r.NormFloat64()
		}
		var joints [][]int
		var held []bool
		q := MCQ{}
		for j := 0; j < 8; j++ {
			now, later := 0.2/math.Sqrt2*r.NormFloat64(), 0.2/math.Sqrt2*r.NormFloat64() // the joint action's effect, paid at once and later
			a := now + later
			joints, held = append(joints, []int{j}), append(held, j >= 4)
			ret, first := make([]float64, rollouts), make([]float64, rollouts)
			for k := range ret {
				first[k] = now
				ret[k] = v + a + common[k] + 0.3*r.NormFloat64()
			}
			q.Returns, q.First = append(q.Returns, ret), append(q.First, first)
			trueQ, vOnly = append(trueQ, v+a), append(vOnly, v)
			sign := 1.0
			if j%2 == 1 {
				sign = -1
			}
			shifted = append(shifted, v+a+delta*sign*b2f(j >= 4))
		}
		set.add(st, nil, joints, held, q)
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %.4f, want %.4f ± %.4f", what, got, want, tol)
		}
	}
	e := set.ErrorsOf(trueQ)
	near("true Q: seen", e.Seen, 0, 0.04) // √ of a mean near 0: its noise is amplified
	near("true Q: unseen ranking", e.JointUnseen, 0, 0.03)
	e = set.ErrorsOf(shifted)
	near("shifted held-out rows: their ranking", e.JointUnseen, delta, 0.01)
	near("shifted held-out rows: the seen ranking", e.JointSeen, 0, 0.01)
	_, joint, _ := set.Spread()
	e = set.ErrorsOf(vOnly)
	near("V(s)-only: ranking against the joint spread", e.JointSeen, joint, 0.02)
	near("joint spread against the effects' 0.2·√(3/4)", joint, 0.2*math.Sqrt(0.75), 0.02)
	near("hidden share", set.RewardHiddenShare(), 0.5, 0.1)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

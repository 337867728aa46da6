// Package envtest holds the API-conformance test every PaperLab environment passes.
package envtest

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// randomAvailable draws one available action per agent (action 0 for an agent with none) and
// returns how many actions each agent had available.
func randomAvailable(r *rand.Rand, avail [][]bool) (acts, counts []int) {
	acts, counts = make([]int, len(avail)), make([]int, len(avail))
	for i, m := range avail {
		var ok []int
		for a, v := range m {
			if v {
				ok = append(ok, a)
			}
		}
		if counts[i] = len(ok); len(ok) > 0 {
			acts[i] = ok[r.IntN(len(ok))]
		}
	}
	return acts, counts
}

// rollout plays random available actions for a few episodes and records every transition; masked
// reports whether any action was ever unavailable.
func rollout(t *testing.T, e env.Env, seed uint64, steps int) (out []env.Transition, masked bool) {
	r := rand.New(rand.NewPCG(seed, 99))
	obs := e.Reset(seed)
	checkObs(t, e, obs)
	epLen := 0
	for s := 0; s < steps; s++ {
		avail := e.Avail()
		if len(avail) != e.NumAgents() {
			t.Fatalf("%s: %d masks for %d agents", e.Name(), len(avail), e.NumAgents())
		}
		for i, m := range avail {
			if len(m) != e.NumActions() {
				t.Fatalf("%s: mask of agent %d has %d entries for %d actions", e.Name(), i, len(m), e.NumActions())
			}
		}
		acts, counts := randomAvailable(r, avail)
		for i, k := range counts {
			if k == 0 {
				t.Fatalf("%s: agent %d has no available action", e.Name(), i)
			}
			masked = masked || k < e.NumActions()
		}
		tr := e.Step(acts)
		checkObs(t, e, tr.Obs)
		if len(tr.Rewards) != e.NumAgents() {
			t.Fatalf("%s: %d rewards", e.Name(), len(tr.Rewards))
		}
		if st := e.State(); len(st) != e.StateSize() {
			t.Fatalf("%s: state has %d values, StateSize says %d", e.Name(), len(st), e.StateSize())
		}
		out = append(out, tr)
		epLen++
		if epLen > e.Limit() {
			t.Fatalf("%s: episode ran past its limit %d", e.Name(), e.Limit())
		}
		if tr.Done {
			epLen = 0
			e.Reset(seed + uint64(s) + 1)
		}
	}
	return out, masked
}

func checkObs(t *testing.T, e env.Env, obs [][]float32) {
	t.Helper()
	if len(obs) != e.NumAgents() {
		t.Fatalf("%s: %d observations for %d agents", e.Name(), len(obs), e.NumAgents())
	}
	for i, o := range obs {
		if len(o) != e.ObsSize() {
			t.Fatalf("%s: agent %d observation has %d values, ObsSize says %d", e.Name(), i, len(o), e.ObsSize())
		}
	}
}

// Check runs the API-conformance checks every environment must pass on a scenario: shapes of
// observations, masks, rewards and state; episodes within the limit; determinism under a seed and
// the same actions; a non-empty rendering; unavailable actions acting as the no-op (action 0).
func Check(t *testing.T, scenarios ...string) {
	for _, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			a, err := env.Make(sc)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := env.Make(sc)
			ra, masked := rollout(t, a, 5, 300)
			rb, _ := rollout(t, b, 5, 300)
			if !reflect.DeepEqual(ra, rb) {
				t.Fatal("the same seed and actions gave different transitions")
			}
			if a.Render() == "" {
				t.Fatal("empty rendering")
			}
			// Unavailable actions count as the no-op: from the same state, stepping with an
			// unavailable action equals stepping with action 0. Two copies play the same random
			// available actions until a state with a masked action appears (environments without
			// masks are checked at the start state).
			c, _ := env.Make(sc)
			d, _ := env.Make(sc)
			c.Reset(11)
			d.Reset(11)
			r := rand.New(rand.NewPCG(11, 7))
			found := false
			for step := 0; step < 2000; step++ {
				avail := c.Avail()
				bad, good, any := make([]int, c.NumAgents()), make([]int, c.NumAgents()), false
				for i := range bad {
					for act, ok := range avail[i] {
						if !ok {
							bad[i], any = act, true
						}
					}
				}
				if any || (step == 0 && !masked) {
					if tc, td := c.Step(bad), d.Step(good); !reflect.DeepEqual(tc, td) {
						t.Fatalf("unavailable actions %v did not act as the no-op:\n%+v\n%+v", bad, tc, td)
					}
					found = true
					break
				}
				acts, _ := randomAvailable(r, avail)
				if tc, td := c.Step(acts), d.Step(acts); tc.Done || td.Done {
					c.Reset(uint64(12 + step))
					d.Reset(uint64(12 + step))
				}
			}
			if !found {
				t.Fatal("the rollout saw masked actions but no masked state was reached to test them")
			}
		})
	}
}

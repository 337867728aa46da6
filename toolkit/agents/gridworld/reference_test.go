package gridworld

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// The reference policies on 40 worlds of every task type and embodiment: the expert always
// succeeds; uniform random rarely does; the colour-blind navigator always ends on a goal — the
// target about a third of the time or more; the nearest-goal navigator always ends on a goal; every
// episode's ending agrees with its success; and a policy seed replays an episode exactly.
func TestReferencePolicies(t *testing.T) {
	const perType = 40
	rate := map[string]float64{}
	n := 0
	for _, task := range AllTasks() {
		for _, e := range []Embodiment{Walker, Diagonal} {
			for i := range perType {
				seed := uint64(1000*task.Index() + i)
				n++
				for _, ref := range References() {
					tr, w, err := PlayReference(ref, task, e, seed, seed+7)
					if err != nil {
						t.Fatal(err)
					}
					if (tr.Ending == EndSuccess) != tr.Success || tr.Ending != w.Ending() || tr.Ending == "" {
						t.Fatalf("%s %s e%d seed %d: ending %q, success %v", ref, task, e, seed, tr.Ending, tr.Success)
					}
					if tr.Success {
						rate[ref]++
					}
					switch ref {
					case RefExpert:
						if !tr.Success {
							t.Fatalf("expert failed %s e%d seed %d:\n%s", task, e, seed, w.Render())
						}
					case RefColourBlind, RefNearest:
						if tr.Ending == EndTimeOut {
							t.Fatalf("%s timed out on %s e%d seed %d:\n%s", ref, task, e, seed, w.Render())
						}
						if tr.Success != (w.Reached() == task.Colour) {
							t.Fatalf("%s: reached %q, target %q, success %v", ref, w.Reached(), task.Colour, tr.Success)
						}
					}
				}
			}
		}
	}
	for k := range rate {
		rate[k] /= float64(n)
	}
	if rate[RefRandom] > 0.15 || rate[RefColourBlind] < 0.25 || rate[RefColourBlind] > 0.65 || rate[RefExpert] != 1 {
		t.Errorf("success rates %v", rate)
	}
	a, _, _ := PlayReference(RefColourBlind, AllTasks()[4], Diagonal, 17, 3)
	b, _, _ := PlayReference(RefColourBlind, AllTasks()[4], Diagonal, 17, 3)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seeds played two different episodes")
	}
	if _, err := NewReference("oracle", Walker, 1); err == nil {
		t.Error("an unknown reference policy was accepted")
	}
}

// The diagonal expert plans only from what the agent sees. At every step of noisy expert
// episodes of every task type, the world rebuilt from the diagonal mover's observation alone
// (ObsWorld) gives the expert the plan it has in the world itself. Its former 5×5 window
// (WindowObs) hid the target at most held-out starts, which is why it was replaced.
func TestDiagonalExpertPlansFromItsView(t *testing.T) {
	steps, hidden, starts := 0, 0, 0
	for _, task := range AllTasks() {
		for i := range 20 {
			w, err := Generate(task, uint64(7000+i))
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(HeldOut(), task) {
				starts++
				if !w.TargetInWindow() {
					hidden++
				}
			}
			r := rand.New(rand.NewPCG(uint64(i), 1))
			for !w.Done() {
				seen, err := ObsWorld(task, w.Obs(Diagonal))
				if err != nil {
					t.Fatal(err)
				}
				want, ok1 := Plan(w, Diagonal)
				got, ok2 := Plan(seen, Diagonal)
				if ok1 != ok2 || !slices.Equal(want, got) {
					t.Fatalf("%s seed %d step %d: plan %v from the world, %v from the observation\n%s", task, 7000+i, w.Steps(), want, got, w.Render())
				}
				steps++
				w.Step(Diagonal, ExpertAction(w, Diagonal, r, 0.3))
			}
		}
	}
	if steps < 500 {
		t.Fatalf("only %d steps checked", steps)
	}
	if share := float64(hidden) / float64(starts); share < 0.5 {
		t.Errorf("the 5×5 window hid the target at %.2f of held-out starts; the audit measured 0.71–0.80", share)
	}
	if _, err := ObsWorld(HeldOut()[0], make([]float32, MaxObsSize)); err == nil {
		t.Error("an observation without an agent was accepted")
	}
}

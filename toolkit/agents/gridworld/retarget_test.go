package gridworld

import (
	"slices"
	"testing"
)

// A retargeted world keeps its walls, goals and start and pays for the other goal; a pair of
// CollectPairs starts from the same observation, the partner's task is allowed and differs only in
// colour, and TrajectoryWorld rebuilds both worlds; GoalIndex finds the named goal in an observation.
func TestRetargetAndPairs(t *testing.T) {
	task := Task{"open", "none", "red"}
	w, err := Generate(task, 11)
	if err != nil {
		t.Fatal(err)
	}
	g, err := w.Retarget("blue")
	if err != nil {
		t.Fatal(err)
	}
	if g.Task().Colour != "blue" || w.Task().Colour != "red" || !slices.Equal(g.Obs(Walker), w.Obs(Walker)) {
		t.Fatalf("retargeted %s from %s; observations equal: %v", g.Task(), w.Task(), slices.Equal(g.Obs(Walker), w.Obs(Walker)))
	}
	if c, x, y := g.Target(); c != GoalBlue || GoalIndex(g.Obs(Walker), "blue") != y*Size+x || GoalIndex(g.Obs(Diagonal), "red") == y*Size+x {
		t.Fatalf("target %v at (%d, %d), goal index %d", c, x, y, GoalIndex(g.Obs(Walker), "blue"))
	}
	if _, err := w.Retarget("purple"); err == nil {
		t.Fatal("an unknown colour accepted")
	}
	allowed := []Task{task, {"open", "none", "green"}}
	trs, err := CollectPairs([]Task{task}, allowed, []Embodiment{Walker, Diagonal}, 4, DefaultNoises(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 4*2*2 {
		t.Fatalf("%d trajectories, want 4 worlds × 2 embodiments × 2", len(trs))
	}
	for i := 0; i < len(trs); i += 2 {
		own, other := trs[i], trs[i+1]
		if own.Task != task.String() || other.Task != "open/none/green" || other.WorldTask != task.String() || own.Seed != other.Seed ||
			own.Embodiment != other.Embodiment || !slices.Equal(own.Obs[0], other.Obs[0]) {
			t.Fatalf("pair %d: %s/%s (world %s) seeds %d %d", i/2, own.Task, other.Task, other.WorldTask, own.Seed, other.Seed)
		}
		for _, tr := range []Trajectory{own, other} {
			if w, _ := TrajectoryWorld(tr); w != nil {
				if _, ok := Plan(w, Embodiment(tr.Embodiment)); !ok {
					t.Fatalf("pair %d: %s has no plan to its goal", i/2, tr.Task)
				}
			}
			w, err := TrajectoryWorld(tr)
			if err != nil || w.Task().String() != tr.Task || !slices.Equal(w.Obs(Embodiment(tr.Embodiment)), tr.Obs[0]) {
				t.Fatalf("trajectory %s world %s: %v", tr.Task, tr.WorldTask, err)
			}
		}
	}
	// without an allowed partner colour, a task pairs with itself (another policy seed): no other type enters
	lone := Task{"open", "key", "red"}
	trs, err = CollectPairs([]Task{lone}, []Task{lone}, []Embodiment{Walker}, 3, []float64{0.6}, 3)
	if err != nil || trs[1].Task != lone.String() || trs[1].Seed != trs[0].Seed || slices.Equal(trs[0].Actions, trs[1].Actions) && slices.Equal(trs[2].Actions, trs[3].Actions) {
		t.Fatalf("self pairs %v (%v)", trs, err)
	}
	if _, err := CollectPairs([]Task{{"open", "key", "purple"}}, nil, []Embodiment{Walker}, 1, DefaultNoises(), 3); err == nil {
		t.Fatal("an invalid task accepted")
	}
}

package gridworld

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/env/envtest"
)

func TestTasks(t *testing.T) {
	all := AllTasks()
	if len(all) != 12 {
		t.Fatalf("%d tasks", len(all))
	}
	for i, task := range all {
		back, err := ParseTask(task.String())
		if err != nil || back != task || task.Index() != i {
			t.Fatalf("%v: parsed %v, %v; index %d", task, back, err, task.Index())
		}
		p := TaskParts(task)
		if (p[0]*NumDoors+p[1])*NumColours+p[2] != i {
			t.Fatalf("%v: parts %v", task, p)
		}
	}
	for _, bad := range []string{"", "open/key", "open/key/blue/x", "maze/key/blue", "open/lock/blue", "open/key/pink"} {
		if _, err := ParseTask(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	train, held := TrainTasks(), HeldOut()
	if len(train) != 9 || len(held) != 3 {
		t.Fatalf("%d train, %d held out", len(train), len(held))
	}
	seen := [3]map[int]bool{{}, {}, {}}
	for _, task := range train {
		if slices.Contains(held, task) {
			t.Fatalf("%v both held out and trained", task)
		}
		for k, v := range TaskParts(task) {
			seen[k][v] = true
		}
	}
	if len(seen[0]) != NumLayouts || len(seen[1]) != NumDoors || len(seen[2]) != NumColours {
		t.Fatalf("training misses a part value: %v", seen)
	}
	if held[0].String() != "open/key/blue" || held[1].String() != "rooms/none/green" || held[2].String() != "rooms/key/red" {
		t.Fatalf("held out: %v", held)
	}
}

func TestGenerateIsDeterministicAndVaried(t *testing.T) {
	for _, task := range AllTasks() {
		a, err := Generate(task, 7)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Generate(task, 7)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a.Obs(Walker), b.Obs(Walker)) || !reflect.DeepEqual(a.Obs(Diagonal), b.Obs(Diagonal)) {
			t.Fatalf("%v: the same seed gave different worlds:\n%s\n%s", task, a.Render(), b.Render())
		}
		distinct := map[string]bool{}
		for s := uint64(0); s < 10; s++ {
			w, _ := Generate(task, s)
			distinct[w.Render()] = true
		}
		if len(distinct) < 8 {
			t.Fatalf("%v: only %d distinct worlds from 10 seeds", task, len(distinct))
		}
	}
	if _, err := Generate(Task{"open", "key", "pink"}, 1); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Fatalf("bad task: %v", err)
	}
}

// countCells counts each cell kind of the current grid.
func countCells(w *World) map[Cell]int {
	n := map[Cell]int{}
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			n[w.CellAt(x, y)]++
		}
	}
	return n
}

func TestEveryWorldIsSolvableAndNeedsItsKey(t *testing.T) {
	for _, task := range AllTasks() {
		for seed := uint64(0); seed < 50; seed++ {
			w, err := Generate(task, seed)
			if err != nil {
				t.Fatal(err)
			}
			if p, _ := Plan(w, Walker); len(p) < MinPlanSteps || len(p) > MaxPlanSteps {
				t.Fatalf("%v seed %d: walker plan of %d steps", task, seed, len(p))
			}
			n := countCells(w)
			if n[GoalRed] != 1 || n[GoalGreen] != 1 || n[GoalBlue] != 1 {
				t.Fatalf("%v seed %d: goals %v\n%s", task, seed, n, w.Render())
			}
			if x, y := w.Agent(); w.CellAt(x, y) != Floor {
				t.Fatalf("%v seed %d: agent on %v", task, seed, w.CellAt(x, y))
			}
			wantKey := 0
			if task.Door == "key" {
				wantKey = 1
				for _, e := range []Embodiment{Walker, Diagonal} {
					if _, ok := shortestPlan(w, movesOf(e), false); ok {
						t.Fatalf("%v seed %d: the target is reachable without the key by the %s\n%s", task, seed, EmbodimentName(e), w.Render())
					}
				}
			}
			if n[Key] != wantKey || n[Door] != wantKey {
				t.Fatalf("%v seed %d: %d keys, %d doors\n%s", task, seed, n[Key], n[Door], w.Render())
			}
			for _, e := range []Embodiment{Walker, Diagonal} {
				tr, err := Rollout(task, e, seed, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				steps := len(tr.Actions)
				if !tr.Success || steps > Limit || math.Abs(tr.Return()-(1-StepCost*float64(steps))) > 1e-12 {
					t.Fatalf("%v seed %d %s: success %v in %d steps, return %v\n%s", task, seed, EmbodimentName(e), tr.Success, steps, tr.Return(), w.Render())
				}
			}
		}
	}
}

const handMap = `
#######
#A.#..#
#.k#.R#
#..D..#
#..#G.#
#..#.B#
#######`

func hand(t *testing.T) *World {
	t.Helper()
	w, err := ParseWorld(Task{"rooms", "key", "red"}, handMap)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// play steps the actions and checks that none ends the episode before the last.
func play(t *testing.T, w *World, e Embodiment, actions ...int) (reward float64, done bool) {
	t.Helper()
	for i, a := range actions {
		reward, done = w.Step(e, a)
		if done && i < len(actions)-1 {
			t.Fatalf("episode ended at action %d of %v", i, actions)
		}
	}
	return reward, done
}

func TestDynamicsByHand(t *testing.T) {
	const N, S, W, E, NE, NW, SE, SW = 0, 1, 2, 3, 4, 5, 6, 7
	w := hand(t)
	if got := strings.Join(strings.Split(w.Render(), "\n")[:Size], "\n"); got != strings.TrimSpace(handMap) {
		t.Fatalf("render:\n%s", got)
	}
	// Walls block; the locked door blocks without the key.
	play(t, w, Walker, N, W, S, S, E, E)
	if x, y := w.Agent(); x != 2 || y != 3 || w.Steps() != 6 || w.CellAt(3, 3) != Door {
		t.Fatalf("at (%d,%d) after %d steps, door %v", x, y, w.Steps(), w.CellAt(3, 3))
	}
	// The key is picked up and disappears; the door opens with it.
	play(t, w, Walker, N)
	if !w.Carrying() || w.CellAt(2, 2) != Floor || w.Obs(Walker)[MaxObsSize-1] != 1 || w.Obs(Diagonal)[ObsSize(Diagonal)-1] != 1 {
		t.Fatal("key not picked up")
	}
	play(t, w, Walker, S, E)
	if x, y := w.Agent(); x != 3 || y != 3 || w.CellAt(3, 3) != Floor {
		t.Fatalf("door not opened: at (%d,%d)\n%s", x, y, w.Render())
	}
	// A wrong goal ends the episode with 0.
	wrong := w.Clone()
	if r, done := play(t, wrong, Walker, E, S); r != 0 || !done || wrong.Success() || wrong.Truncated() {
		t.Fatalf("wrong goal: reward %v done %v", r, done)
	}
	// The target pays 1 − 0.02·steps (12 steps).
	if r, done := play(t, w, Walker, E, N, E); !done || !w.Success() || math.Abs(r-(1-0.02*12)) > 1e-12 || w.Steps() != 12 {
		t.Fatalf("target: reward %v done %v after %d steps", r, done, w.Steps())
	}
	if r, done := w.Step(Walker, S); r != 0 || !done || w.Steps() != 12 {
		t.Fatal("a finished episode moved on")
	}
	// Reset restores the start.
	w.Reset()
	if w.Render() != hand(t).Render() || w.Carrying() {
		t.Fatalf("reset:\n%s", w.Render())
	}
	// Diagonal moves: blocked by a wall target cell, may cut between walls, open the door.
	play(t, w, Diagonal, NE, SE)
	if x, y := w.Agent(); x != 2 || y != 2 || !w.Carrying() {
		t.Fatalf("diagonal: at (%d,%d)", x, y)
	}
	play(t, w, Diagonal, SE, NE, NW, SW)
	if x, y := w.Agent(); x != 3 || y != 3 || w.CellAt(3, 3) != Floor {
		t.Fatalf("diagonal door: at (%d,%d)\n%s", x, y, w.Render())
	}
	// The step limit ends the episode with 0.
	w.Reset()
	for i := 1; i <= Limit; i++ {
		r, done := w.Step(Walker, N)
		if r != 0 || done != (i == Limit) {
			t.Fatalf("step %d: reward %v done %v", i, r, done)
		}
	}
	if !w.Truncated() || w.Success() {
		t.Fatal("limit not a truncation")
	}
}

func TestObservations(t *testing.T) {
	if ObsSize(Walker) != 344 || ObsSize(Diagonal) != 344 || MaxObsSize != 344 || NumActions(Walker) != 4 || NumActions(Diagonal) != 8 || MaxActions != 8 {
		t.Fatal("sizes")
	}
	if !reflect.DeepEqual(ActionNames(Diagonal), []string{"NORTH", "SOUTH", "WEST", "EAST", "NE", "NW", "SE", "SW"}) || len(ActionNames(Walker)) != 4 || EmbodimentName(Diagonal) != "diagonal" {
		t.Fatal("names")
	}
	w := hand(t)
	o := w.Obs(Walker)
	at := func(x, y, ch int) float32 { return o[(y*Size+x)*WalkerChannels+ch] }
	if at(1, 1, 6) != 1 || at(0, 0, 0) != 1 || at(5, 2, 1) != 1 || at(4, 4, 2) != 1 || at(5, 5, 3) != 1 || at(2, 2, 4) != 1 || at(3, 3, 5) != 1 || at(1, 1, 0) != 0 {
		t.Fatal("walker observation")
	}
	sum := float32(0)
	for _, v := range o {
		sum += v
	}
	if n := countCells(w); sum != float32(Size*Size-n[Floor]+1) {
		t.Fatalf("walker observation has %v ones", sum)
	}
	// Since 2026-12-04 the diagonal mover sees what the walker sees.
	if !reflect.DeepEqual(w.Obs(Diagonal), o) {
		t.Fatal("diagonal observation differs from the walker's")
	}
	// WindowObs (its view before): at (1,1) it sees x, y ∈ [−1, 3]; off-grid reads as wall.
	want := []string{"#####", "#####", "##..#", "##.k#", "##..D"}
	got := w.WindowObs()
	for dy, row := range want {
		for dx := range row {
			for ch := 0; ch < DiagonalChannels; ch++ {
				exp := float32(0)
				if c := strings.IndexByte(cellChars, row[dx]); c-1 == ch {
					exp = 1
				}
				if v := got[(dy*Window+dx)*DiagonalChannels+ch]; v != exp {
					t.Fatalf("window (%d,%d) channel %d = %v, want %v", dx, dy, ch, v, exp)
				}
			}
		}
	}
	if got[150] != 0 {
		t.Fatal("carrying flag set")
	}
}

func TestParseWorldErrors(t *testing.T) {
	task := Task{"open", "none", "red"}
	for _, bad := range []string{
		strings.Replace(handMap, "A", ".", 1),
		strings.Replace(handMap, "G", ".", 1),
		strings.Replace(handMap, ".k", "Ak", 1),
		strings.Replace(handMap, "#######\n#A", "#######\n#A#", 1),
		strings.Replace(handMap, "k", "x", 1),
		handMap + "\n#######",
	} {
		if _, err := ParseWorld(task, bad); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

func TestExpertNoiseAndCollect(t *testing.T) {
	w, _ := Generate(Task{"open", "none", "red"}, 3)
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[int]int{}
	for i := 0; i < 400; i++ {
		counts[ExpertAction(w, Diagonal, r, 1)]++
	}
	if len(counts) != 8 {
		t.Fatalf("noise 1 drew actions %v", counts)
	}
	p, _ := Plan(w, Walker)
	if ExpertAction(w, Walker, nil, 0.5) != p[0] {
		t.Fatal("nil rand is not noiseless")
	}
	trs, err := Collect(AllTasks()[:3], []Embodiment{Walker, Diagonal}, 8, DefaultNoises(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 3*8*2 {
		t.Fatalf("%d trajectories", len(trs))
	}
	returns := map[float64]bool{}
	fails := 0
	for _, tr := range trs {
		returns[tr.Return()] = true
		if !tr.Success {
			fails++
		}
		if err := CheckTrajectory(tr); err != nil {
			t.Fatal(err)
		}
	}
	if len(returns) < 5 || fails == 0 {
		t.Fatalf("returns not varied: %d distinct, %d failures", len(returns), fails)
	}
	again, _ := Collect(AllTasks()[:3], []Embodiment{Walker, Diagonal}, 8, DefaultNoises(), 5)
	if !reflect.DeepEqual(trs, again) {
		t.Fatal("Collect is not reproducible")
	}
}

func TestReturnsToGo(t *testing.T) {
	if got := ReturnsToGo([]float64{0, 0, 0.8}); !reflect.DeepEqual(got, []float64{0.8, 0.8, 0.8}) {
		t.Fatal(got)
	}
	if got := ReturnsToGo([]float64{1, 2, 3}); !reflect.DeepEqual(got, []float64{6, 5, 3}) {
		t.Fatal(got)
	}
	if got := ReturnsToGo(nil); len(got) != 0 {
		t.Fatal(got)
	}
}

func TestTrajectoriesJSONL(t *testing.T) {
	dir := t.TempDir()
	trs, err := Collect(HeldOut(), []Embodiment{Walker, Diagonal}, 2, []float64{0, 0.3}, 9)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "traj.jsonl")
	if err := SaveTrajectories(path, trs); err != nil {
		t.Fatal(err)
	}
	back, err := LoadTrajectories(path)
	if err != nil || !reflect.DeepEqual(back, trs) {
		t.Fatalf("round trip: %v", err)
	}
	good, _ := Rollout(Task{"rooms", "key", "blue"}, Diagonal, 4, 0, 0)
	cases := []struct {
		field string
		edit  func(*Trajectory)
		raw   string
	}{
		{field: "task", edit: func(tr *Trajectory) { tr.Task = "rooms/key/pink" }},
		{field: "embodiment", edit: func(tr *Trajectory) { tr.Embodiment = 2 }},
		{field: "embodiment", raw: `{"task":"open/none/red","seed":1,"obs":[],"actions":[],"rewards":[],"success":false}`},
		{field: "obs", edit: func(tr *Trajectory) { tr.Obs, tr.Actions, tr.Rewards = nil, nil, nil }},
		{field: "obs[1]", edit: func(tr *Trajectory) { tr.Obs[1] = tr.Obs[1][:150] }},
		{field: "obs[0]", edit: func(tr *Trajectory) { tr.Obs[0] = append(tr.Obs[0], 0) }},
		{field: "actions", edit: func(tr *Trajectory) { tr.Actions = tr.Actions[1:] }},
		{field: "rewards", edit: func(tr *Trajectory) { tr.Rewards = append(tr.Rewards, 0) }},
		{field: "actions[0]", edit: func(tr *Trajectory) { tr.Actions[0] = 8 }},
		{field: "actions[1]", edit: func(tr *Trajectory) { tr.Actions[1] = -1 }},
		{field: "seed", raw: `{"task":"open/none/red","seed":"x"}`},
	}
	okLine, _ := json.Marshal(good)
	for _, c := range cases {
		line := c.raw
		if c.edit != nil {
			bad := good
			bad.Obs = slices.Clone(good.Obs)
			bad.Actions, bad.Rewards = slices.Clone(good.Actions), slices.Clone(good.Rewards)
			c.edit(&bad)
			b, _ := json.Marshal(bad)
			line = string(b)
		}
		p := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(p, []byte(string(okLine)+"\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadTrajectories(p)
		if err == nil || !strings.Contains(err.Error(), p+":2: ") || !strings.Contains(err.Error(), "field "+c.field) {
			t.Errorf("%s: error %v", c.field, err)
		}
	}
}

func TestEnvConformance(t *testing.T) {
	envtest.Check(t, "grid:rooms-key-blue-e1", "grid:open-none-red-e0")
}

func TestEnvScenarios(t *testing.T) {
	e, err := env.Make("grid:rooms-key-blue-e1")
	if err != nil {
		t.Fatal(err)
	}
	if sp := e.Spec(); sp != (env.Spec{Name: "grid:rooms-key-blue-e1", Agents: 1, ObsSize: 344, Actions: 8, StateSize: 344, Horizon: Limit}) {
		t.Fatalf("spec %+v", sp)
	}
	s, _, err := e.Reset(17)
	if err != nil {
		t.Fatal(err)
	}
	w, err := WorldOf(s)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := Plan(w.Clone(), Diagonal)
	var tr env.Transition
	for _, a := range plan {
		if s, tr, err = e.Step(s, []int{a}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := e.Step(s, []int{0}); err == nil {
		t.Fatal("a step after the goal was accepted")
	}
	if !tr.Done || tr.Truncated || tr.Info["success"] != 1 || tr.Shared != 1-StepCost*float64(len(plan)) {
		t.Fatalf("expert through env: %+v", tr)
	}
	for _, bad := range []string{"grid:rooms-key-blue", "grid:rooms-key-blue-e2", "grid:maze-key-blue-e0", "grid:rooms-lock-blue-e0", "grid:rooms-key-pink-e1", "grid:rooms-key-blue-e01"} {
		if _, err := env.Make(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

package env

import (
	"math"
	"slices"
	"testing"
)

// lbfRun is an LBF episode under test: the environment and the current state.
type lbfRun struct {
	t *testing.T
	e *LBF
	s *LBFState
}

// step steps the episode (an error is fatal) and keeps the returned state.
func (r *lbfRun) step(actions []int) Transition {
	r.t.Helper()
	next, tr, err := r.e.Step(r.s, actions)
	if err != nil {
		r.t.Fatal(err)
	}
	r.s = next.(*LBFState)
	return tr
}

func lbf(t *testing.T, spec string, players []LBFPlayer, foods map[[2]int]int) *lbfRun {
	t.Helper()
	c, err := ParseLBF(spec)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewLBF(c, spec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewState(players, foods)
	if err != nil {
		t.Fatal(err)
	}
	return &lbfRun{t: t, e: e, s: s}
}

// reset is the state of e's episode of seed.
func reset(t *testing.T, e *LBF, seed uint64) (*LBFState, [][]float32) {
	t.Helper()
	s, obs, err := e.Reset(seed)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*LBFState), obs
}

func at(r *lbfRun) [][2]int {
	var out [][2]int
	for _, p := range r.s.Players() {
		out = append(out, [2]int{p.Row, p.Col})
	}
	return out
}

func TestLBFMovesAndCollisions(t *testing.T) {
	// A and B both step into (2,2): neither moves.
	e := lbf(t, "6x6-2p-1f", []LBFPlayer{{2, 1, 1}, {2, 3, 1}}, map[[2]int]int{{4, 4}: 1})
	e.step([]int{LBFEast, LBFWest})
	if p := at(e); p[0] != [2]int{2, 1} || p[1] != [2]int{2, 3} {
		t.Fatalf("colliding moves happened: %v", p)
	}
	// A steps into B, who stands still: A stays.
	e.step([]int{LBFEast, LBFNone})
	e.step([]int{LBFEast, LBFNone}) // now A at (2,2) next to B at (2,3)
	e.step([]int{LBFEast, LBFLoad}) // B's LOAD is invalid (no food) → NONE, still claims its cell
	if p := at(e); p[0] != [2]int{2, 2} || p[1] != [2]int{2, 3} {
		t.Fatalf("a player entered an occupied cell: %v", p)
	}
	// Swapping is allowed by lb-foraging's rule: each target cell has one claimant.
	e.step([]int{LBFEast, LBFWest})
	if p := at(e); p[0] != [2]int{2, 3} || p[1] != [2]int{2, 2} {
		t.Fatalf("swap did not happen: %v", p)
	}
	// Off the grid and into food are invalid (NONE).
	e2 := lbf(t, "6x6-1p-1f", []LBFPlayer{{0, 0, 1}}, map[[2]int]int{{1, 0}: 1})
	avail := e2.e.Avail(e2.s)[0]
	if avail[LBFNorth] || avail[LBFWest] || avail[LBFSouth] || !avail[LBFEast] || !avail[LBFLoad] || !avail[LBFNone] {
		t.Fatalf("mask at the corner next to food: %v", avail)
	}
	e2.step([]int{LBFSouth})
	if p := at(e2); p[0] != [2]int{0, 0} {
		t.Fatalf("moved into food: %v", p)
	}
}

func TestLBFLoadRuleAndRewards(t *testing.T) {
	// Food of level 2 at (2,2): one level-1 loader fails (penalty 0.1 with -pen), two succeed.
	e := lbf(t, "6x6-3p-2f-pen", []LBFPlayer{{2, 1, 1}, {2, 3, 1}, {0, 5, 2}}, map[[2]int]int{{2, 2}: 2, {4, 4}: 2})
	tr := e.step([]int{LBFLoad, LBFNone, LBFNone})
	if tr.Rewards[0] != -0.1 || tr.Rewards[1] != 0 || e.s.food(2, 2) != 2 {
		t.Fatalf("a lone level-1 load of a level-2 food: rewards %v, food %d", tr.Rewards, e.s.food(2, 2))
	}
	tr = e.step([]int{LBFLoad, LBFLoad, LBFNone})
	// Σ food spawned = 4: each loader gets 1·2/(2·4) = 0.25.
	if math.Abs(tr.Rewards[0]-0.25) > 1e-12 || math.Abs(tr.Rewards[1]-0.25) > 1e-12 || tr.Rewards[2] != 0 || e.s.food(2, 2) != 0 {
		t.Fatalf("joint load: rewards %v, food left %d", tr.Rewards, e.s.food(2, 2))
	}
	if tr.Done || tr.Shared != 0.5 {
		t.Fatalf("done %v shared %v", tr.Done, tr.Shared)
	}
	// The level-2 player alone loads the other level-2 food: 2·2/(2·4) = 0.5, and the episode ends.
	s, err := e.e.NewState([]LBFPlayer{{2, 1, 1}, {2, 3, 1}, {4, 3, 2}}, map[[2]int]int{{4, 4}: 2})
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	e.s.spawned = 4
	tr = e.step([]int{LBFNone, LBFNone, LBFLoad})
	if tr.Rewards[2] != 0.5 || !tr.Done || tr.Truncated {
		t.Fatalf("last food: rewards %v done %v truncated %v", tr.Rewards, tr.Done, tr.Truncated)
	}
}

func TestLBFEpisodeLimitAndObservation(t *testing.T) {
	e := lbf(t, "6x6-2p-1f-5t", []LBFPlayer{{0, 0, 1}, {5, 5, 2}}, map[[2]int]int{{3, 3}: 3})
	var tr Transition
	for i := 0; i < 5; i++ {
		tr = e.step([]int{LBFNone, LBFNone})
	}
	if !tr.Done || !tr.Truncated {
		t.Fatal("the 5-step limit did not end the episode")
	}
	if _, _, err := e.e.Step(e.s, []int{LBFNone, LBFNone}); err == nil || e.s.Steps() != 5 {
		t.Fatalf("a step after the limit: error %v, %d steps", err, e.s.Steps())
	}
	o := e.e.observe(e.s)
	// Full sight: food (3,3,3); player 0 sees itself first (0,0,1), then player 1 (5,5,2).
	want0 := []float32{3, 3, 3, 0, 0, 1, 5, 5, 2}
	want1 := []float32{3, 3, 3, 5, 5, 2, 0, 0, 1}
	for i := range want0 {
		if o[0][i] != want0[i] || o[1][i] != want1[i] {
			t.Fatalf("observations %v / %v, want %v / %v", o[0], o[1], want0, want1)
		}
	}
	// Sight 1: player 0 at (0,0) sees a window [0,1]×[0,1]: no food, the other player unseen.
	p := lbf(t, "6x6-2p-1f-1s", []LBFPlayer{{0, 0, 1}, {5, 5, 2}}, map[[2]int]int{{3, 3}: 3})
	if got := p.e.observe(p.s)[0]; got[0] != -1 || got[3] != 0 || got[4] != 0 || got[6] != -1 {
		t.Fatalf("partial observation %v", got)
	}
}

func TestLBFSpawnRules(t *testing.T) {
	c, _ := ParseLBF("8x8-3p-3f-coop-lvl3")
	e, _ := NewLBF(c, "x")
	for seed := uint64(0); seed < 200; seed++ {
		s, _ := reset(t, e, seed)
		levels := []int{}
		for _, p := range s.Players() {
			if p.Level < 1 || p.Level > 3 {
				t.Fatalf("player level %d", p.Level)
			}
			levels = append(levels, p.Level)
		}
		slices.Sort(levels)
		want := levels[0] + levels[1] + levels[2]
		n := 0
		for i, f := range s.field {
			if f == 0 {
				continue
			}
			n++
			r, col := i/c.Size, i%c.Size
			if r == 0 || col == 0 || r == c.Size-1 || col == c.Size-1 {
				t.Fatalf("seed %d: food on the border at (%d,%d)", seed, r, col)
			}
			if f != want {
				t.Fatalf("seed %d: coop food level %d, want the sum of the 3 lowest player levels %d", seed, f, want)
			}
			s.field[i] = 0
			if s.foodNear(r, col) {
				t.Fatalf("seed %d: foods too close around (%d,%d)", seed, r, col)
			}
			s.field[i] = f
		}
		if n == 0 {
			t.Fatalf("seed %d: no food spawned", seed)
		}
	}
}

// The spread variant spawns one food of each level 1..3 for three level-1 players (partial
// coalitions of one, two and three players) and refuses to combine with coop.
func TestLBFSpread(t *testing.T) {
	c, err := ParseLBF("8x8-3p-3f-lvl1-spread")
	if err != nil || !c.Spread || c.MaxLevel != 1 {
		t.Fatalf("parse: %+v %v", c, err)
	}
	e, _ := NewLBF(c, "x")
	for seed := uint64(0); seed < 100; seed++ {
		s, _ := reset(t, e, seed)
		var got []int
		for _, f := range s.field {
			if f > 0 {
				got = append(got, f)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, []int{1, 2, 3}) {
			t.Fatalf("seed %d: food levels %v, want [1 2 3]", seed, got)
		}
	}
	if _, err := ParseLBF("8x8-3p-3f-coop-spread"); err == nil {
		t.Fatal("coop with spread accepted")
	}
}

// A trace line names an out-of-range action as the no-op Step played, instead of panicking.
func TestLBFTraceOutOfRangeAction(t *testing.T) {
	e, err := Make("lbf:5x5-2p-1f")
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	s, tr, err := e.Step(s, []int{-3, 99})
	if err != nil {
		t.Fatal(err)
	}
	line := s.(*LBFState).Trace([]int{-3, 99}, tr)
	if line.Actions[0] != LBFActionNames[LBFNone] || line.Actions[1] != LBFActionNames[LBFNone] {
		t.Fatalf("actions %v, want the no-op twice", line.Actions)
	}
}

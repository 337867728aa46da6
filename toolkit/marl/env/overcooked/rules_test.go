package overcooked

import (
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env/envtest"
)

func cramped(t *testing.T) *State {
	t.Helper()
	l, err := ParseLayout("cramped_room", Layouts["cramped_room"])
	if err != nil {
		t.Fatal(err)
	}
	return NewState(l)
}

var act = map[string]int{"N": North, "S": South, "E": East, "W": West, "-": Stay, "I": Interact}

// TestSoupFromStartToDelivery plays player 0 through a whole soup on cramped_room (player 1 stays)
// and checks the rules step by step: pickups, potting (+3), the automatic start at 3 onions, the
// 20-tick cook, the useful dish pickup (+3), the soup pickup (+5) and the delivery (+20).
func TestSoupFromStartToDelivery(t *testing.T) {
	s := cramped(t)
	r := DefaultRules()
	step := func(a string, wantPos Pos, wantHold Object, wantShaped, wantSparse float64) {
		t.Helper()
		out := s.Step([2]int{act[a], Stay}, r)
		p := s.Players[0]
		if p.Pos != wantPos || p.Holding != wantHold || out.Shaped[0] != wantShaped || out.Sparse[0] != wantSparse {
			t.Fatalf("t=%d after %s: player 0 at %v holding %v, shaped %v sparse %v; want %v %v %v %v\n%s",
				s.Timestep, a, p.Pos, p.Holding, out.Shaped[0], out.Sparse[0], wantPos, wantHold, wantShaped, wantSparse, s.ASCII(r))
		}
	}
	pot := Pos{2, 0}
	step("N", Pos{1, 1}, Nothing, 0, 0)
	step("W", Pos{1, 1}, Nothing, 0, 0) // (0,1) is the onion dispenser: only turns
	step("I", Pos{1, 1}, OnionObj, 0, 0)
	step("E", Pos{2, 1}, OnionObj, 0, 0)
	step("N", Pos{2, 1}, OnionObj, 0, 0) // faces the pot
	step("I", Pos{2, 1}, Nothing, 3, 0)
	if p := s.Pots[pot]; p.Onions != 1 || !p.Idle() {
		t.Fatalf("pot after one onion: %+v", p)
	}
	for k := 2; k <= 3; k++ {
		step("W", Pos{1, 1}, Nothing, 0, 0)
		step("I", Pos{1, 1}, OnionObj, 0, 0)
		step("E", Pos{2, 1}, OnionObj, 0, 0)
		step("N", Pos{2, 1}, OnionObj, 0, 0)
		step("I", Pos{2, 1}, Nothing, 3, 0)
	}
	// The third onion went in during the interacts; the environment started and ticked the pot.
	if p := s.Pots[pot]; p.Onions != 3 || p.Tick != 1 || !p.Cooking(r.CookTime) {
		t.Fatalf("pot after the third onion: %+v", p)
	}
	started := s.Timestep - 1 // the step in which cooking started
	// A fourth onion cannot go into a cooking pot.
	step("W", Pos{1, 1}, Nothing, 0, 0)
	step("I", Pos{1, 1}, OnionObj, 0, 0)
	step("E", Pos{2, 1}, OnionObj, 0, 0)
	step("N", Pos{2, 1}, OnionObj, 0, 0)
	step("I", Pos{2, 1}, OnionObj, 0, 0) // no-op, still holding
	// Put the onion on a counter, then fetch a dish: useful (+3) because the pot is cooking.
	step("W", Pos{1, 1}, OnionObj, 0, 0)
	step("S", Pos{1, 2}, OnionObj, 0, 0)
	step("W", Pos{1, 2}, OnionObj, 0, 0) // faces the counter (0,2)
	step("I", Pos{1, 2}, Nothing, 0, 0)
	if s.Counters[Pos{0, 2}] != OnionObj {
		t.Fatal("onion not on the counter")
	}
	step("S", Pos{1, 2}, Nothing, 0, 0) // faces the dish dispenser (1,3)
	step("I", Pos{1, 2}, DishObj, 3, 0)
	step("N", Pos{1, 1}, DishObj, 0, 0)
	step("E", Pos{2, 1}, DishObj, 0, 0)
	step("N", Pos{2, 1}, DishObj, 0, 0)
	// Wait at the pot until it is ready: a dish at a cooking pot is a no-op.
	for !s.Pots[pot].Ready(r.CookTime) {
		step("I", Pos{2, 1}, DishObj, 0, 0)
	}
	if ready := s.Timestep - started; ready != r.CookTime {
		t.Fatalf("soup ready %d steps after cooking started, want %d", ready, r.CookTime)
	}
	step("I", Pos{2, 1}, SoupObj, 5, 0)
	if !s.Pots[pot].Empty() {
		t.Fatal("the pot is not empty after the soup pickup")
	}
	step("S", Pos{2, 2}, SoupObj, 0, 0)
	step("E", Pos{3, 2}, SoupObj, 0, 0)
	step("S", Pos{3, 2}, SoupObj, 0, 0) // faces the serving cell (3,3)
	step("I", Pos{3, 2}, Nothing, 0, 20)
	step("I", Pos{3, 2}, Nothing, 0, 0) // empty hand at the serving cell: no-op
}

// TestCollisions checks overcooked_ai's movement rules: a move into a non-floor cell only turns;
// two players moving into one cell, or swapping, all stay (but turn); following into a cell the other
// player leaves is allowed; moving into a player who stays is blocked.
func TestCollisions(t *testing.T) {
	r := DefaultRules()
	s := cramped(t)
	s.Players[0].Pos, s.Players[1].Pos = Pos{1, 1}, Pos{3, 1}
	s.Step([2]int{East, West}, r) // both into (2,1)
	if s.Players[0].Pos != (Pos{1, 1}) || s.Players[1].Pos != (Pos{3, 1}) || s.Players[0].Dir != East || s.Players[1].Dir != West {
		t.Fatalf("same-cell moves: %+v", s.Players)
	}
	s.Players[0].Pos, s.Players[1].Pos = Pos{2, 2}, Pos{3, 2}
	s.Step([2]int{East, West}, r) // swap
	if s.Players[0].Pos != (Pos{2, 2}) || s.Players[1].Pos != (Pos{3, 2}) {
		t.Fatalf("swap was not blocked: %+v", s.Players)
	}
	s.Step([2]int{East, Stay}, r) // into a player who stays
	if s.Players[0].Pos != (Pos{2, 2}) {
		t.Fatalf("moved into a standing player: %+v", s.Players)
	}
	s.Step([2]int{North, West}, r) // P0 leaves (2,2), P1 follows into it
	if s.Players[0].Pos != (Pos{2, 1}) || s.Players[1].Pos != (Pos{2, 2}) {
		t.Fatalf("following was blocked: %+v", s.Players)
	}
	s.Step([2]int{North, Stay}, r) // the pot: turn only
	if s.Players[0].Pos != (Pos{2, 1}) || s.Players[0].Dir != North {
		t.Fatalf("moving into the pot: %+v", s.Players[0])
	}
}

// TestInteractOrder: player 0's interact happens before player 1's, on the same state, before
// anyone moves — player 0 drops an onion on a counter and player 1 picks it up in the same step.
func TestInteractOrder(t *testing.T) {
	r := DefaultRules()
	l, err := ParseLayout("x", "XXPXX\nO1X2O\nXD SX")
	if err == nil {
		t.Fatal("a layout with floor on the border was accepted")
	}
	l, err = ParseLayout("order", "XXPXX\nO1X2O\nXD XX\nXXXSX")
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(l)
	s.Players[0].Dir, s.Players[1].Dir = East, West // both face the counter (2,1)
	s.Players[0].Holding = OnionObj
	out := s.Step([2]int{Interact, Interact}, r)
	if s.Players[0].Holding != Nothing || s.Players[1].Holding != OnionObj || len(s.Counters) != 0 {
		t.Fatalf("interact order: %+v counters %v events %v", s.Players, s.Counters, out.Events)
	}
	if out.Events != [2]string{"drop_on_counter", "pickup_from_counter"} {
		t.Fatalf("events %v", out.Events)
	}
}

// TestDishPickupUsefulness: a dish pickup is rewarded only while fewer players hold a dish than
// there are non-empty pots and no dish lies on a counter.
func TestDishPickupUsefulness(t *testing.T) {
	r := DefaultRules()
	s := cramped(t)
	s.Players[0].Pos, s.Players[0].Dir = Pos{1, 2}, South
	out := s.Step([2]int{Interact, Stay}, r) // all pots empty: not useful
	if out.Shaped[0] != 0 || s.Players[0].Holding != DishObj {
		t.Fatalf("dish with empty pots: shaped %v", out.Shaped)
	}
	s.Players[0].Holding = Nothing
	s.Pots[Pos{2, 0}] = PotState{Onions: 1, Tick: -1}
	if out := s.Step([2]int{Interact, Stay}, r); out.Shaped[0] != 3 {
		t.Fatalf("dish with a partly full pot: shaped %v, want 3", out.Shaped)
	}
	s.Players[0].Holding = Nothing
	s.Counters[Pos{0, 2}] = DishObj
	if out := s.Step([2]int{Interact, Stay}, r); out.Shaped[0] != 0 {
		t.Fatalf("dish while a dish lies on a counter: shaped %v, want 0", out.Shaped)
	}
}

func TestLayoutErrorsNameRowAndColumn(t *testing.T) {
	cases := map[string]string{
		"XXPXX\nO  2O\nX1 QX\nXDXSX": "row 3 column 4",
		"XXPXX\nO  2O\nX1  \nXDXSX":  "row 3 has 2 columns",
		"XXPXX\nO  2O\nX1  X\nX DSX": "row 4 column 2: floor on the border",
		"XXPXX\nO 22O\nX1  X\nXDXSX": "placed twice",
		"XXXXX\nO  2O\nX1  X\nXDXSX": "no pot",
	}
	for grid, want := range cases {
		if _, err := ParseLayout("bad", grid); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("grid %q: error %v, want it to mention %q", grid, err, want)
		}
	}
	for _, name := range LayoutNames() {
		if _, err := ParseLayout(name, Layouts[name]); err != nil {
			t.Errorf("built-in %s: %v", name, err)
		}
	}
	for alias, canon := range LayoutAliases {
		e, err := env.Make("overcooked:" + alias + "-h100")
		if err != nil {
			t.Fatalf("alias %s: %v", alias, err)
		}
		if g := e.(*Env); g.Cfg.Layout != canon || g.Cfg.Horizon != 100 || g.Layout.Name != canon {
			t.Errorf("alias %s: layout %s (%s), want %s", alias, g.Cfg.Layout, g.Layout.Name, canon)
		}
	}
	if _, err := env.Make("overcooked:random7"); err == nil || !strings.Contains(err.Error(), "counter_circuit_o_1order") {
		t.Errorf("unknown layout: %v (should list the aliases)", err)
	}
}

func FuzzParseLayout(f *testing.F) {
	for _, g := range Layouts {
		f.Add(g)
	}
	f.Add("X\nX")
	f.Add("XXPXX\nO1 2O\nXDXSX\n\n")
	f.Fuzz(func(t *testing.T, grid string) {
		l, err := ParseLayout("fuzz", grid)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "layout fuzz:") {
				t.Fatalf("error without the layout name: %v", err)
			}
			return
		}
		// A parsed layout is closed, has both players on floor, and plays without panicking.
		s := NewState(l)
		for i := 0; i < 50; i++ {
			s.Step([2]int{i % NumActions, (i * 7) % NumActions}, DefaultRules())
		}
		for _, p := range s.Players {
			if l.At(p.Pos) != Floor {
				t.Fatalf("player on %q", l.At(p.Pos))
			}
		}
	})
}

func TestConformance(t *testing.T) {
	envtest.Check(t, "overcooked:cramped_room", "overcooked:counter_circuit-h100-c5", "overcooked:coordination_ring-lossless")
}

// TestScriptedPartnersCook: two greedy scripted cooks deliver soups on every layout where a single
// cook can reach everything, and an onion carrier with a dish server does on cramped_room.
func TestScriptedPartnersCook(t *testing.T) {
	r := DefaultRules()
	rng := rand.New(rand.NewPCG(1, 2))
	play := func(layout string, a, b Scripted) float64 {
		l, _ := ParseLayout(layout, Layouts[layout])
		s := NewState(l)
		total := 0.0
		for s.Timestep < 400 {
			out := s.Step([2]int{a.Act(s, 0, r, rng), b.Act(s, 1, r, rng)}, r)
			total += out.Sparse[0] + out.Sparse[1]
		}
		return total
	}
	greedy := Scripted{Role: "greedy"}
	for _, layout := range []string{"cramped_room", "coordination_ring", "counter_circuit", "asymmetric_advantages"} {
		if got := play(layout, greedy, greedy); got < 40 {
			t.Errorf("%s: two greedy cooks delivered %v in 400 steps", layout, got)
		}
	}
	if got := play("cramped_room", ScriptedPartners["onion-carrier"], ScriptedPartners["dish-server"]); got < 40 {
		t.Errorf("onion carrier + dish server delivered %v", got)
	}
}

// TestScriptedPreferences: a "first" onion carrier on cramped_room always fetches from the left
// dispenser and a "last" one from the right (the layout has one on each side); "near" uses both.
// Each still cooks with a dish server; the grid names and validates its agents.
func TestScriptedPreferences(t *testing.T) {
	r := DefaultRules()
	l, _ := ParseLayout("cramped_room", Layouts["cramped_room"])
	if len(l.Onions) != 2 {
		t.Fatalf("cramped_room has %d onion dispensers", len(l.Onions))
	}
	fetches := func(prefer string) (map[Pos]int, float64) {
		rng := rand.New(rand.NewPCG(3, 4))
		s := NewState(l)
		a, b := Scripted{Role: "onion", Prefer: prefer}, Scripted{Role: "dish"}
		used, total := map[Pos]int{}, 0.0
		for s.Timestep < 400 {
			before := s.Players[0]
			act := a.Act(s, 0, r, rng)
			out := s.Step([2]int{act, b.Act(s, 1, r, rng)}, r)
			total += out.Sparse[0] + out.Sparse[1]
			if act == Interact && before.Holding == Nothing && s.Players[0].Holding == OnionObj {
				used[before.Pos.Add(Directions[before.Dir])]++
			}
		}
		return used, total
	}
	first, tf := fetches("first")
	last, tl := fetches("last")
	near, _ := fetches("near")
	left, right := l.Onions[0], l.Onions[1]
	if left.X > right.X {
		left, right = right, left
	}
	if first[right] != 0 || first[left] == 0 || last[left] != 0 || last[right] == 0 {
		t.Errorf("dispensers used: first %v, last %v (left %v, right %v)", first, last, left, right)
	}
	if len(near) != 2 {
		t.Errorf("a nearest-dispenser carrier used %v", near)
	}
	if tf < 20 || tl < 20 {
		t.Errorf("preferring carriers delivered %v and %v", tf, tl)
	}
	grid, err := ScriptedGrid([]string{"onion", "dish", "greedy"}, []float64{0, 0.15}, []string{"near", "last"})
	if err != nil || len(grid) != 12 || grid[0].Name() != "onion-carrier" || grid[3].Name() != "onion-carrier-n0.15-last" || grid[11].Name() != "cook-n0.15-last" {
		t.Fatalf("grid: %v %v", err, grid)
	}
	if _, err := ScriptedGrid([]string{"chef"}, []float64{0}, []string{""}); err == nil || !strings.Contains(err.Error(), `role "chef"`) {
		t.Fatalf("unknown role: %v", err)
	}
	if err := (Scripted{Role: "dish", Prefer: "left"}).Validate(); err == nil {
		t.Fatal("unknown preference accepted")
	}
}

// TestScriptedPreferenceKeepsToReachableCells: in asymmetric_advantages each cook has its own half;
// a carrier preferring the "first" or "last" onion dispenser uses the one on its own side and cooks.
func TestScriptedPreferenceKeepsToReachableCells(t *testing.T) {
	r := DefaultRules()
	l, _ := ParseLayout("asymmetric_advantages", Layouts["asymmetric_advantages"])
	for _, prefer := range []string{"first", "last"} {
		for seat := 0; seat < 2; seat++ {
			rng := rand.New(rand.NewPCG(5, uint64(seat)))
			s := NewState(l)
			pick := Scripted{Role: "onion", Prefer: prefer}
			cook := Scripted{Role: "greedy"}
			potted := 0.0 // the carrier's own shaped reward: +3 per onion it puts in a pot
			for s.Timestep < 400 {
				var j [2]int
				j[seat], j[1-seat] = pick.Act(s, seat, r, rng), cook.Act(s, 1-seat, r, rng)
				out := s.Step(j, r)
				potted += out.Shaped[seat]
			}
			if potted < 30 {
				t.Errorf("onion carrier preferring %q in seat %d potted %v/3 onions in 400 steps", prefer, seat, potted)
			}
		}
	}
}

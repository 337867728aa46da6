package overcooked

import (
	"fmt"
	"math/rand/v2"
)

// Scripted agents: the held-out "human proxies" of the E3T experiment (toolkit/exp/e3t/README.md), which no
// method trains with. Each picks an action for player i from the full game state.

// Scripted is a rule-based cook.
type Scripted struct {
	// Role: "onion" (carries onions to pots), "dish" (serves soups), or "greedy" (does whatever the
	// kitchen needs next).
	Role string
	// Noise is the probability of a uniformly random action instead (0.3 for "noisy greedy").
	Noise float64
	// Prefer picks among several cells of one kind (pots, dispensers, serving windows): "" or
	// "near" heads for the nearest, "first" always for the first in reading order (top row first,
	// then left to right) and "last" for the last — a fixed pot and route, as people keep to one.
	// Where a layout has one cell of a kind the preference changes nothing.
	Prefer string
}

// Name is the agent's name in a partner pool, e.g. "onion-carrier", "cook-n0.15",
// "dish-server-first".
func (a Scripted) Name() string {
	n := map[string]string{"onion": "onion-carrier", "dish": "dish-server", "greedy": "cook"}[a.Role]
	if n == "" {
		n = a.Role
	}
	if a.Noise > 0 {
		n += fmt.Sprintf("-n%g", a.Noise)
	}
	if a.Prefer != "" && a.Prefer != "near" {
		n += "-" + a.Prefer
	}
	return n
}

// Validate names an unknown role or preference, or a noise outside [0, 1].
func (a Scripted) Validate() error {
	switch {
	case a.Role != "onion" && a.Role != "dish" && a.Role != "greedy":
		return fmt.Errorf("scripted cook: role %q, want onion, dish or greedy", a.Role)
	case a.Noise < 0 || a.Noise > 1:
		return fmt.Errorf("scripted cook: noise %v outside [0, 1]", a.Noise)
	case a.Prefer != "" && a.Prefer != "near" && a.Prefer != "first" && a.Prefer != "last":
		return fmt.Errorf("scripted cook: prefer %q, want near, first or last", a.Prefer)
	}
	return nil
}

// ScriptedGrid is every combination of roles, noises and preferences (a ZSC-Eval-style pool of
// rule-based partners), in that nesting order.
func ScriptedGrid(roles []string, noises []float64, prefers []string) ([]Scripted, error) {
	var out []Scripted
	for _, r := range roles {
		for _, n := range noises {
			for _, p := range prefers {
				a := Scripted{Role: r, Noise: n, Prefer: p}
				if err := a.Validate(); err != nil {
					return nil, err
				}
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// ScriptedPartners are three named scripted cooks used by tests and examples (the e3t experiment's
// held-out pool is a ScriptedGrid, named by Scripted.Name).
var ScriptedPartners = map[string]Scripted{
	"onion-carrier": {Role: "onion"},
	"dish-server":   {Role: "dish"},
	"noisy-greedy":  {Role: "greedy", Noise: 0.3},
}

// Act returns player i's action.
func (a Scripted) Act(s *State, i int, r Rules, rng *rand.Rand) int {
	if a.Noise > 0 && rng.Float64() < a.Noise {
		return rng.IntN(NumActions)
	}
	l := s.Layout
	me := s.Players[i]
	var goals []Pos
	ready, cooking, open := []Pos{}, []Pos{}, []Pos{}
	for _, p := range l.Pots {
		pot := s.Pots[p]
		switch {
		case pot.Ready(r.CookTime):
			ready = append(ready, p)
		case pot.Cooking(r.CookTime):
			cooking = append(cooking, p)
		case !pot.Full():
			open = append(open, p)
		}
	}
	dishHeldByOther := s.Players[1-i].Holding == DishObj || s.Players[1-i].Holding == SoupObj
	switch me.Holding {
	case SoupObj:
		goals = l.Serves
	case DishObj:
		goals = append(ready, cooking...)
	case OnionObj, TomatoObj:
		goals = open
	default:
		wantDish := len(ready)+len(cooking) > 0 && !dishHeldByOther
		switch a.Role {
		case "onion":
			if len(open) > 0 {
				goals = l.Onions
			}
		case "dish":
			if len(ready)+len(cooking) > 0 {
				goals = l.Dishes
			}
		default:
			if wantDish {
				goals = l.Dishes
			} else if len(open) > 0 {
				goals = l.Onions
			}
		}
	}
	if len(goals) == 0 {
		return rng.IntN(5) // nothing to do: wander, so as not to block the other cook's way
	}
	return nextAction(s, i, a.prefer(s, i, goals), rng)
}

// prefer keeps one goal cell under a "first" or "last" preference: the first or last, in reading
// order, of the cells player i can reach at all (in asymmetric_advantages each cook has its own
// half of the kitchen; a preference for a dispenser on the other side would leave it idle).
func (a Scripted) prefer(s *State, i int, goals []Pos) []Pos {
	if len(goals) < 2 || (a.Prefer != "first" && a.Prefer != "last") {
		return goals
	}
	goals = reachable(s.Layout, s.Players[i].Pos, goals)
	if len(goals) < 2 {
		return goals
	}
	first, last := goals[0], goals[0]
	for _, g := range goals[1:] {
		if g.Y < first.Y || (g.Y == first.Y && g.X < first.X) {
			first = g
		}
		if g.Y > last.Y || (g.Y == last.Y && g.X > last.X) {
			last = g
		}
	}
	switch a.Prefer {
	case "first":
		return []Pos{first}
	case "last":
		return []Pos{last}
	}
	return goals
}

// nextAction is the first action of a shortest plan that ends facing one of the goal cells
// (INTERACT when already facing one). The other player's cell counts as blocked.
func nextAction(s *State, i int, goals []Pos, rng *rand.Rand) int {
	l := s.Layout
	me := s.Players[i]
	isGoal := map[Pos]bool{}
	for _, g := range goals {
		isGoal[g] = true
	}
	if isGoal[me.Pos.Add(Directions[me.Dir])] {
		return Interact
	}
	other := s.Players[1-i].Pos
	type node struct {
		p   Pos
		dir int
	}
	start := node{me.Pos, me.Dir}
	first := map[node]int{start: -1}
	queue := []node{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if isGoal[cur.p.Add(Directions[cur.dir])] {
			a := first[cur]
			// Both cooks heading for the same cell would collide forever (overcooked_ai blocks both):
			// when the next cell touches the other cook, wait half the time.
			if np := me.Pos.Add(Directions[a]); np != me.Pos && manhattan(np, other) == 1 && rng.Float64() < 0.5 {
				return Stay
			}
			return a
		}
		for a := 0; a < 4; a++ {
			next := node{cur.p, a}
			if np := cur.p.Add(Directions[a]); l.At(np) == Floor && np != other {
				next.p = np
			}
			if _, seen := first[next]; !seen {
				f := first[cur]
				if f < 0 {
					f = a
				}
				first[next] = f
				queue = append(queue, next)
			}
		}
	}
	return rng.IntN(5) // unreachable (e.g. blocked by the other cook): wander
}

// reachable keeps the goal cells next to a floor cell that a cook at from can walk to (other cooks
// ignored: they move).
func reachable(l *Layout, from Pos, goals []Pos) []Pos {
	seen := map[Pos]bool{from: true}
	queue := []Pos{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for d := 0; d < 4; d++ {
			if np := cur.Add(Directions[d]); l.At(np) == Floor && !seen[np] {
				seen[np] = true
				queue = append(queue, np)
			}
		}
	}
	var out []Pos
	for _, g := range goals {
		for d := 0; d < 4; d++ {
			if seen[g.Add(Directions[d])] {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

func manhattan(a, b Pos) int {
	d := a.X - b.X
	if d < 0 {
		d = -d
	}
	e := a.Y - b.Y
	if e < 0 {
		e = -e
	}
	return d + e
}

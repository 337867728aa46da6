package gridworld

import "math/rand/v2"

// searchState is a BFS node: the agent's cell, whether it carries the key, whether it opened the door.
type searchState struct {
	x, y      int
	key, open bool
}

// index numbers a searchState densely in [0, Size·Size·4).
func (s searchState) index() int {
	i := (s.y*Size + s.x) * 4
	if s.key {
		i += 2
	}
	if s.open {
		i++
	}
	return i
}

// shortestPlan is a breadth-first search over (cell, key carried, door opened) from the current state
// to the target goal with the given moves, never entering another goal (that would end the episode
// with 0). With allowKey false the key cell is plain floor that gives no key (for checking that the
// key is needed). It returns the actions of a shortest path (ties broken by action order) and
// whether one exists.
func shortestPlan(w *World, moves []move, allowKey bool) ([]int, bool) {
	return planTo(w, moves, allowKey, GoalCell(w.task.Colour))
}

// planTo is shortestPlan to the goal target, whatever the task's colour (the other goals avoided).
func planTo(w *World, moves []move, allowKey bool, target Cell) ([]int, bool) {
	if w.done {
		return nil, false
	}
	const n = Size * Size * 4
	var seen [n]bool
	var parent [n]int
	var action [n]int
	start := searchState{w.ax, w.ay, w.carrying, false}
	seen[start.index()] = true
	queue := []searchState{start}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for a, m := range moves {
			next := searchState{s.x + m.dx, s.y + m.dy, s.key, s.open}
			c := w.CellAt(next.x, next.y)
			switch {
			case c == Key && s.key, c == Door && s.open:
				c = Floor
			}
			switch {
			case c == Wall, c == Door && !s.key, c.IsGoal() && c != target:
				continue
			case c == Key && allowKey:
				next.key = true
			case c == Door:
				next.open = true
			}
			if seen[next.index()] {
				continue
			}
			seen[next.index()], parent[next.index()], action[next.index()] = true, s.index(), a
			if c == target {
				var plan []int
				for i := next.index(); i != start.index(); i = parent[i] {
					plan = append(plan, action[i])
				}
				for l, r := 0, len(plan)-1; l < r; l, r = l+1, r-1 {
					plan[l], plan[r] = plan[r], plan[l]
				}
				return plan, true
			}
			queue = append(queue, next)
		}
	}
	return nil, false
}

// Plan returns a shortest action sequence for embodiment e from the current state to the target
// goal (fetching the key first when the door is in the way), and whether one exists. It never
// passes through another goal. An unknown embodiment panics.
func Plan(w *World, e Embodiment) ([]int, bool) { return shortestPlan(w, movesOf(e), true) }

// ExpertAction is the scripted expert: with probability noise (drawn from r) a uniformly random
// action of e, otherwise the first action of Plan (action 0 when no plan exists). A nil r or a
// noise ≤ 0 gives the noiseless expert.
func ExpertAction(w *World, e Embodiment, r *rand.Rand, noise float64) int {
	if r != nil && noise > 0 && r.Float64() < noise {
		return r.IntN(NumActions(e))
	}
	if p, ok := Plan(w, e); ok && len(p) > 0 {
		return p[0]
	}
	return 0
}

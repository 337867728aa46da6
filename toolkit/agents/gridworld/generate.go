package gridworld

import (
	"fmt"
	"math/rand/v2"
)

// MaxAttempts bounds Generate's retries with derived seeds.
const MaxAttempts = 200

// Bounds on the walker's shortest solution in a generated world: at least MinPlanSteps (no
// one-step episodes) and at most MaxPlanSteps (slack under Limit for a noisy expert to recover).
const (
	MinPlanSteps = 2
	MaxPlanSteps = 18
)

// Generate builds the world of task from seed, deterministically (math/rand/v2 PCG). It draws a
// candidate (see layoutOpen and layoutRooms) and keeps it when the walker's shortest solution takes
// MinPlanSteps to MaxPlanSteps steps (the diagonal mover's moves are a superset, so its solution is
// no longer) and, for a "key" task, the target is unreachable without the key even with diagonal
// moves; otherwise it retries with a seed derived from (task, seed, attempt), up to MaxAttempts times.
func Generate(task Task, seed uint64) (*World, error) {
	if err := task.Validate(); err != nil {
		return nil, err
	}
	for attempt := 0; attempt < MaxAttempts; attempt++ {
		r := rand.New(rand.NewPCG(seed, streamOf(task, attempt)))
		w := &World{task: task, seed: seed}
		ok := false
		if task.Layout == "open" {
			ok = layoutOpen(w, r)
		} else {
			ok = layoutRooms(w, r)
		}
		if ok && acceptable(w) {
			w.start, w.sx, w.sy = w.grid, w.ax, w.ay
			return w, nil
		}
	}
	return nil, fmt.Errorf("gridworld: no solvable %s world from seed %d in %d attempts", task, seed, MaxAttempts)
}

// streamOf is the PCG stream of a generation attempt: distinct for every task and attempt.
func streamOf(task Task, attempt int) uint64 {
	return 0x67726964<<32 ^ uint64(task.Index())<<24 ^ uint64(attempt)
}

// acceptable reports whether a candidate world is solvable by the walker in MinPlanSteps to
// MaxPlanSteps steps and, for a "key" task, unsolvable without the key.
func acceptable(w *World) bool {
	plan, ok := shortestPlan(w, movesOf(Walker), true)
	if !ok || len(plan) < MinPlanSteps || len(plan) > MaxPlanSteps {
		return false
	}
	if w.task.Door == "key" {
		if _, ok := shortestPlan(w, movesOf(Diagonal), false); ok {
			return false
		}
	}
	return true
}

// borderWalls sets the outer ring of the grid to Wall.
func borderWalls(w *World) {
	for i := 0; i < Size; i++ {
		w.grid[i], w.grid[(Size-1)*Size+i] = Wall, Wall
		w.grid[i*Size], w.grid[i*Size+Size-1] = Wall, Wall
	}
}

// place puts c on a uniformly drawn floor cell that ok accepts (nil: any), not the agent's cell
// when the agent is placed (ax ≥ 0); it returns the cell and false when there is none.
func place(w *World, r *rand.Rand, c Cell, ok func(x, y int) bool) (x, y int, found bool) {
	var free []int
	for i, v := range w.grid {
		x, y := i%Size, i/Size
		if v == Floor && !(x == w.ax && y == w.ay) && (ok == nil || ok(x, y)) {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return 0, 0, false
	}
	i := free[r.IntN(len(free))]
	w.grid[i] = c
	return i % Size, i / Size, true
}

// layoutOpen draws an "open" candidate: 2–3 random interior walls, the three goals, the agent.
// With a key, the target goal sits in an interior corner whose three interior neighbours are two
// walls (the diagonal one and one orthogonal) and the locked door (the other orthogonal), so the
// door is the only way in, and the key lies elsewhere.
func layoutOpen(w *World, r *rand.Rand) bool {
	borderWalls(w)
	w.ax, w.ay = -1, -1
	target := GoalCell(w.task.Colour)
	if w.task.Door == "key" {
		cx, cy := 1+4*r.IntN(2), 1+4*r.IntN(2)
		dx, dy := 1, 1
		if cx == Size-2 {
			dx = -1
		}
		if cy == Size-2 {
			dy = -1
		}
		w.grid[cy*Size+cx] = target
		w.grid[(cy+dy)*Size+cx+dx] = Wall
		door, wall := cy*Size+cx+dx, (cy+dy)*Size+cx
		if r.IntN(2) == 1 {
			door, wall = wall, door
		}
		w.grid[door], w.grid[wall] = Door, Wall
	}
	for n := 2 + r.IntN(2); n > 0; n-- {
		if _, _, ok := place(w, r, Wall, nil); !ok {
			return false
		}
	}
	cells := []Cell{GoalRed, GoalGreen, GoalBlue}
	if w.task.Door == "key" {
		cells = []Cell{Key}
		for _, g := range []Cell{GoalRed, GoalGreen, GoalBlue} {
			if g != target {
				cells = append(cells, g)
			}
		}
	}
	for _, c := range cells {
		if _, _, ok := place(w, r, c, nil); !ok {
			return false
		}
	}
	x, y, ok := place(w, r, Floor, nil)
	w.ax, w.ay = x, y
	return ok
}

// layoutRooms draws a "rooms" candidate: a full interior wall column or row (orientation and
// position drawn) with one doorway cell — a locked door with a key, else floor; the agent (and the
// key) on one side, all three goals on the other, so the task, not the layout, tells the target.
func layoutRooms(w *World, r *rand.Rand) bool {
	borderWalls(w)
	w.ax, w.ay = -1, -1
	vertical := r.IntN(2) == 0
	at := 2 + r.IntN(3) // the wall's column (vertical) or row
	gap := 1 + r.IntN(Size-2)
	doorway := Floor
	if w.task.Door == "key" {
		doorway = Door
	}
	for i := 1; i < Size-1; i++ {
		c := Wall
		if i == gap {
			c = doorway
		}
		if vertical {
			w.grid[i*Size+at] = c
		} else {
			w.grid[at*Size+i] = c
		}
	}
	near := r.IntN(2) == 0 // agent on the low side (x or y < at)
	side := func(low bool) func(x, y int) bool {
		return func(x, y int) bool {
			p := y
			if vertical {
				p = x
			}
			return (low && p < at) || (!low && p > at)
		}
	}
	for _, g := range []Cell{GoalRed, GoalGreen, GoalBlue} {
		if _, _, ok := place(w, r, g, side(!near)); !ok {
			return false
		}
	}
	if w.task.Door == "key" {
		if _, _, ok := place(w, r, Key, side(near)); !ok {
			return false
		}
	}
	x, y, ok := place(w, r, Floor, side(near))
	w.ax, w.ay = x, y
	return ok
}

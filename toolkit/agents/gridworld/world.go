package gridworld

import (
	"fmt"
	"strings"
)

// Size is the side of every world's grid, border wall ring included (a 5×5 interior).
const Size = 7

// Limit is the episode step limit: the episode ends with reward 0 after Limit steps without a goal.
const Limit = 24

// StepCost is the per-step discount of the success reward: reaching the target goal on step n
// pays 1 − StepCost·n.
const StepCost = 0.02

// Cell is the content of one grid cell (the agent is kept apart, see World.Agent).
type Cell uint8

// The cell kinds. A goal ends the episode when entered; a key is picked up when entered; a door
// can be entered only while carrying the key, which opens it (it becomes Floor).
const (
	Floor Cell = iota
	Wall
	GoalRed
	GoalGreen
	GoalBlue
	Key
	Door
)

// cellChars are the Render characters of the cell kinds, in Cell order.
const cellChars = ".#RGBkD"

// AgentChar is the Render character of the agent.
const AgentChar = 'A'

// String is the cell's Render character.
func (c Cell) String() string {
	if int(c) < len(cellChars) {
		return cellChars[c : c+1]
	}
	return fmt.Sprintf("Cell(%d)", int(c))
}

// IsGoal reports whether c is one of the three coloured goals.
func (c Cell) IsGoal() bool { return c == GoalRed || c == GoalGreen || c == GoalBlue }

// GoalCell returns the goal cell of a colour ("red", "green", "blue"); Floor for an unknown one.
func GoalCell(colour string) Cell {
	switch colour {
	case "red":
		return GoalRed
	case "green":
		return GoalGreen
	case "blue":
		return GoalBlue
	}
	return Floor
}

// World is one generated world and the state of the episode played in it. It is a plain value
// (not safe for concurrent use); Clone copies it.
type World struct {
	task        Task
	seed        uint64
	grid, start [Size * Size]Cell
	ax, ay      int // agent position (x = column, y = row; north is y − 1)
	sx, sy      int // agent start
	carrying    bool
	steps       int
	done        bool
	reached     Cell // the goal entered (Floor while none)
}

// ParseWorld builds a world of task from a text map of Size lines of Size characters each, in the
// characters Render writes ('.' floor, '#' wall, 'R' 'G' 'B' goals, 'k' key, 'D' door, 'A' the
// agent on floor); blank lines are skipped. It needs exactly one agent and one goal of each colour.
func ParseWorld(task Task, text string) (*World, error) {
	if err := task.Validate(); err != nil {
		return nil, err
	}
	w := &World{task: task, ax: -1}
	goals := map[Cell]int{}
	y := 0
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if y >= Size {
			return nil, fmt.Errorf("gridworld: map line %d: more than %d rows", i+1, Size)
		}
		if len(line) != Size {
			return nil, fmt.Errorf("gridworld: map line %d: %d characters, want %d", i+1, len(line), Size)
		}
		for x := 0; x < Size; x++ {
			ch := line[x]
			if ch == AgentChar {
				if w.ax >= 0 {
					return nil, fmt.Errorf("gridworld: map line %d: a second agent", i+1)
				}
				w.ax, w.ay = x, y
				continue
			}
			k := strings.IndexByte(cellChars, ch)
			if k < 0 {
				return nil, fmt.Errorf("gridworld: map line %d: unknown character %q (want one of %q or %q)", i+1, ch, cellChars, AgentChar)
			}
			w.grid[y*Size+x] = Cell(k)
			goals[Cell(k)]++
		}
		y++
	}
	if y != Size {
		return nil, fmt.Errorf("gridworld: map has %d rows, want %d", y, Size)
	}
	if w.ax < 0 {
		return nil, fmt.Errorf("gridworld: map has no agent %q", AgentChar)
	}
	for _, g := range []Cell{GoalRed, GoalGreen, GoalBlue} {
		if goals[g] != 1 {
			return nil, fmt.Errorf("gridworld: map has %d %q goals, want 1", goals[g], g)
		}
	}
	w.start, w.sx, w.sy = w.grid, w.ax, w.ay
	return w, nil
}

// Reset restores the world to its start: the generated grid, the agent at its start, no key
// carried, step 0.
func (w *World) Reset() {
	w.grid, w.ax, w.ay = w.start, w.sx, w.sy
	w.carrying, w.steps, w.done, w.reached = false, 0, false, Floor
}

// Clone returns an independent copy of the world and its episode state.
func (w *World) Clone() *World { c := *w; return &c }

// Task is the world's task.
func (w *World) Task() Task { return w.task }

// Seed is the seed the world was generated from (0 for a parsed map).
func (w *World) Seed() uint64 { return w.seed }

// CellAt returns the cell at column x, row y (Wall outside the grid). It does not show the agent.
func (w *World) CellAt(x, y int) Cell {
	if x < 0 || y < 0 || x >= Size || y >= Size {
		return Wall
	}
	return w.grid[y*Size+x]
}

// Agent returns the agent's column and row.
func (w *World) Agent() (x, y int) { return w.ax, w.ay }

// Carrying reports whether the agent carries the key.
func (w *World) Carrying() bool { return w.carrying }

// Steps is the number of steps taken in the episode.
func (w *World) Steps() int { return w.steps }

// Done reports whether the episode ended (a goal entered or the step limit).
func (w *World) Done() bool { return w.done }

// Success reports whether the episode ended on the target goal.
func (w *World) Success() bool { return w.reached != Floor && w.reached == GoalCell(w.task.Colour) }

// Truncated reports whether the episode ended only because of the step limit.
func (w *World) Truncated() bool { return w.done && w.reached == Floor }

// Target returns the target goal's cell kind and position.
func (w *World) Target() (c Cell, x, y int) {
	c = GoalCell(w.task.Colour)
	for i, v := range w.grid {
		if v == c {
			return c, i % Size, i / Size
		}
	}
	return c, -1, -1
}

// Render draws the grid ('#' wall, '.' floor, 'R' 'G' 'B' goals, 'k' key, 'D' door, 'A' agent),
// one row a line, then a status line with the task, the step and whether the key is carried.
func (w *World) Render() string {
	var b strings.Builder
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			if x == w.ax && y == w.ay {
				b.WriteByte(AgentChar)
			} else {
				b.WriteString(w.grid[y*Size+x].String())
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s step %d/%d key:%v", w.task, w.steps, Limit, w.carrying)
	if w.done {
		fmt.Fprintf(&b, " done success:%v", w.Success())
	}
	return b.String()
}

// Step moves the agent by action under embodiment e and returns the reward and whether the episode
// is over. Moving into a wall, or into a locked door without the key, leaves the agent in place;
// entering the key picks it up (the key cell becomes floor); entering the door with the key opens
// it (it becomes floor); entering any goal ends the episode, paying 1 − StepCost·steps (this step
// counted) for the target goal and 0 for another; after Limit steps the episode ends with 0. An
// action outside [0, NumActions(e)) leaves the agent in place (the step still counts). Stepping a
// finished episode changes nothing and returns (0, true). An unknown embodiment panics.
func (w *World) Step(e Embodiment, action int) (reward float64, done bool) {
	moves := movesOf(e)
	if w.done {
		return 0, true
	}
	w.steps++
	if action >= 0 && action < len(moves) {
		reward = w.enter(w.ax+moves[action].dx, w.ay+moves[action].dy)
	}
	if w.steps >= Limit {
		w.done = true
	}
	return reward, w.done
}

// enter applies the effect of the agent trying to enter cell (x, y) and returns the reward.
func (w *World) enter(x, y int) float64 {
	c := w.CellAt(x, y)
	switch {
	case c == Wall, c == Door && !w.carrying:
		return 0
	case c == Key:
		w.carrying = true
		w.grid[y*Size+x] = Floor
	case c == Door:
		w.grid[y*Size+x] = Floor
	}
	w.ax, w.ay = x, y
	if c.IsGoal() {
		w.done, w.reached = true, c
		if c == GoalCell(w.task.Colour) {
			return 1 - StepCost*float64(w.steps)
		}
	}
	return 0
}

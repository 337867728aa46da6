package gridworld

import "fmt"

// Embodiment selects an action set and an observation: 0 is the walker, 1 the diagonal mover.
type Embodiment int

// The two embodiments.
const (
	// Walker has 4 moves (NORTH, SOUTH, WEST, EAST) and sees the whole grid: one-hot channels
	// WalkerChannels per cell, then the carrying-key flag (344 values).
	Walker Embodiment = 0
	// Diagonal has 8 moves (the 4 and NE, NW, SE, SW; a move is blocked only by its target cell)
	// and sees the whole grid as the walker does (344 values), so its expert plans from nothing
	// the agent does not see (ObsWorld). Until 2026-12-04 it saw an egocentric Window×Window view
	// (WindowObs), which hid the target goal at 71–80 % of held-out starts while its expert planned
	// from the full state: its demonstrations could not be imitated from what it saw.
	Diagonal Embodiment = 1
)

// NumEmbodiments is the number of embodiments.
const NumEmbodiments = 2

// Window is the side of WindowObs's egocentric view (the diagonal mover's view before 2026-12-04).
const Window = 5

// Channel counts of the two observations.
const (
	WalkerChannels   = 7 // wall, goal-red, goal-green, goal-blue, key, door, agent
	DiagonalChannels = 6 // WindowObs's: wall, goal-red, goal-green, goal-blue, key, door
)

// MaxObsSize is the largest ObsSize over the embodiments; MaxActions the largest NumActions.
const (
	MaxObsSize = Size*Size*WalkerChannels + 1
	MaxActions = 8
)

// move is one action's displacement (north is y − 1).
type move struct{ dx, dy int }

// allMoves are the moves in action order; the walker uses the first 4.
var allMoves = [MaxActions]move{{0, -1}, {0, 1}, {-1, 0}, {1, 0}, {1, -1}, {-1, -1}, {1, 1}, {-1, 1}}

// allActionNames name allMoves.
var allActionNames = [MaxActions]string{"NORTH", "SOUTH", "WEST", "EAST", "NE", "NW", "SE", "SW"}

// movesOf returns e's moves; an unknown embodiment panics (a programming error).
func movesOf(e Embodiment) []move {
	switch e {
	case Walker:
		return allMoves[:4]
	case Diagonal:
		return allMoves[:8]
	}
	panic(fmt.Sprintf("gridworld: embodiment %d out of range [0, %d)", int(e), NumEmbodiments))
}

// Valid reports whether e is a known embodiment.
func (e Embodiment) Valid() bool { return e == Walker || e == Diagonal }

// EmbodimentName is "walker" or "diagonal" ("" for an unknown embodiment).
func EmbodimentName(e Embodiment) string {
	switch e {
	case Walker:
		return "walker"
	case Diagonal:
		return "diagonal"
	}
	return ""
}

// NumActions is e's action count (0 for an unknown embodiment).
func NumActions(e Embodiment) int {
	if !e.Valid() {
		return 0
	}
	return len(movesOf(e))
}

// ActionNames names e's actions in action order (nil for an unknown embodiment).
func ActionNames(e Embodiment) []string {
	n := NumActions(e)
	if n == 0 {
		return nil
	}
	return append([]string(nil), allActionNames[:n]...)
}

// ObsSize is the length of e's observation (0 for an unknown embodiment).
func ObsSize(e Embodiment) int {
	if e.Valid() {
		return MaxObsSize
	}
	return 0
}

// channel is the one-hot channel of a cell kind (-1 for floor): wall 0, the goals 1–3, key 4,
// door 5 — the order both observations share.
func channel(c Cell) int { return int(c) - 1 }

// Obs returns the observation of embodiment e in the current state: for both embodiments the whole
// grid, the value for channel ch of cell (x, y) at ((y·Size)+x)·WalkerChannels + ch (the agent's
// cell in the last channel), then 1 while the key is carried. An unknown embodiment panics.
func (w *World) Obs(e Embodiment) []float32 {
	movesOf(e) // validates e
	out := make([]float32, ObsSize(e))
	for i, c := range w.grid {
		if ch := channel(c); ch >= 0 {
			out[i*WalkerChannels+ch] = 1
		}
	}
	out[(w.ay*Size+w.ax)*WalkerChannels+WalkerChannels-1] = 1
	if w.carrying {
		out[len(out)-1] = 1
	}
	return out
}

// WindowObs is the egocentric Window×Window view the diagonal mover had before 2026-12-04: the cell
// at offset (dx, dy) from the agent at ((dy+2)·Window + dx+2)·DiagonalChannels + ch (cells off
// the grid read as wall), then the carrying-key flag (151 values). Kept to measure what it hid
// (TargetInWindow).
func (w *World) WindowObs() []float32 {
	out := make([]float32, Window*Window*DiagonalChannels+1)
	const h = Window / 2
	for dy := -h; dy <= h; dy++ {
		for dx := -h; dx <= h; dx++ {
			if ch := channel(w.CellAt(w.ax+dx, w.ay+dy)); ch >= 0 {
				out[((dy+h)*Window+dx+h)*DiagonalChannels+ch] = 1
			}
		}
	}
	if w.carrying {
		out[len(out)-1] = 1
	}
	return out
}

// TargetInWindow reports whether the target goal lies inside WindowObs's view.
func (w *World) TargetInWindow() bool {
	_, x, y := w.Target()
	return abs(x-w.ax) <= Window/2 && abs(y-w.ay) <= Window/2
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ObsWorld rebuilds, from an observation of Obs and the task, the world state it shows: the grid,
// the agent's cell and whether the key is carried (the step count is not observed and reads 0).
// The expert's plan from it is the plan from the world itself — what the agent sees is all the
// expert uses.
func ObsWorld(task Task, obs []float32) (*World, error) {
	if len(obs) != MaxObsSize {
		return nil, fmt.Errorf("gridworld: observation of %d values, want %d", len(obs), MaxObsSize)
	}
	w := &World{task: task, ax: -1}
	for i := range w.grid {
		for ch := range WalkerChannels - 1 {
			if obs[i*WalkerChannels+ch] == 1 {
				w.grid[i] = Cell(ch + 1)
			}
		}
		if obs[i*WalkerChannels+WalkerChannels-1] == 1 {
			w.ax, w.ay = i%Size, i/Size
		}
	}
	if w.ax < 0 {
		return nil, fmt.Errorf("gridworld: observation shows no agent")
	}
	w.carrying = obs[len(obs)-1] == 1
	w.start, w.sx, w.sy = w.grid, w.ax, w.ay
	return w, nil
}

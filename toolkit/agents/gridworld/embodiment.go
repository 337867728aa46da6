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
	// and sees an egocentric Window×Window view (cells off the grid read as wall) with channels
	// DiagonalChannels, then the carrying-key flag (151 values).
	Diagonal Embodiment = 1
)

// NumEmbodiments is the number of embodiments.
const NumEmbodiments = 2

// Window is the side of the diagonal mover's egocentric view.
const Window = 5

// Channel counts of the two observations.
const (
	WalkerChannels   = 7 // wall, goal-red, goal-green, goal-blue, key, door, agent
	DiagonalChannels = 6 // wall, goal-red, goal-green, goal-blue, key, door
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
	switch e {
	case Walker:
		return MaxObsSize
	case Diagonal:
		return Window*Window*DiagonalChannels + 1
	}
	return 0
}

// channel is the one-hot channel of a cell kind (-1 for floor): wall 0, the goals 1–3, key 4,
// door 5 — the order both observations share.
func channel(c Cell) int { return int(c) - 1 }

// Obs returns the observation of embodiment e in the current state (see Walker and Diagonal).
// The walker's value for channel ch of cell (x, y) is at ((y·Size)+x)·WalkerChannels + ch; the
// diagonal mover's for the cell at offset (dx, dy) from the agent at
// ((dy+2)·Window + dx+2)·DiagonalChannels + ch. The last value is 1 while the key is carried.
// An unknown embodiment panics.
func (w *World) Obs(e Embodiment) []float32 {
	movesOf(e) // validates e
	out := make([]float32, ObsSize(e))
	switch e {
	case Walker:
		for i, c := range w.grid {
			if ch := channel(c); ch >= 0 {
				out[i*WalkerChannels+ch] = 1
			}
		}
		out[(w.ay*Size+w.ax)*WalkerChannels+WalkerChannels-1] = 1
	case Diagonal:
		const h = Window / 2
		for dy := -h; dy <= h; dy++ {
			for dx := -h; dx <= h; dx++ {
				if ch := channel(w.CellAt(w.ax+dx, w.ay+dy)); ch >= 0 {
					out[((dy+h)*Window+dx+h)*DiagonalChannels+ch] = 1
				}
			}
		}
	}
	if w.carrying {
		out[len(out)-1] = 1
	}
	return out
}

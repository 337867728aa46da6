// Package gridworld is a procedural grid-world task family for the foundation-agents demonstration
// (multi-task trajectory pretraining of a decision transformer, few-shot adaptation to held-out
// tasks). A task combines a layout ("open", "rooms"), a door ("none", "key") and the colour of the
// target goal ("red", "green", "blue"): 12 task types, of which HeldOut keeps 3 for adaptation.
// Generate builds a 7×7 world from (task, seed); two embodiments (a 4-move walker seeing the whole
// grid, an 8-move diagonal mover seeing an egocentric 5×5 window) act in the same worlds; a scripted
// BFS expert with controllable noise produces trajectories, saved as JSON Lines. The package also
// registers the env family "grid" ("grid:rooms-key-blue-e1") with toolkit/marl/env.
package gridworld

import (
	"fmt"
	"slices"
	"strings"
)

// Task is one task type: the layout, the door and the colour of the target goal.
type Task struct {
	Layout string // "open" or "rooms"
	Door   string // "none" or "key"
	Colour string // "red", "green" or "blue": the goal that pays
}

// Sizes of the three task-part vocabularies (for task tokens; see TaskParts).
const (
	NumLayouts = 2
	NumDoors   = 2
	NumColours = 3
)

// Layouts returns the layout values in index order.
func Layouts() []string { return []string{"open", "rooms"} }

// Doors returns the door values in index order.
func Doors() []string { return []string{"none", "key"} }

// Colours returns the target-colour values in index order.
func Colours() []string { return []string{"red", "green", "blue"} }

// String writes the task as "layout/door/colour", e.g. "rooms/key/blue".
func (t Task) String() string { return t.Layout + "/" + t.Door + "/" + t.Colour }

// Validate reports the first part that is not a known value.
func (t Task) Validate() error {
	for _, p := range []struct {
		name, v string
		vals    []string
	}{
		{"layout", t.Layout, Layouts()}, {"door", t.Door, Doors()}, {"colour", t.Colour, Colours()},
	} {
		if !slices.Contains(p.vals, p.v) {
			return fmt.Errorf("gridworld: task %s %q is not one of %v", p.name, p.v, p.vals)
		}
	}
	return nil
}

// TaskParts returns the indices of t's layout, door and colour in Layouts, Doors and Colours
// (-1 for an unknown value).
func TaskParts(t Task) []int {
	return []int{slices.Index(Layouts(), t.Layout), slices.Index(Doors(), t.Door), slices.Index(Colours(), t.Colour)}
}

// Index is t's position in AllTasks (-1 for an invalid task).
func (t Task) Index() int {
	p := TaskParts(t)
	if p[0] < 0 || p[1] < 0 || p[2] < 0 {
		return -1
	}
	return (p[0]*NumDoors+p[1])*NumColours + p[2]
}

// AllTasks returns the 12 task types, layout-major, then door, then colour.
func AllTasks() []Task {
	var out []Task
	for _, l := range Layouts() {
		for _, d := range Doors() {
			for _, c := range Colours() {
				out = append(out, Task{l, d, c})
			}
		}
	}
	return out
}

// ParseTask reads "layout/door/colour" (the form String writes).
func ParseTask(s string) (Task, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return Task{}, fmt.Errorf("gridworld: task %q is not of the form layout/door/colour, e.g. rooms/key/blue", s)
	}
	t := Task{parts[0], parts[1], parts[2]}
	if err := t.Validate(); err != nil {
		return Task{}, fmt.Errorf("%w (in %q)", err, s)
	}
	return t, nil
}

// HeldOut returns the 3 task types kept out of pretraining: open/key/blue, rooms/none/green and
// rooms/key/red. Every part value still appears in TrainTasks; only these combinations are unseen.
func HeldOut() []Task {
	return []Task{{"open", "key", "blue"}, {"rooms", "none", "green"}, {"rooms", "key", "red"}}
}

// TrainTasks returns the 9 task types of AllTasks that are not HeldOut, in AllTasks order.
func TrainTasks() []Task {
	held := HeldOut()
	var out []Task
	for _, t := range AllTasks() {
		if !slices.Contains(held, t) {
			out = append(out, t)
		}
	}
	return out
}

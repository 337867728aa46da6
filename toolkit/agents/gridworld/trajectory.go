package gridworld

import (
	"fmt"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/jsonl"
)

// Trajectory is one episode: the observation before each action, the action, the reward after it.
type Trajectory struct {
	Task       string      `json:"task"`       // Task.String(), e.g. "rooms/key/blue"
	Embodiment int         `json:"embodiment"` // 0 walker, 1 diagonal
	Seed       uint64      `json:"seed"`       // the world's Generate seed
	Obs        [][]float32 `json:"obs"`        // len(Actions) rows of ObsSize(Embodiment)
	Actions    []int       `json:"actions"`
	Rewards    []float64   `json:"rewards"`
	Success    bool        `json:"success"`              // the episode ended on the target goal
	Ending     string      `json:"ending,omitempty"`     // World.Ending: success, wrong_goal or time_out ("" in older files)
	Reached    string      `json:"reached,omitempty"`    // World.Reached: the colour of the goal entered ("" none)
	WorldTask  string      `json:"world_task,omitempty"` // the task that generated the world when it was retargeted (World.Retarget); "" for Task
}

// Return is the sum of the trajectory's rewards.
func (t Trajectory) Return() float64 {
	s := 0.0
	for _, r := range t.Rewards {
		s += r
	}
	return s
}

// Rollout generates the world of (task, seed) and plays the expert of embodiment e in it, with
// random-action probability noise and the policy's random draws seeded by policySeed, until the
// episode ends.
func Rollout(task Task, e Embodiment, seed uint64, noise float64, policySeed uint64) (Trajectory, error) {
	if !e.Valid() {
		return Trajectory{}, fmt.Errorf("gridworld: embodiment %d out of range [0, %d)", int(e), NumEmbodiments)
	}
	if noise < 0 || noise > 1 {
		return Trajectory{}, fmt.Errorf("gridworld: noise %v outside [0, 1]", noise)
	}
	r := rand.New(rand.NewPCG(policySeed, 0x657870657274))
	tr, _, err := playEpisode(task, e, seed, func(w *World) int { return ExpertAction(w, e, r, noise) })
	return tr, err
}

// playEpisode generates the world of (task, seed) and steps embodiment e in it with act's actions until
// the episode ends; it returns the trajectory and the world at the end.
func playEpisode(task Task, e Embodiment, seed uint64, act func(w *World) int) (Trajectory, *World, error) {
	w, err := Generate(task, seed)
	if err != nil {
		return Trajectory{}, nil, err
	}
	return playIn(w, e, act), w, nil
}

// playIn steps embodiment e in w with act's actions until the episode ends.
func playIn(w *World, e Embodiment, act func(w *World) int) Trajectory {
	tr := Trajectory{Task: w.task.String(), Embodiment: int(e), Seed: w.seed}
	for !w.Done() {
		tr.Obs = append(tr.Obs, w.Obs(e))
		a := act(w)
		rew, _ := w.Step(e, a)
		tr.Actions, tr.Rewards = append(tr.Actions, a), append(tr.Rewards, rew)
	}
	tr.Success, tr.Ending, tr.Reached = w.Success(), w.Ending(), w.Reached()
	return tr
}

// ReturnsToGo returns the undiscounted suffix sums of rewards: out[t] = Σ_{k ≥ t} rewards[k].
func ReturnsToGo(rewards []float64) []float64 {
	out := make([]float64, len(rewards))
	s := 0.0
	for t := len(rewards) - 1; t >= 0; t-- {
		s += rewards[t]
		out[t] = s
	}
	return out
}

// DefaultNoises are expert noise levels that give data of varied returns.
func DefaultNoises() []float64 { return []float64{0, 0.1, 0.3, 0.6} }

// Collect rolls out perTask expert episodes for every task and embodiment. Episode i of a task uses
// the noise noises[i mod len(noises)] and a world seed and a policy seed drawn from seed; the same
// world and policy seed serve every embodiment, so the embodiments' data are paired. The order is
// task, then episode, then embodiment.
func Collect(tasks []Task, embodiments []Embodiment, perTask int, noises []float64, seed uint64) ([]Trajectory, error) {
	if perTask < 0 || len(noises) == 0 {
		return nil, fmt.Errorf("gridworld: Collect needs perTask ≥ 0 (got %d) and at least one noise level", perTask)
	}
	r := rand.New(rand.NewPCG(seed, 0x636f6c6c656374))
	var out []Trajectory
	for _, task := range tasks {
		for i := 0; i < perTask; i++ {
			worldSeed, policySeed := r.Uint64(), r.Uint64()
			for _, e := range embodiments {
				tr, err := Rollout(task, e, worldSeed, noises[i%len(noises)], policySeed)
				if err != nil {
					return nil, err
				}
				out = append(out, tr)
			}
		}
	}
	return out, nil
}

// SaveTrajectories writes trajectories to path as JSON Lines, atomically.
func SaveTrajectories(path string, trs []Trajectory) error { return jsonl.Write(path, trs) }

// LoadTrajectories reads trajectories from a JSON Lines file; a malformed or invalid record fails
// with "path:line: field …" (see CheckTrajectory).
func LoadTrajectories(path string) ([]Trajectory, error) {
	return jsonl.Read(path, func() Trajectory { return Trajectory{Embodiment: -1} }, CheckTrajectory)
}

// CheckTrajectory validates a trajectory; its error names the offending field: an unknown task,
// an embodiment out of range (or missing), an empty trajectory, actions or rewards not one per
// observation, an observation row of the wrong length for the embodiment, an action out of range.
func CheckTrajectory(t Trajectory) error {
	if _, err := ParseTask(t.Task); err != nil {
		return fmt.Errorf("field task: unknown task %q", t.Task)
	}
	e := Embodiment(t.Embodiment)
	if !e.Valid() {
		return fmt.Errorf("field embodiment: %d out of range [0, %d) (or missing)", t.Embodiment, NumEmbodiments)
	}
	if len(t.Obs) == 0 {
		return fmt.Errorf("field obs: empty trajectory")
	}
	if len(t.Actions) != len(t.Obs) {
		return fmt.Errorf("field actions: %d actions for %d observations", len(t.Actions), len(t.Obs))
	}
	if len(t.Rewards) != len(t.Obs) {
		return fmt.Errorf("field rewards: %d rewards for %d observations", len(t.Rewards), len(t.Obs))
	}
	for i, o := range t.Obs {
		if len(o) != ObsSize(e) {
			return fmt.Errorf("field obs[%d]: %d values, embodiment %d (%s) needs %d", i, len(o), t.Embodiment, EmbodimentName(e), ObsSize(e))
		}
	}
	for i, a := range t.Actions {
		if a < 0 || a >= NumActions(e) {
			return fmt.Errorf("field actions[%d]: action %d out of range [0, %d) for embodiment %d (%s)", i, a, NumActions(e), t.Embodiment, EmbodimentName(e))
		}
	}
	return nil
}

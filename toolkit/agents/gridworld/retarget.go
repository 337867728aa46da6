package gridworld

import (
	"fmt"
	"math/rand/v2"
)

// Retarget returns a copy of the world, not yet stepped, whose target is the goal of another
// colour: the same walls, goals, key and start, another task. It is how one world is demonstrated
// for two goals (counterfactual pairs); the result plays by the rules of task colour, and the expert
// plans in it as in any world. An unknown colour, or one whose goal the world lacks, is an error.
func (w *World) Retarget(colour string) (*World, error) {
	t := w.task
	t.Colour = colour
	if err := t.Validate(); err != nil {
		return nil, err
	}
	c := *w
	c.task = t
	c.Reset()
	if _, x, _ := c.Target(); x < 0 {
		return nil, fmt.Errorf("gridworld: world %s seed %d has no %s goal", w.task, w.seed, colour)
	}
	return &c, nil
}

// RolloutRetargeted is Rollout in the world of (task, seed) retargeted to colour (World.Retarget):
// the trajectory's Task is the retargeted one and its WorldTask the task that generated the world.
func RolloutRetargeted(task Task, colour string, e Embodiment, seed uint64, noise float64, policySeed uint64) (Trajectory, error) {
	if !e.Valid() || noise < 0 || noise > 1 {
		return Trajectory{}, fmt.Errorf("gridworld: embodiment %d or noise %v out of range", int(e), noise)
	}
	w, err := Generate(task, seed)
	if err != nil {
		return Trajectory{}, err
	}
	if w, err = w.Retarget(colour); err != nil {
		return Trajectory{}, err
	}
	r := rand.New(rand.NewPCG(policySeed, 0x657870657274))
	tr := playIn(w, e, func(w *World) int { return ExpertAction(w, e, r, noise) })
	tr.WorldTask = task.String()
	return tr, nil
}

// TrajectoryWorld is the world a trajectory was played in, reset to its start: Generate(WorldTask or Task,
// Seed), retargeted to Task's colour when the two differ.
func TrajectoryWorld(tr Trajectory) (*World, error) {
	task, err := ParseTask(tr.Task)
	if err != nil {
		return nil, err
	}
	gen := task
	if tr.WorldTask != "" {
		if gen, err = ParseTask(tr.WorldTask); err != nil {
			return nil, fmt.Errorf("world_task: %w", err)
		}
	}
	w, err := Generate(gen, tr.Seed)
	if err != nil || gen == task {
		return w, err
	}
	return w.Retarget(task.Colour)
}

// CollectPairs is Collect with every world demonstrated twice: for its task and for a partner colour
// drawn (with seed) among the other colours c for which Task{Layout, Door, c} is in allowed — or,
// where none is, its own colour again with another policy seed (a pair without contrast, so that
// no task type outside allowed enters the data) — with the same noise and policy seed, in worlds where the partner's goal can be reached (drawn
// again otherwise: pairWorld). The order is task, episode, embodiment, then the pair (the task's
// own trajectory first), so trajectories 2i and 2i+1 are one world's pair. A task with no allowed
// partner colour is paired with itself.
func CollectPairs(tasks, allowed []Task, embodiments []Embodiment, perTask int, noises []float64, seed uint64) ([]Trajectory, error) {
	if perTask < 0 || len(noises) == 0 {
		return nil, fmt.Errorf("gridworld: CollectPairs needs perTask ≥ 0 (got %d) and at least one noise level", perTask)
	}
	r := rand.New(rand.NewPCG(seed, 0x7061697273))
	var out []Trajectory
	for _, task := range tasks {
		if err := task.Validate(); err != nil {
			return nil, err
		}
		var partners []string
		for _, c := range Colours() {
			if t := (Task{task.Layout, task.Door, c}); c != task.Colour && contains(allowed, t) {
				partners = append(partners, c)
			}
		}
		self := len(partners) == 0
		if self {
			partners = []string{task.Colour}
		}
		for i := 0; i < perTask; i++ {
			worldSeed, policySeed, partner, err := pairWorld(task, partners, embodiments, r)
			if err != nil {
				return nil, err
			}
			for _, e := range embodiments {
				own, err := Rollout(task, e, worldSeed, noises[i%len(noises)], policySeed)
				if err != nil {
					return nil, err
				}
				otherPolicy := policySeed
				if self {
					otherPolicy = ^policySeed
				}
				other, err := RolloutRetargeted(task, partner, e, worldSeed, noises[i%len(noises)], otherPolicy)
				if err != nil {
					return nil, err
				}
				out = append(out, own, other)
			}
		}
	}
	return out, nil
}

// pairWorld draws a world seed, a policy seed and a partner colour with r until the partner's goal
// can be reached in that world by every embodiment (a world's other goals need not be: Generate
// only makes the target reachable).
func pairWorld(task Task, partners []string, embodiments []Embodiment, r *rand.Rand) (worldSeed, policySeed uint64, partner string, err error) {
	for attempt := 0; attempt < MaxAttempts; attempt++ {
		worldSeed, policySeed, partner = r.Uint64(), r.Uint64(), partners[r.IntN(len(partners))]
		w, err := Generate(task, worldSeed)
		if err != nil {
			return 0, 0, "", err
		}
		g, err := w.Retarget(partner)
		ok := err == nil
		for _, e := range embodiments {
			if ok {
				_, ok = Plan(g, e)
			}
		}
		if ok {
			return worldSeed, policySeed, partner, nil
		}
	}
	return 0, 0, "", fmt.Errorf("gridworld: no %s world with a reachable partner goal among %v in %d draws", task, partners, MaxAttempts)
}

func contains(ts []Task, t Task) bool {
	for _, u := range ts {
		if u == t {
			return true
		}
	}
	return false
}

// GoalIndex is the cell index y·Size + x of colour's goal in an observation of World.Obs (either
// embodiment), −1 when none shows: the auxiliary target "where is the named goal".
func GoalIndex(obs []float32, colour string) int {
	ch := channel(GoalCell(colour))
	if ch < 0 || len(obs) < Size*Size*WalkerChannels {
		return -1
	}
	for i := 0; i < Size*Size; i++ {
		if obs[i*WalkerChannels+ch] == 1 {
			return i
		}
	}
	return -1
}

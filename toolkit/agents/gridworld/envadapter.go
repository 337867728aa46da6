package gridworld

import (
	"fmt"
	"regexp"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// GridEnv adapts a task and an embodiment to toolkit/marl/env.Env (one agent, every action
// available, the state equal to the observation). Reset(seed) generates the world of seed.
type GridEnv struct {
	task Task
	emb  Embodiment
	w    *World
}

var _ env.Env = (*GridEnv)(nil)

// NewEnv makes the environment of a task and an embodiment, reset with seed 0.
func NewEnv(task Task, e Embodiment) (*GridEnv, error) {
	if err := task.Validate(); err != nil {
		return nil, err
	}
	if !e.Valid() {
		return nil, fmt.Errorf("gridworld: embodiment %d out of range [0, %d)", int(e), NumEmbodiments)
	}
	g := &GridEnv{task: task, emb: e}
	g.Reset(0)
	return g, nil
}

var scenarioSpec = regexp.MustCompile(`^([a-z]+)-([a-z]+)-([a-z]+)-e(\d+)$`)

// ParseScenario reads the spec after "grid:": "<layout>-<door>-<colour>-e<embodiment>", e.g.
// "rooms-key-blue-e1".
func ParseScenario(spec string) (Task, Embodiment, error) {
	m := scenarioSpec.FindStringSubmatch(spec)
	if m == nil {
		return Task{}, 0, fmt.Errorf("bad grid spec %q: want <layout>-<door>-<colour>-e<0|1>, e.g. rooms-key-blue-e1", spec)
	}
	t := Task{m[1], m[2], m[3]}
	if err := t.Validate(); err != nil {
		return Task{}, 0, fmt.Errorf("bad grid spec %q: %w", spec, err)
	}
	e := Embodiment(-1)
	if len(m[4]) == 1 {
		e = Embodiment(m[4][0] - '0')
	}
	if !e.Valid() {
		return Task{}, 0, fmt.Errorf("bad grid spec %q: embodiment e%s is not e0 (walker) or e1 (diagonal)", spec, m[4])
	}
	return t, e, nil
}

// ScenarioName is the env scenario name of a task and an embodiment, e.g. "grid:rooms-key-blue-e1".
func ScenarioName(t Task, e Embodiment) string {
	return fmt.Sprintf("grid:%s-%s-%s-e%d", t.Layout, t.Door, t.Colour, int(e))
}

func makeEnv(spec string) (env.Env, error) {
	t, e, err := ParseScenario(spec)
	if err != nil {
		return nil, err
	}
	return NewEnv(t, e)
}

func init() { env.Register("grid", makeEnv) }

// World is the current world (shared, not a copy).
func (g *GridEnv) World() *World { return g.w }

// Embodiment is the environment's embodiment.
func (g *GridEnv) Embodiment() Embodiment { return g.emb }

// Name is the scenario name, e.g. "grid:rooms-key-blue-e1".
func (g *GridEnv) Name() string { return ScenarioName(g.task, g.emb) }

// NumAgents is 1.
func (g *GridEnv) NumAgents() int { return 1 }

// ObsSize is ObsSize of the embodiment.
func (g *GridEnv) ObsSize() int { return ObsSize(g.emb) }

// NumActions is NumActions of the embodiment.
func (g *GridEnv) NumActions() int { return NumActions(g.emb) }

// StateSize equals ObsSize: the state is the observation.
func (g *GridEnv) StateSize() int { return ObsSize(g.emb) }

// Limit is the package's step Limit.
func (g *GridEnv) Limit() int { return Limit }

// Reset generates the world of seed and returns its observation. Generation failing is a bug of
// the generator (tests cover every task over many seeds), so it panics.
func (g *GridEnv) Reset(seed uint64) [][]float32 {
	w, err := Generate(g.task, seed)
	if err != nil {
		panic(err)
	}
	g.w = w
	return [][]float32{w.Obs(g.emb)}
}

// Step applies the single agent's action (an out-of-range action leaves the agent in place). Info
// holds "success" (1 on reaching the target goal, else 0).
func (g *GridEnv) Step(actions []int) env.Transition {
	a := -1
	if len(actions) > 0 {
		a = actions[0]
	}
	r, done := g.w.Step(g.emb, a)
	success := 0.0
	if g.w.Success() {
		success = 1
	}
	return env.Transition{Obs: [][]float32{g.w.Obs(g.emb)}, Rewards: []float64{r}, Shared: r,
		Done: done, Truncated: g.w.Truncated(), Info: map[string]float64{"success": success}}
}

// Avail has every action available.
func (g *GridEnv) Avail() [][]bool { return env.AllAvail(1, NumActions(g.emb)) }

// State is the observation.
func (g *GridEnv) State() []float32 { return g.w.Obs(g.emb) }

// Render is the world's Render.
func (g *GridEnv) Render() string { return g.w.Render() }

package gridworld

import (
	"fmt"
	"regexp"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// GridEnv adapts a task and an embodiment to toolkit/marl/env.Env (one agent, every action
// available, the global state equal to the observation). Reset(seed) generates the world of seed;
// the episode's env.State is its *World.
type GridEnv struct {
	task Task
	emb  Embodiment
}

var _ env.Env = (*GridEnv)(nil)

// NewEnv makes the environment of a task and an embodiment.
func NewEnv(task Task, e Embodiment) (*GridEnv, error) {
	if err := task.Validate(); err != nil {
		return nil, err
	}
	if !e.Valid() {
		return nil, fmt.Errorf("gridworld: embodiment %d out of range [0, %d)", int(e), NumEmbodiments)
	}
	return &GridEnv{task: task, emb: e}, nil
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

// Embodiment is the environment's embodiment.
func (g *GridEnv) Embodiment() Embodiment { return g.emb }

// Name is the scenario name, e.g. "grid:rooms-key-blue-e1".
func (g *GridEnv) Name() string { return ScenarioName(g.task, g.emb) }

// Spec: one agent; observation and actions of the embodiment; the state is the observation.
func (g *GridEnv) Spec() env.Spec {
	return env.Spec{Name: g.Name(), Agents: 1, ObsSize: ObsSize(g.emb), Actions: NumActions(g.emb), StateSize: ObsSize(g.emb), Horizon: Limit}
}

// Reset generates the world of seed and returns its observation (a generator failure is an error
// naming the task and seed).
func (g *GridEnv) Reset(seed uint64) (env.State, [][]float32, error) {
	w, err := Generate(g.task, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: seed %d: %w", g.Name(), seed, err)
	}
	return state{w}, [][]float32{w.Obs(g.emb)}, nil
}

// state wraps a *World as an env.State (World.Clone returns a *World).
type state struct{ *World }

func (s state) Clone() env.State { return state{s.World.Clone()} }

// WorldOf is the world of an episode state from Reset or Step.
func WorldOf(s env.State) (*World, error) {
	st, ok := s.(state)
	if !ok {
		return nil, fmt.Errorf("gridworld: state of type %T, want one from GridEnv's Reset or Step", s)
	}
	return st.World, nil
}

// Step applies the single agent's action (an out-of-range action leaves the agent in place). Info
// holds "success" (1 on reaching the target goal, else 0).
func (g *GridEnv) Step(s env.State, actions []int) (env.State, env.Transition, error) {
	w, err := WorldOf(s)
	if err != nil {
		return nil, env.Transition{}, fmt.Errorf("%s: %w", g.Name(), err)
	}
	if w.Done() {
		return nil, env.Transition{}, env.Over(g.Name(), w.Steps())
	}
	a := -1
	if len(actions) > 0 {
		a = actions[0]
	}
	r, done := w.Step(g.emb, a)
	success := 0.0
	if w.Success() {
		success = 1
	}
	return s, env.Transition{Obs: [][]float32{w.Obs(g.emb)}, Rewards: []float64{r}, Shared: r,
		Done: done, Truncated: w.Truncated(), Info: map[string]float64{"success": success}}, nil
}

// Global is the observation.
func (g *GridEnv) Global(s env.State) []float32 {
	w, err := WorldOf(s)
	if err != nil {
		return nil
	}
	return w.Obs(g.emb)
}

// Render is the world's Render.
func (g *GridEnv) Render(s env.State) string {
	w, err := WorldOf(s)
	if err != nil {
		return ""
	}
	return w.Render()
}

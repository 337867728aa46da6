// Package env is PaperLab's multi-agent environment API, after JaxMARL's: an environment is a pure
// function of a state value. Reset(seed) gives a start state and the per-agent observations;
// Step(state, actions) gives the next state and a Transition (observations, per-agent rewards,
// done, info). The environment itself holds only its configuration, so one Env serves any number of
// episodes, goroutines and branches of a search; Vec steps many states of one Env for rollouts.
// A Spec says what a learner needs (agents, observation and action sizes, global state size,
// horizon); available-action masks, the global state for centralized critics and a text rendering
// are optional interfaces (Avail, Global, Render fall back to "every action", nil and "").
//
// Environments are made by scenario name through the registry: "matrix:climbing",
// "matrix:coord5", "lbf:8x8-3p-2f-coop", "push:4p-5x5", "overcooked:cramped_room",
// "grid:…" (toolkit/agents/gridworld).
package env

import (
	"fmt"
	"strings"

	"github.com/paperlab/paperlab/toolkit/registry"
)

// Spec describes an environment's shapes: every agent has an observation of ObsSize float32 values
// and Actions discrete actions; StateSize is the global state's size (0 when there is none); an
// episode ends at the latest after Horizon steps.
type Spec struct {
	Name      string `json:"name"` // the scenario name the environment was made from
	Agents    int    `json:"agents"`
	ObsSize   int    `json:"obs_size"`
	Actions   int    `json:"actions"`
	StateSize int    `json:"state_size"`
	Horizon   int    `json:"horizon"`
}

// State is one episode's state: a value the caller holds and passes back to Step. Step may reuse
// the memory of the state it is given for the one it returns (as JAX reuses donated buffers), so a
// caller keeps using only the returned state; to branch an episode (search, replays from a point)
// it steps a Clone.
type State interface {
	Clone() State
}

// Env is a multi-agent environment with discrete actions.
type Env interface {
	Spec() Spec
	// Reset starts an episode: the same seed gives the same episode under the same actions.
	Reset(seed uint64) (State, [][]float32, error)
	// Step applies a joint action (one action per agent) to s. Actions that are not available
	// count as the environment's no-op (as lb-foraging does), never as an error; a state of
	// another environment, or one whose episode is over, is an error.
	Step(s State, actions []int) (State, Transition, error)
}

// Masked environments say which actions each agent may take in a state.
type Masked interface {
	Avail(s State) [][]bool
}

// Central environments have a global state vector (of Spec().StateSize values) for centralized
// critics.
type Central interface {
	Global(s State) []float32
}

// Renderer environments draw a state as text.
type Renderer interface {
	Render(s State) string
}

// Avail is e's available-action mask in s: every action when e is not Masked.
func Avail(e Env, s State) [][]bool {
	if m, ok := e.(Masked); ok {
		return m.Avail(s)
	}
	sp := e.Spec()
	return AllAvail(sp.Agents, sp.Actions)
}

// Global is e's global state in s, nil when e is not Central.
func Global(e Env, s State) []float32 {
	if c, ok := e.(Central); ok {
		return c.Global(s)
	}
	return nil
}

// Render is e's text drawing of s, "" when e is not a Renderer.
func Render(e Env, s State) string {
	if r, ok := e.(Renderer); ok {
		return r.Render(s)
	}
	return ""
}

// Transition is the result of one step.
type Transition struct {
	Obs     [][]float32
	Rewards []float64 // per agent
	// Shared is the cooperative team reward (the sum of the agents' rewards in lb-foraging and
	// Overcooked, the payoff in a matrix game): what cooperative MARL maximises.
	Shared float64
	// Done is true when the episode ended (terminal state or the step limit).
	Done bool
	// Truncated is true when it ended only because of the step limit.
	Truncated bool
	Info      map[string]float64
}

// StateAs is s as the concrete state type T of environment e, or an error that names both (what
// every Step and mask function checks first; e's name is built only on the error path).
func StateAs[T State](e Env, s State) (T, error) {
	t, ok := s.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("env %s: state of type %T, want %T (a state from this environment's Reset or Step)", e.Spec().Name, s, zero)
	}
	return t, nil
}

// Over is the error of a Step on a finished episode.
func Over(name string, step int) error {
	return fmt.Errorf("env %s: step after the episode ended (at step %d); Reset starts a new one", name, step)
}

// Maker builds an environment from the part of the scenario name after "family:".
type Maker func(spec string) (Env, error)

var families = registry.New[Maker]("family")

// Register adds an environment family (e.g. "lbf"); it panics on a duplicate (a programming error).
func Register(family string, m Maker) { families.Add(family, m) }

// Families lists the registered families.
func Families() []string { return families.Names() }

// Make builds the environment of a scenario name "family:spec"; an unknown family or a bad spec is
// an error that names it.
func Make(scenario string) (Env, error) {
	family, spec, ok := strings.Cut(scenario, ":")
	if !ok {
		return nil, fmt.Errorf("env: scenario %q is not of the form family:spec (families: %v)", scenario, Families())
	}
	m, err := families.Get(family)
	if err != nil {
		return nil, fmt.Errorf("env: %w, in %q", err, scenario)
	}
	e, err := m(spec)
	if err != nil {
		return nil, fmt.Errorf("env %q: %w", scenario, err)
	}
	return e, nil
}

// AllAvail is a mask with every action available.
func AllAvail(agents, actions int) [][]bool {
	out := make([][]bool, agents)
	for i := range out {
		out[i] = make([]bool, actions)
		for j := range out[i] {
			out[i][j] = true
		}
	}
	return out
}

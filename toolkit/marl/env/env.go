// Package env is PaperLab's multi-agent environment API, after JaxMARL's: reset with a seed gives
// per-agent observations; a step takes a joint action and gives observations, per-agent rewards,
// done and info; every agent has an observation size, an action count and available-action masks;
// a global state feeds centralized critics. Environments are plain Go values (stateful, not safe
// for concurrent use); Vec steps many copies for rollouts.
//
// Environments are made by scenario name through the registry: "matrix:climbing",
// "matrix:coord5", "lbf:8x8-3p-2f-coop", "overcooked:cramped_room", …
package env

import (
	"fmt"
	"strings"

	"github.com/paperlab/paperlab/toolkit/registry"
)

// Env is a multi-agent environment with discrete actions.
type Env interface {
	// Name is the scenario name the environment was made from.
	Name() string
	// NumAgents, ObsSize (per agent, flat float32), NumActions (per agent), StateSize (global).
	NumAgents() int
	ObsSize() int
	NumActions() int
	StateSize() int
	// Limit is the episode length limit (the episode ends at the latest after Limit steps).
	Limit() int
	// Reset starts an episode; the same seed gives the same episode under the same actions.
	Reset(seed uint64) [][]float32
	// Step applies a joint action (one action per agent). Actions that are not available count as
	// the environment's no-op (as lb-foraging does), never as an error.
	Step(actions []int) Transition
	// Avail returns the available-action mask of each agent in the current state.
	Avail() [][]bool
	// State is the global state (for centralized critics).
	State() []float32
	// Render draws the current state as text.
	Render() string
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

package env

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Matrix is a one-step N-agent matrix game: every agent picks one of A actions at once, the episode
// ends, and every agent receives the payoff of the joint action (a cooperative game). Payoffs are a
// table of A^N values, agent 0's action most significant.
type Matrix struct {
	name    string
	agents  int
	actions int
	Payoff  []float64
}

// NewMatrix makes a matrix game from its payoff table (len = actions^agents).
func NewMatrix(name string, agents, actions int, payoff []float64) (*Matrix, error) {
	if agents < 1 || actions < 2 {
		return nil, fmt.Errorf("matrix game %s: %d agents, %d actions", name, agents, actions)
	}
	if want := int(math.Pow(float64(actions), float64(agents))); len(payoff) != want {
		return nil, fmt.Errorf("matrix game %s: %d payoffs for %d^%d = %d joint actions", name, len(payoff), actions, agents, want)
	}
	return &Matrix{name: name, agents: agents, actions: actions, Payoff: payoff}, nil
}

// Best is the highest payoff of the table (the optimum's value).
func (m *Matrix) Best() float64 {
	best := math.Inf(-1)
	for _, v := range m.Payoff {
		best = math.Max(best, v)
	}
	return best
}

// Index is the table index of a joint action.
func (m *Matrix) Index(joint []int) int {
	k := 0
	for _, a := range joint {
		k = k*m.actions + a
	}
	return k
}

// Spec: one step, one constant observation and state.
func (m *Matrix) Spec() Spec {
	return Spec{Name: "matrix:" + m.name, Agents: m.agents, ObsSize: 1, Actions: m.actions, StateSize: 1, Horizon: 1}
}

// MatrixState is a matrix game's state: whether the one step was played.
type MatrixState struct{ Played bool }

// Clone implements State.
func (s *MatrixState) Clone() State { c := *s; return &c }

// Global is the constant state 1.
func (m *Matrix) Global(State) []float32 { return []float32{1} }

func (m *Matrix) obs() [][]float32 {
	o := make([][]float32, m.agents)
	for i := range o {
		o[i] = []float32{1}
	}
	return o
}

// Reset starts the (one-step) episode; a matrix game has no randomness.
func (m *Matrix) Reset(uint64) (State, [][]float32, error) {
	return &MatrixState{}, m.obs(), nil
}

// Step plays the joint action; an out-of-range action counts as action 0.
func (m *Matrix) Step(s State, actions []int) (State, Transition, error) {
	st, err := StateAs[*MatrixState](m, s)
	if err != nil {
		return nil, Transition{}, err
	}
	if st.Played {
		return nil, Transition{}, Over(m.Spec().Name, 1)
	}
	st.Played = true
	joint := make([]int, m.agents)
	for i := range joint {
		if i < len(actions) && actions[i] >= 0 && actions[i] < m.actions {
			joint[i] = actions[i]
		}
	}
	r := m.Payoff[m.Index(joint)]
	rewards := make([]float64, m.agents)
	for i := range rewards {
		rewards[i] = r
	}
	return st, Transition{Obs: m.obs(), Rewards: rewards, Shared: r, Done: true}, nil
}

// Render prints the game's size and, for two agents, its payoff table.
func (m *Matrix) Render(State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d agents × %d actions\n", m.name, m.agents, m.actions)
	if m.agents == 2 {
		for i := 0; i < m.actions; i++ {
			for j := 0; j < m.actions; j++ {
				fmt.Fprintf(&b, "%7.1f", m.Payoff[i*m.actions+j])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Payoff tables of the named games.
var (
	// Climbing game (Claus & Boutilier 1998): the optimum (0,0)=11 is surrounded by −30 penalties.
	climbing = []float64{11, -30, 0, -30, 7, 6, 0, 0, 5}
	// One-step game of the PAC/WQMIX code base that TAPE's deterministic tree ships.
	pacGame = []float64{12, -0.1, -0.1, -0.1, 0, 0, -0.1, 0, 0}
)

func penalty(k float64) []float64 { return []float64{10, 0, k, 0, 2, 0, k, 0, 10} }

// Coordination is the N-agent, 3-action coordination game of the TAPE reproduction (N=5 there; toolkit/exp/tape/README.md): +10
// when at least N−1 agents play action 0, −5 when 1 to N−2 do (miscoordination), +2 when none does
// (a safe local optimum).
func Coordination(n int) []float64 {
	size := int(math.Pow(3, float64(n)))
	out := make([]float64, size)
	for k := range out {
		zeros, x := 0, k
		for i := 0; i < n; i++ {
			if x%3 == 0 {
				zeros++
			}
			x /= 3
		}
		switch {
		case zeros >= n-1:
			out[k] = 10
		case zeros >= 1:
			out[k] = -5
		default:
			out[k] = 2
		}
	}
	return out
}

// makeMatrix understands "climbing", "pac", "penalty" (k = −10), "penalty-K" (k = −K) and
// "coordN" (N agents, 2 ≤ N ≤ 8) and "pushN" (PushMatrix, 2 ≤ N ≤ 6).
func makeMatrix(spec string) (Env, error) {
	switch {
	case spec == "climbing":
		return NewMatrix(spec, 2, 3, climbing)
	case spec == "pac":
		return NewMatrix(spec, 2, 3, pacGame)
	case spec == "penalty":
		return NewMatrix(spec, 2, 3, penalty(-10))
	case strings.HasPrefix(spec, "penalty-"):
		k, err := strconv.ParseFloat(strings.TrimPrefix(spec, "penalty-"), 64)
		if err != nil || k < 0 {
			return nil, fmt.Errorf("bad penalty %q: want penalty-K with K ≥ 0", spec)
		}
		return NewMatrix(spec, 2, 3, penalty(-k))
	case strings.HasPrefix(spec, "push"):
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "push"))
		if err != nil || n < 2 || n > 6 {
			return nil, fmt.Errorf("bad push matrix game %q: want pushN with 2 ≤ N ≤ 6", spec)
		}
		return NewMatrix(spec, n, 4, PushMatrix(n))
	case strings.HasPrefix(spec, "coord"):
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "coord"))
		if err != nil || n < 2 || n > 8 {
			return nil, fmt.Errorf("bad coordination game %q: want coordN with 2 ≤ N ≤ 8", spec)
		}
		return NewMatrix(spec, n, 3, Coordination(n))
	}
	return nil, fmt.Errorf("unknown matrix game %q (known: climbing, pac, penalty, penalty-K, coordN, pushN)", spec)
}

func init() { Register("matrix", makeMatrix) }

package env

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// Push is the cooperative push game of M3APG's tiny reproduction (toolkit/exp/m3apg/README.md): N agents
// push one shared object on a W×H grid toward a fixed goal cell. Each agent picks a direction
// (PushActions: north, south, west, east); the object moves by the vector sum of the pushes,
// clipped to MaxMove cells per axis and to the grid. Many joint actions are equivalent in effect —
// only the net push matters — which is what a joint-action embedding can learn and a one-hot critic
// cannot see. Reward from (s, s′): the decrease of the Manhattan distance to the goal, plus Bonus on
// reaching it (the episode then ends); the step limit ends it otherwise. With Sparse only the Bonus
// is paid: the value then says little about a joint action's effect until the goal is reached, while
// the transition s → s′ always shows it (the regime where M3APG's forward-model term has room to act). Every agent observes the
// object's position, the goal and the time left (normalised); the state is the same. The start cell
// is drawn from the reset seed.
type Push struct {
	agents, w, h, limit int
	// MaxMove bounds the object's move per axis and step; Bonus is paid on reaching the goal.
	MaxMove int
	Bonus   float64
	// Sparse drops the distance shaping: the reward is Bonus on reaching the goal, 0 otherwise.
	Sparse bool
	// Final pays only at the step limit: 1 − (the object's Manhattan distance to the goal)/(W+H−2),
	// 0 at every earlier step; reaching the goal ends nothing (the hard game: the next
	// reward reveals a joint action's effect only on the last step).
	Final bool
	goalX int
	goalY int
}

// PushState is a push game's state: the object's cell and the steps taken.
type PushState struct {
	Cell, T int
	Done    bool
}

// Clone implements State.
func (s *PushState) Clone() State { c := *s; return &c }

// DefaultPushMaxMove is a new game's MaxMove.
const DefaultPushMaxMove = 2

// PushActions are the push directions, in action order.
var PushActions = []string{"NORTH", "SOUTH", "WEST", "EAST"}

// pushDelta is each action's push (dx, dy); north is y − 1.
var pushDelta = [4][2]int{{0, -1}, {0, 1}, {-1, 0}, {1, 0}}

// NewPush makes a push game of n agents on a w×h grid with a step limit; the goal is the grid's
// centre cell.
func NewPush(n, w, h, limit int) (*Push, error) {
	if n < 1 || n > 8 || w < 2 || h < 2 || w*h > 400 || limit < 1 {
		return nil, fmt.Errorf("push game: %d agents (1–8), %dx%d grid (≥ 2, ≤ 400 cells), limit %d", n, w, h, limit)
	}
	return &Push{agents: n, w: w, h: h, limit: limit, MaxMove: DefaultPushMaxMove, Bonus: 1, goalX: w / 2, goalY: h / 2}, nil
}

var pushSpec = regexp.MustCompile(`^(\d+)p-(\d+)x(\d+)(?:-(\d+)t)?(?:-m(\d+))?(-sparse|-final)?$`)

// makePush understands "<N>p-<W>x<H>[-<T>t][-m<M>][-sparse|-final]" (default limit W+H, MaxMove 2;
// -sparse: goal bonus only; -final: paid only at the step limit, by the final distance).
func makePush(spec string) (Env, error) {
	m := pushSpec.FindStringSubmatch(spec)
	if m == nil {
		return nil, fmt.Errorf("bad push spec %q: want <N>p-<W>x<H>[-<T>t][-m<M>][-sparse|-final], e.g. 4p-5x5, 4p-5x5-8t-sparse or 6p-11x11-12t-m1-final", spec)
	}
	n, _ := strconv.Atoi(m[1])
	w, _ := strconv.Atoi(m[2])
	h, _ := strconv.Atoi(m[3])
	limit := w + h
	if m[4] != "" {
		limit, _ = strconv.Atoi(m[4])
	}
	p, err := NewPush(n, w, h, limit)
	if err != nil {
		return nil, err
	}
	if m[5] != "" {
		if p.MaxMove, _ = strconv.Atoi(m[5]); p.MaxMove < 1 {
			return nil, fmt.Errorf("bad push spec %q: max move m%d must be ≥ 1", spec, p.MaxMove)
		}
	}
	p.Sparse, p.Final = m[6] == "-sparse", m[6] == "-final"
	return p, nil
}

func init() { Register("push", makePush) }

func (p *Push) Name() string {
	tail := ""
	if p.MaxMove != DefaultPushMaxMove {
		tail = fmt.Sprintf("-m%d", p.MaxMove)
	}
	switch {
	case p.Sparse:
		tail += "-sparse"
	case p.Final:
		tail += "-final"
	}
	return fmt.Sprintf("push:%dp-%dx%d-%dt%s", p.agents, p.w, p.h, p.limit, tail)
}

// Spec: every agent observes the 5-value state; 4 push directions.
func (p *Push) Spec() Spec {
	return Spec{Name: p.Name(), Agents: p.agents, ObsSize: 5, Actions: 4, StateSize: 5, Horizon: p.limit}
}

// Limit is the step limit.
func (p *Push) Limit() int { return p.limit }

// Cells is the number of object positions; Cell the index of (x, y) (row-major).
func (p *Push) Cells() int             { return p.w * p.h }
func (p *Push) Cell(x, y int) int      { return y*p.w + x }
func (p *Push) XY(cell int) (x, y int) { return cell % p.w, cell / p.w }

// Goal is the goal cell.
func (p *Push) Goal() int { return p.Cell(p.goalX, p.goalY) }

// StateOf is the state vector of the object at cell after t steps: x, y, goal x, goal y (each
// divided by the grid's size) and the fraction of the step limit left.
func (p *Push) StateOf(cell, t int) []float32 {
	x, y := p.XY(cell)
	return []float32{float32(x) / float32(p.w-1), float32(y) / float32(p.h-1),
		float32(p.goalX) / float32(p.w-1), float32(p.goalY) / float32(p.h-1), float32(p.limit-t) / float32(p.limit)}
}

// Decode is the cell and step of a state vector (StateOf's inverse).
func (p *Push) Decode(state []float32) (cell, t int) {
	x := int(math.Round(float64(state[0]) * float64(p.w-1)))
	y := int(math.Round(float64(state[1]) * float64(p.h-1)))
	return p.Cell(x, y), p.limit - int(math.Round(float64(state[4])*float64(p.limit)))
}

// NextState is the state vector after a joint action from a state vector (the dynamics of Next).
func (p *Push) NextState(state []float32, joint []int) []float32 {
	cell, t := p.Decode(state)
	dx, dy := NetPush(joint)
	next, _, _ := p.Next(cell, t, dx, dy)
	return p.StateOf(next, t+1)
}

// Global is the state vector of s.
func (p *Push) Global(s State) []float32 {
	st, ok := s.(*PushState)
	if !ok {
		return nil
	}
	return p.StateOf(st.Cell, st.T)
}

func (p *Push) obs(st *PushState) [][]float32 {
	o := make([][]float32, p.agents)
	for i := range o {
		o[i] = p.StateOf(st.Cell, st.T)
	}
	return o
}

// Reset puts the object on a cell drawn from the seed (never the goal).
func (p *Push) Reset(seed uint64) (State, [][]float32, error) {
	r := rand.New(rand.NewPCG(seed, 0x70757368 /* "push" */))
	st := &PushState{}
	for {
		c := r.IntN(p.Cells())
		if c != p.Goal() {
			st.Cell = c
			break
		}
	}
	return st, p.obs(st), nil
}

// NetPush is the vector sum of a joint action's pushes (out-of-range actions push nothing).
func NetPush(actions []int) (dx, dy int) {
	for _, a := range actions {
		if a >= 0 && a < 4 {
			dx, dy = dx+pushDelta[a][0], dy+pushDelta[a][1]
		}
	}
	return dx, dy
}

// Next is the transition of the object at cell at step t under a net push: the new cell, the
// reward and whether the goal was reached (ending the episode; never with Final). It is the whole
// dynamics (Step and the exact-Q solver use it).
func (p *Push) Next(cell, t, dx, dy int) (next int, reward float64, reached bool) {
	x, y := p.XY(cell)
	clip := func(v, lo, hi int) int { return max(lo, min(hi, v)) }
	nx := clip(x+clip(dx, -p.MaxMove, p.MaxMove), 0, p.w-1)
	ny := clip(y+clip(dy, -p.MaxMove, p.MaxMove), 0, p.h-1)
	dist := func(x, y int) int { return abs(x-p.goalX) + abs(y-p.goalY) }
	next = p.Cell(nx, ny)
	if p.Final {
		if t+1 == p.limit {
			reward = 1 - float64(dist(nx, ny))/float64(p.w+p.h-2)
		}
		return next, reward, false
	}
	if !p.Sparse {
		reward = float64(dist(x, y) - dist(nx, ny))
	}
	if next == p.Goal() {
		reward += p.Bonus
		reached = true
	}
	return next, reward, reached
}

// Step pushes the object by the joint action's net push.
func (p *Push) Step(s State, actions []int) (State, Transition, error) {
	st, err := StateAs[*PushState](p, s)
	if err != nil {
		return nil, Transition{}, err
	}
	if st.Done {
		return nil, Transition{}, Over(p.Name(), st.T)
	}
	joint := make([]int, p.agents)
	for i := range joint {
		if i < len(actions) {
			joint[i] = actions[i]
		}
	}
	dx, dy := NetPush(joint)
	next, r, reached := p.Next(st.Cell, st.T, dx, dy)
	st.Cell = next
	st.T++
	truncated := !reached && st.T >= p.limit
	st.Done = reached || truncated
	rewards := make([]float64, p.agents)
	for i := range rewards {
		rewards[i] = r
	}
	return st, Transition{Obs: p.obs(st), Rewards: rewards, Shared: r, Done: st.Done, Truncated: truncated && !reached}, nil
}

// Render draws the grid: O the object, G the goal (* when the object is on it).
func (p *Push) Render(s State) string {
	st, ok := s.(*PushState)
	if !ok {
		return ""
	}
	ox, oy := p.XY(st.Cell)
	var b strings.Builder
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			switch {
			case x == ox && y == oy && x == p.goalX && y == p.goalY:
				b.WriteByte('*')
			case x == ox && y == oy:
				b.WriteByte('O')
			case x == p.goalX && y == p.goalY:
				b.WriteByte('G')
			default:
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "step %d/%d\n", st.T, p.limit)
	return b.String()
}

// PushMatrix is the one-step variant (matrix:push<N>): N agents, 4 push actions, payoff a function
// of the net push only — 10 minus the Manhattan distance of the net push from the target (⌈N/2⌉
// east and ⌊N/4⌋ north, one more north when needed to make the target reachable: a net push's
// |dx|+|dy| has N's parity), so the optimum needs a particular mix of directions, not one action by
// all.
func PushMatrix(n int) []float64 {
	size := int(math.Pow(4, float64(n)))
	out := make([]float64, size)
	tx, ty := (n+1)/2, -(n / 4)
	if (tx-ty-n)%2 != 0 {
		ty--
	}
	joint := make([]int, n)
	for k := range out {
		x := k
		for i := n - 1; i >= 0; i-- {
			joint[i] = x % 4
			x /= 4
		}
		dx, dy := NetPush(joint)
		out[k] = 10 - float64(abs(dx-tx)+abs(dy-ty))
	}
	return out
}

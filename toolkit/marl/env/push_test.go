package env_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	. "github.com/paperlab/paperlab/toolkit/marl/env"
)

const (
	north = iota
	south
	west
	east
)

func pushReset(t *testing.T, p *Push, seed uint64) *PushState {
	t.Helper()
	s, _, err := p.Reset(seed)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*PushState)
}

// pushStep steps *st and keeps the state Step returns in *st.
func pushStep(t *testing.T, p *Push, st **PushState, actions []int) Transition {
	t.Helper()
	next, tr, err := p.Step(*st, actions)
	if err != nil {
		t.Fatal(err)
	}
	*st = next.(*PushState)
	return tr
}

// The object moves by the clipped vector sum of the pushes; equivalent joint actions are equal in
// effect; the reward is the distance gained plus the bonus at the goal.
func TestPushDynamics(t *testing.T) {
	e, err := Make("push:3p-5x5-6t")
	if err != nil {
		t.Fatal(err)
	}
	p := e.(*Push)
	if g := p.Goal(); g != p.Cell(2, 2) {
		t.Fatalf("goal cell %d", g)
	}
	// From (0,0): three east pushes move 2 (MaxMove), a net (1,1) reaches... (1,1), not the goal.
	next, r, reached := p.Next(p.Cell(0, 0), 0, 3, 0)
	if next != p.Cell(2, 0) || r != 2 || reached {
		t.Fatalf("3 east from (0,0): cell %d reward %v reached %v", next, r, reached)
	}
	next, r, reached = p.Next(p.Cell(0, 0), 0, 2, 2)
	if next != p.Goal() || r != 4+p.Bonus || !reached {
		t.Fatalf("(2,2) from (0,0): cell %d reward %v reached %v", next, r, reached)
	}
	if next, r, _ = p.Next(p.Cell(4, 4), 0, 2, 0); next != p.Cell(4, 4) || r != 0 {
		t.Fatalf("pushed into the wall: cell %d reward %v", next, r)
	}
	// Equivalent joint actions (same net push) give the same transition.
	a1, a2 := []int{east, east, north}, []int{north, east, east}
	s1, s2 := pushReset(t, p, 7), pushReset(t, p, 7)
	tr1 := pushStep(t, p, &s1, a1)
	tr2 := pushStep(t, p, &s2, a2)
	if tr1.Shared != tr2.Shared || tr1.Obs[0][0] != tr2.Obs[0][0] || tr1.Obs[0][1] != tr2.Obs[0][1] {
		t.Fatalf("equivalent joint actions differ: %+v vs %+v", tr1, tr2)
	}
	// The step limit ends an episode that never reaches the goal (pushes cancel).
	st := pushReset(t, p, 3)
	var last Transition
	for s := 0; s < 6; s++ {
		last = pushStep(t, p, &st, []int{north, south, west})
		if st.Cell == p.Goal() {
			break
		}
	}
	if !last.Done {
		t.Fatal("episode did not end at the step limit")
	}
	if !strings.Contains(p.Render(st), "step") {
		t.Fatal("render")
	}
	// Sparse: the same moves, only the goal bonus is paid.
	e, err = Make("push:3p-5x5-6t-sparse")
	if err != nil {
		t.Fatal(err)
	}
	sp := e.(*Push)
	if !sp.Sparse || sp.Name() != "push:3p-5x5-6t-sparse" {
		t.Fatalf("sparse spec: %v %q", sp.Sparse, sp.Name())
	}
	if next, r, _ = sp.Next(sp.Cell(0, 0), 0, 3, 0); next != sp.Cell(2, 0) || r != 0 {
		t.Fatalf("sparse: 3 east from (0,0): cell %d reward %v", next, r)
	}
	if next, r, reached = sp.Next(sp.Cell(0, 0), 0, 2, 2); next != sp.Goal() || r != sp.Bonus || !reached {
		t.Fatalf("sparse: (2,2) from (0,0): cell %d reward %v reached %v", next, r, reached)
	}
	for _, bad := range []string{"push:0p-5x5", "push:3p-1x5", "push:9p-5x5", "push:3p-5x5-0t", "push:3p", "push:3p-5x5-sparse-6t"} {
		if _, err := Make(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The exact-Q solver against hand-computed values: 2 agents on a 3×3 grid, goal (1,1), 2 steps,
// uniform policy, γ = 0.9. From (0,0), east+south reaches the goal at once (reward 2 + bonus 1 = 3);
// east+east is clipped at (2,0) (reward 0), from where one uniform step earns 10/16 on average
// (four joint actions gain 1, two reach the goal for 3).
func TestPushExactQByHand(t *testing.T) {
	p, err := NewPush(2, 3, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	uniform := func(int, int) [][]float64 { return [][]float64{{.25, .25, .25, .25}, {.25, .25, .25, .25}} }
	q, err := p.ExactQ(uniform, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	c00, c20 := p.Cell(0, 0), p.Cell(2, 0)
	if v := q.V[1][c20]; math.Abs(v-0.625) > 1e-12 {
		t.Fatalf("V_1(2,0) = %v, want 10/16", v)
	}
	if v := q.Q[0][c00][JointIndex([]int{east, south})]; v != 3 {
		t.Fatalf("Q_0((0,0), east+south) = %v, want 3", v)
	}
	if v := q.Q[0][c00][JointIndex([]int{east, east})]; math.Abs(v-0.9*0.625) > 1e-12 {
		t.Fatalf("Q_0((0,0), east+east) = %v, want 0.9·0.625", v)
	}
	if v := q.Q[1][c00][JointIndex([]int{east, east})]; v != 0 {
		t.Fatalf("Q at the last step has no future: %v", v)
	}
	if _, err := p.ExactQ(func(int, int) [][]float64 { return [][]float64{{1, 0, 0, 0}} }, 0.9); err == nil {
		t.Fatal("a policy for one agent of two accepted")
	}
}

// Q from the solver agrees with the environment's own steps: for random states and joint actions,
// Q_t(s, a) = r + γ·V_{t+1}(s′) with r and s′ from Step (a 4-agent game, a non-uniform policy).
func TestPushExactQMatchesSteps(t *testing.T) {
	p, err := NewPush(4, 5, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	policy := func(c, t int) [][]float64 {
		out := make([][]float64, 4)
		for i := range out {
			w := []float64{1, 2, float64(1 + (c+i)%3), float64(1 + t)}
			s := w[0] + w[1] + w[2] + w[3]
			out[i] = []float64{w[0] / s, w[1] / s, w[2] / s, w[3] / s}
		}
		return out
	}
	q, err := p.ExactQ(policy, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		st := pushReset(t, p, uint64(trial))
		steps := r.IntN(p.Limit())
		for s := 0; s < steps; s++ {
			if tr := pushStep(t, p, &st, []int{north, south, north, south}); tr.Done {
				break
			}
		}
		c, tt := st.Cell, st.T
		if c == p.Goal() || tt >= p.Limit() {
			continue
		}
		joint := []int{r.IntN(4), r.IntN(4), r.IntN(4), r.IntN(4)}
		tr := pushStep(t, p, &st, joint)
		next := st.Cell
		want := tr.Shared
		if !tr.Done {
			want += 0.95 * q.V[tt+1][next]
		}
		if got := q.Q[tt][c][JointIndex(joint)]; math.Abs(got-want) > 1e-12 {
			t.Fatalf("Q_%d(%d, %v) = %v, from a step %v", tt, c, joint, got, want)
		}
	}
	for k := 0; k < 256; k++ {
		if JointIndex(JointAction(k, 4)) != k {
			t.Fatalf("joint index %d does not round-trip", k)
		}
	}
}

// The one-step variant's payoff depends on the net push only.
func TestPushMatrix(t *testing.T) {
	e, err := Make("matrix:push4")
	if err != nil {
		t.Fatal(err)
	}
	m := e.(*Matrix)
	for n := 2; n <= 6; n++ { // the target is reachable at every size
		if b := (&Matrix{Payoff: PushMatrix(n)}).Best(); b != 10 {
			t.Fatalf("push%d: best payoff %v", n, b)
		}
	}
	// Target net push for N=4: 2 east, 2 north (2 east 1 north has the wrong parity for 4 pushes).
	if v := m.Payoff[m.Index([]int{north, east, north, east})]; v != 10 {
		t.Fatalf("payoff of the target %v", v)
	}
	if v := m.Payoff[m.Index([]int{east, east, north, south})]; v != 10-2 {
		t.Fatalf("payoff %v", v)
	}
	if m.Payoff[m.Index([]int{east, north, east, west})] != m.Payoff[m.Index([]int{west, east, north, east})] {
		t.Fatal("equivalent joint actions pay differently")
	}
	if m.Payoff[m.Index([]int{east, east, north, west})] != 10-2 {
		t.Fatalf("payoff of net (1,−1): %v", m.Payoff[m.Index([]int{east, east, north, west})])
	}
}

// The final-reward game (the hard game): nothing is paid before the step limit, reaching the
// goal ends nothing, the last step pays 1 − distance/(W+H−2), MaxMove 1 clips every net push to one
// cell; its exact Q under a fixed random policy matches Monte Carlo returns of Step; only the last
// step's (state, joint action) pairs have a reward that tells joint actions apart.
func TestPushFinalGame(t *testing.T) {
	e, err := Make("push:3p-7x7-5t-m1-final")
	if err != nil {
		t.Fatal(err)
	}
	p := e.(*Push)
	if !p.Final || p.MaxMove != 1 || p.Name() != "push:3p-7x7-5t-m1-final" {
		t.Fatalf("parsed %s (final %v, max move %d)", p.Name(), p.Final, p.MaxMove)
	}
	// From a neighbour of the goal, an east push lands on it at step 0: no reward, no end.
	beside := p.Cell(2, 3)
	next, r, reached := p.Next(beside, 0, 3, 0)
	if next != p.Goal() || r != 0 || reached {
		t.Fatalf("early goal: next %d reward %v reached %v", next, r, reached)
	}
	if next, r, _ = p.Next(beside, 4, 1, 0); next != p.Goal() || r != 1 {
		t.Fatalf("last step onto the goal: next %d reward %v, want the goal and 1", next, r)
	}
	if _, r, _ = p.Next(p.Cell(0, 0), 4, 0, 0); math.Abs(r-(1-6.0/12)) > 1e-12 {
		t.Fatalf("last step in the corner: reward %v, want %v", r, 1-6.0/12)
	}
	// A fixed policy: agent i pushes north, south, west, east with probabilities pi[i].
	pi := [][]float64{{.1, .2, .3, .4}, {.25, .25, .25, .25}, {.4, .1, .1, .4}}
	const gamma = 0.9
	q, err := p.ExactQ(func(int, int) [][]float64 { return pi }, gamma)
	if err != nil {
		t.Fatal(err)
	}
	r0 := rand.New(rand.NewPCG(3, 4))
	sample := func(row []float64) int {
		u, c := r0.Float64(), 0.0
		for a, pr := range row {
			if c += pr; u < c {
				return a
			}
		}
		return len(row) - 1
	}
	for _, tc := range []struct{ t, cell, joint int }{{0, p.Cell(0, 0), JointIndex([]int{east, east, south})}, {2, p.Cell(5, 1), JointIndex([]int{west, north, west})}} {
		const episodes = 20000
		var sum float64
		for ep := 0; ep < episodes; ep++ {
			st := &PushState{Cell: tc.cell, T: tc.t}
			acts := JointAction(tc.joint, 3)
			ret, disc := 0.0, 1.0
			for !st.Done {
				tr := pushStep(t, p, &st, acts)
				ret += disc * tr.Shared
				disc *= gamma
				acts = []int{sample(pi[0]), sample(pi[1]), sample(pi[2])}
			}
			sum += ret
		}
		if mc, want := sum/episodes, q.Q[tc.t][tc.cell][tc.joint]; math.Abs(mc-want) > 0.01 {
			t.Errorf("step %d cell %d joint %d: Monte Carlo %.4f, exact Q %.4f", tc.t, tc.cell, tc.joint, mc, want)
		}
	}
	if got := p.RevealedShare(); math.Abs(got-1.0/5) > 1e-12 {
		t.Errorf("revealed share %v, want 1/5 (the last of 5 steps)", got)
	}
	shaped, _ := Make("push:3p-5x5-8t")
	if got := shaped.(*Push).RevealedShare(); got < 0.9 {
		t.Errorf("shaped game: revealed share %v, want nearly every pair", got)
	}
}

package env

import (
	"fmt"
	"math"
)

// PushPolicy gives each agent's action probabilities (len NumActions each) in the state of the
// object at cell after t steps — a fixed decentralised policy whose exact Q the solver computes.
type PushPolicy func(cell, t int) [][]float64

// PushQ is the exact action value of a fixed policy in a push game: Q[t][cell][joint], with joint
// the index of a joint action (agent 0's action most significant, Matrix.Index's order), and V[t][cell]
// the state value. Q_t(s, a) = r(s, s′) + γ·V_{t+1}(s′), with V_T = 0 and no future after the goal.
type PushQ struct {
	Q     [][][]float64
	V     [][]float64
	Gamma float64
}

// JointIndex is the index of a joint action of 4-action agents (agent 0 most significant).
func JointIndex(joint []int) int {
	k := 0
	for _, a := range joint {
		k = k*4 + a
	}
	return k
}

// JointAction is the joint action of an index (JointIndex's inverse) for n agents.
func JointAction(k, n int) []int {
	out := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		out[i] = k % 4
		k /= 4
	}
	return out
}

// ExactQ solves the push game's action values under a fixed policy by backward induction over the
// steps (the state includes the time left). Cost: Limit × cells × 4^N.
func (p *Push) ExactQ(policy PushPolicy, gamma float64) (*PushQ, error) {
	if gamma < 0 || gamma > 1 {
		return nil, fmt.Errorf("push exact Q: gamma = %v", gamma)
	}
	n, cells, T := p.agents, p.Cells(), p.limit
	joints := int(math.Pow(4, float64(n)))
	net := make([][2]int, joints)
	for k := range net {
		dx, dy := NetPush(JointAction(k, n))
		net[k] = [2]int{dx, dy}
	}
	out := &PushQ{Q: make([][][]float64, T), V: make([][]float64, T+1), Gamma: gamma}
	out.V[T] = make([]float64, cells)
	probs := make([]float64, joints)
	for t := T - 1; t >= 0; t-- {
		out.Q[t] = make([][]float64, cells)
		out.V[t] = make([]float64, cells)
		for c := 0; c < cells; c++ {
			pi := policy(c, t)
			if len(pi) != n {
				return nil, fmt.Errorf("push exact Q: the policy gave %d agents' probabilities, want %d", len(pi), n)
			}
			for i, row := range pi {
				if len(row) != 4 {
					return nil, fmt.Errorf("push exact Q: agent %d has %d action probabilities, want 4", i, len(row))
				}
			}
			q := make([]float64, joints)
			var v float64
			for k := 0; k < joints; k++ {
				next, r, reached := p.Next(c, t, net[k][0], net[k][1])
				if !reached {
					r += gamma * out.V[t+1][next]
				}
				q[k] = r
				pk, x := 1.0, k
				for i := n - 1; i >= 0; i-- {
					pk *= pi[i][x%4]
					x /= 4
				}
				probs[k] = pk
				v += pk * r
			}
			out.Q[t][c], out.V[t][c] = q, v
		}
	}
	return out, nil
}

// RevealedShare is the share of (step, cell ≠ goal, joint action) pairs whose next reward tells
// something about the joint action's effect: another joint action from the same state earns a
// different reward. Near 1 for the shaped game (the distance gained shows each move at once); on the
// Final game only the last step's pairs (1/Limit of them) — the room check of a game where the
// reward hides the joint action's effect.
func (p *Push) RevealedShare() float64 {
	n, cells, T := p.agents, p.Cells(), p.limit
	joints := int(math.Pow(4, float64(n)))
	// Rewards depend on the joint action only through its net push: count per distinct net push.
	type push struct{ dx, dy int }
	count := map[push]float64{}
	for k := 0; k < joints; k++ {
		dx, dy := NetPush(JointAction(k, n))
		count[push{dx, dy}]++
	}
	var revealed, total float64
	for t := 0; t < T; t++ {
		for c := 0; c < cells; c++ {
			if c == p.Goal() {
				continue
			}
			rews := map[float64]float64{} // reward → joint actions earning it
			for d, m := range count {
				_, r, _ := p.Next(c, t, d.dx, d.dy)
				rews[r] += m
			}
			for _, m := range rews {
				if len(rews) > 1 {
					revealed += m
				}
				total += m
			}
		}
	}
	return revealed / total
}

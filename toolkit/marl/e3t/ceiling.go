package e3t

import (
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/dist"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// The partner model's ceiling. E3T's training partner acts, in state s, from
//
//	p(a | s) = ε/|A| + (1 − ε) · E_z[π_p(a | s, softmax(z))],  z ~ N(0, I)
//
// (π_p its actor, whose partner-model slot the authors' code feeds noise). It is Markov in s, its
// noise z and the ε coin fresh every step, so no history can predict its action better than
// argmax_a p(a | s): the most accuracy any partner model can reach on a state is max_a p(a | s), and
// the ceiling of an iteration is that mean over the states its games visited. It is measured on the
// partner's own states every PMCeilingEvery steps of every game, with PMCeilingDraws draws of z
// (without a partner model the slot is absent and one draw is exact). A finite number of draws
// biases max_a of their mean up (Jensen): the same ceiling from the first half of the draws
// (pm_ceiling_half) brackets the bias, which shrinks about as 1/√draws. [UNVERIFIED] PaperLab's
// choice of draws.
//
// The floor is what a partner model gains nothing over: the best constant guess, max_a of p(a | s)
// averaged over the same states (pm_floor) — the partner's commonest action, in expectation. The
// room a partner model has is ceiling − floor.

// ceilingProbe is E3T's training partner as the collector sees it: it delegates every call to the
// partner and keeps the partner's observation at every every-th step of each game.
type ceilingProbe struct {
	*Policy
	every, step int
	obs         []float32 // kept observations, overcooked.VectorSize values each (scaled as the actor reads them)
}

// Reset implements overcooked.Agent: a new rollout starts with no kept states.
func (c *ceilingProbe) Reset(n int) {
	c.Policy.Reset(n)
	c.step, c.obs = 0, c.obs[:0]
}

// Act implements overcooked.Agent: the partner's actions, unchanged; every every-th step the
// observations it acted on are kept.
func (c *ceilingProbe) Act(games []*overcooked.Episode, idx []int, rng *rand.Rand) ([]int, error) {
	acts, err := c.Policy.Act(games, idx, rng)
	if err == nil && c.step%c.every == 0 {
		for k := range games {
			c.obs = append(c.obs, c.Policy.lastObs[k]...)
		}
	}
	c.step++
	return acts, err
}

// Bounds are what a partner model can reach on one iteration's games: its Ceiling (PMCeiling over
// every draw), the same from the first half of the draws (CeilingHalf; equal with one draw), and
// the Floor of the best constant guess (PMFloor).
type Bounds struct{ Ceiling, CeilingHalf, Floor float64 }

// measure is the bounds over the kept states: for each, draws actor inputs (the observation and,
// with a partner-model slot, softmax of fresh noise from rng) through the partner's actor.
func (c *ceilingProbe) measure(draws int, rng *rand.Rand) (Bounds, error) {
	const na = overcooked.NumActions
	n := len(c.obs) / overcooked.VectorSize
	if n == 0 {
		return Bounds{}, nil
	}
	slot := c.Policy.PM != nil
	if !slot {
		draws = 1
	}
	width := overcooked.VectorSize
	if slot {
		width += na
	}
	in := make([]float32, 0, n*draws*width)
	z := make([]float64, na)
	for s := 0; s < n; s++ {
		o := c.obs[s*overcooked.VectorSize : (s+1)*overcooked.VectorSize]
		for range draws {
			in = append(in, o...)
			if slot {
				for a := range z {
					z[a] = rng.NormFloat64()
				}
				in = append(in, softmax32(z)...)
			}
		}
	}
	logits, err := c.Policy.Actor.Apply(in, n*draws)
	if err != nil {
		return Bounds{}, err
	}
	probs := make([][]float64, n*draws)
	for r := range probs {
		probs[r] = dist.Softmax(logits[r*na:(r+1)*na], nil)
	}
	eps := c.Policy.Epsilon
	half := max(1, draws/2)
	return Bounds{Ceiling: PMCeiling(probs, draws, eps), CeilingHalf: PMCeiling(firstDraws(probs, draws, half), half, eps),
		Floor: PMFloor(probs, draws, eps)}, nil
}

// firstDraws keeps the first k of each state's draws distributions.
func firstDraws(probs [][]float64, draws, k int) [][]float64 {
	out := make([][]float64, 0, len(probs)/draws*k)
	for s := 0; s+draws <= len(probs); s += draws {
		out = append(out, probs[s:s+k]...)
	}
	return out
}

// PMFloor is the accuracy of the best constant guess: max_a of p(a | s) averaged over the states,
// p as in PMCeiling.
func PMFloor(probs [][]float64, draws int, eps float64) float64 {
	if len(probs) == 0 || draws < 1 {
		return 0
	}
	n, na := len(probs)/draws, len(probs[0])
	mean := make([]float64, na)
	for r := range n * draws {
		for a, v := range probs[r] {
			mean[a] += v / float64(n*draws)
		}
	}
	best := 0.0
	for _, v := range mean {
		best = max(best, eps/float64(na)+(1-eps)*v)
	}
	return best
}

// PMCeiling is the mean over states of max_a p(a | s), where p mixes ε·uniform with the mean of the
// state's draws action distributions: probs holds draws consecutive distributions per state.
func PMCeiling(probs [][]float64, draws int, eps float64) float64 {
	if len(probs) == 0 || draws < 1 {
		return 0
	}
	n := len(probs) / draws
	var sum float64
	for s := 0; s < n; s++ {
		na := len(probs[s*draws])
		best := 0.0
		for a := 0; a < na; a++ {
			var m float64
			for d := 0; d < draws; d++ {
				m += probs[s*draws+d][a]
			}
			best = max(best, eps/float64(na)+(1-eps)*m/float64(draws))
		}
		sum += best
	}
	return sum / float64(n)
}

package e3t

import (
	"github.com/paperlab/paperlab/toolkit/dist"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// ObsScale multiplies the 96 featurize_state values (positions and deltas are small integers).
const ObsScale = 0.2

// Agent is an Overcooked agent (overcooked.Agent): Policy is one, and so are the scripted cooks.
type Agent = overcooked.Agent

// observe writes player i's scaled observation in game g into dst (grown as needed) and returns it:
// its featurize_state vector (the one the env's last step computed), times ObsScale.
func observe(dst []float32, g *overcooked.Episode, i int) []float32 {
	dst = g.AppendVectorObs(dst[:0], i)
	for j := range dst {
		dst[j] *= ObsScale
	}
	return dst
}

// Policy is a trained cook: an MLP actor on the observation, optionally conditioned on a partner
// model's prediction of the other player's next action (E3T, §7.1): the partner model reads the last
// K (observation, other player's action) pairs and the current observation.
type Policy struct {
	Actor   *ac.Net
	PM      *ac.Net // nil without partner modelling
	K       int
	Greedy  bool
	Epsilon float64 // mix the action distribution with ε·uniform (the E3T partner)
	// NoisePM replaces the partner-model input with softmax(z), z ~ N(0, I) (the E3T partner's own
	// slot, as in the authors' code).
	NoisePM bool
	hist    [][][]float32 // per game: the last K (obs ⊕ onehot(other action)) rows, oldest first
	lastObs [][]float32   // per game: the observation the agent last acted on (reused buffers)
	// Reused buffers of Inputs' results (valid until the next call).
	inBuf, pmBuf []float32
}

// Close frees the policy's networks on the engine (see nn.Model.Close); a partner model shared with
// another policy is freed by whichever closes first, so close policies that share one together.
func (p *Policy) Close() {
	p.Actor.Close()
	if p.PM != nil {
		p.PM.Close()
	}
}

// Stateful implements overcooked.Stateful: a policy with a partner model keeps each game's history
// of its partner's actions, so it plays itself only as two copies.
func (p *Policy) Stateful() bool { return p.PM != nil }

// Reset implements Agent.
func (p *Policy) Reset(n int) {
	p.hist = make([][][]float32, n)
	p.lastObs = make([][]float32, n)
}

// pmInput appends game k's partner-model input to dst: the last K history rows (zeros when
// missing, oldest first) and the current observation.
func (p *Policy) pmInput(dst []float32, k int, obs []float32) []float32 {
	row := overcooked.VectorSize + overcooked.NumActions
	start := len(dst)
	dst = append(dst, make([]float32, p.K*row)...)
	h := p.hist[k]
	for j := 0; j < len(h) && j < p.K; j++ {
		copy(dst[start+(p.K-1-j)*row:], h[len(h)-1-j])
	}
	return append(dst, obs...)
}

// Inputs builds the actor inputs (and partner-model inputs) of every game, returning the rows.
// Both slices are the policy's own buffers, valid until its next Inputs or Act: copy to keep them.
func (p *Policy) Inputs(games []*overcooked.Episode, idx []int, rng *rand.Rand) (actorIn, pmIn []float32, err error) {
	n := len(games)
	for k, g := range games {
		p.lastObs[k] = observe(p.lastObs[k], g, idx[k])
	}
	const na = overcooked.NumActions
	var pred []float32
	if p.PM != nil {
		pred = make([]float32, n*na)
		z := make([]float64, na)
		if p.NoisePM {
			for k := 0; k < n; k++ {
				for a := range z {
					z[a] = rng.NormFloat64()
				}
				copy(pred[k*na:], softmax32(z))
			}
		} else {
			pmIn = p.pmBuf[:0]
			for k := 0; k < n; k++ {
				pmIn = p.pmInput(pmIn, k, p.lastObs[k])
			}
			p.pmBuf = pmIn
			logits, err := p.PM.Apply(pmIn, n)
			if err != nil {
				return nil, nil, err
			}
			for k := 0; k < n; k++ {
				for a := range z {
					z[a] = float64(logits[k*na+a])
				}
				copy(pred[k*na:], softmax32(z))
			}
		}
	}
	actorIn = p.inBuf[:0]
	for k := 0; k < n; k++ {
		actorIn = append(actorIn, p.lastObs[k]...)
		if p.PM != nil {
			actorIn = append(actorIn, pred[k*na:(k+1)*na]...)
		}
	}
	p.inBuf = actorIn
	return actorIn, pmIn, nil
}

// ActFrom samples actions from actor inputs; it returns the actions and their log-probabilities
// under the actor (before any ε mixing).
func (p *Policy) ActFrom(actorIn []float32, n int, rng *rand.Rand) ([]int, []float32, error) {
	logits, err := p.Actor.Apply(actorIn, n)
	if err != nil {
		return nil, nil, err
	}
	masks := make([][]bool, n)
	for k := range masks {
		masks[k] = []bool{true, true, true, true, true, true}
	}
	acts, logp := ac.Policy(logits, masks, rng, p.Greedy)
	for k := range acts {
		if p.Epsilon > 0 && rng.Float64() < p.Epsilon {
			acts[k] = rng.IntN(overcooked.NumActions)
		}
	}
	return acts, logp, nil
}

// Act implements Agent.
func (p *Policy) Act(games []*overcooked.Episode, idx []int, rng *rand.Rand) ([]int, error) {
	in, _, err := p.Inputs(games, idx, rng)
	if err != nil {
		return nil, err
	}
	acts, _, err := p.ActFrom(in, len(games), rng)
	return acts, err
}

// Saw records the other player's actions with the observations the agent acted on.
func (p *Policy) Saw(other []int) {
	if p.PM == nil {
		return
	}
	width := overcooked.VectorSize + overcooked.NumActions
	for k, a := range other {
		h := p.hist[k]
		var row []float32
		if len(h) < p.K {
			row = make([]float32, width)
			h = append(h, row)
		} else { // reuse the oldest row as the newest
			row = h[0]
			copy(h, h[1:])
			h[len(h)-1] = row
			clear(row[overcooked.VectorSize:])
		}
		copy(row, p.lastObs[k])
		row[overcooked.VectorSize+a] = 1
		p.hist[k] = h
	}
}

// softmax32 is softmax(z) in float32 (the partner model's prediction fed to the actor).
func softmax32[F dist.Float](z []F) []float32 {
	p := dist.Softmax(z, nil)
	out := make([]float32, len(p))
	for i, v := range p {
		out[i] = float32(v)
	}
	return out
}

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

// observe returns player i's scaled observation in game g: its featurize_state vector (the one the
// env's last step computed, copied: VectorObs), times ObsScale.
func observe(g *overcooked.Episode, i int) []float32 {
	v := g.VectorObs(i)
	for j := range v {
		v[j] *= ObsScale
	}
	return v
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
	hist    [][][]float32 // per game: the last K (obs ⊕ onehot(other action)) rows
	lastObs [][]float32
}

// Close frees the policy's networks on the engine (see nn.Model.Close); a partner model shared with
// another policy is freed by whichever closes first, so close policies that share one together.
func (p *Policy) Close() {
	p.Actor.Close()
	if p.PM != nil {
		p.PM.Close()
	}
}

// Reset implements Agent.
func (p *Policy) Reset(n int) {
	p.hist = make([][][]float32, n)
	p.lastObs = make([][]float32, n)
}

// pmInput is the partner model's input for game k: the last K history rows (zeros when missing)
// and the current observation.
func (p *Policy) pmInput(k int, obs []float32) []float32 {
	row := overcooked.VectorSize + overcooked.NumActions
	in := make([]float32, p.K*row, p.K*row+len(obs))
	h := p.hist[k]
	for j := 0; j < len(h) && j < p.K; j++ {
		copy(in[(p.K-1-j)*row:], h[len(h)-1-j])
	}
	return append(in, obs...)
}

// Inputs builds the actor inputs (and partner-model inputs) of every game, returning the rows.
func (p *Policy) Inputs(games []*overcooked.Episode, idx []int, rng *rand.Rand) (actorIn, pmIn []float32, err error) {
	n := len(games)
	obs := make([][]float32, n)
	for k, g := range games {
		obs[k] = observe(g, idx[k])
		p.lastObs[k] = obs[k]
	}
	var pred []float32
	if p.PM != nil {
		if p.NoisePM {
			pred = make([]float32, n*overcooked.NumActions)
			for k := 0; k < n; k++ {
				z := make([]float64, overcooked.NumActions)
				for a := range z {
					z[a] = rng.NormFloat64()
				}
				copy(pred[k*overcooked.NumActions:], softmax32(z))
			}
		} else {
			for k := 0; k < n; k++ {
				pmIn = append(pmIn, p.pmInput(k, obs[k])...)
			}
			logits, err := p.PM.Apply(pmIn, n)
			if err != nil {
				return nil, nil, err
			}
			pred = make([]float32, len(logits))
			for k := 0; k < n; k++ {
				z := make([]float64, overcooked.NumActions)
				for a := range z {
					z[a] = float64(logits[k*overcooked.NumActions+a])
				}
				copy(pred[k*overcooked.NumActions:], softmax32(z))
			}
		}
	}
	for k := 0; k < n; k++ {
		actorIn = append(actorIn, obs[k]...)
		if p.PM != nil {
			actorIn = append(actorIn, pred[k*overcooked.NumActions:(k+1)*overcooked.NumActions]...)
		}
	}
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
	for k, a := range other {
		row := append(append([]float32(nil), p.lastObs[k]...), make([]float32, overcooked.NumActions)...)
		row[overcooked.VectorSize+a] = 1
		p.hist[k] = append(p.hist[k], row)
		if len(p.hist[k]) > p.K {
			p.hist[k] = p.hist[k][1:]
		}
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

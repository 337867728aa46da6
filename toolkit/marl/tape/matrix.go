// Package tape is TAPE — agent-topology policy gradient (shared/papers §4) — on PaperLab's
// multi-agent core: matrix.go trains tabular softmax policies on one-step matrix games (§4.5a, the
// whole loop in one function), lbf.go trains neural actors with a DOP-style mixed critic on
// Level-Based Foraging (§4.5b).
package tape

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
	"github.com/paperlab/paperlab/toolkit/track"
)

// MatrixConfig configures TAPE on a matrix game.
type MatrixConfig struct {
	// Topology is the generator sampled at every update (topology.Parse: "er:0.3", "ba:1", …).
	Topology string `json:"topology"`
	// Iters updates, each on Batch joint actions sampled from the ε-greedy-mixed softmax policies.
	Iters int `json:"iters"`
	Batch int `json:"batch"`
	// LRActor and LRCritic are plain SGD step sizes (tabular).
	LRActor  float64 `json:"lr_actor"`
	LRCritic float64 `json:"lr_critic"`
	// Exploration ε is annealed linearly from EpsStart to EpsEnd over the run: each agent acts
	// from (1−ε)·softmax(θ_i) + ε·uniform.
	EpsStart float64 `json:"eps_start"`
	EpsEnd   float64 `json:"eps_end"`
	// EvalEvery iterations the greedy joint action's payoff is recorded.
	EvalEvery int `json:"eval_every"`
}

// DefaultMatrix is the configuration of the experiment's coordination-game runs.
func DefaultMatrix() MatrixConfig {
	return MatrixConfig{Topology: "er:0.3", Iters: 1500, Batch: 16, LRActor: 0.5, LRCritic: 0.2, EpsStart: 0.5, EpsEnd: 0.05, EvalEvery: 50}
}

// softmax of logits.
func softmax(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	out := make([]float64, len(x))
	s := 0.0
	for i, v := range x {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

func sample(r *rand.Rand, p []float64) int {
	u := r.Float64()
	for i, v := range p {
		u -= v
		if u < 0 {
			return i
		}
	}
	return len(p) - 1
}

// DOPAdvantage is each agent's counterfactual advantage under a decomposed critic:
// A_j = Q_j(a_j) − Σ_a π_j(a)·Q_j(a).
func DOPAdvantage(q [][]float64, pi [][]float64, joint []int) []float64 {
	out := make([]float64, len(q))
	for j := range q {
		base := 0.0
		for a, p := range pi[j] {
			base += p * q[j][a]
		}
		out[j] = q[j][joint[j]] - base
	}
	return out
}

// TrainMatrix runs TAPE on a matrix game with tabular softmax policies and a linearly decomposed
// critic Q_tot(a) = Σ_j k_j·Q_j(a_j) + b with fixed k_j = 1/N, fitted by SGD on the squared error to
// the payoff. Every update samples one topology A and moves agent i's logits along
// ∇ log π_i(a_i) · Σ_j A_ij k_j A_j (§4.2). It returns the curves "greedy_return" (payoff of
// every agent's most likely action) and "p_optimal" (probability of an optimal joint action under the
// softmax policies), and the final greedy joint action.
func TrainMatrix(game *env.Matrix, cfg MatrixConfig, seed uint64) (track.Curves, []int, error) {
	gen, err := topology.Parse(cfg.Topology)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Iters < 1 || cfg.Batch < 1 || cfg.EvalEvery < 1 {
		return nil, nil, fmt.Errorf("tape matrix: iters %d, batch %d, eval_every %d must be ≥ 1", cfg.Iters, cfg.Batch, cfg.EvalEvery)
	}
	// Actions and topologies draw from separate streams, so that every topology sees the same
	// sampling noise for a seed (common random numbers): differences between methods are theirs.
	r := rand.New(rand.NewPCG(seed, 0x74617065))
	rt := rand.New(rand.NewPCG(seed, 0x746f706f))
	n, na := game.NumAgents(), game.NumActions()
	theta := make([][]float64, n)
	q := make([][]float64, n)
	for i := range theta {
		theta[i] = make([]float64, na)
		q[i] = make([]float64, na)
	}
	k := make([]float64, n)
	for i := range k {
		k[i] = 1 / float64(n)
	}
	b := 0.0
	best := math.Inf(-1)
	for _, v := range game.Payoff {
		best = math.Max(best, v)
	}
	curves := track.Curves{}
	record := func(it int) []int {
		greedy := make([]int, n)
		pOpt := 0.0
		pis := make([][]float64, n)
		for i := range theta {
			pis[i] = softmax(theta[i])
			for a := range pis[i] {
				if pis[i][a] > pis[i][greedy[i]] {
					greedy[i] = a
				}
			}
		}
		// Probability of an optimal joint action (enumerated: A^N is small for these games).
		joint := make([]int, n)
		for idx := range game.Payoff {
			x := idx
			for i := n - 1; i >= 0; i-- {
				joint[i] = x % na
				x /= na
			}
			if game.Payoff[idx] == best {
				p := 1.0
				for i := range joint {
					p *= pis[i][joint[i]]
				}
				pOpt += p
			}
		}
		curves.Add("greedy_return", float64(it), game.Payoff[game.Index(greedy)])
		curves.Add("p_optimal", float64(it), pOpt)
		return greedy
	}
	record(0)
	var greedy []int
	for it := 1; it <= cfg.Iters; it++ {
		eps := cfg.EpsStart + (cfg.EpsEnd-cfg.EpsStart)*float64(it-1)/float64(max(1, cfg.Iters-1))
		pi := make([][]float64, n)
		beh := make([][]float64, n)
		for i := range theta {
			pi[i] = softmax(theta[i])
			beh[i] = make([]float64, na)
			for a := range beh[i] {
				beh[i][a] = (1-eps)*pi[i][a] + eps/float64(na)
			}
		}
		topo := gen.Sample(rt, n)
		gq := make([][]float64, n)
		gt := make([][]float64, n)
		for i := range gq {
			gq[i] = make([]float64, na)
			gt[i] = make([]float64, na)
		}
		gb := 0.0
		for s := 0; s < cfg.Batch; s++ {
			joint := make([]int, n)
			for i := range joint {
				joint[i] = sample(r, beh[i])
			}
			rew := game.Payoff[game.Index(joint)]
			// Critic: d/dQ of ½(r − Q_tot)².
			pred := b
			for j := range joint {
				pred += k[j] * q[j][joint[j]]
			}
			errv := rew - pred
			for j := range joint {
				gq[j][joint[j]] += errv * k[j]
			}
			gb += errv
			// Actor: TAPE's coalition advantage, with the critic before this batch's update.
			c := topology.CoalitionAdvantage(topo, k, DOPAdvantage(q, pi, joint))
			for i := range joint {
				for a := 0; a < na; a++ {
					ind := 0.0
					if a == joint[i] {
						ind = 1
					}
					gt[i][a] += (ind - pi[i][a]) * c[i]
				}
			}
		}
		inv := 1 / float64(cfg.Batch)
		for i := range theta {
			for a := range theta[i] {
				theta[i][a] += cfg.LRActor * gt[i][a] * inv
				q[i][a] += cfg.LRCritic * gq[i][a] * inv
			}
		}
		b += cfg.LRCritic * gb * inv
		if it%cfg.EvalEvery == 0 || it == cfg.Iters {
			greedy = record(it)
		}
	}
	return curves, greedy, nil
}

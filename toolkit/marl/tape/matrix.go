// Package tape is TAPE — agent-topology policy gradient (toolkit/exp/tape/README.md) — on PaperLab's
// multi-agent core: matrix.go trains tabular softmax policies on one-step matrix games (§4.5a, the
// whole loop in one function), lbf.go trains neural actors with a DOP-style mixed critic on
// Level-Based Foraging (§4.5b).
package tape

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
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
	// Init0 is every agent's initial logit of action 0 (the others start at 0): 0 starts from
	// uniform policies; a negative value starts inside the basin of the joint actions without
	// action 0 (the coordination game's safe +2), to measure how often a run escapes it.
	Init0 float64 `json:"init0,omitempty"`
}

// DefaultMatrix is the configuration of the experiment's coordination-game runs.
func DefaultMatrix() MatrixConfig {
	return MatrixConfig{Topology: "er:0.3", Iters: 1500, Batch: 16, LRActor: 0.5, LRCritic: 0.2, EpsStart: 0.5, EpsEnd: 0.05, EvalEvery: 50}
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
	n, na := game.Spec().Agents, game.Spec().Actions
	st := newTabular(n, na, cfg.Init0)
	best := game.Best()
	curves := track.Curves{}
	record := func(it int) []int { return recordGreedy(curves, game, st.policies(), best, it) }
	greedy := record(0)
	for it := 1; it <= cfg.Iters; it++ {
		pi := st.policies()
		beh := mixEps(pi, cfg.eps(it))
		topo := gen.Sample(rt, n)
		gt, gq, gb := st.gradients(game, pi, beh, topo, cfg.Batch, r)
		st.step(gt, gq, gb, cfg.LRActor, cfg.LRCritic)
		if it%cfg.EvalEvery == 0 || it == cfg.Iters {
			greedy = record(it)
		}
	}
	return curves, greedy, nil
}

// eps is the exploration rate of iteration it (1-based), annealed linearly over the run.
func (c MatrixConfig) eps(it int) float64 { return annealed(c.EpsStart, c.EpsEnd, it, c.Iters) }

// annealed goes linearly from start (iteration 1) to end (iteration iters).
func annealed(start, end float64, it, iters int) float64 {
	return start + (end-start)*float64(it-1)/float64(max(1, iters-1))
}

// recordGreedy adds, at iteration it, the payoff of every agent's most likely action
// ("greedy_return") and the probability of an optimal joint action ("p_optimal") under the
// policies pis, and returns that greedy joint action.
func recordGreedy(curves track.Curves, game *env.Matrix, pis [][]float64, best float64, it int) []int {
	greedy := argmaxes(pis)
	curves.Add("greedy_return", float64(it), game.Payoff[game.Index(greedy)])
	curves.Add("p_optimal", float64(it), pJoint(game, pis, best))
	return greedy
}

// tabular is the state of stochastic TAPE on a matrix game: every agent's softmax logits θ_i, the
// linearly decomposed critic's per-agent values Q_j(a_j), its fixed mixing weights k_j = 1/N and its
// bias b.
type tabular struct {
	theta, q [][]float64
	k        []float64
	b        float64
}

func newTabular(n, na int, init0 float64) *tabular {
	st := &tabular{theta: make([][]float64, n), q: make([][]float64, n), k: make([]float64, n)}
	for i := range st.theta {
		st.theta[i], st.q[i] = make([]float64, na), make([]float64, na)
		st.theta[i][0] = init0
		st.k[i] = 1 / float64(n)
	}
	return st
}

func (st *tabular) clone() *tabular {
	c := &tabular{theta: make([][]float64, len(st.theta)), q: make([][]float64, len(st.q)), k: append([]float64(nil), st.k...), b: st.b}
	for i := range st.theta {
		c.theta[i], c.q[i] = append([]float64(nil), st.theta[i]...), append([]float64(nil), st.q[i]...)
	}
	return c
}

func (st *tabular) policies() [][]float64 {
	out := make([][]float64, len(st.theta))
	for i, t := range st.theta {
		out[i] = dist.Softmax(t, nil)
	}
	return out
}

// gradients samples batch joint actions from the behaviour policies beh and returns the batch-mean
// ascent directions of the actor logits (TAPE's ∇log π_i(a_i)·Σ_j A_ij k_j A_j, with the critic as it
// is before this batch), of the critic's values and of its bias (descent on ½(r − Q_tot)²).
func (st *tabular) gradients(game *env.Matrix, pi, beh [][]float64, topo topology.Matrix, batch int, r *rand.Rand) (gt, gq [][]float64, gb float64) {
	n, na := len(pi), len(pi[0])
	gt, gq = make([][]float64, n), make([][]float64, n)
	for i := range gq {
		gt[i], gq[i] = make([]float64, na), make([]float64, na)
	}
	joint := make([]int, n)
	inv := 1 / float64(batch)
	for s := 0; s < batch; s++ {
		for i := range joint {
			joint[i] = dist.SampleProbs(r, beh[i])
		}
		rew := game.Payoff[game.Index(joint)]
		pred := st.b
		for j := range joint {
			pred += st.k[j] * st.q[j][joint[j]]
		}
		errv := rew - pred
		for j := range joint {
			gq[j][joint[j]] += errv * st.k[j] * inv
		}
		gb += errv * inv
		c := topology.CoalitionAdvantage(topo, st.k, DOPAdvantage(st.q, pi, joint))
		for i := range joint {
			for a := 0; a < na; a++ {
				ind := 0.0
				if a == joint[i] {
					ind = 1
				}
				gt[i][a] += (ind - pi[i][a]) * c[i] * inv
			}
		}
	}
	return gt, gq, gb
}

func (st *tabular) step(gt, gq [][]float64, gb, lrActor, lrCritic float64) {
	for i := range st.theta {
		for a := range st.theta[i] {
			st.theta[i][a] += lrActor * gt[i][a]
			st.q[i][a] += lrCritic * gq[i][a]
		}
	}
	st.b += lrCritic * gb
}

func argmaxes(pis [][]float64) []int {
	out := make([]int, len(pis))
	for i, p := range pis {
		for a := range p {
			if p[a] > p[out[i]] {
				out[i] = a
			}
		}
	}
	return out
}

func mixEps(pi [][]float64, eps float64) [][]float64 {
	out := make([][]float64, len(pi))
	for i, p := range pi {
		out[i] = make([]float64, len(p))
		for a := range p {
			out[i][a] = (1-eps)*p[a] + eps/float64(len(p))
		}
	}
	return out
}

// pJoint is the probability of a joint action with payoff ≥ best under independent policies
// (enumerated: A^N is small for these games).
func pJoint(game *env.Matrix, pis [][]float64, best float64) float64 {
	n, na := len(pis), len(pis[0])
	joint := make([]int, n)
	total := 0.0
	for idx := range game.Payoff {
		if game.Payoff[idx] < best {
			continue
		}
		x := idx
		for i := n - 1; i >= 0; i-- {
			joint[i] = x % na
			x /= na
		}
		p := 1.0
		for i := range joint {
			p *= pis[i][joint[i]]
		}
		total += p
	}
	return total
}

// VarianceConfig configures MatrixVariance.
type VarianceConfig struct {
	// Ps are the Erdős–Rényi densities compared at the same states.
	Ps []float64 `json:"ps"`
	// Snapshots states are taken, evenly spaced over the first SnapIters updates of a DOP (p = 0) run
	// with the MatrixConfig's batch, learning rates and exploration schedule (over its Iters) — the
	// states are the same for every p.
	Snapshots int `json:"snapshots"`
	SnapIters int `json:"snap_iters"`
	// Draws fresh (batch, topology) pairs per snapshot and p estimate the update's variance.
	Draws int `json:"draws"`
}

// UpdateSpread is MatrixVariance's measurement for one p.
type UpdateSpread struct {
	P float64 `json:"p"`
	// Variance is the per-agent update variance: the trace of the covariance of agent i's actor update
	// direction (the batch-mean of ∇log π_i(a_i)·c_i, before the learning rate) over batches and
	// topologies, averaged over agents and snapshots.
	Variance float64 `json:"variance"`
	// FromDOP is the mean squared distance ‖g_i(A) − g_i(I)‖² between the update with the sampled
	// topology and DOP's on the same batch — the "diversity relative to DOP" of the paper's Theorem 2.
	FromDOP float64 `json:"from_dop"`
}

// MatrixVariance measures how the topology density p changes stochastic TAPE's update on a matrix
// game, at fixed states: the critic and policies of a DOP run at cfg.Batch, snapshotted. Every p sees
// the same states and the same batches (common random numbers), so the only difference between two
// p is the topology. The measured batches are drawn from the policies themselves (no ε-mixing): then
// for j ≠ i agent i's extra weight k_j·A_j has exactly zero mean given the state, so p changes the
// variance of the update and not its mean (the setting of the zero-mean argument; the training runs'
// ε-mixed batches give those terms a small mean).
func MatrixVariance(game *env.Matrix, cfg MatrixConfig, vc VarianceConfig, seed uint64) ([]UpdateSpread, error) {
	if cfg.Batch < 1 || vc.Snapshots < 1 || vc.SnapIters < vc.Snapshots || vc.Draws < 2 || vc.Draws >= 1<<31 || len(vc.Ps) == 0 {
		return nil, fmt.Errorf("tape variance: batch %d, snapshots %d, snap_iters %d, draws %d, %d densities: need batch ≥ 1, 1 ≤ snapshots ≤ snap_iters, 2 ≤ draws < 2^31 and some densities",
			cfg.Batch, vc.Snapshots, vc.SnapIters, vc.Draws, len(vc.Ps))
	}
	seenP := map[float64]bool{}
	for _, p := range vc.Ps {
		if p < 0 || p > 1 || seenP[p] {
			return nil, fmt.Errorf("tape variance: density %v outside [0, 1] or given twice", p)
		}
		seenP[p] = true
	}
	n, na := game.Spec().Agents, game.Spec().Actions
	r := rand.New(rand.NewPCG(seed, 0x74617065))
	st := newTabular(n, na, cfg.Init0)
	out := make([]UpdateSpread, len(vc.Ps))
	for i, p := range vc.Ps {
		out[i].P = p
	}
	ident := topology.Identity(n)
	snap := 0
	for it := 1; it <= vc.SnapIters; it++ {
		pi := st.policies()
		beh := mixEps(pi, cfg.eps(it))
		if it*vc.Snapshots >= (snap+1)*vc.SnapIters {
			snap++
			for pIdx, p := range vc.Ps {
				gen := topology.ER{P: p}
				// Topology stream: the upper half of the second word's low 32 bits, apart from the batches'.
				rt := rand.New(rand.NewPCG(seed, uint64(snap)<<32|1<<31))
				sum := make([][]float64, n)
				sq := make([][]float64, n)
				for i := range sum {
					sum[i], sq[i] = make([]float64, na), make([]float64, na)
				}
				dev := 0.0
				for d := 0; d < vc.Draws; d++ {
					// The same batch stream for every p and for the DOP reference.
					bs := uint64(snap)<<32 | uint64(d)
					g, _, _ := st.gradients(game, pi, pi, gen.Sample(rt, n), cfg.Batch, rand.New(rand.NewPCG(seed, bs)))
					g0, _, _ := st.gradients(game, pi, pi, ident, cfg.Batch, rand.New(rand.NewPCG(seed, bs)))
					for i := range g {
						for a := range g[i] {
							sum[i][a] += g[i][a]
							sq[i][a] += g[i][a] * g[i][a]
							dev += (g[i][a] - g0[i][a]) * (g[i][a] - g0[i][a])
						}
					}
				}
				v := 0.0
				dn := float64(vc.Draws)
				for i := range sum {
					for a := range sum[i] {
						v += (sq[i][a] - sum[i][a]*sum[i][a]/dn) / (dn - 1)
					}
				}
				out[pIdx].Variance += v / float64(n*vc.Snapshots)
				out[pIdx].FromDOP += dev / (dn * float64(n*vc.Snapshots))
			}
		}
		gt, gq, gb := st.gradients(game, pi, beh, ident, cfg.Batch, r)
		st.step(gt, gq, gb, cfg.LRActor, cfg.LRCritic)
	}
	return out, nil
}

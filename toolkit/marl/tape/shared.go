package tape

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/dist"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
	"github.com/paperlab/paperlab/toolkit/track"
)

// SharedConfig configures stochastic TAPE's estimator in the regime where the topology's variance can
// matter: many agents sharing one policy, finite batches, a learned centralised critic.
//
// The game (PaperLab's, [UNVERIFIED] as a stand-in for the paper's SMAC/LBF tasks): every episode
// each of the N agents sees its own context o_i ∈ {0, …, C−1} (uniform, independent) and plays
// a_i ~ π_θ(·|o_i) from one softmax table θ[o][a] that all agents share (PyMARL's parameter
// sharing); the team receives R = Σ_i P[o_i][a_i] + Noise·ξ, with the payoff table P drawn per seed
// (uniform on [0, 1]) and ξ standard normal. The critic is DOP's linear decomposition with a shared
// utility table, Q_tot = Σ_j Q[o_j][a_j] + b (k_j = 1), fitted by SGD on R. Agent i's coalition
// advantage is c_i = Σ_j A_ij·A_j with A_j = Q[o_j][a_j] − Σ_a π(a|o_j)·Q[o_j][a] and A ~ the
// topology, drawn once per update as in the code; the shared policy gradient is
// g = (1/B)·Σ_episodes Σ_i ∇θ log π(a_i|o_i)·c_i. Every j ≠ i term has mean zero (a_j is drawn
// independently of a_i and E[A_j] = 0 under π), so p changes g's variance — which grows with
// p·(N − 1) — and not its mean.
type SharedConfig struct {
	Agents   int `json:"agents"`
	Contexts int `json:"contexts"`
	Actions  int `json:"actions"`
	// Topology is sampled once per update (topology.Parse: "er:0.3", …).
	Topology string `json:"topology"`
	// Iters updates, each on Batch episodes.
	Iters int `json:"iters"`
	Batch int `json:"batch"`
	// Optimizer of the policy: "adam" (the code's) or "sgd"; LRActor its rate, LRCritic the critic's
	// SGD step size.
	Optimizer string  `json:"optimizer"`
	LRActor   float64 `json:"lr_actor"`
	LRCritic  float64 `json:"lr_critic"`
	// Noise is the standard deviation of the team reward's Gaussian noise.
	Noise float64 `json:"noise"`
	// EvalEvery updates the policy's normalised value is recorded.
	EvalEvery int `json:"eval_every"`
}

// DefaultShared is the configuration of the experiment's shared-parameter part: 8 agents, 8
// contexts, 5 actions, batches of 4 episodes, Adam at 0.01 for the policy. [UNVERIFIED] sizes chosen
// so that p = 0 neither stalls nor reaches the optimum early in 600 updates (the room its claims need).
func DefaultShared() SharedConfig {
	return SharedConfig{Agents: 8, Contexts: 8, Actions: 5, Topology: "er:0", Iters: 600, Batch: 4, Optimizer: "adam",
		LRActor: 0.01, LRCritic: 0.05, Noise: 0.5, EvalEvery: 20}
}

// Validate names an invalid field.
func (c SharedConfig) Validate() error {
	switch {
	case c.Agents < 2 || c.Contexts < 1 || c.Actions < 2:
		return fmt.Errorf("tape shared: agents %d (≥ 2), contexts %d (≥ 1), actions %d (≥ 2)", c.Agents, c.Contexts, c.Actions)
	case c.Iters < 1 || c.Batch < 1 || c.EvalEvery < 1:
		return fmt.Errorf("tape shared: iters %d, batch %d, eval_every %d must be ≥ 1", c.Iters, c.Batch, c.EvalEvery)
	case c.Optimizer != "adam" && c.Optimizer != "sgd":
		return fmt.Errorf("tape shared: optimizer %q, want adam or sgd", c.Optimizer)
	case !(c.LRActor > 0) || c.LRCritic < 0 || c.Noise < 0:
		return fmt.Errorf("tape shared: lr_actor %v (> 0), lr_critic %v and noise %v (≥ 0)", c.LRActor, c.LRCritic, c.Noise)
	}
	_, err := topology.Parse(c.Topology)
	return err
}

// sharedGame is the seed's payoff table and the learner's state: its training stream r and, with
// Optimizer "adam", the policy's Adam.
type sharedGame struct {
	cfg   SharedConfig
	pay   [][]float64 // P[o][a]
	theta [][]float64 // shared logits θ[o][a]
	q     [][]float64 // shared utilities Q[o][a]
	b     float64
	r     *rand.Rand
	adam  *Adam
}

func newSharedGame(cfg SharedConfig, seed uint64) *sharedGame {
	rp := rand.New(rand.NewPCG(seed, 0x70617973))
	g := &sharedGame{cfg: cfg, pay: make([][]float64, cfg.Contexts), theta: make([][]float64, cfg.Contexts), q: make([][]float64, cfg.Contexts)}
	for o := range g.pay {
		g.pay[o], g.theta[o], g.q[o] = make([]float64, cfg.Actions), make([]float64, cfg.Actions), make([]float64, cfg.Actions)
		for a := range g.pay[o] {
			g.pay[o][a] = rp.Float64()
		}
	}
	g.r = rand.New(rand.NewPCG(seed, 0x73686172))
	if cfg.Optimizer == "adam" {
		g.adam = NewAdam(cfg.LRActor, g.theta)
	}
	return g
}

func (g *sharedGame) policies() [][]float64 {
	out := make([][]float64, len(g.theta))
	for o, t := range g.theta {
		out[o] = dist.Softmax(t, nil)
	}
	return out
}

// Value is the normalised value of policies pi on payoffs pay: (V(π) − V(uniform)) / (V* − V(uniform)),
// V the mean over contexts of the expected payoff (1 at the optimum, 0 for the uniform policy).
func Value(pay, pi [][]float64) float64 {
	v, u, best := 0.0, 0.0, 0.0
	for o := range pay {
		m := math.Inf(-1)
		for a, x := range pay[o] {
			v += pi[o][a] * x
			u += x / float64(len(pay[o]))
			m = math.Max(m, x)
		}
		best += m
	}
	if best == u {
		return 0
	}
	return (v - u) / (best - u)
}

// batch is one update's episodes: contexts and actions [Batch][Agents] and team rewards.
type batch struct {
	ctx, act [][]int
	rew      []float64
}

// sample draws cfg.Batch episodes from the policies pi.
func (g *sharedGame) sample(pi [][]float64, r *rand.Rand) batch {
	n := g.cfg.Agents
	bt := batch{ctx: make([][]int, g.cfg.Batch), act: make([][]int, g.cfg.Batch), rew: make([]float64, g.cfg.Batch)}
	for e := range bt.ctx {
		bt.ctx[e], bt.act[e] = make([]int, n), make([]int, n)
		for i := 0; i < n; i++ {
			o := r.IntN(g.cfg.Contexts)
			a := dist.SampleProbs(r, pi[o])
			bt.ctx[e][i], bt.act[e][i] = o, a
			bt.rew[e] += g.pay[o][a]
		}
		bt.rew[e] += g.cfg.Noise * r.NormFloat64()
	}
	return bt
}

// SharedCoalitionGradient is the shared policy's update direction for one batch under topology topo
// (rows i, columns j): (1/B)·Σ_e Σ_i ∇θ log π(a_i|o_i)·Σ_j topo[i][j]·A_j, with
// ∂ log π(a|o)/∂θ[o][b] = 1[a = b] − π(b|o) and A_j = q[o_j][a_j] − Σ_a π(a|o_j)·q[o_j][a].
func SharedCoalitionGradient(pi, q [][]float64, ctx, act [][]int, topo topology.Matrix) [][]float64 {
	grad := make([][]float64, len(pi))
	for o := range grad {
		grad[o] = make([]float64, len(pi[o]))
	}
	base := make([]float64, len(pi))
	for o := range pi {
		for a, p := range pi[o] {
			base[o] += p * q[o][a]
		}
	}
	for e := range ctx {
		n := len(ctx[e])
		adv := make([]float64, n)
		for j := 0; j < n; j++ {
			adv[j] = q[ctx[e][j]][act[e][j]] - base[ctx[e][j]]
		}
		for i := 0; i < n; i++ {
			c := 0.0
			for j := 0; j < n; j++ {
				c += topo[i][j] * adv[j]
			}
			o := ctx[e][i]
			for b := range grad[o] {
				ind := 0.0
				if b == act[e][i] {
					ind = 1
				}
				grad[o][b] += (ind - pi[o][b]) * c / float64(len(ctx))
			}
		}
	}
	return grad
}

// ExpectedSharedGradient is E[SharedCoalitionGradient] over contexts, actions and any topology with
// a unit diagonal: N·(1/C)·Σ_o Σ_a π(a|o)·∇θ log π(a|o)·A(o, a) — the j ≠ i terms vanish, so it does
// not depend on the topology.
func ExpectedSharedGradient(pi, q [][]float64, agents int) [][]float64 {
	c := float64(len(pi))
	grad := make([][]float64, len(pi))
	for o := range pi {
		grad[o] = make([]float64, len(pi[o]))
		base := 0.0
		for a, p := range pi[o] {
			base += p * q[o][a]
		}
		for a, p := range pi[o] {
			adv := q[o][a] - base
			for b := range grad[o] {
				ind := 0.0
				if b == a {
					ind = 1
				}
				grad[o][b] += float64(agents) / c * p * (ind - pi[o][b]) * adv
			}
		}
	}
	return grad
}

// criticStep fits Q_tot = Σ_j Q[o_j][a_j] + b to the batch's rewards: one SGD step on the mean
// squared error.
func (g *sharedGame) criticStep(bt batch) {
	lr := g.cfg.LRCritic
	gq := make([][]float64, len(g.q))
	for o := range gq {
		gq[o] = make([]float64, len(g.q[o]))
	}
	gb := 0.0
	for e := range bt.ctx {
		pred := g.b
		for i, o := range bt.ctx[e] {
			pred += g.q[o][bt.act[e][i]]
		}
		d := 2 * (pred - bt.rew[e]) / float64(len(bt.ctx))
		gb += d
		for i, o := range bt.ctx[e] {
			gq[o][bt.act[e][i]] += d
		}
	}
	// Q_tot sums N utilities, so each error moves N table entries at once: the steps of q and b are
	// divided by N to keep SGD stable.
	n := float64(g.cfg.Agents)
	for o := range g.q {
		for a := range g.q[o] {
			g.q[o][a] -= lr * gq[o][a] / n
		}
	}
	g.b -= lr * gb / n
}

// update is one training step on a batch drawn from pi with the training stream: the policy ascends
// the coalition gradient under topo (Adam or SGD at LRActor), then the critic takes its step. It
// returns the gradient's norm.
func (g *sharedGame) update(pi [][]float64, topo topology.Matrix) float64 {
	bt := g.sample(pi, g.r)
	grad := SharedCoalitionGradient(pi, g.q, bt.ctx, bt.act, topo)
	ss := 0.0
	for o := range grad {
		for b := range grad[o] {
			ss += grad[o][b] * grad[o][b]
			grad[o][b] = -grad[o][b] // ascend the objective: descend −g
		}
	}
	if g.adam != nil {
		g.adam.Descend(g.theta, grad)
	} else {
		for o := range g.theta {
			for b := range g.theta[o] {
				g.theta[o][b] -= g.cfg.LRActor * grad[o][b]
			}
		}
	}
	g.criticStep(bt)
	return math.Sqrt(ss)
}

// TrainShared runs the shared-parameter game and returns the curves "value" (normalised value of
// the policy, Value, every EvalEvery updates), "critic_error" (the mean squared distance of the
// learned utilities' advantages from the true payoffs' under π) and "update_norm" (‖g‖ per update,
// averaged since the previous point).
func TrainShared(cfg SharedConfig, seed uint64) (track.Curves, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gen, _ := topology.Parse(cfg.Topology)
	g := newSharedGame(cfg, seed)
	rt := rand.New(rand.NewPCG(seed, 0x746f706f))
	curves := track.Curves{}
	record := func(it int, norm float64) {
		pi := g.policies()
		curves.Add("value", float64(it), Value(g.pay, pi))
		curves.Add("critic_error", float64(it), advantageError(g.pay, g.q, pi))
		if it > 0 {
			curves.Add("update_norm", float64(it), norm)
		}
	}
	record(0, 0)
	normSum, normN := 0.0, 0
	for it := 1; it <= cfg.Iters; it++ {
		pi := g.policies()
		normSum, normN = normSum+g.update(pi, gen.Sample(rt, cfg.Agents)), normN+1
		if it%cfg.EvalEvery == 0 || it == cfg.Iters {
			record(it, normSum/float64(normN))
			normSum, normN = 0, 0
		}
	}
	return curves, nil
}

// advantageError is the mean over contexts and actions, weighted by π, of the squared difference
// between the learned and the true advantage (q and pay centred under π).
func advantageError(pay, q, pi [][]float64) float64 {
	s := 0.0
	for o := range pay {
		bp, bq := 0.0, 0.0
		for a, p := range pi[o] {
			bp += p * pay[o][a]
			bq += p * q[o][a]
		}
		for a, p := range pi[o] {
			d := (q[o][a] - bq) - (pay[o][a] - bp)
			s += p * d * d
		}
	}
	return s / float64(len(pay))
}

// SharedSpread is SharedVariance's measurement for one density p, averaged over snapshots.
type SharedSpread struct {
	P float64 `json:"p"`
	// MeanRatio is ⟨ḡ_p, g*⟩/‖g*‖²: the mean of the sampled updates (over Draws batches and
	// topologies) projected on the exact expected update g* (ExpectedSharedGradient, the same for
	// every p); 1 when the mean update does not depend on p.
	MeanRatio float64 `json:"mean_ratio"`
	// Variance is the trace of the sampled update's covariance over batches and topologies,
	// divided by ‖g*‖² (a noise-to-signal scale: the mean of Variance batches has its noise as large
	// as its signal).
	Variance float64 `json:"variance"`
}

// SharedVariance measures, at fixed states, what the topology density does to the shared update:
// Snapshots states (policy and critic) evenly spaced over the first SnapIters updates of a p = 0 run
// of cfg, and at each Draws batches — the same batches (contexts, actions) for every p, common
// random numbers, with a fresh topology per draw and p.
func SharedVariance(cfg SharedConfig, vc VarianceConfig, seed uint64) ([]SharedSpread, error) {
	cfg.Topology = "er:0"
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if vc.Snapshots < 1 || vc.SnapIters < vc.Snapshots || vc.Draws < 2 || len(vc.Ps) == 0 {
		return nil, fmt.Errorf("tape shared variance: snapshots %d, snap_iters %d, draws %d, %d densities: need 1 ≤ snapshots ≤ snap_iters, draws ≥ 2 and some densities",
			vc.Snapshots, vc.SnapIters, vc.Draws, len(vc.Ps))
	}
	g := newSharedGame(cfg, seed)
	rd := rand.New(rand.NewPCG(seed, 0x64726177))
	out := make([]SharedSpread, len(vc.Ps))
	gens := make([]topology.Generator, len(vc.Ps))
	rts := make([]*rand.Rand, len(vc.Ps))
	for k, p := range vc.Ps {
		if p < 0 || p > 1 {
			return nil, fmt.Errorf("tape shared variance: density %v outside [0, 1]", p)
		}
		out[k].P, gens[k], rts[k] = p, topology.ER{P: p}, rand.New(rand.NewPCG(seed, 0x746f706f+uint64(k)))
	}
	ident := topology.Identity(cfg.Agents)
	snap := 0
	for it := 1; it <= vc.SnapIters; it++ {
		pi := g.policies()
		if it*vc.Snapshots >= (snap+1)*vc.SnapIters {
			snap++
			exact := ExpectedSharedGradient(pi, g.q, cfg.Agents)
			norm2 := dot(exact, exact)
			if norm2 == 0 {
				return nil, fmt.Errorf("tape shared variance: the expected update is zero at snapshot %d", snap)
			}
			draws := make([]batch, vc.Draws)
			for d := range draws {
				draws[d] = g.sample(pi, rd)
			}
			for k := range vc.Ps {
				gs := make([][][]float64, vc.Draws)
				for d, bt := range draws {
					gs[d] = SharedCoalitionGradient(pi, g.q, bt.ctx, bt.act, gens[k].Sample(rts[k], cfg.Agents))
				}
				mean := meanOf(gs)
				out[k].MeanRatio += dot(mean, exact) / norm2 / float64(vc.Snapshots)
				v := 0.0
				for _, x := range gs {
					v += sqDist(x, mean)
				}
				out[k].Variance += v / float64(vc.Draws-1) / norm2 / float64(vc.Snapshots)
			}
		}
		g.update(pi, ident)
	}
	return out, nil
}

func dot(a, b [][]float64) float64 {
	s := 0.0
	for i := range a {
		for k := range a[i] {
			s += a[i][k] * b[i][k]
		}
	}
	return s
}

func sqDist(a, b [][]float64) float64 {
	s := 0.0
	for i := range a {
		for k := range a[i] {
			d := a[i][k] - b[i][k]
			s += d * d
		}
	}
	return s
}

func meanOf(xs [][][]float64) [][]float64 {
	m := make([][]float64, len(xs[0]))
	for i := range m {
		m[i] = make([]float64, len(xs[0][i]))
		for _, x := range xs {
			for k := range m[i] {
				m[i][k] += x[i][k] / float64(len(xs))
			}
		}
	}
	return m
}

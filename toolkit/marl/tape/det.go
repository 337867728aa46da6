package tape

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
	"math"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
	"github.com/paperlab/paperlab/toolkit/track"
)

// DetConfig configures deterministic TAPE (the PAC / OW-QMIX tree of TAPE's code; toolkit/exp/tape/README.md)
// on a matrix game, tabular: per-agent utilities Q_j(a_j) mixed by a monotonic QMIX mixer, softmax
// policies, and agent i's coalition loss Mix(A_i1·u_1, …, A_in·u_n) with
// u_j = Σ_a π_j(a)·(α·log π_j(a) − Q_j(a)).
//
// Where this differs from the code, [UNVERIFIED] in effect: the game has one state, so the mixer's
// hypernetworks are plain parameters (|W1|, |w2| as QMIX's abs); the TD target of a one-step game is
// the payoff, so PAC's central mixer (which only shapes bootstrap targets) and its communication
// loss are left out; α is fixed rather than auto-tuned; the updates are plain SGD, not Adam — with a
// single state Adam's per-parameter normalisation would cancel most of what the topology changes
// here (the scale of each agent's step, see MixWeights).
type DetConfig struct {
	// Topology is sampled once per update, as in the code (topology.Parse).
	Topology string `json:"topology"`
	// Iters updates, each fitting the critic on Batch joint actions from the ε-mixed policies.
	Iters int `json:"iters"`
	Batch int `json:"batch"`
	// Hidden units of the mixer (QMIX's mixing_embed_dim is 32).
	Hidden int `json:"hidden"`
	// Optimizer of the policies: "adam" (the code's policy_optimiser: Adam, PyTorch's defaults, no
	// gradient clipping) or "sgd" (plain steps of the clipped gradient, PaperLab's first version,
	// kept as a named variant: there the topology acts as a step size, which Adam normalises away).
	// "" reads as "sgd", the runs committed before 2026-12-04.
	Optimizer string `json:"optimizer,omitempty"`
	// LRActor is the policies' rate (the code: 1e-3 with Adam); LRCritic the critic's SGD step size.
	LRActor  float64 `json:"lr_actor"`
	LRCritic float64 `json:"lr_critic"`
	// Alpha weighs the policy's log-probabilities in u_j (PAC's entropy temperature).
	Alpha float64 `json:"alpha"`
	// W is OW-QMIX's weight of the squared TD errors where Q_tot over-estimates the target (errors
	// where it under-estimates weigh 1); W = 1 is plain QMIX.
	W float64 `json:"w"`
	// EpsStart → EpsEnd linear annealing of the behaviour's ε-mixing.
	EpsStart float64 `json:"eps_start"`
	EpsEnd   float64 `json:"eps_end"`
	// EvalEvery updates the greedy payoff and P(optimal) are recorded.
	EvalEvery int `json:"eval_every"`
	// MaxGradNorm clips the global norm of the actor's and of the critic's gradient (the code's
	// grad_norm_clip, 10).
	MaxGradNorm float64 `json:"max_grad_norm"`
}

// DefaultDet is the configuration of the experiment's deterministic-TAPE runs (p = 0.5 is the
// code's ow_qmix.yaml; w = 0.5 its OW-QMIX weight; Adam at the code's 1e-3 for the policies).
func DefaultDet() DetConfig {
	return DetConfig{Topology: "er:0.5", Iters: 1500, Batch: 16, Hidden: 8, Optimizer: "adam", LRActor: 1e-3, LRCritic: 0.05, Alpha: 0.2, W: 0.5,
		EpsStart: 0.5, EpsEnd: 0.05, EvalEvery: 50, MaxGradNorm: 10}
}

// DefaultDetSGD is the SGD variant (PaperLab's first deterministic runs): clipped plain steps of 0.5.
func DefaultDetSGD() DetConfig {
	c := DefaultDet()
	c.Optimizer, c.LRActor = "sgd", 0.5
	return c
}

// Mixer is QMIX's monotonic mixer for one state: y = Σ_k |w2_k|·elu(Σ_j |W1_jk|·x_j + b1_k) + b2.
type Mixer struct {
	W1 [][]float64 // [agents][hidden]
	B1 []float64
	W2 []float64
	B2 float64
}

// NewMixer draws the weights uniformly from ±1/√fan-in (PyTorch's Linear default).
func NewMixer(n, hidden int, r *rand.Rand) *Mixer {
	m := &Mixer{W1: make([][]float64, n), B1: make([]float64, hidden), W2: make([]float64, hidden)}
	for j := range m.W1 {
		m.W1[j] = make([]float64, hidden)
		for k := range m.W1[j] {
			m.W1[j][k] = (2*r.Float64() - 1) / math.Sqrt(float64(n))
		}
	}
	for k := range m.W2 {
		m.W2[k] = (2*r.Float64() - 1) / math.Sqrt(float64(hidden))
	}
	return m
}

func elu(z float64) (v, grad float64) {
	if z > 0 {
		return z, 1
	}
	e := math.Exp(z)
	return e - 1, e
}

// unit is hidden unit k at x: its activation, the activation's derivative and its |output weight|.
func (m *Mixer) unit(x []float64, k int) (h, dh, w2 float64) {
	z := m.B1[k]
	for j, v := range x {
		z += math.Abs(m.W1[j][k]) * v
	}
	h, dh = elu(z)
	return h, dh, math.Abs(m.W2[k])
}

// Forward returns y and ∂y/∂x_j.
func (m *Mixer) Forward(x []float64) (y float64, dx []float64) {
	dx = make([]float64, len(x))
	y = m.B2
	for k := range m.B1 {
		h, dh, w2 := m.unit(x, k)
		y += w2 * h
		for j := range x {
			dx[j] += w2 * dh * math.Abs(m.W1[j][k])
		}
	}
	return y, dx
}

// accumulate adds g·∂y/∂θ at x to acc (a zero Mixer of the same shape).
func (m *Mixer) accumulate(x []float64, g float64, acc *Mixer) {
	for k := range m.B1 {
		h, dh, w2 := m.unit(x, k)
		acc.W2[k] += g * h * sign(m.W2[k])
		acc.B1[k] += g * w2 * dh
		for j, v := range x {
			acc.W1[j][k] += g * w2 * dh * v * sign(m.W1[j][k])
		}
	}
	acc.B2 += g
}

// zero is a Mixer of m's shape with all parameters 0.
func (m *Mixer) zero() *Mixer {
	z := &Mixer{W1: make([][]float64, len(m.W1)), B1: make([]float64, len(m.B1)), W2: make([]float64, len(m.W2))}
	for j := range z.W1 {
		z.W1[j] = make([]float64, len(m.B1))
	}
	return z
}

// descend moves every parameter by −lr·grad.
func (m *Mixer) descend(grad *Mixer, lr float64) {
	for j := range m.W1 {
		for k := range m.W1[j] {
			m.W1[j][k] -= lr * grad.W1[j][k]
		}
	}
	for k := range m.B1 {
		m.B1[k] -= lr * grad.B1[k]
		m.W2[k] -= lr * grad.W2[k]
	}
	m.B2 -= lr * grad.B2
}

// clipScale is the factor that brings the global norm of the gradient parts to at most maxNorm
// (1 when it is within, or maxNorm ≤ 0).
func clipScale(maxNorm float64, parts ...[][]float64) float64 {
	if maxNorm <= 0 {
		return 1
	}
	ss := 0.0
	for _, p := range parts {
		for _, row := range p {
			for _, v := range row {
				ss += v * v
			}
		}
	}
	if norm := math.Sqrt(ss); norm > maxNorm {
		return maxNorm / norm
	}
	return 1
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// MixWeights is deterministic TAPE's weight on each agent's utility gradient: agent j's policy loss
// is Σ_i (1/N)·Mix(A_i ⊙ u), whose derivative in u_j is w_j = (1/N)·Σ_i A_ij·∂Mix/∂x_j(A_i ⊙ u) ≥ 0.
// As u_j depends on agent j's policy only, the topology changes the size of agent j's step (and,
// with more than one state, how the states are weighted against each other), never its direction
// within a state — while the monotonic mixer's non-linearity makes that size depend on which other
// agents' utilities share the row.
func MixWeights(mix *Mixer, topo topology.Matrix, u []float64) []float64 {
	n := len(u)
	w := make([]float64, n)
	x := make([]float64, n)
	for i := range topo {
		for j := range x {
			x[j] = topo[i][j] * u[j]
		}
		_, dx := mix.Forward(x)
		for j := range w {
			w[j] += topo[i][j] * dx[j] / float64(n)
		}
	}
	return w
}

// TrainDet runs deterministic TAPE on a matrix game. Each update: the actor first (the critic as it
// was, as in the code): u_j and the mixed coalition losses under one sampled topology, one Adam (or
// SGD) step on every agent's logits; then the critic: Batch joint actions from the ε-mixed policies, OW-QMIX's
// weighted squared error of Mix(Q_1(a_1), …, Q_N(a_N)) against the payoff. It returns the curves
// "greedy_return" and "p_optimal" (as TrainMatrix), "mix_weight" (the agents' mean MixWeights over
// the updates since the previous point: the scale the topology gives their gradients), "step_norm"
// (the root-mean-square over agents of the length of each agent's logit step, averaged the same
// way: what the optimiser makes of that scale) and the final greedy joint action.
func TrainDet(game *env.Matrix, cfg DetConfig, seed uint64) (track.Curves, []int, error) {
	gen, err := topology.Parse(cfg.Topology)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Iters < 1 || cfg.Batch < 1 || cfg.EvalEvery < 1 || cfg.Hidden < 1 || cfg.W <= 0 || cfg.W > 1 || cfg.Alpha < 0 {
		return nil, nil, fmt.Errorf("tape det: iters %d, batch %d, eval_every %d, hidden %d must be ≥ 1, w %v in (0, 1], alpha %v ≥ 0",
			cfg.Iters, cfg.Batch, cfg.EvalEvery, cfg.Hidden, cfg.W, cfg.Alpha)
	}
	if cfg.Optimizer != "" && cfg.Optimizer != "sgd" && cfg.Optimizer != "adam" {
		return nil, nil, fmt.Errorf("tape det: optimizer %q, want adam or sgd", cfg.Optimizer)
	}
	r := rand.New(rand.NewPCG(seed, 0x64657420))
	rt := rand.New(rand.NewPCG(seed, 0x746f706f))
	n, na := game.Spec().Agents, game.Spec().Actions
	// The per-agent logits and utilities Q_j (tabular's k and b are unused here: the mixer mixes).
	st := newTabular(n, na, 0)
	theta, q := st.theta, st.q
	mix := NewMixer(n, cfg.Hidden, rand.New(rand.NewPCG(seed, 0x6d6978)))
	best := game.Best()
	curves := track.Curves{}
	record := func(it int) []int { return recordGreedy(curves, game, st.policies(), best, it) }
	greedy := record(0)
	wSum, wN, stepSum := 0.0, 0, 0.0
	var adam *Adam
	if cfg.Optimizer == "adam" {
		adam = NewAdam(cfg.LRActor, theta)
	}
	for it := 1; it <= cfg.Iters; it++ {
		pi := st.policies()
		// Actor: u_j and its gradient in θ_j: ∂u_j/∂θ_jb = π_b·(f_b − Σ_a π_a f_a), f_a = α log π_a − Q_j(a)
		// (the α·Σ_a π_a ∂log π_a term is Σ_a ∂π_a = 0).
		u := make([]float64, n)
		f := make([][]float64, n)
		for j := range pi {
			f[j] = make([]float64, na)
			for a := range pi[j] {
				f[j][a] = cfg.Alpha*math.Log(pi[j][a]+1e-12) - q[j][a]
				u[j] += pi[j][a] * f[j][a]
			}
		}
		w := MixWeights(mix, gen.Sample(rt, n), u)
		for _, v := range w {
			wSum += v / float64(n)
		}
		wN++
		ga := make([][]float64, n)
		for j := range theta {
			ga[j] = make([]float64, na)
			for b := range theta[j] {
				ga[j][b] = w[j] * pi[j][b] * (f[j][b] - u[j])
			}
		}
		before := make([][]float64, n)
		for j := range theta {
			before[j] = append([]float64(nil), theta[j]...)
		}
		if adam != nil {
			adam.Descend(theta, ga)
		} else {
			ca := clipScale(cfg.MaxGradNorm, ga)
			for j := range theta {
				for b := range theta[j] {
					theta[j][b] -= cfg.LRActor * ca * ga[j][b]
				}
			}
		}
		stepSum += math.Sqrt(sqDist(theta, before) / float64(n))
		// Critic: OW-QMIX on the batch (gradients accumulated at the current parameters).
		beh := mixEps(pi, annealed(cfg.EpsStart, cfg.EpsEnd, it, cfg.Iters))
		gm := mix.zero()
		gq := make([][]float64, n)
		for j := range gq {
			gq[j] = make([]float64, na)
		}
		joint := make([]int, n)
		x := make([]float64, n)
		for s := 0; s < cfg.Batch; s++ {
			for j := range joint {
				joint[j] = dist.SampleProbs(r, beh[j])
				x[j] = q[j][joint[j]]
			}
			y, dx := mix.Forward(x)
			td := y - game.Payoff[game.Index(joint)]
			wt := cfg.W
			if td < 0 {
				wt = 1
			}
			g := 2 * wt * td / float64(cfg.Batch) // d/dy of the batch mean of wt·td²
			mix.accumulate(x, g, gm)
			for j := range joint {
				gq[j][joint[j]] += g * dx[j]
			}
		}
		cc := clipScale(cfg.MaxGradNorm, append(append(append([][]float64{}, gq...), gm.W1...), gm.B1, gm.W2, []float64{gm.B2}))
		mix.descend(gm, cfg.LRCritic*cc)
		for j := range q {
			for a := range q[j] {
				q[j][a] -= cfg.LRCritic * cc * gq[j][a]
			}
		}
		if it%cfg.EvalEvery == 0 || it == cfg.Iters {
			greedy = record(it)
			curves.Add("mix_weight", float64(it), wSum/float64(wN))
			curves.Add("step_norm", float64(it), stepSum/float64(wN))
			wSum, wN, stepSum = 0, 0, 0
		}
	}
	return curves, greedy, nil
}

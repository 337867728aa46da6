package tape

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
	"github.com/paperlab/paperlab/toolkit/stats"
	"math/rand/v2"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Config configures stochastic TAPE on a multi-agent environment: parameter-shared MLP actors,
// the DOP-style mixed critic (ac.Mixed) trained on-policy with TD(λ), and agent i's policy
// gradient weighted by Σ_j A_ij·k_j(s)·A_j with a topology A sampled at every update (§4.2).
// Topology "er:0" is DOP (individual advantages), "er:1" the centralized (global) advantage.
//
// Differences from the paper's code, [UNVERIFIED] in effect: DOP's off-policy tree-backup buffer is
// left out (on-policy TD(λ) only), the mixer is a softmax over agents, and the actor is updated with
// PPO-clip epochs on the coalition advantages (scaled to unit standard deviation, or normalised as
// the baselines' with Center) rather than one plain policy-gradient step, as the IPPO/MAPPO
// baselines are, so the methods differ only in the advantage.
type Config struct {
	Scenario string `json:"scenario"`
	Topology string `json:"topology"`
	Envs     int    `json:"envs"`
	Steps    int    `json:"steps"`
	Iters    int    `json:"iters"`
	Hidden   int    `json:"hidden"`
	// Gamma and Lambda of the critic's TD(λ) targets (TAPE's code: λ = 0.8).
	Gamma       float64 `json:"gamma"`
	Lambda      float64 `json:"lambda"`
	Clip        float64 `json:"clip"`
	EntCoef     float64 `json:"ent_coef"`
	Epochs      int     `json:"epochs"`
	MiniBatches int     `json:"mini_batches"`
	LRActor     float64 `json:"lr_actor"`
	LRCritic    float64 `json:"lr_critic"`
	MaxGradNorm float64 `json:"max_grad_norm"`
	ObsScale    float32 `json:"obs_scale"`
	// Advantage is the per-agent advantage the topology mixes: "dop" — k_j·A_j from the critic alone
	// (the paper's estimator), so agent i's weight is c_i = Σ_j A_ij·k_j·A_j; "return" — the same plus
	// the critic's λ-return residual δ_t = G^λ_t − Q_tot(s_t, a_t), counted once per coalition:
	// c_i = δ_t + Σ_j A_ij·k_j·A_j. With the linear mixer k_i·A_i = Q_tot(s, a) − Q_tot(s, a_−i, π_i),
	// so "return" at p = 0 is the counterfactual advantage G^λ − Q_tot(s, a_−i, π_i) (COMA's baseline
	// with λ-returns) and at p = 1 the global advantage G^λ − V(s); the j ≠ i terms are the same
	// zero-mean terms as in "dop", so the topology still only changes the update's variance.
	// [UNVERIFIED] "return" is PaperLab's, not the paper's: it lets the actor see observed returns
	// rather than only the learned Q (see the experiment's notes on why).
	Advantage string `json:"advantage,omitempty"`
	// Center subtracts the batch mean of the advantages before dividing by their standard
	// deviation, as the IPPO / MAPPO baselines do (ac.Normalize); off, they are only scaled, keeping
	// each coalition advantage's sign.
	Center bool `json:"center,omitempty"`
}

// Default is the configuration used on small Level-Based Foraging tasks.
func Default(scenario, topo string) Config {
	return Config{Scenario: scenario, Topology: topo, Envs: 16, Steps: 50, Iters: 200, Hidden: 64, Gamma: 0.99, Lambda: 0.8,
		Clip: 0.2, EntCoef: 0.01, Epochs: 4, MiniBatches: 4, LRActor: 5e-4, LRCritic: 1e-3, MaxGradNorm: 10, ObsScale: 0.125}
}

// Hooks are optional callbacks.
type Hooks struct{ Progress track.Progress }

// Train runs TAPE and returns the curves against environment steps (episodic_return, critic_loss,
// policy_loss, entropy, approx_kl, clip_ratio, topology_density, SPS) and the actor.
func Train(cfg Config, seed uint64, hooks Hooks) (_ track.Curves, _ *ac.Net, err error) {
	gen, err := topology.Parse(cfg.Topology)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Envs < 1 || cfg.Steps < 1 || cfg.Iters < 1 || cfg.Epochs < 1 || cfg.MiniBatches < 1 {
		return nil, nil, fmt.Errorf("tape: envs, steps, iters, epochs and mini_batches must be ≥ 1")
	}
	residual := false
	switch cfg.Advantage {
	case "", "dop":
	case "return":
		residual = true
	default:
		return nil, nil, fmt.Errorf("tape: advantage %q, want dop or return", cfg.Advantage)
	}
	if hooks.Progress == nil {
		hooks.Progress = track.NoProgress{}
	}
	be, _, err := backend.Get()
	if err != nil {
		return nil, nil, err
	}
	vec, err := env.NewVec(cfg.Scenario, cfg.Envs)
	if err != nil {
		return nil, nil, err
	}
	sp := vec.Spec
	n, na, sd := sp.Agents, sp.Actions, sp.StateSize
	actor, err := ac.NewNet(be, []int{sp.ObsSize + n, cfg.Hidden, cfg.Hidden, na}, 0.01, seed)
	if err != nil {
		return nil, nil, err
	}
	critic, err := ac.NewMixed(be, n, na, sd, cfg.Hidden, seed+1)
	if err != nil {
		return nil, nil, err
	}
	trA, err := ac.NewActorTrainer(actor, cfg.LRActor, cfg.Clip, cfg.EntCoef, cfg.MaxGradNorm)
	if err != nil {
		return nil, nil, err
	}
	trC, err := ac.NewTrainer(&critic.Model, cfg.LRCritic, cfg.MaxGradNorm, nil, critic.Loss())
	if err != nil {
		return nil, nil, err
	}
	// Only the actor outlives Train (the caller closes it); the rest is freed here.
	defer func() {
		critic.Close()
		trA.Close()
		trC.Close()
		if err != nil {
			actor.Close()
		}
	}()
	sampler, err := ac.NewSampler(vec, actor, cfg.ObsScale, seed)
	if err != nil {
		return nil, nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x74617065))
	curves := track.Curves{}
	start := time.Now()
	envSteps := 0
	var recent []float64
	for it := 1; it <= cfg.Iters; it++ {
		ro, err := sampler.Collect(cfg.Steps, false)
		if err != nil {
			return curves, actor, err
		}
		envSteps += ro.T * ro.E
		recent = append(recent, ro.EpisodeReturns...)
		rows := ro.T * ro.E
		q, k, qt, err := critic.Eval(ro.State, ro.Act, rows)
		if err != nil {
			return curves, actor, err
		}
		pi, err := policies(actor, ro.Obs, ro.Avail, rows*n, na)
		if err != nil {
			return curves, actor, err
		}
		// Bootstrap: V(s_T) = Σ_j k_j Σ_a π_j(a) Q_j(s_T, a) + b(s_T), read off Q_tot of any action
		// minus its mixture term, via the expectation below.
		lq, lk, lqt, err := critic.Eval(ro.LastState, make([]int, ro.E*n), ro.E)
		if err != nil {
			return curves, actor, err
		}
		lpi, err := policies(actor, ro.LastObs, ro.LastAvail, ro.E*n, na)
		if err != nil {
			return curves, actor, err
		}
		lastV := make([]float64, ro.E)
		for e := 0; e < ro.E; e++ {
			v := float64(lqt[e])
			for j := 0; j < n; j++ {
				row := (e*n + j) * na
				v -= float64(lk[e*n+j]) * float64(lq[row]) // remove Q_j(s, 0) of the dummy action 0
				for a := 0; a < na; a++ {
					v += float64(lk[e*n+j]) * lpi[row+a] * float64(lq[row+a])
				}
			}
			lastV[e] = v
		}
		targets := make([]float64, rows)
		for e := 0; e < ro.E; e++ {
			rw, qs, ds := make([]float64, ro.T), make([]float64, ro.T), make([]bool, ro.T)
			for t := 0; t < ro.T; t++ {
				rw[t], qs[t], ds[t] = ro.Rew[t*ro.E+e], float64(qt[t*ro.E+e]), ro.Done[t*ro.E+e]
			}
			g := ac.TDLambda(rw, qs, ds, lastV[e], cfg.Gamma, cfg.Lambda)
			for t := 0; t < ro.T; t++ {
				targets[t*ro.E+e] = g[t]
			}
		}
		cm, err := ac.Minibatches(rows, cfg.Epochs, cfg.MiniBatches, r, func(idx []int) (nn.StepStats, error) {
			st := make([]float32, 0, len(idx)*sd)
			acts := make([]int32, 0, len(idx)*n)
			y := make([]float32, len(idx))
			for kk, i := range idx {
				st = append(st, ro.State[i*sd:(i+1)*sd]...)
				for j := 0; j < n; j++ {
					acts = append(acts, int32(ro.Act[i*n+j]))
				}
				y[kk] = float32(targets[i])
			}
			return trC.Update(critic.Batch(ac.Float32(st, len(idx), sd), acts, y))
		})
		if err != nil {
			return curves, actor, fmt.Errorf("iteration %d critic: %w", it, err)
		}
		// Coalition advantages with one topology for this update.
		topo := gen.Sample(r, n)
		adv := make([]float64, rows*n)
		qs, pis := make([][]float64, n), make([][]float64, n)
		for j := range qs {
			qs[j] = make([]float64, na)
		}
		for i := 0; i < rows; i++ {
			kk := make([]float64, n)
			for j := 0; j < n; j++ {
				row := (i*n + j) * na
				for a := range qs[j] {
					qs[j][a] = float64(q[row+a])
				}
				pis[j] = pi[row : row+na]
				kk[j] = float64(k[i*n+j])
			}
			dop := DOPAdvantage(qs, pis, ro.Act[i*n:(i+1)*n])
			c := topology.CoalitionAdvantage(topo, kk, dop)
			if residual {
				for j := range c {
					c[j] += targets[i] - float64(qt[i])
				}
			}
			copy(adv[i*n:(i+1)*n], c)
		}
		if cfg.Center {
			adv = ac.Normalize(adv)
		} else {
			adv = scaleUnit(adv)
		}
		am, err := ac.Minibatches(len(adv), cfg.Epochs, cfg.MiniBatches, r, func(idx []int) (nn.StepStats, error) {
			return trA.Update(ac.ActorBatch(ro, adv, idx))
		})
		if err != nil {
			return curves, actor, fmt.Errorf("iteration %d actor: %w", it, err)
		}
		x := float64(envSteps)
		ac.AddActorCurves(curves, x, am)
		curves.Add("critic_loss", x, cm["loss"])
		curves.Add("topology_density", x, topo.Density())
		curves.Add("SPS", x, float64(envSteps)/time.Since(start).Seconds())
		hooks.Progress.Update(it, ac.FlushReturns(curves, x, &recent))
	}
	return curves, actor, nil
}

// policies returns the actor's action probabilities (softmax over available actions), [rows·A].
func policies(actor *ac.Net, obs, avail []float32, rows, na int) ([]float64, error) {
	logits, err := actor.Apply(obs, rows)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, len(logits))
	mask := make([]bool, na)
	for i := 0; i < rows; i++ {
		for a := range mask {
			mask[a] = avail[i*na+a] > 0
		}
		out = append(out, dist.Softmax(logits[i*na:(i+1)*na], mask)...)
	}
	return out, nil
}

// scaleUnit divides by the standard deviation (no centring: the sign of a coalition advantage is
// its meaning).
func scaleUnit(x []float64) []float64 {
	_, std := stats.MeanStdPop(x)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v / (std + 1e-8)
	}
	return out
}

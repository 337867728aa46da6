// Package ppo is multi-agent PPO with parameter sharing: IPPO (each agent's critic sees its own
// observation, V(o_i)) and MAPPO (one centralized critic V(s)), after JaxMARL's and EPyMARL's
// baselines, in cleanrl's single-loop style. The whole loop is Train, in this file.
package ppo

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Config is a flat, documented configuration (cleanrl's Args).
type Config struct {
	// Scenario is the environment ("lbf:8x8-2p-2f-coop").
	Scenario string `json:"scenario"`
	// Critic is "independent" (IPPO: V(o_i ⊕ id)) or "central" (MAPPO: V(s)).
	Critic string `json:"critic"`
	// Envs copies stepped together, Steps per rollout, Iters rollouts.
	Envs  int `json:"envs"`
	Steps int `json:"steps"`
	Iters int `json:"iters"`
	// Hidden units of the two-layer tanh MLPs.
	Hidden int `json:"hidden"`
	// Gamma, Lambda of GAE; Clip of PPO; EntCoef the entropy bonus.
	Gamma   float64 `json:"gamma"`
	Lambda  float64 `json:"lambda"`
	Clip    float64 `json:"clip"`
	EntCoef float64 `json:"ent_coef"`
	// Epochs × MiniBatches updates per rollout; learning rates of actor and critic (Adam).
	Epochs      int     `json:"epochs"`
	MiniBatches int     `json:"mini_batches"`
	LRActor     float64 `json:"lr_actor"`
	LRCritic    float64 `json:"lr_critic"`
	MaxGradNorm float64 `json:"max_grad_norm"`
	// ObsScale multiplies observations and states.
	ObsScale float32 `json:"obs_scale"`
	// Reward each agent maximises: "" or "team" — the shared reward (the cooperative default); or
	// "coalition:<topology>" (independent critic only) — agent i is paid Σ_j A_ij·r_j, the individual
	// rewards of its coalition, with A drawn from the topology (topology.Parse, A_ii = 1) once per
	// iteration as TAPE draws it. "coalition:er:0" pays each agent its own reward (a helper whose
	// partner loads is paid nothing for it), "coalition:er:1" the sum — the team reward where the
	// individual rewards sum to it (LBF). [UNVERIFIED] PaperLab's reinterpretation of TAPE's topology
	// as reward sharing (our reinterpretation), not the paper's method, which mixes advantages.
	Reward string `json:"reward,omitempty"`
}

// coalition parses Reward: the topology generator of a coalition reward, or nil for the team reward.
func (c Config) coalition() (topology.Generator, error) {
	switch {
	case c.Reward == "" || c.Reward == "team":
		return nil, nil
	case strings.HasPrefix(c.Reward, "coalition:"):
		if c.Critic != "independent" {
			return nil, fmt.Errorf("ppo: reward %q needs the independent critic (one value per agent), not %q", c.Reward, c.Critic)
		}
		return topology.Parse(strings.TrimPrefix(c.Reward, "coalition:"))
	}
	return nil, fmt.Errorf("ppo: reward %q, want team or coalition:<topology> (e.g. coalition:er:0.3)", c.Reward)
}

// Default is the configuration used on small Level-Based Foraging tasks.
func Default(scenario, critic string) Config {
	return Config{Scenario: scenario, Critic: critic, Envs: 16, Steps: 50, Iters: 200, Hidden: 64, Gamma: 0.99, Lambda: 0.95,
		Clip: 0.2, EntCoef: 0.01, Epochs: 4, MiniBatches: 4, LRActor: 5e-4, LRCritic: 1e-3, MaxGradNorm: 10, ObsScale: 0.125}
}

// Validate names an invalid field.
func (c Config) Validate() error {
	if c.Critic != "independent" && c.Critic != "central" {
		return fmt.Errorf("ppo: critic %q, want independent or central", c.Critic)
	}
	if c.Envs < 1 || c.Steps < 1 || c.Iters < 1 || c.Hidden < 1 || c.Epochs < 1 || c.MiniBatches < 1 {
		return fmt.Errorf("ppo: envs, steps, iters, hidden, epochs and mini_batches must be ≥ 1 (%+v)", c)
	}
	_, err := c.coalition()
	return err
}

// Hooks are optional callbacks.
type Hooks struct {
	Progress track.Progress
	// OnIter sees each iteration's latest value of every curve against environment steps (a live
	// plot in a notebook: plot.Live.Step).
	OnIter func(envSteps int, metrics map[string]float64)
	// Eval, when set, is called with the actor before the first iteration and after every
	// EvalEvery-th and the last one; each metric it returns becomes a curve point (a greedy win
	// rate, say). It must not train the actor.
	Eval      func(iter, envSteps int, actor *ac.Net) (map[string]float64, error)
	EvalEvery int
}

// CoalitionRewards pays every agent the rewards of its coalition: out[k·n+i] = Σ_j topo[i][j]·r[k·n+j]
// for every step k of r (individual rewards, n per step).
func CoalitionRewards(topo topology.Matrix, r []float64, n int) []float64 {
	out := make([]float64, len(r))
	for k := 0; k+n <= len(r); k += n {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				out[k+i] += topo[i][j] * r[k+j]
			}
		}
	}
	return out
}

// Train runs multi-agent PPO and returns the curves against environment steps: episodic_return,
// value_loss, policy_loss, entropy, approx_kl, clip_ratio, explained_variance, SPS.
func Train(cfg Config, seed uint64, hooks Hooks) (_ track.Curves, _ *ac.Net, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
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
	n, na := sp.Agents, sp.Actions
	obsDim := sp.ObsSize + n
	actor, err := ac.NewNet(be, []int{obsDim, cfg.Hidden, cfg.Hidden, na}, 0.01, seed)
	if err != nil {
		return nil, nil, err
	}
	criticIn := obsDim
	if cfg.Critic == "central" {
		criticIn = sp.StateSize
	}
	critic, err := ac.NewNet(be, []int{criticIn, cfg.Hidden, cfg.Hidden, 1}, 1, seed+1)
	if err != nil {
		return nil, nil, err
	}
	trA, err := ac.NewActorTrainer(actor, cfg.LRActor, cfg.Clip, cfg.EntCoef, cfg.MaxGradNorm)
	if err != nil {
		return nil, nil, err
	}
	trC, err := ac.NewValueTrainer(critic, cfg.LRCritic, cfg.MaxGradNorm)
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
	r := rand.New(rand.NewPCG(seed, 0x70706f))
	coal, _ := cfg.coalition()
	rtopo := rand.New(rand.NewPCG(seed, 0x746f706f)) // the coalitions' own stream: the team reward's runs draw the same actions
	curves := track.Curves{}
	start := time.Now()
	envSteps := 0
	evaluate := func(it int) error {
		if hooks.Eval == nil {
			return nil
		}
		m, err := hooks.Eval(it, envSteps, actor)
		if err != nil {
			return fmt.Errorf("evaluation after iteration %d: %w", it, err)
		}
		for k, v := range m {
			curves.Add(k, float64(envSteps), v)
		}
		return nil
	}
	if err := evaluate(0); err != nil {
		return curves, actor, err
	}
	var recent []float64
	for it := 1; it <= cfg.Iters; it++ {
		ro, err := sampler.Collect(cfg.Steps, false)
		if err != nil {
			return curves, actor, err
		}
		envSteps += ro.T * ro.E
		recent = append(recent, ro.EpisodeReturns...)
		// Values of every sample and of the states after the last step.
		var vin, vlast []float32
		var rows, lastRows int
		if cfg.Critic == "central" {
			vin, rows, vlast, lastRows = ro.State, ro.T*ro.E, ro.LastState, ro.E
		} else {
			vin, rows, vlast, lastRows = ro.Obs, ro.T*ro.E*n, ro.LastObs, ro.E*n
		}
		vals, err := critic.Apply(vin, rows)
		if err != nil {
			return curves, actor, err
		}
		last, err := critic.Apply(vlast, lastRows)
		if err != nil {
			return curves, actor, err
		}
		// GAE per stream: per (env, agent) for IPPO, per env for MAPPO (then shared by the agents).
		streams := ro.E
		if cfg.Critic == "independent" {
			streams = ro.E * n
		}
		var paid []float64 // [T·E·N] with a coalition reward: what each agent is paid
		if coal != nil {
			topo := coal.Sample(rtopo, n)
			paid = CoalitionRewards(topo, ro.AgentRew, n)
			curves.Add("topology_density", float64(envSteps), topo.Density())
		}
		advS := make([]float64, ro.T*streams)
		retS := make([]float64, ro.T*streams)
		for s := 0; s < streams; s++ {
			envIdx := s
			if cfg.Critic == "independent" {
				envIdx = s / n
			}
			rw, vs, ds := make([]float64, ro.T), make([]float64, ro.T), make([]bool, ro.T)
			for t := 0; t < ro.T; t++ {
				rw[t], ds[t] = ro.Rew[t*ro.E+envIdx], ro.Done[t*ro.E+envIdx]
				if paid != nil { // stream s is (env s/n, agent s%n)
					rw[t] = paid[t*ro.E*n+s]
				}
				vs[t] = float64(vals[t*streams+s])
			}
			a, rt := ac.GAE(rw, vs, ds, float64(last[s]), cfg.Gamma, cfg.Lambda)
			for t := 0; t < ro.T; t++ {
				advS[t*streams+s], retS[t*streams+s] = a[t], rt[t]
			}
		}
		// Per-agent advantages (index (t·E+e)·N+i).
		adv := make([]float64, ro.T*ro.E*n)
		for t := 0; t < ro.T; t++ {
			for e := 0; e < ro.E; e++ {
				for i := 0; i < n; i++ {
					s := e
					if cfg.Critic == "independent" {
						s = e*n + i
					}
					adv[(t*ro.E+e)*n+i] = advS[t*streams+s]
				}
			}
		}
		adv = ac.Normalize(adv)
		am, err := ac.Minibatches(len(adv), cfg.Epochs, cfg.MiniBatches, r, func(idx []int) (nn.StepStats, error) {
			return trA.Update(ac.ActorBatch(ro, adv, idx))
		})
		if err != nil {
			return curves, actor, fmt.Errorf("iteration %d actor: %w", it, err)
		}
		cm, err := ac.Minibatches(len(retS), cfg.Epochs, cfg.MiniBatches, r, func(idx []int) (nn.StepStats, error) {
			return trC.Update(ac.ValueBatch(vin, criticIn, retS, idx))
		})
		if err != nil {
			return curves, actor, fmt.Errorf("iteration %d critic: %w", it, err)
		}
		vf := make([]float64, len(vals))
		for i, v := range vals {
			vf[i] = float64(v)
		}
		x := float64(envSteps)
		ac.AddActorCurves(curves, x, am)
		curves.Add("value_loss", x, cm["loss"])
		curves.Add("explained_variance", x, ac.ExplainedVariance(vf, retS))
		curves.Add("SPS", x, float64(envSteps)/time.Since(start).Seconds())
		if it == cfg.Iters || hooks.EvalEvery > 0 && it%hooks.EvalEvery == 0 {
			if err := evaluate(it); err != nil {
				return curves, actor, err
			}
		}
		hooks.Progress.Update(it, ac.FlushReturns(curves, x, &recent))
		if hooks.OnIter != nil {
			last := map[string]float64{}
			for k := range curves {
				if v, ok := curves.Last(k); ok {
					last[k] = v
				}
			}
			hooks.OnIter(envSteps, last)
		}
	}
	return curves, actor, nil
}

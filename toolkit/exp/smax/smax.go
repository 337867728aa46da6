// Package smax is the experiment "smax": multi-agent policy gradients on SMAX, PaperLab's Go
// implementation of JaxMARL's StarCraft-style micro-management environment (toolkit/marl/env/smax),
// the benchmark TAPE's and M3APG's papers report on (as SMAC). Its first part, "gate", trains
// MAPPO and IPPO (marl/ppo) on 3m against SMAX's heuristic enemy and asks whether MAPPO wins: TAPE
// and M3APG are compared on SMAX only once a plain MAPPO learns there. The whole loop of each run is
// marl/ppo.Train; this package configures, evaluates and records it.
package smax

import (
	"fmt"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	smaxenv "github.com/paperlab/paperlab/toolkit/marl/env/smax"
	"github.com/paperlab/paperlab/toolkit/marl/ppo"
)

// Method is one learner of the gate: marl/ppo with a critic ("central": MAPPO's V(s),
// "independent": IPPO's V(o_i)).
type Method struct {
	Name   string `json:"name"`
	Critic string `json:"critic"`
}

// Config of experiment "smax".
type Config struct {
	// Scenario is the SMAX map the gate is judged on ("smax:3m-norm": 3m with the global state
	// normalised for a tanh critic, smaxenv.Config.NormalizeState).
	Scenario string   `json:"scenario"`
	Methods  []Method `json:"methods"`
	// PPO holds the settings every method shares (its Scenario and Critic are set per method).
	PPO ppo.Config `json:"ppo"`
	// EvalEvery iterations the actor plays EvalEpisodes greedy battles (curve greedy_win_rate);
	// after training FinalEpisodes more (final greedy_win_rate), each battle from its own seed.
	EvalEvery     int `json:"eval_every"`
	EvalEpisodes  int `json:"eval_episodes"`
	FinalEpisodes int `json:"final_episodes"`
	// GateWinRate is the greedy win rate MAPPO must reach on Scenario, on the mean over seeds, for
	// the TAPE and M3APG parts to be read on SMAX (0.9, fixed by the issue that asked for it before
	// any run).
	GateWinRate float64 `json:"gate_win_rate"`
	// MaxTailClimb: a method has stopped improving when its greedy win rate changes by at most this
	// much over the last TailFrac of training (a least-squares line's change across that window, per
	// seed, on the upper end of the 95 % interval over seeds). [UNVERIFIED] PaperLab's choice: 0.05,
	// about one battle in 20.
	MaxTailClimb float64 `json:"max_tail_climb"`
	TailFrac     float64 `json:"tail_frac"`
}

// ConfigFor is the preset of a scale. Default: JaxMARL's MAPPO settings for SMAX
// (baselines/MAPPO/config/mappo_homogenous_rnn_smax.yaml: Adam 2e-3, 4 epochs × 4 mini-batches,
// γ 0.99, GAE λ 0.95, clip 0.2, no entropy bonus, gradient norm 0.25, the agent id in the input)
// with an MLP instead of its GRU, 64 games × 64 steps per update instead of 128 × 128, and 400
// updates (1.6 M steps) instead of 1e7 steps: the differences `paperlab settings smax` lists.
func ConfigFor(s exp.Scale) Config {
	p := ppo.Default("smax:3m-norm", "central")
	p.Envs, p.Steps, p.Iters, p.Hidden = 64, 64, 400, 64
	p.LRActor, p.LRCritic, p.EntCoef, p.Epochs, p.MiniBatches, p.MaxGradNorm, p.ObsScale = 2e-3, 2e-3, 0, 4, 4, 0.25, 1
	c := Config{Scenario: "smax:3m-norm", Methods: []Method{{"mappo", "central"}, {"ippo", "independent"}}, PPO: p,
		EvalEvery: 20, EvalEpisodes: 32, FinalEpisodes: 128, GateWinRate: 0.9, MaxTailClimb: 0.05, TailFrac: 0.2}
	if s == exp.Smoke {
		c.PPO.Envs, c.PPO.Steps, c.PPO.Iters, c.PPO.Hidden = 4, 16, 20, 16
		c.EvalEvery, c.EvalEpisodes, c.FinalEpisodes = 1, 4, 8
	}
	return c
}

// Validate names an invalid field.
func (c Config) Validate() error {
	switch {
	case len(c.Methods) == 0:
		return fmt.Errorf("smax: no methods")
	case c.EvalEvery < 1 || c.EvalEpisodes < 1 || c.FinalEpisodes < 1:
		return fmt.Errorf("smax: eval_every %d, eval_episodes %d and final_episodes %d must be ≥ 1", c.EvalEvery, c.EvalEpisodes, c.FinalEpisodes)
	case c.TailFrac <= 0 || c.TailFrac >= 1:
		return fmt.Errorf("smax: tail_frac %v must lie in (0, 1)", c.TailFrac)
	}
	if _, err := env.Make(c.Scenario); err != nil {
		return fmt.Errorf("smax: scenario: %w", err)
	}
	for _, m := range c.Methods {
		p := c.PPO
		p.Scenario, p.Critic = c.Scenario, m.Critic
		if err := p.Validate(); err != nil {
			return fmt.Errorf("smax: method %s: %w", m.Name, err)
		}
	}
	return nil
}

// WinRate plays episodes greedy battles from seeds seed, seed+1, … and returns the share won
// (Info "won") and the mean return.
func WinRate(scenario string, actor *ac.Net, scale float32, episodes int, seed uint64) (float64, float64, error) {
	eps, err := ppo.Play(scenario, actor, scale, episodes, seed, true)
	if err != nil {
		return 0, 0, err
	}
	var won, ret float64
	for _, e := range eps {
		won += e.Info["won"]
		ret += e.Return
	}
	return won / float64(len(eps)), ret / float64(len(eps)), nil
}

// Battle is one greedy battle of the first seed's MAPPO actor, replayable: the reset seed and the
// allies' actions at every step (the enemy and the jitter come from the state's generator).
type Battle struct {
	Scenario string  `json:"scenario"`
	Seed     uint64  `json:"seed"`
	Actions  [][]int `json:"actions"`
	Won      bool    `json:"won"`
}

// Run trains every method on every seed and records its curves (episodic_return, greedy_win_rate,
// entropy, …) and final metrics (greedy_win_rate on FinalEpisodes battles, greedy_return,
// env_steps), and the first seed's MAPPO battle (Extra "battle").
func Run(opt exp.Options) (*exp.Result, error) {
	return exp.RunSeeds("smax", opt, ConfigFor, Config.Validate, func(cfg Config, seed uint64, res *exp.Result) error {
		for _, m := range cfg.Methods {
			p := cfg.PPO
			p.Scenario, p.Critic = cfg.Scenario, m.Critic
			t0 := time.Now()
			// Evaluation battles are seeded apart from the training games (which Reset from seed).
			evalSeed := 1_000_000 + 1000*seed
			curves, actor, err := ppo.Train(p, seed, ppo.Hooks{Progress: opt.Progress(fmt.Sprintf("smax seed %d: %s", seed, m.Name), p.Iters),
				EvalEvery: cfg.EvalEvery, Eval: func(it, _ int, a *ac.Net) (map[string]float64, error) {
					w, r, err := WinRate(p.Scenario, a, p.ObsScale, cfg.EvalEpisodes, evalSeed+uint64(it))
					return map[string]float64{"greedy_win_rate": w, "greedy_return": r}, err
				}})
			if err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			w, r, err := WinRate(p.Scenario, actor, p.ObsScale, cfg.FinalEpisodes, 2_000_000+1000*seed)
			if err != nil {
				actor.Close()
				return err
			}
			if m.Name == "mappo" && seed == res.Seeds[0] {
				b, err := battle(p.Scenario, actor, p.ObsScale, 3_000_000+seed)
				if err != nil {
					actor.Close()
					return err
				}
				if err := res.SetExtra("battle", b); err != nil {
					actor.Close()
					return err
				}
			}
			actor.Close()
			run := exp.Run{Method: m.Name, Seed: seed, Curves: map[string]exp.Curve{}, Seconds: time.Since(t0).Seconds(),
				Final: map[string]float64{"greedy_win_rate": w, "greedy_return": r, "env_steps": float64(p.Envs * p.Steps * p.Iters)}}
			for k, c := range curves {
				run.Curves[k] = exp.Curve(c)
			}
			res.Runs = append(res.Runs, run)
			res.Timing[m.Name] += run.Seconds
			fmt.Fprintf(opt.Log, "seed %d %-5s: greedy win rate %.3f (return %.3f) after %d env steps, %.0f s\n", seed, m.Name, w, r, p.Envs*p.Steps*p.Iters, run.Seconds)
		}
		return nil
	})
}

// battle plays one greedy battle of the actor from seed and records its actions.
func battle(scenario string, actor *ac.Net, scale float32, seed uint64) (Battle, error) {
	eps, err := ppo.Play(scenario, actor, scale, 1, seed, true)
	if err != nil {
		return Battle{}, err
	}
	return Battle{Scenario: scenario, Seed: seed, Actions: eps[0].Actions, Won: eps[0].Info["won"] == 1}, nil
}

// Replay steps a recorded battle again and returns its states, first to last.
func Replay(b Battle) (*smaxenv.Env, []*smaxenv.State, error) {
	e, err := env.Make(b.Scenario)
	if err != nil {
		return nil, nil, err
	}
	se := e.(*smaxenv.Env)
	st, _, err := e.Reset(b.Seed)
	if err != nil {
		return nil, nil, err
	}
	states := []*smaxenv.State{st.Clone().(*smaxenv.State)}
	for t, acts := range b.Actions {
		next, _, err := e.Step(st, acts)
		if err != nil {
			return nil, nil, fmt.Errorf("battle step %d: %w", t, err)
		}
		st = next
		states = append(states, st.Clone().(*smaxenv.State))
	}
	return se, states, nil
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "smax",
		Description: "SMAX (JaxMARL's StarCraft micro-management, in Go): MAPPO and IPPO against the heuristic enemy on 3m — the gate before TAPE and M3APG are compared there",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 5},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
		Room:        Room,
		Paper:       PaperSettings,
		Doc:         "toolkit/exp/smax/README.md",
	})
}

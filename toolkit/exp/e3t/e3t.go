// Package e3t is experiment "e3t": zero-shot human-AI coordination in Overcooked (shared/papers §7).
// Methods per layout and seed: PPO self-play (sp); FCP-lite (a best response to the population of
// every SP seed's final agent and its past checkpoints); E3T (the ego with an ε-mixture partner and a
// partner model); E3T without the partner model; and an ε sweep. Every method is judged only by
// held-out partners it never trained with: scripted onion-carrier, dish-server and noisy greedy cooks,
// and SP agents trained from independent seeds, in both player positions.
// The paper's claim: E3T beats SP with unseen partners and matches the population baseline at a
// fraction of its training cost.
package e3t

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	e3 "github.com/paperlab/paperlab/toolkit/marl/e3t"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// Method is one training condition.
type Method struct {
	Name         string  `json:"name"`
	Mode         string  `json:"mode"` // sp, e3t, fcp
	Epsilon      float64 `json:"epsilon,omitempty"`
	PartnerModel bool    `json:"partner_model,omitempty"`
	// Layouts restricts the method to some layouts (the ε sweep runs on the first only).
	FirstLayoutOnly bool `json:"first_layout_only,omitempty"`
}

// Config of experiment "e3t".
type Config struct {
	Layouts []string `json:"layouts"`
	// Game rules (horizon, cook time) shared by the layouts.
	Horizon  int       `json:"horizon"`
	CookTime int       `json:"cook_time"`
	Train    e3.Config `json:"train"`
	Methods  []Method  `json:"methods"`
	// HeldOutSeeds are the seeds of the SP agents used only as evaluation partners.
	HeldOutSeeds []uint64 `json:"held_out_seeds"`
	// EvalEpisodes per partner (half in each player position).
	EvalEpisodes int `json:"eval_episodes"`
	// MonitorEvery iterations the ego is evaluated with the noisy greedy partner (the efficiency
	// curves against environment steps and wall time).
	MonitorEvery int `json:"monitor_every"`
	// CrossPlayEpisodes per pair of trained agents in the method × method cross-play (agents of
	// different seeds only; half the episodes in each seat).
	CrossPlayEpisodes int `json:"crossplay_episodes"`
}

// CrossPlay is the method × method cross-play of one layout: Mean[i][j] is the mean return of
// method i's agents with method j's agents over every pair of different seeds.
type CrossPlay struct {
	Methods []string    `json:"methods"`
	Mean    [][]float64 `json:"mean"`
}

// ConfigFor returns the configuration at a scale.
func ConfigFor(s exp.Scale) Config {
	c := Config{
		Layouts: []string{"cramped_room", "coordination_ring"}, Horizon: 400, CookTime: 20,
		Methods: []Method{
			{Name: "sp", Mode: "sp"},
			{Name: "fcp", Mode: "fcp"},
			{Name: "e3t", Mode: "e3t", Epsilon: 0.5, PartnerModel: true},
			{Name: "e3t-nopm", Mode: "e3t", Epsilon: 0.5},
			{Name: "e3t-eps0.3", Mode: "e3t", Epsilon: 0.3, PartnerModel: true, FirstLayoutOnly: true},
			{Name: "e3t-eps0.7", Mode: "e3t", Epsilon: 0.7, PartnerModel: true, FirstLayoutOnly: true},
		},
		HeldOutSeeds: []uint64{101, 102}, EvalEpisodes: 8, MonitorEvery: 10, CrossPlayEpisodes: 4,
	}
	c.Train = e3.Default(overcooked.Config{}, "sp")
	c.Train.Iters = 70
	if s == exp.Smoke {
		c.Horizon, c.CookTime, c.EvalEpisodes, c.MonitorEvery, c.CrossPlayEpisodes = 40, 5, 2, 1, 2
		c.Train.Iters, c.Train.Envs = 2, 2
		c.HeldOutSeeds = []uint64{101}
	}
	return c
}

// game is the Overcooked configuration of a layout.
func (c Config) game(layout string) overcooked.Config {
	g := overcooked.DefaultConfig(layout)
	g.Horizon, g.Rules.CookTime = c.Horizon, c.CookTime
	return g
}

// Partners are the held-out evaluation partners of a layout, by name.
func partners(c Config, layout string, opt exp.Options, res *exp.Result) (map[string]e3.Agent, error) {
	out := map[string]e3.Agent{}
	for name, s := range overcooked.ScriptedPartners {
		out[name] = e3.ScriptedAgent{Scripted: s}
	}
	for _, seed := range c.HeldOutSeeds {
		tc := c.Train
		tc.Game, tc.Mode = c.game(layout), "sp"
		start := time.Now()
		r, err := e3.Train(tc, seed, e3.Options{Progress: opt.Progress(fmt.Sprintf("held-out sp %s seed %d", layout, seed), tc.Iters)})
		if err != nil {
			return nil, err
		}
		res.Timing["heldout_sp_"+layout] += time.Since(start).Seconds()
		out[fmt.Sprintf("sp-seed%d", seed)] = r.Policy
	}
	return out, nil
}

// Run is the experiment.
func Run(opt exp.Options) (*exp.Result, error) {
	cfg, err := exp.ConfigOf(opt, ConfigFor)
	if err != nil {
		return nil, err
	}
	seeds := exp.SeedList(opt.Seeds)
	res, err := exp.NewResult("e3t", opt, seeds, cfg)
	if err != nil {
		return nil, err
	}
	for li, layout := range cfg.Layouts {
		if err := runLayout(opt, res, cfg, seeds, li, layout); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// runLayout trains and evaluates every method on one layout, then frees its networks (the engine
// holds them in native memory until closed).
func runLayout(opt exp.Options, res *exp.Result, cfg Config, seeds []uint64, li int, layout string) error {
	held, err := partners(cfg, layout, opt, res)
	defer func() {
		for _, a := range held {
			if p, ok := a.(*e3.Policy); ok {
				p.Close()
			}
		}
	}()
	if err != nil {
		return err
	}
	var names []string
	for n := range held {
		names = append(names, n)
	}
	sort.Strings(names)
	if li == 0 {
		if err := res.SetExtra("partners", names); err != nil {
			return err
		}
	}
	// Self-play first: FCP's population is every SP seed's agent and its past checkpoints.
	var population []e3.Agent
	trained := map[string][]*e3.Policy{} // per method, by seed: the cross-play agents
	var order []string
	defer func() {
		for _, a := range population {
			a.(*e3.Policy).Close()
		}
		for _, m := range order {
			if m != "sp" { // SP's agents are in the population
				for _, p := range trained[m] {
					p.Close()
				}
			}
		}
	}()
	keep := func(method string, p *e3.Policy) {
		if len(trained[method]) == 0 {
			order = append(order, method)
		}
		trained[method] = append(trained[method], p)
	}
	spSteps, spSeconds := 0, 0.0
	for _, seed := range seeds {
		tc := cfg.Train
		tc.Game, tc.Mode = cfg.game(layout), "sp"
		start := time.Now()
		r, err := e3.Train(tc, seed, e3.Options{Monitor: held["noisy-greedy"], MonitorEvery: cfg.MonitorEvery,
			Progress: opt.Progress(fmt.Sprintf("e3t %s sp seed %d", layout, seed), tc.Iters)})
		if err != nil {
			return fmt.Errorf("%s sp seed %d: %w", layout, seed, err)
		}
		keep("sp", r.Policy)
		spSteps += r.EnvSteps
		spSeconds += time.Since(start).Seconds()
		population = append(population, r.Policy)
		for _, w := range r.Snapshots {
			p, err := snapshotPolicy(r.Policy, w)
			if err != nil {
				return err
			}
			population = append(population, p)
		}
		if err := record(opt, res, cfg, layout, "sp", seed, r, 0, 0, held, names, time.Since(start).Seconds()); err != nil {
			return err
		}
	}
	for _, m := range cfg.Methods {
		if m.Mode == "sp" || (m.FirstLayoutOnly && li > 0) {
			continue
		}
		for _, seed := range seeds {
			tc := cfg.Train
			tc.Game, tc.Epsilon, tc.PartnerModel = cfg.game(layout), m.Epsilon, m.PartnerModel
			o := e3.Options{Monitor: held["noisy-greedy"], MonitorEvery: cfg.MonitorEvery,
				Progress: opt.Progress(fmt.Sprintf("e3t %s %s seed %d", layout, m.Name, seed), tc.Iters)}
			extraSteps, extraSeconds := 0, 0.0
			if m.Mode == "fcp" {
				tc.Mode, o.Population = "br", population
				// The population's training counts towards FCP's cost.
				extraSteps, extraSeconds = spSteps, spSeconds
			} else {
				tc.Mode = "e3t"
			}
			start := time.Now()
			r, err := e3.Train(tc, seed, o)
			if err != nil {
				return fmt.Errorf("%s %s seed %d: %w", layout, m.Name, seed, err)
			}
			if err := record(opt, res, cfg, layout, m.Name, seed, r, extraSteps, extraSeconds, held, names, time.Since(start).Seconds()); err != nil {
				return err
			}
			if m.Name == "e3t" && seed == seeds[0] && li == 0 {
				if err := recordEpisode(res, cfg.game(layout), r.Policy, held["noisy-greedy"]); err != nil {
					return err
				}
			}
			keep(m.Name, r.Policy)
		}
	}
	start := time.Now()
	cp, err := crossPlay(cfg, layout, order, trained)
	if err != nil {
		return err
	}
	res.Timing["crossplay_"+layout] += time.Since(start).Seconds()
	return res.SetExtra("crossplay_"+layout, cp)
}

// crossPlay pairs every method's agents with every method's agents of other seeds.
func crossPlay(cfg Config, layout string, methods []string, agents map[string][]*e3.Policy) (CrossPlay, error) {
	cp := CrossPlay{Methods: methods}
	for i, a := range methods {
		row := make([]float64, len(methods))
		for j, b := range methods {
			sum, n := 0.0, 0
			for sa, pa := range agents[a] {
				for sb, pb := range agents[b] {
					if sa == sb {
						continue
					}
					v, err := e3.Evaluate(cfg.game(layout), pa, pb, cfg.CrossPlayEpisodes, uint64(1000*i+100*j+10*sa+sb))
					if err != nil {
						return cp, fmt.Errorf("cross-play %s × %s: %w", a, b, err)
					}
					sum, n = sum+v, n+1
				}
			}
			if n > 0 {
				row[j] = sum / float64(n)
			}
		}
		cp.Mean = append(cp.Mean, row)
	}
	return cp, nil
}

// snapshotPolicy is a frozen copy of a policy with other actor weights (FCP's past checkpoints).
func snapshotPolicy(p *e3.Policy, w []float32) (*e3.Policy, error) {
	c, err := p.Actor.CloneWeights()
	if err != nil {
		return nil, err
	}
	if err := c.SetWeights(w); err != nil {
		return nil, err
	}
	actor := *p.Actor
	actor.Model = c
	return &e3.Policy{Actor: &actor, PM: p.PM, K: p.K}, nil
}

// record evaluates a trained policy with every held-out partner and adds the run. extraSteps and
// extraSeconds are training that the method needed before its own run (FCP's population).
func record(opt exp.Options, res *exp.Result, cfg Config, layout, method string, seed uint64, r *e3.Result, extraSteps int,
	extraSeconds float64, held map[string]e3.Agent, names []string, seconds float64) error {
	// Keys without a layout aggregate over layouts in the summary (sp, fcp, e3t, e3t-nopm: env_steps,
	// heldout_return); keys "<layout>/…" hold the per-layout numbers.
	final := map[string]float64{}
	put := func(k string, v float64) {
		final[k] = v
		final[layout+"/"+k] = v
	}
	put("env_steps", float64(r.EnvSteps+extraSteps))
	put("train_seconds", seconds+extraSeconds)
	final[layout+"/offset_steps"], final[layout+"/offset_seconds"] = float64(extraSteps), extraSeconds
	sum := 0.0
	for i, n := range names {
		v, err := e3.Evaluate(cfg.game(layout), r.Policy, held[n], cfg.EvalEpisodes, seed*31+uint64(i))
		if err != nil {
			return err
		}
		final[layout+"/partner/"+n] = v
		sum += v
	}
	put("heldout_return", sum/float64(len(names)))
	curves := map[string]exp.Curve{}
	for _, k := range []string{"episodic_return", "monitor_return", "seconds", "pm_accuracy", "entropy"} {
		if c, ok := r.Curves[k]; ok {
			curves[layout+"/"+k] = c
		}
	}
	res.Runs = append(res.Runs, exp.Run{Method: method, Seed: seed, Final: final, Curves: curves, Seconds: seconds})
	res.Timing[layout+"/"+method] += seconds
	fmt.Fprintf(opt.Log, "%s %-10s seed %d: held-out return %.1f (%d env steps, %.0fs)\n", layout, method, seed,
		final["heldout_return"], r.EnvSteps+extraSteps, seconds)
	return nil
}

// Episode is a recorded evaluation game (replayed by Figures to draw the animation).
type Episode struct {
	Layout  overcooked.Config `json:"layout"`
	EgoIdx  int               `json:"ego_idx"`
	Actions [][2]int          `json:"actions"`
	Return  float64           `json:"return"`
}

func recordEpisode(res *exp.Result, g overcooked.Config, ego *e3.Policy, partner e3.Agent) error {
	env, err := overcooked.New(g)
	if err != nil {
		return err
	}
	env.Reset(0)
	ep := Episode{Layout: g, EgoIdx: 0}
	rng := rand.New(rand.NewPCG(7, 0x67696600))
	games := []*overcooked.Env{env}
	ego.Reset(1)
	partner.Reset(1)
	for t := 0; t < g.Horizon; t++ {
		a, err := ego.Act(games, []int{0}, rng)
		if err != nil {
			return err
		}
		b, err := partner.Act(games, []int{1}, rng)
		if err != nil {
			return err
		}
		joint := [2]int{a[0], b[0]}
		out := env.Game.Step(joint, env.Cfg.Rules)
		ep.Return += out.Sparse[0] + out.Sparse[1]
		ep.Actions = append(ep.Actions, joint)
		ego.Saw(b)
		partner.Saw(a)
	}
	return res.SetExtra("episode", ep)
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "e3t",
		Description: "Overcooked zero-shot coordination: SP, FCP-lite, E3T (ε-mixture partner + partner model) judged by held-out partners",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 3},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
		Claims:      Claims,
	})
}

// Package tape is experiment "tape": TAPE's agent-topology policy gradient (shared/papers §4) on the
// 5-agent coordination game of §4.5 (tabular, many seeds) and on a small cooperative Level-Based
// Foraging task (neural actors, DOP-style mixed critic), against the individual (p = 0, DOP) and the
// centralized (p = 1) extremes, graph models at matched density, and IPPO / MAPPO baselines.
// The paper's claim: an inverted U in p — intermediate p beats both extremes.
package tape

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/ppo"
	tp "github.com/paperlab/paperlab/toolkit/marl/tape"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Method is one condition: a topology generator for TAPE, or a baseline ("ippo", "mappo").
type Method struct {
	Name     string `json:"name"`
	Topology string `json:"topology,omitempty"`
	Baseline string `json:"baseline,omitempty"`
}

// Config of experiment "tape".
type Config struct {
	// Matrix game part: the scenario, its methods, seeds (run as 1..MatrixSeeds) and learner.
	MatrixScenario string          `json:"matrix_scenario"`
	MatrixMethods  []Method        `json:"matrix_methods"`
	MatrixSeeds    int             `json:"matrix_seeds"`
	Matrix         tp.MatrixConfig `json:"matrix"`
	// LBF part: the scenario, methods and learner settings (seeds are the experiment's seeds).
	LBFScenario string     `json:"lbf_scenario"`
	LBFMethods  []Method   `json:"lbf_methods"`
	TAPE        tp.Config  `json:"tape"`
	PPO         ppo.Config `json:"ppo"`
	// FinalFrac of the last training iterations averaged into the final "return".
	FinalFrac float64 `json:"final_frac"`
}

var pMethods = []Method{{Name: "p=0", Topology: "er:0"}, {Name: "p=0.3", Topology: "er:0.3"}, {Name: "p=0.5", Topology: "er:0.5"}, {Name: "p=1", Topology: "er:1"}}

// ConfigFor returns the configuration at a scale.
func ConfigFor(s exp.Scale) Config {
	const lbf = "lbf:8x8-2p-2f-coop"
	c := Config{
		MatrixScenario: "matrix:coord5",
		MatrixMethods:  append(append([]Method(nil), pMethods...), Method{Name: "ba(m=1)", Topology: "ba:1"}, Method{Name: "ws(k=2)", Topology: "ws:2:0.2"}),
		MatrixSeeds:    20,
		Matrix:         tp.DefaultMatrix(),
		LBFScenario:    lbf,
		LBFMethods:     append(append([]Method(nil), pMethods...), Method{Name: "ippo", Baseline: "independent"}, Method{Name: "mappo", Baseline: "central"}),
		TAPE:           tp.Default(lbf, "er:0"),
		PPO:            ppo.Default(lbf, "independent"),
		FinalFrac:      0.1,
	}
	c.TAPE.Iters, c.PPO.Iters = 400, 400
	if s == exp.Smoke {
		c.MatrixSeeds, c.Matrix.Iters = 3, 200
		c.TAPE.Iters, c.PPO.Iters, c.TAPE.Envs, c.PPO.Envs = 4, 4, 4, 4
	}
	return c
}

// Run is the experiment.
func Run(opt exp.Options) (*exp.Result, error) {
	cfg, err := exp.ConfigOf(opt, ConfigFor)
	if err != nil {
		return nil, err
	}
	seeds := exp.SeedList(opt.Seeds)
	res, err := exp.NewResult("tape", opt, seeds, cfg)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := runMatrix(cfg, res, opt); err != nil {
		return nil, err
	}
	res.Timing["matrix"] = time.Since(t0).Seconds()
	t1 := time.Now()
	for _, m := range cfg.LBFMethods {
		for _, seed := range seeds {
			run, err := runLBF(cfg, m, seed, opt)
			if err != nil {
				return nil, fmt.Errorf("lbf %s seed %d: %w", m.Name, seed, err)
			}
			res.Runs = append(res.Runs, run)
			res.Timing["lbf_"+m.Name] += run.Seconds
			fmt.Fprintf(opt.Log, "lbf %-8s seed %d: return %.3f (%.0fs, %.0f env steps/s)\n", m.Name, seed, run.Final["return"], run.Seconds, run.Final["sps"])
		}
	}
	res.Timing["lbf"] = time.Since(t1).Seconds()
	for _, m := range cfg.MatrixMethods {
		if g, err := topology.Parse(m.Topology); err == nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: mean off-diagonal density on 5 agents %.2f", m.Name, topology.MeanDensity(g, 5, 2000, 1)))
		}
	}
	return res, nil
}

func runMatrix(cfg Config, res *exp.Result, opt exp.Options) error {
	e, err := env.Make(cfg.MatrixScenario)
	if err != nil {
		return err
	}
	game, ok := e.(*env.Matrix)
	if !ok {
		return fmt.Errorf("%s is not a matrix game", cfg.MatrixScenario)
	}
	best := math.Inf(-1)
	for _, v := range game.Payoff {
		best = math.Max(best, v)
	}
	for _, m := range cfg.MatrixMethods {
		mc := cfg.Matrix
		mc.Topology = m.Topology
		hits := 0
		for s := 1; s <= cfg.MatrixSeeds; s++ {
			start := time.Now()
			curves, greedy, err := tp.TrainMatrix(game, mc, uint64(s))
			if err != nil {
				return fmt.Errorf("matrix %s seed %d: %w", m.Name, s, err)
			}
			ret := game.Payoff[game.Index(greedy)]
			opt1 := 0.0
			if ret == best {
				opt1, hits = 1, hits+1
			}
			// Learning speed: the mean probability of the optimal joint action over training (area
			// under its curve, in [0,1]).
			pOpt := curves["p_optimal"].Y
			speed := 0.0
			for _, v := range pOpt {
				speed += v / float64(len(pOpt))
			}
			res.Runs = append(res.Runs, exp.Run{Method: m.Name, Seed: uint64(s), Seconds: time.Since(start).Seconds(),
				Final:  map[string]float64{"optimal_rate": opt1, "matrix_return": ret, "p_optimal_auc": speed},
				Curves: map[string]exp.Curve{"matrix/greedy_return": curves["greedy_return"], "matrix/p_optimal": curves["p_optimal"]}})
		}
		fmt.Fprintf(opt.Log, "matrix %-8s optimal in %d/%d seeds\n", m.Name, hits, cfg.MatrixSeeds)
	}
	return nil
}

func runLBF(cfg Config, m Method, seed uint64, opt exp.Options) (exp.Run, error) {
	start := time.Now()
	progress := opt.Progress(fmt.Sprintf("tape lbf %s seed %d", m.Name, seed), cfg.TAPE.Iters)
	var curves track.Curves
	var actor *ac.Net
	var err error
	if m.Baseline != "" {
		pc := cfg.PPO
		pc.Scenario, pc.Critic = cfg.LBFScenario, m.Baseline
		curves, actor, err = ppo.Train(pc, seed, ppo.Hooks{Progress: progress})
	} else {
		tc := cfg.TAPE
		tc.Scenario, tc.Topology = cfg.LBFScenario, m.Topology
		curves, actor, err = tp.Train(tc, seed, tp.Hooks{Progress: progress})
	}
	if err != nil {
		return exp.Run{}, err
	}
	actor.Close()
	ret := curves["episodic_return"]
	k := max(1, int(math.Ceil(cfg.FinalFrac*float64(len(ret.Y)))))
	final := 0.0
	for _, v := range ret.Y[len(ret.Y)-k:] {
		final += v
	}
	final /= float64(k)
	sps, _ := curves.Last("SPS")
	run := exp.Run{Method: m.Name, Seed: seed, Seconds: time.Since(start).Seconds(),
		Final:  map[string]float64{"return": final, "sps": sps, "env_steps": ret.X[len(ret.X)-1]},
		Curves: map[string]exp.Curve{}}
	for _, key := range curves.Names() {
		run.Curves["lbf/"+key] = curves[key]
	}
	return run, nil
}

// PValue reads p from a method name "p=…" (false for other methods).
func PValue(name string) (float64, bool) {
	if !strings.HasPrefix(name, "p=") {
		return 0, false
	}
	var p float64
	_, err := fmt.Sscanf(name, "p=%g", &p)
	return p, err == nil
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "tape",
		Description: "TAPE agent-topology policy gradient: coordination game (optimal rate) and cooperative LBF (return) against p",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 5},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
		Claims:      Claims,
	})
}

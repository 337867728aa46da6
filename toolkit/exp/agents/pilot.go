package agents

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	gw "github.com/paperlab/paperlab/toolkit/agents/gridworld"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// PilotConfig is experiment "agents-pilot": which way of binding the goal's colour (Config.Bind)
// the default pretraining uses, picked on the room checks the claims need before any claim is
// read. On each seed it pretrains one agent per arm of Arms on the same data (the main run's types
// and worlds; the pairs arm half as many worlds, each demonstrated twice), as the main run
// pretrains (to convergence), and measures each on fresh worlds of its own task types: its success
// against the colour-blind navigator on the same worlds (colour_gap), the colour swap's drop in
// success (swap_drop) and its validation accuracy over the data's noise ceiling. Nothing is
// adapted or evaluated on the held-out task types.
type PilotConfig struct {
	Config
	Arms []string `json:"arms"`
}

// Thresholds of the pilot's pick (fixed before its run, 2026-12-07).
const (
	// MinSwapDrop is the drop in success, on the agent's own task types, that naming another colour
	// in the prefix must cause (mean over seeds) for the arm to count as reading the colour: the
	// issue's 0.2 (the protocol before the pilot dropped 0.07).
	MinSwapDrop = 0.2
)

// PilotConfigFor is the pilot at a scale: the main run's configuration, every arm. Bind (each arm
// sets its own) stays at BindNone, and fields of the main run's later protocol that the pilot does
// not read (the MLPs' tuning) at their zero values, so that the configuration its committed run
// recorded is still the preset's and a notebook reloads it.
func PilotConfigFor(s exp.Scale) PilotConfig {
	c := ConfigFor(s)
	c.Bind, c.BCLRs, c.BCEvalEvery = BindNone, nil, 0
	return PilotConfig{Config: c, Arms: BindArms}
}

// Validate names an arm the pilot cannot run.
func (c PilotConfig) Validate() error {
	if len(c.Arms) == 0 {
		return fmt.Errorf("agents-pilot: no arms")
	}
	for _, arm := range c.Arms {
		a := c.Config
		a.Bind = arm
		if err := a.Validate(); err != nil {
			return fmt.Errorf("agents-pilot arm %q: %w", arm, err)
		}
	}
	return nil
}

// RunPilot is the pilot.
func RunPilot(opt exp.Options) (*exp.Result, error) {
	return exp.RunSeeds("agents-pilot", opt, PilotConfigFor, PilotConfig.Validate, func(pc PilotConfig, seed uint64, res *exp.Result) error {
		for _, arm := range pc.Arms {
			t0 := time.Now()
			cfg := pc.Config
			cfg.Bind = arm
			rec := &exp.Run{Method: arm, Seed: seed, Final: map[string]float64{}, Curves: map[string]exp.Curve{}}
			r := &run{cfg: cfg, seed: seed, opt: opt, res: res, runs: map[string]*exp.Run{"pretrained": rec}}
			types, rng := pretrainTypes(seed, cfg.Diversity)
			po, err := r.pretrain(pretraining{types: types, perTask: cfg.PerTask, steps: cfg.PretrainSteps, dataSeed: mainDataSeed(seed, len(types)), rng: rng,
				label: fmt.Sprintf("agents-pilot seed %d: pretraining, %s", seed, arm)})
			if err != nil {
				return fmt.Errorf("arm %s: %w", arm, err)
			}
			recordPretraining(rec, cfg, po, types)
			err = r.rooms(po.agent, types)
			po.agent.Close()
			if err != nil {
				return fmt.Errorf("arm %s: %w", arm, err)
			}
			f := rec.Final
			f["pretrain_success"] = f["indist/success"]
			f["swap_drop"] = f["indist/success"] - f["swap/success"]
			f["colour_gap"] = f["indist/success"] - f["ref/"+gw.RefColourBlind+"/indist/success"]
			acc, ok := f["pretrain_val_accuracy_colour"]
			if !ok {
				acc = f["pretrain_val_accuracy"]
			}
			f["val_over_ceiling"] = acc / f["pretrain_noise_ceiling"]
			rec.Seconds = time.Since(t0).Seconds()
			res.Timing[arm] += rec.Seconds
			res.Runs = append(res.Runs, *rec)
			fmt.Fprintf(opt.Log, "seed %d %s: %d steps (plateau %d, cap hit %v), success %.3f, colour-blind gap %+.3f, swap drop %+.3f, validation accuracy %.3f of the ceiling, %.0f s\n",
				seed, arm, po.steps, po.plateau, po.hitCap, f["indist/success"], f["colour_gap"], f["swap_drop"], f["val_over_ceiling"], rec.Seconds)
		}
		return nil
	})
}

// PilotRow is one arm's line of the pilot's table: per measure the mean over seeds and the 95 %
// t-interval [Lo, Hi] of it (the gap's lower end is the gate's statistic), the seeds whose stable
// phase hit its cap, and whether the arm binds the colour (Binds: swap drop mean ≥ MinSwapDrop and
// the colour-blind gap's lower end above 0).
type PilotRow struct {
	Arm                  string
	Seeds                int
	Gap, GapLo, GapHi    float64
	Swap, SwapLo, SwapHi float64
	Val, ValLo, ValHi    float64
	Success              float64
	CapHits              int
	Binds                bool
}

// PilotTable is the pilot's table in the order of its arms, and the pick: among the arms that bind
// the colour, the one with the largest mean colour-blind gap ("" when none binds it).
func PilotTable(res *exp.Result) (rows []PilotRow, pick string) {
	var pc PilotConfig
	_ = json.Unmarshal(res.Config, &pc)
	best := math.Inf(-1)
	for _, arm := range pc.Arms {
		row := PilotRow{Arm: arm}
		var gap, swap, val, succ []float64
		for _, s := range res.Seeds {
			if v, ok := res.Final(arm, "colour_gap", s); ok {
				gap = append(gap, v)
				w, _ := res.Final(arm, "swap_drop", s)
				x, _ := res.Final(arm, "val_over_ceiling", s)
				y, _ := res.Final(arm, "pretrain_success", s)
				swap, val, succ = append(swap, w), append(val, x), append(succ, y)
				if c, _ := res.Final(arm, "pretrain_hit_cap", s); c > 0 {
					row.CapHits++
				}
			}
		}
		row.Seeds = len(gap)
		if row.Seeds == 0 {
			continue
		}
		row.Gap, row.GapLo, row.GapHi = meanCI(gap)
		row.Swap, row.SwapLo, row.SwapHi = meanCI(swap)
		row.Val, row.ValLo, row.ValHi = meanCI(val)
		row.Success = stats.Mean(succ)
		row.Binds = row.Swap >= MinSwapDrop && row.GapLo > 0
		if row.Binds && row.Gap > best {
			best, pick = row.Gap, arm
		}
		rows = append(rows, row)
	}
	return rows, pick
}

// meanCI is the mean of xs and its 95 % t-interval (NaN ends for fewer than two values).
func meanCI(xs []float64) (m, lo, hi float64) {
	m, sd := stats.MeanStd(xs)
	if len(xs) < 2 {
		return m, math.NaN(), math.NaN()
	}
	h := stats.TQuantile(0.975, len(xs)-1) * sd / math.Sqrt(float64(len(xs)))
	return m, m - h, m + h
}

// PilotMarkdown is the pilot's table as Markdown, with the pick.
func PilotMarkdown(res *exp.Result) string {
	rows, pick := PilotTable(res)
	s := fmt.Sprintf("| arm | seeds | success (own types) | − colour-blind navigator [95 %% CI] | swap drop [95 %% CI] | validation accuracy / noise ceiling [95 %% CI] | stable phase hit its cap | binds the colour |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		s += fmt.Sprintf("| %s | %d | %.3f | %+.3f [%+.3f, %+.3f] | %+.3f [%+.3f, %+.3f] | %.3f [%.3f, %.3f] | %d of %d | %v |\n",
			r.Arm, r.Seeds, r.Success, r.Gap, r.GapLo, r.GapHi, r.Swap, r.SwapLo, r.SwapHi, r.Val, r.ValLo, r.ValHi, r.CapHits, r.Seeds, map[bool]string{true: "yes", false: "no"}[r.Binds])
	}
	if pick == "" {
		return s + fmt.Sprintf("\nNo arm binds the colour (swap drop ≥ %g and the colour-blind gap's lower end > 0).\n", MinSwapDrop)
	}
	return s + fmt.Sprintf("\nPick: **%s** (of the arms with swap drop ≥ %g and the colour-blind gap's lower end > 0, the largest mean gap).\n", pick, MinSwapDrop)
}

// PilotFigures draws the pilot's three measures per arm (mean and 95 % interval over seeds) and
// every arm's validation accuracy along pretraining.
func PilotFigures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var pc PilotConfig
	_ = json.Unmarshal(res.Config, &pc)
	var panels []plot.Metric
	for _, m := range []struct {
		key, title string
		prob       bool
	}{{"colour_gap", "success − colour-blind navigator (own task types)", false}, {"swap_drop", fmt.Sprintf("success drop when the prefix names another colour (≥ %g binds)", MinSwapDrop), false},
		{"val_over_ceiling", "validation action accuracy / noise ceiling", false}} {
		pm := plot.Metric{Title: m.title, Better: plot.HigherIsBetter}
		for _, arm := range pc.Arms {
			e := exp.Estimate(res, arm, exp.MetricInfo{Key: m.key})
			e.Label = arm
			pm.Estimates = append(pm.Estimates, e)
		}
		panels = append(panels, pm)
	}
	f, err := plot.Dots("colour-binding pilot: does the pretrained agent read the goal's colour?", panels)
	if err == nil {
		f.Subtitle = fmt.Sprintf("dot: mean over %d seeds; bar: 95 %% CI of the mean", len(res.Seeds))
	}
	if err := figs.Add(f, err, "pilot"); err != nil {
		return nil, err
	}
	f, err = plot.Panels("colour-binding pilot: validation action accuracy along pretraining (constant rate to the plateau, then decay)", "optimizer steps", "action accuracy",
		[]plot.Panel{{Title: "validation worlds", Series: exp.CurveSeries(res, "pretrain/val_action_accuracy", pc.Arms)}}, plot.BandOpts{})
	if err := figs.Add(f, err, "pilot_pretraining"); err != nil {
		return nil, err
	}
	return figs.Paths, nil
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "agents-pilot",
		Description: "foundation agents, colour-binding pilot: pretraining only, one agent per way of binding the goal's colour, judged on the room checks (swap drop, colour-blind gap)",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 3},
		Jobs:        2,
		Config:      func(s exp.Scale) any { return PilotConfigFor(s) },
		Run:         RunPilot,
		Figures:     PilotFigures,
		Doc:         "toolkit/exp/agents/README.md",
	})
}

package e3t

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	e3 "github.com/paperlab/paperlab/toolkit/marl/e3t"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
	"github.com/paperlab/paperlab/toolkit/nb"
)

// ShowKitchens prints every Overcooked layout (overcooked.LayoutNames) and, for scale, what two
// greedy scripted cooks score together on cramped_room in one 400-step game (seed 1): what a
// held-out partner pair reaches.
func ShowKitchens() error {
	for _, name := range overcooked.LayoutNames() {
		l, err := overcooked.ParseLayout(name, overcooked.Layouts[name])
		if err != nil {
			return err
		}
		fmt.Printf("%s (%dx%d)\n%s\n", name, l.W, l.H, l)
	}
	kitchen, err := overcooked.New(overcooked.DefaultConfig("cramped_room"))
	if err != nil {
		return err
	}
	var s env.State = kitchen.NewEpisode() // the episode's state: the kitchen holds none
	rng := rand.New(rand.NewPCG(1, 1))
	g := overcooked.Scripted{Role: "greedy"}
	total := 0.0
	for done := false; !done; {
		ep := s.(*overcooked.Episode)
		var tr env.Transition
		if s, tr, err = kitchen.Step(s, []int{g.Act(ep.Game, 0, ep.Cfg.Rules, rng), g.Act(ep.Game, 1, ep.Cfg.Rules, rng)}); err != nil {
			return err
		}
		total, done = total+tr.Info["sparse"], tr.Done
	}
	fmt.Printf("two greedy scripted cooks on cramped_room: %.0f in 400 steps\n%s", total, kitchen.Render(s))
	return nil
}

// TableKeys are the metrics of the notebook's table for one layout: the shared pool's return
// (scripted and learned partners, each learned method's agents, the human-BC partner), the held-out
// return, and the training cost (environment steps and seconds; FCP's include its population).
func TableKeys(layout string) []string {
	var keys []string
	for _, k := range []string{"pool_return", "scripted_return", "learned_return", "learned_sp_return", "learned_fcp_return", "learned_e3t_return", "human_bc_return", "heldout_return", "env_steps", "train_seconds"} {
		keys = append(keys, layout+"/"+k)
	}
	return keys
}

// ShowTables shows a result's tables in a notebook: one per layout (TableKeys), the behaviour-cloning
// fits of the human partner where the result has them, then its notes and timing (exp.ShowTiming).
func ShowTables(res *exp.Result) error {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return fmt.Errorf("e3t: the result's configuration: %w", err)
	}
	for _, layout := range cfg.Layouts {
		nb.Markdown("**" + layout + "** (env steps and seconds: training cost, FCP's including its population)")
		nb.Table(exp.SummaryTable(res, TableKeys(layout)))
	}
	var fits map[string]map[string]float64
	if err := res.GetExtra("bc", &fits); err == nil {
		var rows [][]string
		for _, layout := range cfg.Layouts {
			if f, ok := fits[layout]; ok {
				rows = append(rows, []string{layout, fmt.Sprintf("%.0f / %.0f", f["train_examples"], f["heldout_examples"]),
					fmt.Sprintf("%.3f", f["train_accuracy"]), fmt.Sprintf("%.3f", f["heldout_accuracy"]), fmt.Sprintf("%.3f", f["majority_accuracy"])})
			}
		}
		nb.Markdown("**Behaviour cloning on the human games** (held out: the last 20 % of each game)")
		nb.Table([]string{"layout", "train / held-out examples", "train accuracy", "held-out accuracy", "always the commonest action"}, rows)
	}
	exp.ShowTiming(res)
	nb.Sync()
	return nil
}

// CommittedCook loads the cook of method (sp, fcp, e3t, e3t-nopm, …) that the committed default run
// saved for layout — its seed-1 agent, figures/e3t/checkpoints/<method>/<layout> — onto the default
// engine, with a line saying what saved it ("seed 1, default scale, commit a4bd4d4"): a partner for
// cooks written in a notebook (overcooked.Evaluate).
func CommittedCook(method, layout string) (*e3.Policy, string, error) {
	out, err := exp.OutDir("e3t", exp.Default)
	if err != nil {
		return nil, "", err
	}
	be, _, err := backend.Get()
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Join(exp.Options{Out: out}.CheckpointDir(method, 1), layout) // where the run saved it
	p, meta, err := e3.LoadPolicy(be, dir)
	if err != nil {
		return nil, "", err
	}
	var saved struct {
		Seed          int
		Scale, Commit string
	}
	if err := json.Unmarshal(meta, &saved); err != nil {
		return nil, "", fmt.Errorf("policy %s: meta: %w", dir, err)
	}
	return p, fmt.Sprintf("seed %d, %s scale, commit %.7s", saved.Seed, saved.Scale, saved.Commit), nil
}

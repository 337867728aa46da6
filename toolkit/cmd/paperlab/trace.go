package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// trace prints one JSON line per step of an Overcooked episode: the joint action, each player's
// position, facing and held object, each pot's onions and cooking tick, objects on counters, and the
// sparse and shaped rewards. Actions are random (seeded) unless -actions names a file with one joint
// action per line ("N,INTERACT").
func trace(args []string, w io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("trace: want a scenario first, e.g. `paperlab trace overcooked:cramped_room -steps 20`")
	}
	scenario := args[0]
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	seed := fs.Uint64("seed", 1, "seed of the random actions")
	steps := fs.Int("steps", 0, "number of steps (0: 20 random steps; with -actions, the whole file up to the episode horizon of 400 steps)")
	actions := fs.String("actions", "", "file of joint actions, one line per step, e.g. N,INTERACT (Overcooked) or NONE,LOAD (LBF)")
	state := fs.String("state", "", "lbf: JSON file with the initial state {\"players\": [[row, col, level], …], \"foods\": [[row, col, level], …]} instead of the seeded reset")
	grid := fs.String("grid", "", "file with your own ASCII grid (overcooked_ai's layout characters: X counter, P pot, O onions, D dishes, S serving, 1 2 players); replaces the named layout, keeps its options")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	family, spec, _ := strings.Cut(scenario, ":")
	if family == "lbf" {
		return traceLBF(spec, *seed, *steps, *actions, *state, w)
	}
	if family != "overcooked" {
		return fmt.Errorf("trace: only overcooked:<layout> and lbf:<task> scenarios can be traced, got %q", scenario)
	}
	if *state != "" {
		return fmt.Errorf("trace: -state is for lbf: scenarios (Overcooked takes -grid)")
	}
	var cfg overcooked.Config
	var err error
	if *grid == "" {
		if cfg, err = overcooked.ParseSpec(spec); err != nil {
			return err
		}
	} else { // the layout from the file; options (-hN, -cN) still from the scenario
		data, err := os.ReadFile(*grid)
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		cfg = overcooked.DefaultConfig(filepath.Base(*grid))
		cfg.Grid = strings.TrimRight(string(data), "\n")
		if _, opts, ok := strings.Cut(spec, "-"); ok {
			if err := cfg.ApplyOptions(strings.Split(opts, "-"), spec); err != nil {
				return err
			}
		}
	}
	e, err := overcooked.New(cfg)
	if err != nil {
		return err
	}
	var script [][2]int
	if *actions != "" {
		f, err := os.Open(*actions)
		if err != nil {
			return err
		}
		script, err = overcooked.ReadActions(f, *actions)
		f.Close()
		if err != nil {
			return err
		}
	}
	switch {
	case *steps < 0:
		return fmt.Errorf("trace: -steps %d, want ≥ 0", *steps)
	case script != nil && *steps == 0:
		*steps = min(len(script), cfg.Horizon)
	case script != nil:
		*steps = min(*steps, len(script))
	case *steps == 0:
		*steps = 20
	}
	r := rand.New(rand.NewPCG(*seed, 0x7472))
	enc := json.NewEncoder(w)
	ep := e.NewEpisode()
	for t := 0; t < *steps; t++ {
		joint := [2]int{r.IntN(overcooked.NumActions), r.IntN(overcooked.NumActions)}
		if script != nil {
			joint = script[t]
		}
		next, _, err := e.Step(ep, joint[:])
		if err != nil {
			return err
		}
		ep = next.(*overcooked.Episode)
		if err := enc.Encode(ep.Trace(joint)); err != nil {
			return err
		}
		if ep.Game.Timestep >= e.Cfg.Horizon {
			break
		}
	}
	return nil
}

// traceLBF prints one JSON line per step of a Level-Based Foraging episode (env.LBFTraceStep): the
// joint action by name, each player's position and level, the foods with levels, the rewards and
// done. The episode starts from the seeded reset, or from -state; actions are random (seeded) unless
// -actions names a file. A user can start lb-foraging from the same state and compare line by line.
func traceLBF(spec string, seed uint64, steps int, actionsFile, stateFile string, w io.Writer) error {
	cfg, err := env.ParseLBF(spec)
	if err != nil {
		return err
	}
	e, err := env.NewLBF(cfg, spec)
	if err != nil {
		return err
	}
	s, _, err := e.Reset(seed)
	if err != nil {
		return err
	}
	st := s.(*env.LBFState)
	if stateFile != "" {
		f, err := os.Open(stateFile)
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		players, foods, err := env.ReadLBFState(f, stateFile)
		f.Close()
		if err != nil {
			return err
		}
		if st, err = e.NewState(players, foods); err != nil {
			return fmt.Errorf("%s: %w", stateFile, err)
		}
	}
	var script [][]int
	if actionsFile != "" {
		f, err := os.Open(actionsFile)
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		script, err = env.ReadLBFActions(f, actionsFile, cfg.Players)
		f.Close()
		if err != nil {
			return err
		}
	}
	switch {
	case steps < 0:
		return fmt.Errorf("trace: -steps %d, want ≥ 0", steps)
	case script != nil && steps == 0:
		steps = min(len(script), cfg.MaxSteps)
	case script != nil:
		steps = min(steps, len(script))
	case steps == 0:
		steps = 20
	}
	r := rand.New(rand.NewPCG(seed, 0x7472))
	enc := json.NewEncoder(w)
	for t := 0; t < steps; t++ {
		joint := make([]int, cfg.Players)
		for i := range joint {
			joint[i] = r.IntN(len(env.LBFActionNames))
		}
		if script != nil {
			joint = script[t]
		}
		next, tr, err := e.Step(st, joint)
		if err != nil {
			return err
		}
		st = next.(*env.LBFState)
		if err := enc.Encode(st.Trace(joint, tr)); err != nil {
			return err
		}
		if tr.Done {
			break
		}
	}
	return nil
}

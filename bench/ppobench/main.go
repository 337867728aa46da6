// Command ppobench times PaperLab's PPO loop on Overcooked at the E3T authors' settings
// (marl/e3t.Authors: 30 games × 400 steps = 12,000 environment steps per iteration, 8 epochs × 6
// mini-batches of the 96→64→64→6 tanh actor and the 96→64→64→1 critic, Adam; mode e3t also trains
// the partner model 8 passes per iteration) on cramped_room, on the engine of this process
// ($GOMLX_BACKEND, else backend.Choose). It runs -warmup iterations (graph compilation), then -iters
// timed ones, and prints one line per timed iteration:
//
//	go <engine> <mode> <env steps/s> <rollout seconds> <update seconds>
//
// bench/ppo_overcooked.sh runs it beside the PyTorch peer (bench/ppo_peer.py) round by round.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/e3t"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

func main() {
	mode := flag.String("mode", "sp", "sp, e3t (with the partner model) or e3t-nopm")
	iters := flag.Int("iters", 3, "timed iterations")
	warmup := flag.Int("warmup", 1, "untimed iterations first")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "ppobench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*mode, *iters, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "ppobench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(mode string, iters, warmup int) error {
	_, info, err := backend.Get()
	if err != nil {
		return err
	}
	m, pm := mode, false
	switch mode {
	case "e3t":
		pm = true
	case "e3t-nopm":
		m = "e3t"
	case "sp":
	default:
		return fmt.Errorf("mode %q: want sp, e3t or e3t-nopm", mode)
	}
	cfg := e3t.Authors(overcooked.DefaultConfig("cramped_room"), m)
	cfg.PartnerModel, cfg.Iters, cfg.SnapshotAt = pm, warmup+iters, nil
	res, err := e3t.Train(cfg, 1, e3t.Options{})
	if err != nil {
		return err
	}
	defer res.Policy.Close()
	ro, up := res.Curves["rollout_seconds"].Y, res.Curves["update_seconds"].Y
	steps := float64(cfg.Envs * cfg.Game.Horizon)
	for i := warmup; i < len(ro); i++ {
		fmt.Printf("go %s %s %.0f %.4f %.4f\n", info.Config, mode, steps/(ro[i]+up[i]), ro[i], up[i])
	}
	return nil
}

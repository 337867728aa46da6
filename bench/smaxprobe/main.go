// Command smaxprobe trains MAPPO or IPPO (marl/ppo) on a SMAX scenario and reports the greedy win
// rate against the heuristic enemy: a probe of settings before a protocol is fixed.
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	_ "github.com/paperlab/paperlab/toolkit/marl/env/smax"
	"github.com/paperlab/paperlab/toolkit/marl/ppo"
)

func main() {
	scenario := flag.String("scenario", "smax:3m-norm", "environment")
	critic := flag.String("critic", "central", "central (MAPPO) or independent (IPPO)")
	envs := flag.Int("envs", 64, "environments")
	steps := flag.Int("steps", 64, "steps per rollout")
	iters := flag.Int("iters", 100, "iterations")
	hidden := flag.Int("hidden", 64, "hidden units")
	lr := flag.Float64("lr", 2e-3, "learning rate (actor and critic)")
	ent := flag.Float64("ent", 0.0, "entropy coefficient")
	epochs := flag.Int("epochs", 4, "epochs")
	mb := flag.Int("mb", 4, "mini-batches")
	grad := flag.Float64("grad", 0.25, "max grad norm")
	eval := flag.Int("eval", 64, "greedy evaluation episodes")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	c := ppo.Default(*scenario, *critic)
	c.Envs, c.Steps, c.Iters, c.Hidden, c.LRActor, c.LRCritic, c.EntCoef = *envs, *steps, *iters, *hidden, *lr, *lr, *ent
	c.Epochs, c.MiniBatches, c.MaxGradNorm, c.ObsScale = *epochs, *mb, *grad, 1
	start := time.Now()
	every := max(1, *iters/10)
	curves, actor, err := ppo.Train(c, *seed, ppo.Hooks{OnIter: func(n int, m map[string]float64) {
		if it := n / (c.Envs * c.Steps); it%every == 0 {
			fmt.Printf("iter %d steps %d return %.3f entropy %.3f vloss %.4f sps %.0f (%.0fs)\n", it, n, m["episodic_return"], m["entropy"], m["value_loss"], m["SPS"], time.Since(start).Seconds())
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer actor.Close()
	_ = curves
	wins, rets := 0, 0.0
	returns, err := ac.Evaluate(*scenario, actor, 1, *eval, *seed+1000, true)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range returns {
		rets += r
		if r > 1.5 { // SMAX: damage shares sum to at most 1; a win adds 1
			wins++
		}
	}
	sp, _ := env.Make(*scenario)
	fmt.Printf("%s %s: greedy win rate %.3f, mean return %.3f over %d episodes; %d env steps in %.0fs\n", sp.Spec().Name, *critic,
		float64(wins)/float64(*eval), rets/float64(*eval), *eval, c.Envs*c.Steps*c.Iters, time.Since(start).Seconds())
}

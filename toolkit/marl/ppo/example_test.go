package ppo_test

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/marl/ppo"
)

// MAPPO on the penalty matrix game: from a uniform start (expected payoff ≈ 2.4) the two agents
// settle on a coordinated optimum (payoff 10); OnIter sees every iteration's metrics.
func ExampleTrain() {
	cfg := ppo.Default("matrix:penalty-0", "central")
	cfg.Envs, cfg.Steps, cfg.Iters, cfg.Hidden, cfg.ObsScale = 32, 1, 40, 16, 1
	cfg.LRActor, cfg.LRCritic = 3e-3, 3e-3
	iters := 0
	curves, _, err := ppo.Train(cfg, 1, ppo.Hooks{OnIter: func(envSteps int, m map[string]float64) { iters++ }})
	if err != nil {
		panic(err)
	}
	ret := curves["episodic_return"].Y
	fmt.Printf("%d iterations; first return below 5: %v; last %.0f\n", iters, ret[0] < 5, ret[len(ret)-1])
	// Output: 40 iterations; first return below 5: true; last 10
}

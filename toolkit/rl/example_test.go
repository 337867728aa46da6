package rl_test

import (
	"fmt"
	"strings"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/rl"
)

// A verifiable task (lmtask.SortDigits: two functions, Generate and Verify), SFT on its reference answers, then a few GRPO steps on
// it (notebooks/03_build_your_own.ipynb does the same at a useful size).
func ExampleTrain() {
	sort3 := lmtask.SortDigits(3)
	tok, _ := sort3.Tokenizer()
	train, err := sort3.Set(tok, 200, 1, nil)
	if err != nil {
		panic(err)
	}
	policy, err := lm.New(lm.ConfigR().For(tok), tok, 1)
	if err != nil {
		panic(err)
	}
	if _, _, err := lm.TrainSFT(policy, lm.DefaultSFT(20), train.Examples(), nil, lm.SFTHooks{}); err != nil {
		panic(err)
	}
	ref, _ := policy.Clone()
	cfg := rl.DefaultConfig("grpo")
	cfg.Steps, cfg.PromptsPerStep, cfg.G, cfg.EvalEvery = 2, 4, 4, 0
	var seen []string
	_, curves, err := rl.Train(policy, ref, train, cfg, rl.Hooks{OnStep: func(step int, m map[string]float64) {
		seen = append(seen, fmt.Sprintf("%d", step))
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", strings.Join(seen, " "), "— reward logged", len(curves["reward"].Y), "times")
	// Output: steps: 1 2 — reward logged 2 times
}

// A toy estimator registered in a few lines — each response's reward minus one half, no group
// baseline — and trained through rl.Train by its name, as a notebook cell would. Linear: it gives
// no PairTau, so the diagnostics weigh every (right, wrong) pair alike.
func ExampleRegisterEstimator() {
	rl.RegisterEstimator("minus_half", rl.EstimatorSpec{Advantages: func(g rl.Group, _ rl.AdvParams) []float64 {
		out := make([]float64, len(g.Rewards))
		for i, r := range g.Rewards {
			out[i] = r - 0.5
		}
		return out
	}})
	sort3 := lmtask.SortDigits(3)
	tok, _ := sort3.Tokenizer()
	train, err := sort3.Set(tok, 200, 1, nil)
	if err != nil {
		panic(err)
	}
	policy, err := lm.New(lm.ConfigR().For(tok), tok, 1)
	if err != nil {
		panic(err)
	}
	ref, _ := policy.Clone()
	cfg := rl.DefaultConfig("minus_half")
	cfg.Steps, cfg.PromptsPerStep, cfg.G, cfg.EvalEvery = 2, 4, 4, 0
	_, curves, err := rl.Train(policy, ref, train, cfg, rl.Hooks{})
	if err != nil {
		panic(err)
	}
	fmt.Println("estimator minus_half: loss logged", len(curves["loss"].Y), "times")
	// Output: estimator minus_half: loss logged 2 times
}

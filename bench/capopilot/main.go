// Command capopilot is the task pilot of capo's default run of 2026-12-06
// (figures/capo/pilot_2026-12-06): SFT + GRPO on 3 seeds at default scale, for one task variant —
// "distract" (the default: distractor slips written into the demonstrations) or "shift" (the RL
// prompts drawn from another distribution than the SFT demonstrations) — printing per metric the
// SFT and GRPO values per seed and the paired GRPO − SFT difference. It ran from runs/pilotcmd at
// commit 44e8318 and is kept here so that the pilot can be repeated:
//
//	go run ./bench/capopilot distract
package main

import (
	"fmt"
	"os"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/exp"
	_ "github.com/paperlab/paperlab/toolkit/exp/all"
	"github.com/paperlab/paperlab/toolkit/exp/capo"
	"github.com/paperlab/paperlab/toolkit/stats"
)

func main() {
	if len(os.Args) != 2 || (os.Args[1] != "distract" && os.Args[1] != "shift") {
		fmt.Fprintln(os.Stderr, "usage: capopilot distract|shift")
		os.Exit(2)
	}
	variant := os.Args[1]
	cfg := capo.ConfigFor(exp.Default)
	cfg.Methods = []capo.Method{{Name: "grpo", Estimator: "grpo"}}
	if variant == "shift" {
		cfg.SFTDistract, cfg.SFTDistractOperands = 0, nil
		cfg.Data = arith.Default()
		rl := arith.SkewedHidden()
		cfg.RLData = &rl
	}
	res, err := capo.Run(exp.Options{Scale: exp.Default, Seeds: 3, Out: "runs/pilot/" + variant, Save: exp.SaveNone, Config: cfg, Overwrite: true})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for _, k := range []string{"greedy_accuracy", "accuracy", "pass8_greedy_wrong", "greedy_wrong_share", "auc", "auc_within", "auc_solvable", "auc_hidden", "greedy_accuracy_distracted", "accuracy_distracted"} {
		var sv, gv, d []float64
		for _, s := range res.Seeds {
			a, ok1 := res.Final("sft", k, s)
			b, ok2 := res.Final("grpo", k, s)
			if ok1 {
				sv = append(sv, a)
			}
			if ok2 {
				gv = append(gv, b)
			}
			if ok1 && ok2 {
				d = append(d, b-a)
			}
		}
		fmt.Printf("%s %-28s sft %v grpo %v diff %v\n", variant, k, sv, gv, stats.Summarize(d))
	}
}

// Command cospilot is the PRM-training pilot of cos (issue of 2026-12-06: a PRM trained to its best):
// SFT, PRM labelling and the PRMs' training (prm, prm-selfconf, prm-judge) at default scale on the
// given seeds, the main part only, with its later stages cut to a token size (one DPO round on 16
// prompts, no re-trained arm, search at N ≤ 4 on 16 prompts), printing each PRM's measures on its held-out check traces beside the
// policy's own, the step its checkpoint holds and the steps it ran. Variant "validated" is the
// default configuration (BCE until the held-out step AUC stops improving); "fixed" the one before
// it (1,000 BCE steps, no selection), measured on the same held-out traces.
//
// It runs on seeds 101, 102, … (never the default run's, whose check traces gate its claims).
//
//	go run ./bench/cospilot validated 2   # seeds 101–102
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/paperlab/paperlab/toolkit/exp"
	_ "github.com/paperlab/paperlab/toolkit/exp/all"
	"github.com/paperlab/paperlab/toolkit/exp/cos"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "validated" && os.Args[1] != "fixed") {
		fmt.Fprintln(os.Stderr, "usage: cospilot validated|fixed SEEDS")
		os.Exit(2)
	}
	variant := os.Args[1]
	seeds, err := strconv.Atoi(os.Args[2])
	if err != nil || seeds < 1 {
		fmt.Fprintln(os.Stderr, "cospilot: SEEDS must be a positive count")
		os.Exit(2)
	}
	cfg := cos.ConfigFor(exp.Default)
	if variant == "fixed" {
		cfg.PRM.Steps, cfg.PRM.Opt.TotalSteps, cfg.PRM.EvalEvery, cfg.PRM.Patience = 1000, 1000, 0, 0
	}
	cfg.Rounds, cfg.DPOPrompts, cfg.SearchPrompts, cfg.SearchN, cfg.Retrain.Steps = 1, 16, 16, []int{1, 2, 4}, 0
	// Seeds 101…: never the default run's (1–5), whose held-out check traces gate its claims.
	var set []uint64
	for i := range seeds {
		set = append(set, uint64(101+i))
	}
	res, err := cos.Run(exp.Options{Scale: exp.Default, Seeds: seeds, SeedSet: set, Out: "runs/cospilot/" + variant, Save: exp.SaveNone, Config: cfg, Overwrite: true, Part: cos.PartMain, Log: os.Stderr})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	keys := []string{"heldout_step_auc", "heldout_self_step_auc", "heldout_answer_auc", "heldout_trace_auc", "heldout_self_trace_auc",
		"select_step_auc", "best_step", "steps_run", "step_auc", "self_step_auc", "answer_auc"}
	for _, m := range []string{"prm", "prm-judge", "prm-selfconf"} {
		for _, r := range res.RunsOf(m) {
			fmt.Printf("%s seed %d:", m, r.Seed)
			for _, k := range keys {
				if v, ok := r.Final[k]; ok {
					fmt.Printf(" %s %.3f", k, v)
				}
			}
			if l := r.Curves["train/loss"]; len(l.Y) > 0 {
				fmt.Printf(" final_loss %.3f", l.Y[len(l.Y)-1])
			}
			fmt.Println()
		}
	}
}

// Command cospilot is the PRM-training pilot of cos (issue of 2026-12-06: a PRM trained to its best):
// SFT, PRM labelling and the PRMs' training (prm, prm-selfconf, prm-judge) at default scale on the
// given seeds, the main part only, with its later stages cut to a token size (one DPO round on 16
// prompts, no re-trained arm, search at N ≤ 4 on 16 prompts), printing each PRM's measures on its held-out check traces beside the
// policy's own, the step its checkpoint holds and the steps it ran. Variant "validated" is the
// default configuration (BCE until the held-out step AUC stops improving); "fixed" the one before
// it (1,000 BCE steps, no selection), measured on the same held-out traces. Variants pre1k (a trunk
// pretrained 1,000 steps), pre0 (none) and lr3e-4 (the BCE's rate; 1e-3 until the pilot of
// 2026-12-06 chose 3e-4, now the default) train the main PRM alone: one attempt, no label arm or
// prm-selfconf. Results: results-2026-12-06.txt.
//
// It runs on seeds 101, 102, … (never the default run's, whose check traces gate its claims).
//
//	go run ./bench/cospilot validated 2   # seeds 101–102
//	go run ./bench/cospilot pre1k main:2  # default seed 2's PRM alone (a failed gate's diagnosis)
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	_ "github.com/paperlab/paperlab/toolkit/exp/all"
	"github.com/paperlab/paperlab/toolkit/exp/cos"
)

func main() {
	variants := map[string]bool{"validated": true, "fixed": true, "pre1k": true, "pre0": true, "lr3e-4": true}
	if len(os.Args) != 3 || !variants[os.Args[1]] {
		fmt.Fprintln(os.Stderr, "usage: cospilot validated|fixed|pre1k|pre0|lr3e-4 SEEDS|main:S")
		os.Exit(2)
	}
	variant := os.Args[1]
	// Seeds 101…: never the default run's (1–5), whose held-out check traces gate its claims —
	// except "main:S", which diagnoses one default seed's PRM training (a failed "PRM trained" gate),
	// the PRMs only (no claim is read from it).
	var set []uint64
	if s, ok := strings.CutPrefix(os.Args[2], "main:"); ok {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "cospilot: main:S needs a seed ≥ 1")
			os.Exit(2)
		}
		set = []uint64{n}
	} else {
		seeds, err := strconv.Atoi(os.Args[2])
		if err != nil || seeds < 1 {
			fmt.Fprintln(os.Stderr, "cospilot: SEEDS must be a positive count")
			os.Exit(2)
		}
		for i := range seeds {
			set = append(set, uint64(101+i))
		}
	}
	seeds := len(set)
	cfg := cos.ConfigFor(exp.Default)
	switch variant {
	case "fixed":
		cfg.PRM.Steps, cfg.PRM.Opt.TotalSteps, cfg.PRM.EvalEvery, cfg.PRM.Patience = 1000, 1000, 0, 0
	case "pre1k": // a trunk pretrained 1,000 steps instead of 3,000 (less converged on the gold chains)
		cfg.PRMPretrain.Steps, cfg.PRMPretrain.Opt.TotalSteps = 1000, 1000
	case "pre0": // no pretraining
		cfg.PRMPretrain.Steps = 0
	case "lr3e-4": // the PRM's BCE at 3e-4 instead of 1e-3
		cfg.PRM.Opt.LR = 3e-4
	}
	if variant != "validated" && variant != "fixed" { // diagnostics of the main PRM alone: one attempt, no arms beside it
		cfg.PRMRestarts, cfg.JudgeOnly, cfg.SelfConf.Steps = 0, false, 0
	}
	cfg.Rounds, cfg.DPOPrompts, cfg.SearchPrompts, cfg.SearchN, cfg.Retrain.Steps = 1, 16, 16, []int{1, 2, 4}, 0
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

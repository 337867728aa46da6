package agents

import (
	"fmt"
	"testing"

	"github.com/paperlab/paperlab/toolkit/agents/foundation"
	gw "github.com/paperlab/paperlab/toolkit/agents/gridworld"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestSmokeRun runs experiment "agents" at smoke scale: every method with the metrics the issue
// names, the diversity sweep and online curves, replayable episodes, every claim evaluable.
func TestSmokeRun(t *testing.T) {
	_, back, _ := exptest.Smoke(t, "agents")
	exptest.RequireMetrics(t, back, Methods, []string{"success_k0", "success_k5"}, 1)
	exptest.RequireMetrics(t, back, []string{"pretrained", "scratch"}, []string{"success_online"}, 1)
	exptest.RequireMetrics(t, back, []string{"pretrained"}, []string{"pretrain_success", "pretrain_val_accuracy", "pretrain_best_step", "sweep/div8/success_k0", "sweep/div2/success_k0", "sweep/div2/success_k5",
		"sweep/div2/val_accuracy", "ref/colour-blind/indist/success", "ref/expert/heldout/success", "heldout/diagonal/success", "swap/token_goal", "nocolour/success_k0", "nocolour_prompt/success_k0",
		"adapt_k5/lr", "adapt_k5/best_step", "pretrain_plateau_step", "pretrain_steps", "pretrain_hit_cap", "sweep/div2/hit_cap", "sweep/div8/plateau_step"}, 1)
	exptest.RequireMetrics(t, back, []string{"scratch", "bc-scratch", "bc-pretrained"}, []string{"adapt_k5/lr", "adapt_k5/val_loss"}, 1)
	sc := back.RunsOf("scratch")[0]
	for _, lr := range ConfigFor(exp.Smoke).ScratchLRs { // every rate's validation curve kept, dense to step 8, then every 5 steps
		if x := sc.Curves[fmt.Sprintf("adapt_k5/lr%g/val_action_loss", lr)].X; len(x) != 3 || x[0] != 4 || x[1] != 8 || x[2] != 10 {
			t.Fatalf("scratch at lr %g: validation curve %v", lr, sc.Curves[fmt.Sprintf("adapt_k5/lr%g/val_action_loss", lr)])
		}
	}
	pre := back.RunsOf("pretrained")[0]
	if len(pre.Curves["online_success"].Y) != 2 || len(pre.Curves["embed/prefix/pc1"].Y) != foundation.PrefixesNoColour || len(pre.Curves["pretrain/action_loss"].Y) == 0 || len(pre.Curves["pretrain/val_action_accuracy"].Y) < 2 {
		t.Fatalf("curves: online %v, embeddings %d", pre.Curves["online_success"], len(pre.Curves["embed/prefix/pc1"].Y))
	}
	if x := pre.Curves["pretrain/val_action_loss"].X; x[len(x)-1] != pre.Final["pretrain_steps"] || pre.Final["pretrain_steps"] != pre.Final["pretrain_plateau_step"]+10 {
		t.Fatalf("pretraining measured at %v: %v steps, plateau at %v (the decay phase is max(eval_every, 0.2·plateau) = 10 steps)", x, pre.Final["pretrain_steps"], pre.Final["pretrain_plateau_step"])
	}
	if v := pre.Final["ref/expert/heldout/success"]; v != 1 {
		t.Fatalf("the expert reference succeeds %v on the held-out worlds, want 1", v)
	}
	if _, ok := back.RunsOf("pretrained-prompt")[0].Final["episode0/world_seed"]; !ok {
		t.Fatal("no episode kept for rendering")
	}
	if claims := Claims(back); len(claims) != 13 {
		t.Fatalf("%d claims", len(claims))
	}
	if len(back.Figures) < 11 {
		t.Fatalf("figures %v", back.Figures)
	}
}

// The validation split holds the last ⌈ValShare·PerTask⌉ worlds of every task type, both
// embodiments of a world on the same side, and no world on both.
func TestSplitWorlds(t *testing.T) {
	cfg := ConfigFor(exp.Smoke)
	cfg.PerTask, cfg.ValShare = 5, 0.3
	data, err := gw.Collect(gw.TrainTasks()[:2], embodiments, cfg.PerTask, []float64{0}, 7)
	if err != nil {
		t.Fatal(err)
	}
	train, val := splitWorlds(cfg.ValShare, cfg.PerTask, 1, data)
	if valWorlds(cfg.ValShare, cfg.PerTask) != 2 || len(val) != 2*2*2 || len(train)+len(val) != len(data) {
		t.Fatalf("%d validation worlds; %d train, %d validation trajectories of %d", valWorlds(cfg.ValShare, cfg.PerTask), len(train), len(val), len(data))
	}
	side := map[uint64]bool{}
	for _, tr := range val {
		side[tr.Seed] = true
	}
	for _, tr := range train {
		if side[tr.Seed] {
			t.Fatalf("world %d is on both sides", tr.Seed)
		}
	}
	if len(side) != 4 {
		t.Fatalf("%d validation worlds, want 4 (both embodiments of each on the same side)", len(side))
	}
}

// The diversity sweep's systematic subsets: d distinct types per seed, and over as many seeds as
// there are training types every type used exactly d times.
func TestSweepTypes(t *testing.T) {
	n := len(gw.TrainTasks())
	for _, d := range []int{1, 2, 4, 8} {
		uses := map[gw.Task]int{}
		for seed := uint64(1); seed <= uint64(n); seed++ {
			types := sweepTypes(seed, d)
			seen := map[gw.Task]bool{}
			for _, ty := range types {
				if seen[ty] {
					t.Fatalf("d = %d seed %d: %v repeats a type", d, seed, types)
				}
				seen[ty] = true
				uses[ty]++
			}
		}
		for _, ty := range gw.TrainTasks() {
			if uses[ty] != d {
				t.Fatalf("d = %d: type %s used %d times over %d seeds, want %d", d, ty, uses[ty], n, d)
			}
		}
	}
}

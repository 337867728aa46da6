package agents

import (
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
	exptest.RequireMetrics(t, back, []string{"pretrained"}, []string{"pretrain_success", "pretrain_val_accuracy", "pretrain_best_step", "div8/success_k0", "div2/success_k0", "div2/success_k5",
		"ref/colour-blind/indist/success", "ref/expert/heldout/success", "heldout/diagonal/success", "swap/token_goal"}, 1)
	pre := back.RunsOf("pretrained")[0]
	if len(pre.Curves["online_success"].Y) != 2 || len(pre.Curves["embed/prefix/pc1"].Y) != foundation.Prefixes || len(pre.Curves["pretrain/action_loss"].Y) == 0 || len(pre.Curves["pretrain/val_action_accuracy"].Y) != 2 {
		t.Fatalf("curves: online %v, embeddings %d", pre.Curves["online_success"], len(pre.Curves["embed/prefix/pc1"].Y))
	}
	if v := pre.Final["ref/expert/heldout/success"]; v != 1 {
		t.Fatalf("the expert reference succeeds %v on the held-out worlds, want 1", v)
	}
	if _, ok := back.RunsOf("pretrained-prompt")[0].Final["episode0/world_seed"]; !ok {
		t.Fatal("no episode kept for rendering")
	}
	if claims := Claims(back); len(claims) != 5 {
		t.Fatalf("%d claims", len(claims))
	}
	if len(back.Figures) < 8 {
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
	train, val := splitWorlds(cfg, data)
	if valWorlds(cfg) != 2 || len(val) != 2*2*2 || len(train)+len(val) != len(data) {
		t.Fatalf("%d validation worlds; %d train, %d validation trajectories of %d", valWorlds(cfg), len(train), len(val), len(data))
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

package m3apg

import (
	"math/rand/v2"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// The learner on a 3-agent push game: every critic kind runs, the return rises from its first
// measurement, and the critic is compared with the exact Q on seen and unseen joint actions.
func TestTrainImprovesReturn(t *testing.T) {
	if testing.Short() {
		t.Skip("trains")
	}
	for _, kind := range []string{CentralQ, M3APG, M3APGNoMI} {
		cfg := Default("push:3p-5x5", kind)
		cfg.Iters, cfg.EvalEvery, cfg.EvalRows = 200, 100, 2000
		curves, err := Train(cfg, 1, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		ret := curves["episodic_return"]
		if len(ret.Y) < 2 {
			t.Fatalf("%s: %d return points", kind, len(ret.Y))
		}
		first, last := ret.Y[0], ret.Y[len(ret.Y)-1]
		seen, unseen := curves["critic_error_seen"], curves["critic_error_unseen"]
		if len(seen.Y) != 2 || len(unseen.Y) != 2 {
			t.Fatalf("%s: critic error measured %d/%d times, want 2", kind, len(seen.Y), len(unseen.Y))
		}
		t.Logf("%-11s return %.2f → %.2f; critic error seen %.3f unseen %.3f", kind, first, last, seen.Y[1], unseen.Y[1])
		if !(last > first) {
			t.Errorf("%s: return %.2f → %.2f", kind, first, last)
		}
	}
}

// With HoldOutClasses, whole effect classes (never "no move") are held out, and no joint action of
// them ever reaches the critic's training rows; the held-out set is exactly those classes.
func TestClassHoldOutKeepsEffectsOut(t *testing.T) {
	cfg := Default("push:4p-7x7-6t-m1-final", CentralQ)
	cfg.HoldOutClasses, cfg.Iters, cfg.EvalEvery, cfg.EvalRows, cfg.Envs = 2, 6, 3, 200, 8
	game, err := env.Make(cfg.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	push := game.(*env.Push)
	held, err := holdOut(cfg, push, 4, 4, rand.New(rand.NewPCG(1, 0x6d3361)))
	if err != nil {
		t.Fatal(err)
	}
	class, classes := PushEffects(4, 1)
	heldClasses := map[int]bool{}
	for k, h := range held {
		if h {
			heldClasses[class[k]] = true
		}
	}
	if len(heldClasses) != 2 || heldClasses[(classes-1)/2] {
		t.Fatalf("held-out classes %v, want 2 moving ones", heldClasses)
	}
	for k := range held {
		if held[k] != heldClasses[class[k]] {
			t.Fatalf("joint action %d (class %d): held %v, but its class is held %v", k, class[k], held[k], heldClasses[class[k]])
		}
	}
	rows, seenHeld := 0, 0
	if _, err := Train(cfg, 1, Hooks{CriticData: func(js [][]int) {
		for _, j := range js {
			rows++
			if heldClasses[class[env.JointIndex(j)]] {
				seenHeld++
			}
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if rows == 0 || seenHeld != 0 {
		t.Fatalf("%d critic rows, %d of them of a held-out class", rows, seenHeld)
	}
	if _, err := holdOut(Config{HoldOutClasses: 8}, push, 4, 4, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("holding out all 8 moving classes should be refused")
	}
}

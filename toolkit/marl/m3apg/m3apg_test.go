package m3apg

import (
	"testing"
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

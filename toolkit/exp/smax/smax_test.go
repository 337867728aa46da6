package smax

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// A smoke run records both methods' greedy win rates (final and along training), their training
// returns, every room check measured, and MAPPO's battle, which replays to the same outcome and
// draws as a GIF.
func TestSmokeRun(t *testing.T) {
	res, back, dir := exptest.Smoke(t, "smax")
	_ = res
	exptest.RequireMetrics(t, back, []string{"mappo", "ippo"}, []string{"greedy_win_rate", "greedy_return", "env_steps"}, 1)
	for _, m := range []string{"mappo", "ippo"} {
		c, ok := back.CurveOf(m, "greedy_win_rate", back.Seeds[0])
		cfg := ConfigFor(exp.Smoke)
		if !ok || len(c.Y) != cfg.PPO.Iters/cfg.EvalEvery+1 {
			t.Fatalf("%s: greedy_win_rate curve %+v", m, c)
		}
		if _, ok := back.CurveOf(m, "episodic_return", back.Seeds[0]); !ok {
			t.Fatalf("%s: no training return", m)
		}
	}
	e, _ := exp.Lookup("smax")
	for _, r := range e.Room(back) {
		if r.Missing != "" && r.Missing != "one seed: no interval" {
			t.Errorf("room check %q not measured: %s", r.Name, r.Missing)
		}
	}
	var b Battle
	if err := back.GetExtra("battle", &b); err != nil || len(b.Actions) == 0 {
		t.Fatalf("battle: %v", err)
	}
	_, states, err := Replay(b)
	if err != nil {
		t.Fatal(err)
	}
	last := states[len(states)-1]
	if !last.Done || len(states) != len(b.Actions)+1 {
		t.Fatalf("the replayed battle did not end where recorded (%d states for %d steps, done %v)", len(states), len(b.Actions), last.Done)
	}
	allies, enemies := 0, 0
	for i, alive := range last.Alive {
		if alive && i < 3 {
			allies++
		} else if alive {
			enemies++
		}
	}
	if won := enemies == 0 && allies > 0; won != b.Won {
		t.Fatalf("the replayed battle won %v, recorded %v", won, b.Won)
	}
	if st, err := os.Stat(filepath.Join(dir, "battle.gif")); err != nil || st.Size() < 1000 {
		t.Fatalf("battle.gif: %v", err)
	}
}

// The scripted-team table plays every team on every map of TeamScenarios.
func TestShowTeams(t *testing.T) {
	if err := ShowTeams(2); err != nil {
		t.Fatal(err)
	}
}

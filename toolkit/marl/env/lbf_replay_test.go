package env

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// replayLBF starts our env from the trajectory's initial state and replays every joint action; it
// returns the first disagreement with lb-foraging ("" when every step matches).
func replayLBF(tr LBFRecorded, mutation string) (string, error) {
	cfg, err := ParseLBF(tr.Task)
	if err != nil {
		return "", err
	}
	e, err := NewLBF(cfg, tr.Task)
	if err != nil {
		return "", err
	}
	e.mutation = mutation
	st, err := e.StateFrom(tr.Initial.LBFStateFile)
	if err != nil {
		return "", err
	}
	if st.spawned != float64(tr.Initial.FoodSpawned) {
		return fmt.Sprintf("food spawned %v, lb-foraging %d", st.spawned, tr.Initial.FoodSpawned), nil
	}
	if d := diffObs(e.observe(st), tr.Initial.Obs); d != "" {
		return "initial observation: " + d, nil
	}
	if tr.Initial.Grid != nil {
		g, err := e.GridObs(st)
		if err != nil {
			return "", err
		}
		if d := diffGrid(g, tr.Initial.Grid); d != "" {
			return "initial grid observation: " + d, nil
		}
	}
	for k, s := range tr.Steps {
		at := fmt.Sprintf("step %d (actions %v)", k+1, s.Actions)
		next, t, err := e.Step(st, s.Actions)
		if err != nil {
			return "", fmt.Errorf("%s: %w", at, err)
		}
		st = next.(*LBFState)
		tr := st.Trace(s.Actions, t)
		ps, fs := tr.Players, tr.Foods
		switch {
		case !slices.Equal(ps, s.Players):
			return fmt.Sprintf("%s: players %v, lb-foraging %v", at, ps, s.Players), nil
		case !slices.Equal(fs, s.Foods):
			return fmt.Sprintf("%s: foods %v, lb-foraging %v", at, fs, s.Foods), nil
		case !slices.Equal(t.Rewards, s.Rewards):
			return fmt.Sprintf("%s: rewards %v, lb-foraging %v", at, t.Rewards, s.Rewards), nil
		case t.Done != s.Done:
			return fmt.Sprintf("%s: done %v, lb-foraging %v", at, t.Done, s.Done), nil
		}
		if d := diffObs(t.Obs, s.Obs); d != "" {
			return at + ": observation " + d, nil
		}
		if s.Grid != nil {
			g, err := e.GridObs(st)
			if err != nil {
				return "", err
			}
			if d := diffGrid(g, s.Grid); d != "" {
				return at + ": grid observation " + d, nil
			}
		}
	}
	return "", nil
}

func diffObs(ours [][]float32, theirs [][]float32) string {
	for i := range theirs {
		if i >= len(ours) || !slices.Equal(ours[i], theirs[i]) {
			return fmt.Sprintf("of player %d: %v, lb-foraging %v", i, ours[min(i, len(ours)-1)], theirs[i])
		}
	}
	return ""
}

func diffGrid(ours [][3][][]float32, theirs [][3][][]int64) string {
	for i := range theirs {
		for l := range theirs[i] {
			for r := range theirs[i][l] {
				for c, v := range theirs[i][l][r] {
					if float32(v) != ours[i][l][r][c] {
						return fmt.Sprintf("of player %d, layer %d, cell (%d,%d): %v, lb-foraging %d", i, l, r, c, ours[i][l][r][c], v)
					}
				}
			}
		}
	}
	return ""
}

// TestLBFReplaysLBForaging: for every task the experiments use, trajectories recorded from
// lb-foraging itself (testdata/lbf, bench/lbf_record.py: random and greedy-loading actions from its
// own reset) are reproduced step by step — players' positions and levels, foods, rewards bit for
// bit, done, vector and grid observations — from the recorded initial state. A rule broken on
// purpose (the loading sum, the collision rule) makes some trajectory diverge.
func TestLBFReplaysLBForaging(t *testing.T) {
	files, _ := filepath.Glob("testdata/lbf/*.jsonl")
	if len(files) < 4 {
		t.Fatalf("recorded tasks: %v", files)
	}
	steps := 0
	all := map[string][]LBFRecorded{}
	for _, f := range files {
		commit, trajs, err := ReadLBFRecorded(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(commit, "79f383b") || len(trajs) < 10 {
			t.Fatalf("%s: commit %q, %d trajectories", f, commit, len(trajs))
		}
		for _, tr := range trajs {
			d, err := replayLBF(tr, "")
			if err != nil {
				t.Fatal(err)
			}
			if d != "" {
				t.Errorf("%s %s seed %d: %s", tr.Task, tr.Policy, tr.Seed, d)
			}
			steps += len(tr.Steps)
			all[tr.Task] = append(all[tr.Task], tr)
		}
	}
	t.Logf("%d tasks, %d recorded steps reproduced", len(all), steps)
	for _, m := range []string{"load-strict", "collision-first"} {
		caught := 0
		for _, trs := range all {
			for _, tr := range trs {
				if d, _ := replayLBF(tr, m); d != "" {
					caught++
				}
			}
		}
		if caught == 0 {
			t.Errorf("mutation %s: no recorded trajectory diverged", m)
		}
		t.Logf("mutation %s: %d trajectories diverge", m, caught)
	}
}

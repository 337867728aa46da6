package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// TestTraceScript traces a hand-written action file on cramped_room and checks the JSON lines.
func TestTraceScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acts.txt")
	os.WriteFile(path, []byte("# player 0 fetches an onion\nN,STAY\nW,STAY\nINTERACT,STAY\nE,S\nN,STAY\nINTERACT,STAY\n"), 0o644)
	var buf bytes.Buffer
	if err := trace([]string{"overcooked:cramped_room", "-actions", path}, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6", len(lines))
	}
	var last overcooked.TraceStep
	if err := json.Unmarshal([]byte(lines[5]), &last); err != nil {
		t.Fatal(err)
	}
	if last.T != 6 || last.Actions != [2]string{"INTERACT", "STAY"} || last.Shaped[0] != 3 || last.Pots[0].Onions != 1 ||
		last.Players[0].Pos != [2]int{2, 1} || last.Players[1].Pos != [2]int{3, 2} || last.Players[0].Holding != "" {
		t.Fatalf("last line %s", lines[5])
	}
	// -steps still limits a file; without -actions 20 random steps; a long file stops at the horizon.
	count := func(args ...string) int {
		var b bytes.Buffer
		if err := trace(append([]string{"overcooked:cramped_room"}, args...), &b); err != nil {
			t.Fatal(err)
		}
		return strings.Count(b.String(), "\n")
	}
	if n := count("-actions", path, "-steps", "3"); n != 3 {
		t.Fatalf("-steps 3 with a 6-step file: %d lines", n)
	}
	if n := count(); n != 20 {
		t.Fatalf("random trace: %d lines, want 20", n)
	}
	long := filepath.Join(t.TempDir(), "long.txt")
	os.WriteFile(long, []byte(strings.Repeat("STAY,STAY\n", 450)), 0o644)
	if n := count("-actions", long); n != 400 {
		t.Fatalf("450-line file: %d lines, want the 400-step horizon", n)
	}
	os.WriteFile(path, []byte("N,STAY\nN,JUMP\n"), 0o644)
	if err := trace([]string{"overcooked:cramped_room", "-actions", path}, &buf); err == nil || !strings.Contains(err.Error(), "acts.txt:2: player 1") {
		t.Fatalf("bad action line: %v", err)
	}
	if err := trace([]string{"overcooked:kitchen9"}, &buf); err == nil {
		t.Fatal("unknown layout accepted")
	}
}

// traceFile runs `paperlab trace overcooked:cramped_room -actions FILE` (the whole file) on a committed,
// hand-written action file and decodes its JSON lines.
func traceFile(t *testing.T, file string) []overcooked.TraceStep {
	t.Helper()
	var buf bytes.Buffer
	path := filepath.Join("..", "..", "marl", "env", "overcooked", "testdata", file)
	if err := trace([]string{"overcooked:cramped_room", "-actions", path}, &buf); err != nil {
		t.Fatal(err)
	}
	var out []overcooked.TraceStep
	for i, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var s overcooked.TraceStep
		if err := json.Unmarshal([]byte(l), &s); err != nil || s.T != i+1 {
			t.Fatalf("line %d: %v (t=%d)", i+1, err, s.T)
		}
		out = append(out, s)
	}
	return out
}

// TestTraceSoup: the trace of testdata/soup.txt shows overcooked_ai's rules step by step: onion
// pickups, potting (+3 shaped), the automatic start at the third onion, a fourth onion refused, a
// counter drop, the useful dish pickup (+3), the 20-tick timer, the soup pickup (+5) and the
// delivery (+20 sparse).
func TestTraceSoup(t *testing.T) {
	s := traceFile(t, "soup.txt")
	if len(s) != 40 {
		t.Fatalf("%d steps, want 40", len(s))
	}
	type want struct {
		hold           string
		onions, tick   int
		status         string
		shaped, sparse float64
	}
	for step, w := range map[int]want{
		3:  {"onion", 0, -1, "empty", 0, 0},
		6:  {"", 1, -1, "idle", 3, 0},
		11: {"", 2, -1, "idle", 3, 0},
		16: {"", 3, 1, "cooking", 3, 0},
		21: {"onion", 3, 6, "cooking", 0, 0},
		27: {"dish", 3, 12, "cooking", 3, 0},
		34: {"dish", 3, 19, "cooking", 0, 0},
		35: {"dish", 3, 20, "ready", 0, 0},
		36: {"soup", 0, -1, "empty", 5, 0},
		40: {"", 0, -1, "empty", 0, 20},
	} {
		g := s[step-1]
		p, pot := g.Players[0], g.Pots[0]
		if p.Holding != w.hold || pot.Onions != w.onions || pot.Tick != w.tick || pot.Status != w.status ||
			g.Shaped[0] != w.shaped || g.Sparse[0] != w.sparse {
			t.Errorf("t=%d: holding %q, pot %d onions tick %d %s, shaped %v sparse %v; want %+v",
				step, p.Holding, pot.Onions, pot.Tick, pot.Status, g.Shaped[0], g.Sparse[0], w)
		}
	}
	if c := s[24].Counters; len(c) != 1 || c[0].Pos != [2]int{0, 2} || c[0].Object != "onion" {
		t.Errorf("t=25: counters %+v, want the onion on (0,2)", c)
	}
	total := 0.0
	for _, g := range s {
		total += g.Sparse[0] + g.Sparse[1]
	}
	if total != 20 {
		t.Errorf("sparse return %v, want one delivery (20)", total)
	}
}

// TestTraceCollisions: testdata/collisions.txt — swaps, moving into a standing player and two moves
// into one cell are blocked (the players only turn); following into a cell being left is allowed;
// moving into a non-floor cell only turns.
func TestTraceCollisions(t *testing.T) {
	s := traceFile(t, "collisions.txt")
	want := [][2]struct {
		pos    [2]int
		facing string
	}{
		{{[2]int{1, 1}, "N"}, {[2]int{2, 1}, "W"}},
		{{[2]int{1, 1}, "E"}, {[2]int{2, 1}, "W"}},
		{{[2]int{2, 1}, "E"}, {[2]int{2, 2}, "S"}},
		{{[2]int{2, 1}, "S"}, {[2]int{2, 2}, "S"}},
		{{[2]int{2, 1}, "S"}, {[2]int{2, 2}, "N"}},
		{{[2]int{1, 1}, "W"}, {[2]int{2, 2}, "N"}},
		{{[2]int{1, 1}, "E"}, {[2]int{2, 2}, "N"}},
		{{[2]int{1, 1}, "W"}, {[2]int{2, 2}, "N"}},
	}
	if len(s) != len(want) {
		t.Fatalf("%d steps, want %d", len(s), len(want))
	}
	for i, w := range want {
		for k := 0; k < 2; k++ {
			if p := s[i].Players[k]; p.Pos != w[k].pos || p.Facing != w[k].facing {
				t.Errorf("t=%d player %d at %v facing %s, want %v %s", i+1, k, p.Pos, p.Facing, w[k].pos, w[k].facing)
			}
		}
	}
}

// TestTraceOwnGrid: -grid traces a user's kitchen (scenario options kept), and a bad grid is an
// error naming its row and column.
func TestTraceOwnGrid(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "two_dispensers.txt")
	os.WriteFile(grid, []byte("XXPXX\nO1 2O\nX   X\nXDXSX\n"), 0o644)
	acts := filepath.Join(dir, "acts.txt")
	os.WriteFile(acts, []byte("W,E\nINTERACT,INTERACT\n"), 0o644)
	var buf bytes.Buffer
	if err := trace([]string{"overcooked:cramped_room-h50", "-grid", grid, "-actions", acts}, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d trace lines, want 2:\n%s", len(lines), buf.String())
	}
	var last overcooked.TraceStep
	if err := json.Unmarshal([]byte(lines[1]), &last); err != nil {
		t.Fatal(err)
	}
	p := last.Players
	if p[0].Pos != [2]int{1, 1} || p[1].Pos != [2]int{3, 1} || p[0].Holding != "onion" || p[1].Holding != "onion" {
		t.Fatalf("own grid: players %+v; want both at their start cells holding an onion", p)
	}
	os.WriteFile(grid, []byte("XXPXX\nO1 2O\nX  QX\nXDXSX\n"), 0o644)
	err := trace([]string{"overcooked:cramped_room", "-grid", grid}, &buf)
	if err == nil || !strings.Contains(err.Error(), "row 3 column 4") {
		t.Fatalf("bad grid: error %v, want it to name row 3 column 4", err)
	}
}

// `paperlab trace lbf:` started from a trajectory recorded from lb-foraging (its initial state as
// -state, its joint actions by name as -actions) prints, line by line, the players, foods, rewards
// and done that lb-foraging recorded; bad files are errors naming file:line or the field.
func TestTraceLBFAgainstLBForaging(t *testing.T) {
	_, trajs, err := env.ReadLBFRecorded("../../marl/env/testdata/lbf/8x8-2p-2f-coop-pen.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tr := range trajs {
		dir := t.TempDir()
		state, _ := json.Marshal(tr.Initial.LBFStateFile)
		var acts strings.Builder
		for _, s := range tr.Steps {
			for i, a := range s.Actions {
				if i > 0 {
					acts.WriteString(",")
				}
				acts.WriteString(strings.ToLower(env.LBFActionNames[a]))
			}
			acts.WriteString("\n")
		}
		stateFile, actFile := filepath.Join(dir, "state.json"), filepath.Join(dir, "actions.txt")
		if err := os.WriteFile(stateFile, state, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(actFile, []byte(acts.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := trace([]string{"lbf:8x8-2p-2f-coop-pen", "-state", stateFile, "-actions", actFile}, &out); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != len(tr.Steps) {
			t.Fatalf("%d trace lines, %d recorded steps", len(lines), len(tr.Steps))
		}
		for k, line := range lines {
			var got env.LBFTraceStep
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatal(err)
			}
			want := tr.Steps[k]
			if want.Foods == nil {
				want.Foods = [][3]int{}
			}
			if fmt.Sprint(got.Players, got.Foods, got.Rewards, got.Done) != fmt.Sprint(want.Players, want.Foods, want.Rewards, want.Done) {
				t.Fatalf("step %d: trace %s, lb-foraging %+v", k+1, line, want)
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("%d trajectories checked", checked)
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	_ = os.WriteFile(bad, []byte("NONE,LOAD\nNONE\n"), 0o644)
	if err := trace([]string{"lbf:8x8-2p-1f", "-actions", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), "bad.txt:2: 1 actions, the task has 2 players") {
		t.Fatalf("short line: %v", err)
	}
	_ = os.WriteFile(bad, []byte(`{"players": [[1,1,1],[2,2,1]], "food": []}`), 0o644)
	if err := trace([]string{"lbf:8x8-2p-1f", "-state", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), `unknown field "food"`) {
		t.Fatalf("unknown field: %v", err)
	}
}

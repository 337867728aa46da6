package overcookedhuman

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// TestCommittedData pins what the converted files hold (README.md's table).
func TestCommittedData(t *testing.T) {
	want := map[string]struct {
		layout      string
		trial, n    int
		score       float64
		ids         [2]int
		start0, st1 [2]int
	}{
		"cramped_room":          {"cramped_room", 110, 1143, 85, [2]int{46, 47}, [2]int{1, 2}, [2]int{3, 1}},
		"asymmetric_advantages": {"asymmetric_advantages", 76, 1199, 165, [2]int{32, 33}, [2]int{6, 2}, [2]int{1, 3}},
		"counter_circuit":       {"random3", 103, 1204, 70, [2]int{42, 43}, [2]int{6, 3}, [2]int{1, 3}},
	}
	by := ByLayout(loadAll(t))
	if len(by) != len(want) {
		t.Fatalf("layouts %v, want %d", by, len(want))
	}
	for name, w := range want {
		gs := by[name]
		if len(gs) != 1 {
			t.Fatalf("%s: %d games, want 1", name, len(gs))
		}
		g := gs[0]
		if g.Layout != w.layout || g.TrialID != w.trial || len(g.Steps) != w.n || g.Score() != w.score || g.PlayerIDs != w.ids {
			t.Errorf("%s: layout %s trial %d, %d steps, score %g, players %v; want %s %d, %d, %g, %v",
				name, g.Layout, g.TrialID, len(g.Steps), g.Score(), g.PlayerIDs, w.layout, w.trial, w.n, w.score, w.ids)
		}
		if p := g.Steps[0].Players; p[0].Pos != w.start0 || p[1].Pos != w.st1 {
			t.Errorf("%s: first positions %v %v, want %v %v", name, p[0].Pos, p[1].Pos, w.start0, w.st1)
		}
		if g.EnvLayout() != name {
			t.Errorf("%s: EnvLayout %s", name, g.EnvLayout())
		}
	}
}

// TestBCExamples: two examples per step (player 0 then 1), valid actions, and the observation is
// exactly Env.Vector of the same state (the agents' input before their scaling).
func TestBCExamples(t *testing.T) {
	for _, g := range loadAll(t) {
		ex, err := BCExamples(g, overcooked.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		if len(ex) != 2*len(g.Steps) {
			t.Fatalf("%s: %d examples for %d steps", g.Layout, len(ex), len(g.Steps))
		}
		counts := make([]int, overcooked.NumActions)
		for k, x := range ex {
			if x.T != k/2 || x.Player != k%2 || len(x.Obs) != overcooked.VectorSize {
				t.Fatalf("%s example %d: t %d player %d, %d values", g.Layout, k, x.T, x.Player, len(x.Obs))
			}
			if x.Action < 0 || x.Action >= overcooked.NumActions {
				t.Fatalf("%s example %d: action %d", g.Layout, k, x.Action)
			}
			if name := g.Steps[x.T].Actions[x.Player]; overcooked.ActionNames[x.Action] != name {
				t.Fatalf("%s example %d: action %d, recorded %s", g.Layout, k, x.Action, name)
			}
			counts[x.Action]++
		}
		for a, c := range counts {
			if c == 0 {
				t.Errorf("%s: action %s never taken", g.Layout, overcooked.ActionNames[a])
			}
		}
		// Cross-check one mid-game step against an env stepped there by the recorded actions.
		e, err := g.NewEnv()
		if err != nil {
			t.Fatal(err)
		}
		if e.Game, err = g.Steps[0].State(e.Layout); err != nil {
			t.Fatal(err)
		}
		k := len(g.Steps) / 2
		for _, st := range g.Steps[:k] {
			j := st.Joint()
			e.Game.Step(j, e.Cfg.Rules) // the game runs past the env's 400-step horizon, which Env.Step refuses
		}
		for i := range 2 {
			v := e.Vector(i)
			for j := range v {
				if got, want := ex[2*k+i].Obs[j], v[j]; got != want {
					t.Fatalf("%s t %d player %d obs[%d] = %v, stepped env %v", g.Layout, k, i, j, got, want)
				}
			}
		}
		t.Logf("%s: %d examples, actions N S E W STAY INTERACT = %v", g.Layout, len(ex), counts)
	}
}

// TestLoadErrors: a bad line fails naming file:line and the field.
func TestLoadErrors(t *testing.T) {
	b, err := os.ReadFile("cramped_room.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 4)[:3]
	cases := []struct {
		name, old, new, want string
		line                 int
	}{
		{"unknown action", `"actions":["STAY","STAY"]`, `"actions":["STAY","JUMP"]`, `field actions[1]: unknown action "JUMP"`, 2},
		{"missing reward", `"reward":0,`, ``, "field reward: missing", 2},
		{"missing holding", `,"holding":""}]`, `}]`, "field players[1].holding: missing", 2},
		{"unknown field", `"score":0`, `"score":0,"bonus":1`, `unknown field "bonus"`, 2},
		{"bad facing", `"facing":"N"`, `"facing":"UP"`, `field players[0].facing: "UP"`, 2},
		{"wrong type", `"t":1`, `"t":"1"`, "field t: got JSON string", 2},
		{"gap in t", `"t":1`, `"t":2`, "field t: 2, want 1", 2},
		{"bad score", `"score":0`, `"score":5`, "field score: 5", 2},
		{"unknown layout", `"layout":"cramped_room"`, `"layout":"kitchen"`, `field layout: "kitchen"`, 2},
	}
	dir := t.TempDir()
	for _, c := range cases {
		l := slices3(lines)
		if !strings.Contains(l[1], c.old) {
			t.Fatalf("%s: line 2 lacks %q", c.name, c.old)
		}
		l[1] = strings.Replace(l[1], c.old, c.new, 1)
		path := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(l, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), path+":2: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %s:%d: …%s…", c.name, err, path, c.line, c.want)
		}
	}
}

func slices3(l []string) []string { return append([]string(nil), l...) }

package overcooked

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"
)

// golden is testdata/overcooked_ai.json.gz, written by bench/overcooked_golden.py from
// HumanCompatibleAI/overcooked_ai itself (noisy greedy agents, old dynamics, 400 steps per layout).
type golden struct {
	Source  string `json:"source"`
	Layouts []struct {
		Layout string `json:"layout"`
		Steps  []struct {
			A         [2]int     `json:"a"`
			Pos       [2][2]int  `json:"pos"`
			Dir       [2]int     `json:"dir"`
			Hold      [2]string  `json:"hold"`
			Objects   [][]any    `json:"objects"` // x, y, name, onions, cooking tick
			Sparse    [2]float64 `json:"sparse"`
			Shaped    [2]float64 `json:"shaped"`
			Feat      [2][]int   `json:"feat"`
			Lossless0 [][2]int   `json:"lossless0"`
		} `json:"steps"`
	} `json:"layouts"`
}

// TestMatchesOvercookedAI replays overcooked_ai's own trajectories on the five classic layouts and
// checks every step: positions, orientations, held objects, every object on the grid (pots with
// their onions and cooking tick), sparse and shaped rewards by agent, both players' featurize_state
// vectors and player 0's lossless planes.
func TestMatchesOvercookedAI(t *testing.T) {
	f, err := os.Open("testdata/overcooked_ai.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.NewDecoder(zr).Decode(&g); err != nil {
		t.Fatal(err)
	}
	if len(g.Layouts) != 5 {
		t.Fatalf("golden data has %d layouts, want the five classic ones", len(g.Layouts))
	}
	soups := 0
	for _, gl := range g.Layouts {
		e, err := New(DefaultConfig(gl.Layout))
		if err != nil {
			t.Fatalf("%s: %v", gl.Layout, err)
		}
		s, r := e.NewEpisode().Game, e.Cfg.Rules
		for k, st := range gl.Steps {
			where := fmt.Sprintf("%s step %d (joint action %v)", gl.Layout, k+1, st.A)
			out := s.Step(st.A, r)
			for i, p := range s.Players {
				if p.Pos != (Pos{st.Pos[i][0], st.Pos[i][1]}) || p.Dir != st.Dir[i] || p.Holding.String() != st.Hold[i] {
					t.Fatalf("%s: player %d at %v dir %d holding %q; overcooked_ai: %v dir %d holding %q",
						where, i, p.Pos, p.Dir, p.Holding, st.Pos[i], st.Dir[i], st.Hold[i])
				}
			}
			if out.Sparse != st.Sparse || out.Shaped != st.Shaped {
				t.Fatalf("%s: rewards sparse %v shaped %v; overcooked_ai: sparse %v shaped %v", where, out.Sparse, out.Shaped, st.Sparse, st.Shaped)
			}
			soups += int(st.Sparse[0]+st.Sparse[1]) / 20
			if got, want := objects(s), goldenObjects(st.Objects); !slices.Equal(got, want) {
				t.Fatalf("%s: objects %v; overcooked_ai: %v", where, got, want)
			}
			v := s.Vectors(e.pl, r)
			for i := range v {
				for j, x := range v[i] {
					if int(x) != st.Feat[i][j] || float32(int(x)) != x {
						t.Fatalf("%s: player %d featurize_state[%d] = %v; overcooked_ai: %d\n ours %v\n want %v", where, i, j, x, st.Feat[i][j], v[i], st.Feat[i])
					}
				}
			}
			planes := s.Lossless(0, r, e.Cfg.Horizon)
			var nz [][2]int
			for idx, x := range planes {
				if x != 0 {
					nz = append(nz, [2]int{idx, int(x)})
				}
			}
			if !slices.Equal(nz, st.Lossless0) {
				t.Fatalf("%s: lossless planes (index, value) %v; overcooked_ai: %v", where, nz, st.Lossless0)
			}
		}
	}
	if soups < 20 {
		t.Fatalf("the golden trajectories deliver %d soups; expected more (regenerate the data?)", soups)
	}
}

// objects lists a state's objects as overcooked_ai's state.objects: non-empty pots as soups with
// their onion count and cooking tick, and counter objects, sorted by position.
func objects(s *State) []string {
	var out []string
	for p, pot := range s.Pots {
		if !pot.Empty() {
			out = append(out, fmt.Sprintf("%d,%d soup %d %d", p.X, p.Y, pot.Onions, pot.Tick))
		}
	}
	for p, o := range s.Counters {
		if o == SoupObj {
			out = append(out, fmt.Sprintf("%d,%d soup 3 %d", p.X, p.Y, DefaultRules().CookTime))
		} else {
			out = append(out, fmt.Sprintf("%d,%d %s 0 0", p.X, p.Y, o))
		}
	}
	sort.Strings(out)
	return out
}

func goldenObjects(objs [][]any) []string {
	var out []string
	for _, o := range objs {
		out = append(out, fmt.Sprintf("%d,%d %s %d %d", int(o[0].(float64)), int(o[1].(float64)), o[2], int(o[3].(float64)), int(o[4].(float64))))
	}
	sort.Strings(out)
	return out
}

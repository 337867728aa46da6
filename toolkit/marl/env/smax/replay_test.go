package smax

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
)

// The replay file: trajectories recorded from JaxMARL's SMAX (jaxmarl 0.2.0) by bench/smax_record.py
// (bench/smax_record.sh; its header in testdata/README.md).
const replayFile = "testdata/smax_jaxmarl.jsonl.gz"

type recState struct {
	Pos           [][2]float32 `json:"pos"`
	Health        []float32    `json:"health"`
	Alive         []int        `json:"alive"`
	Cooldown      []float32    `json:"cooldown"`
	PrevMove      [][2]float32 `json:"prev_move"`
	PrevAttack    []int        `json:"prev_attack"`
	Steps         int          `json:"steps"`
	EnemyTarget   [][2]float32 `json:"enemy_target"`
	EnemyAttacked []int        `json:"enemy_attacked"`
}

type recStep struct {
	Actions      []int       `json:"actions"`
	EnemyActions []int       `json:"enemy_actions"`
	Jitter       [][]float32 `json:"jitter"`
	Reward       float32     `json:"reward"`
	Done         bool        `json:"done"`
	After        recState    `json:"after"`
	Obs          [][]float32 `json:"obs"`
	Avail        [][]int     `json:"avail"`
	WorldState   []float32   `json:"world_state"`
}

type recEpisode struct {
	Scenario string    `json:"scenario"`
	Policy   string    `json:"policy"`
	Seed     int       `json:"seed"`
	Start    recState  `json:"start"`
	Steps    []recStep `json:"steps"`
}

func readReplays(t *testing.T, path string) []recEpisode {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var eps []recEpisode
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		var ep recEpisode
		if err := json.Unmarshal(sc.Bytes(), &ep); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		eps = append(eps, ep)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return eps
}

// stateOf is the Go state of a recorded one.
func (e *Env) stateOf(r recState) *State {
	s := &State{Pos: slices.Clone(r.Pos), Health: slices.Clone(r.Health), Types: slices.Clone(e.Sc.Types), Cooldown: slices.Clone(r.Cooldown),
		PrevMove: slices.Clone(r.PrevMove), PrevAttack: slices.Clone(r.PrevAttack), Steps: r.Steps}
	for _, a := range r.Alive {
		s.Alive = append(s.Alive, a == 1)
	}
	for k := range r.EnemyAttacked {
		s.Enemy = append(s.Enemy, Memory{Target: r.EnemyTarget[k], Attacked: r.EnemyAttacked[k]})
	}
	return s
}

// near: float32 values recorded from JAX against ours, within a few ulps (XLA may sum the
// push-apart terms in another order, or fuse a multiply-add).
func near(a, b float32) bool {
	return math.Abs(float64(a-b)) <= 2e-5*math.Max(1, math.Abs(float64(b)))
}

// diffState names the first field where s differs from the recorded r.
func diffState(s *State, r recState) string {
	for i := range s.Pos {
		switch {
		case !near(s.Pos[i][0], r.Pos[i][0]) || !near(s.Pos[i][1], r.Pos[i][1]):
			return fmt.Sprintf("unit %d position %v, SMAX %v", i, s.Pos[i], r.Pos[i])
		case !near(s.Health[i], r.Health[i]):
			return fmt.Sprintf("unit %d health %v, SMAX %v", i, s.Health[i], r.Health[i])
		case s.Alive[i] != (r.Alive[i] == 1):
			return fmt.Sprintf("unit %d alive %v, SMAX %v", i, s.Alive[i], r.Alive[i])
		case !near(s.Cooldown[i], r.Cooldown[i]):
			return fmt.Sprintf("unit %d cooldown %v, SMAX %v", i, s.Cooldown[i], r.Cooldown[i])
		case !near(s.PrevMove[i][0], r.PrevMove[i][0]) || !near(s.PrevMove[i][1], r.PrevMove[i][1]):
			return fmt.Sprintf("unit %d last move %v, SMAX %v", i, s.PrevMove[i], r.PrevMove[i])
		case s.PrevAttack[i] != r.PrevAttack[i]:
			return fmt.Sprintf("unit %d last attack %v, SMAX %v", i, s.PrevAttack[i], r.PrevAttack[i])
		}
	}
	if s.Steps != r.Steps {
		return fmt.Sprintf("step count %d, SMAX %d", s.Steps, r.Steps)
	}
	return ""
}

func nearAll(a, b []float32) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return i
		}
	}
	return -1
}

// TestReplaySMAX replays every recorded step: from the recorded state before it, the heuristic
// picks each enemy's action from our observation (where SMAX drew which visible ally to chase, the
// recorded action must be a move toward one of them) and keeps the same memory; Advance with the
// recorded actions and cooldown jitter gives the recorded state, reward and done; where recorded,
// the allies' observations, available actions and the world state after the step agree. Each step
// starts again from the recorded state, so a rounding difference cannot grow.
func TestReplaySMAX(t *testing.T) {
	eps := readReplays(t, replayFile)
	counts := map[string]int{}
	for _, ep := range eps {
		e, err := New(DefaultConfig(ep.Scenario))
		if err != nil {
			t.Fatal(err)
		}
		counts[ep.Scenario+" "+ep.Policy]++
		before := ep.Start
		for k, st := range ep.Steps {
			where := fmt.Sprintf("%s %s seed %d step %d", ep.Scenario, ep.Policy, ep.Seed, k)
			s := e.stateOf(before)
			for q := range e.Sc.Enemies {
				i := e.Sc.Allies + q
				m := s.Enemy[q]
				obs := e.ObsOf(s, i)
				var chased []int // every action the random chase could give
				got := e.heuristicWith(&m, obs, func(n int) int { return 0 }, func(n int) int {
					for c := range n {
						mc := s.Enemy[q]
						chased = append(chased, e.heuristicWith(&mc, obs, nil, func(int) int { return c }))
					}
					return 0
				})
				want := st.EnemyActions[q]
				if chased != nil {
					if !slices.Contains(chased, want) {
						t.Fatalf("%s: enemy %d chases with action %d, SMAX %d (possible %v)", where, i, got, want, chased)
					}
				} else if got != want {
					t.Fatalf("%s: enemy %d action %d, SMAX %d", where, i, got, want)
				}
				if m.Attacked != st.After.EnemyAttacked[q] || !near(m.Target[0], st.After.EnemyTarget[q][0]) || !near(m.Target[1], st.After.EnemyTarget[q][1]) {
					t.Fatalf("%s: enemy %d memory %+v, SMAX target %v attacked %d", where, i, m, st.After.EnemyTarget[q], st.After.EnemyAttacked[q])
				}
			}
			r, err := e.Advance(s, slices.Concat(st.Actions, st.EnemyActions), st.Jitter)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if d := diffState(s, st.After); d != "" {
				t.Fatalf("%s: %s", where, d)
			}
			if !near(r, st.Reward) || s.Done != st.Done {
				t.Fatalf("%s: reward %v done %v, SMAX %v %v", where, r, s.Done, st.Reward, st.Done)
			}
			if st.Obs != nil {
				for i := range e.Sc.Allies {
					if j := nearAll(e.ObsOf(s, i), st.Obs[i]); j >= 0 {
						t.Fatalf("%s: ally %d observation [%d] = %v, SMAX %v", where, i, j, e.ObsOf(s, i)[j], st.Obs[i][j])
					}
				}
				for i, m := range e.Avail(s) {
					for a, ok := range m {
						if ok != (st.Avail[i][a] == 1) {
							t.Fatalf("%s: ally %d action %d available %v, SMAX %v", where, i, a, ok, st.Avail[i])
						}
					}
				}
				if j := nearAll(e.Global(s), st.WorldState); j >= 0 {
					t.Fatalf("%s: world state [%d] = %v, SMAX %v", where, j, e.Global(s)[j], st.WorldState[j])
				}
			}
			before = st.After
		}
	}
	for _, sc := range []string{"3m", "2s3z"} {
		for _, pol := range []string{"random", "nearest"} {
			if counts[sc+" "+pol] < 20 {
				t.Errorf("%s %s: %d recorded episodes, want ≥ 20", sc, pol, counts[sc+" "+pol])
			}
		}
	}
}

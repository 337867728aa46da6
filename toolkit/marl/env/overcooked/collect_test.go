package overcooked

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// seatLearner is a scripted learner whose input row for game k is {seat, game}: a test can read back
// which stream each sample belongs to.
type seatLearner struct {
	ScriptedAgent
	stateful bool
}

func (l seatLearner) Stateful() bool { return l.stateful }

func (l seatLearner) Sample(games []*Episode, idx []int, rng *rand.Rand) ([]float32, []int, []float32, error) {
	a, err := l.Act(games, idx, rng)
	in := make([]float32, 0, 2*len(games))
	for k := range games {
		in = append(in, float32(idx[k]), float32(k))
	}
	return in, a, make([]float32, len(games)), err
}

// Collect lays the learner's samples out stream by stream (its seat, then the other seat when it
// plays both), pays each the sparse reward plus the shaped one times the game's factor, records the
// partner's actions, and refuses a stateful learner in both seats.
func TestCollect(t *testing.T) {
	cfg := DefaultConfig("cramped_room")
	cfg.Horizon = 60
	world, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	greedy := ScriptedAgent{Scripted{Role: "greedy"}}
	col := NewCollector(world)
	for _, partner := range []Agent{greedy, nil} {
		rng := rand.New(rand.NewPCG(1, 2))
		games, seat, other := NewGames(world, 3, 0.5, rng)
		ro, err := col.Collect(games, seat, seatLearner{ScriptedAgent: greedy}, partner, rng)
		if err != nil {
			t.Fatal(err)
		}
		G, T := len(games), cfg.Horizon
		seats := [][]int{seat, other}[:ro.E/G]
		if ro.T != T || ro.ObsDim != 2 || len(ro.Act) != T*ro.E || len(ro.Rew) != T*ro.E || len(ro.Avail) != T*ro.E*NumActions {
			t.Fatalf("rollout T %d E %d obs dim %d, %d actions, %d rewards", ro.T, ro.E, ro.ObsDim, len(ro.Act), len(ro.Rew))
		}
		if (partner == nil) != (ro.E == 2*G) || (partner == nil) != (len(ro.Partner) == 0) || partner != nil && len(ro.Partner) != T*G {
			t.Fatalf("partner %v: %d streams for %d games, %d partner actions", partner, ro.E, G, len(ro.Partner))
		}
		for i := 0; i < T*ro.E; i++ {
			s, k := i%ro.E/G, i%G
			if ro.Obs[2*i] != float32(seats[s][k]) || ro.Obs[2*i+1] != float32(k) {
				t.Fatalf("sample %d: row %v, want seat %d of game %d", i, ro.Obs[2*i:2*i+2], seats[s][k], k)
			}
		}
		total := 0.0
		for _, r := range ro.Rew {
			total += r
		}
		if want := ro.Sparse*float64(len(seats)) + 0.5*ro.Shaped; ro.Shaped == 0 || total != want {
			t.Fatalf("rewards sum to %v, want %v (sparse %v, shaped %v)", total, want, ro.Sparse, ro.Shaped)
		}
	}
	games, seat, _ := NewGames(world, 2, 1, rand.New(rand.NewPCG(1, 2)))
	if _, err := col.Collect(games, seat, seatLearner{ScriptedAgent: greedy, stateful: true}, nil, nil); err == nil || !strings.Contains(err.Error(), "both seats") {
		t.Fatalf("stateful learner in both seats: %v", err)
	}
}

package overcooked

import (
	"math"
	"math/rand/v2"
	"testing"
)

// stayAgent never moves.
type stayAgent struct{}

func (stayAgent) Reset(int) {}
func (stayAgent) Saw([]int) {}

func (stayAgent) Act(g []*Episode, _ []int, _ *rand.Rand) ([]int, error) {
	out := make([]int, len(g))
	for k := range out {
		out[k] = int(Stay)
	}
	return out, nil
}

func TestEvaluateScriptedPairs(t *testing.T) {
	cfg := DefaultConfig("cramped_room")
	cfg.Horizon = 200
	on := ScriptedAgent{Scripted: ScriptedPartners["onion-carrier"]}
	dish := ScriptedAgent{Scripted: ScriptedPartners["dish-server"]}
	a, err := Evaluate(cfg, on, dish, 4, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Evaluate(cfg, on, dish, 4, 7)
	if a != b {
		t.Fatalf("same seed, different returns %v vs %v", a, b)
	}
	if a < 20 || math.Mod(a*4, 20) != 0 {
		t.Fatalf("onion carrier with dish server: mean return %v, want soups (multiples of 20 in total) and at least one per game", a)
	}
	if z, _ := Evaluate(cfg, stayAgent{}, stayAgent{}, 2, 1); z != 0 {
		t.Fatalf("two idle cooks scored %v", z)
	}
}

// EvaluateEpisodes alternates seats and its mean is Evaluate's.
func TestEvaluateEpisodesSeats(t *testing.T) {
	cfg := DefaultConfig("cramped_room")
	cfg.Horizon = 100
	g := ScriptedAgent{Scripted: Scripted{Role: "greedy"}}
	rets, err := EvaluateEpisodes(cfg, g, stayAgent{}, 4, 3)
	if err != nil || len(rets) != 4 {
		t.Fatalf("%v %v", rets, err)
	}
	sum := 0.0
	for _, r := range rets {
		sum += r
	}
	if m, _ := Evaluate(cfg, g, stayAgent{}, 4, 3); m != sum/4 || m == 0 {
		t.Fatalf("mean %v, episodes %v", m, rets)
	}
}

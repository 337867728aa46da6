package bc

import (
	"math/rand/v2"
	"testing"
)

// synthetic games: the action is a deterministic function of the observation (which feature is
// largest), with 10 % label noise; BC must beat the majority baseline by far on held-out steps.
func synthetic(n, dim, actions int, seed uint64) []Game {
	r := rand.New(rand.NewPCG(seed, 1))
	var games []Game
	for g := 0; g < 3; g++ {
		var game Game
		for i := 0; i < n; i++ {
			obs := make([]float32, dim)
			for k := range obs {
				obs[k] = float32(r.NormFloat64())
			}
			best := 0
			for a := 0; a < actions; a++ {
				if obs[a] > obs[best] {
					best = a
				}
			}
			if r.Float64() < 0.1 {
				best = r.IntN(actions)
			}
			game = append(game, Example{Obs: obs, Action: best})
		}
		games = append(games, game)
	}
	return games
}

func TestBCLearnsAndSplitsByTime(t *testing.T) {
	games := synthetic(300, 8, 4, 1)
	train, held := Split(games, 0.2)
	if len(train) != 720 || len(held) != 180 || &held[0].Obs[0] != &games[0][240].Obs[0] {
		t.Fatalf("split: %d train, %d held (the last 20%% of each game)", len(train), len(held))
	}
	cfg := Default(4)
	cfg.Epochs = 30
	res, err := Train(cfg, games, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Net.Close()
	f := res.Final
	if f["heldout_accuracy"] < 0.7 || f["heldout_accuracy"] < f["majority_accuracy"]+0.3 {
		t.Fatalf("held-out accuracy %.3f (majority %.3f)", f["heldout_accuracy"], f["majority_accuracy"])
	}
	if c := res.Curves["heldout_accuracy"]; len(c.Y) != 6 {
		t.Fatalf("held-out curve has %d points, want 6 (every 5 of 30 epochs)", len(c.Y))
	}
	again, err := Train(cfg, games, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Net.Close()
	if again.Final["heldout_loss"] != f["heldout_loss"] {
		t.Fatalf("same seed, different fit: %v vs %v", again.Final["heldout_loss"], f["heldout_loss"])
	}
}

func TestBCRejectsBadExamples(t *testing.T) {
	games := synthetic(20, 4, 4, 2)
	games[1][3].Action = 9
	if _, err := Train(Default(4), games, 1); err == nil {
		t.Fatal("an action outside 0..3 was accepted")
	}
	if err := (Config{Hidden: 8, Actions: 4, Epochs: 1, BatchSize: 8, LR: 1e-3, HeldOutFrac: 1, EvalEvery: 1}).Validate(); err == nil {
		t.Fatal("held_out_frac 1 accepted")
	}
}

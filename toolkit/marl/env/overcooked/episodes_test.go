package overcooked

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// RunEpisodes steps to the horizon, fills each game's joint action from the actors' seats (a later
// actor overriding an earlier one in the same seat), and refuses seats that do not match the games.
func TestRunEpisodes(t *testing.T) {
	cfg := DefaultConfig("cramped_room")
	cfg.Horizon = 7
	world, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	games, seat, other := NewGames(world, 8, 0.5, rand.New(rand.NewPCG(1, 2)))
	if !slices.Contains(seat, 0) || !slices.Contains(seat, 1) {
		t.Fatalf("seats %v: want both seats drawn in 8 games", seat)
	}
	for k := range games {
		if seat[k]+other[k] != 1 || games[k].ShapingFactor != 0.5 {
			t.Fatalf("game %d: seats %d, %d, shaping %v", k, seat[k], other[k], games[k].ShapingFactor)
		}
	}
	both := make([]int, len(games))
	act := func(i int, g []*Episode, s []int) ([]int, error) {
		a := make([]int, len(g))
		for k := range a {
			a[k] = []int{North, Interact, West}[i]
		}
		return a, nil
	}
	steps := 0
	err = RunEpisodes(world, games, [][]int{seat, other, both}, act, func(tt int, joint [][2]int, acts [][]int) error {
		if tt != steps || len(acts) != 3 {
			t.Fatalf("after(%d) at step %d with %d actors", tt, steps, len(acts))
		}
		steps++
		for k, j := range joint {
			var want [2]int
			want[seat[k]], want[other[k]] = North, Interact
			want[0] = West // actor 2 plays seat 0 of every game after the others
			if j != want {
				t.Fatalf("game %d (seat %d): joint %v, want %v", k, seat[k], j, want)
			}
		}
		return nil
	})
	if err != nil || steps != cfg.Horizon {
		t.Fatalf("%d steps, err %v", steps, err)
	}
	for k, g := range games {
		if g.Game.Timestep != cfg.Horizon {
			t.Fatalf("game %d at timestep %d", k, g.Game.Timestep)
		}
	}
	if err := RunEpisodes(world, games, [][]int{{0}}, act, nil); err == nil {
		t.Fatal("one seat for eight games was accepted")
	}
}

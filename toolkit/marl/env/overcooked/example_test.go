package overcooked_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// A kitchen, a cook written as a Go function (it delegates to the rule-based greedy cook), and one
// 400-step game of it with a partner that only stands still: the greedy cook serves soups alone.
func ExampleNew() {
	cfg := overcooked.DefaultConfig("cramped_room")
	world, err := overcooked.New(cfg)
	if err != nil {
		panic(err)
	}
	g := world.NewEpisode()
	fmt.Println("layout", g.Layout.Name, "players", len(g.Game.Players), "horizon", cfg.Horizon)
	greedy := overcooked.Scripted{Role: "greedy"}
	cook := overcooked.Func(func(g *overcooked.Episode, player int, rng *rand.Rand) int {
		return greedy.Act(g.Game, player, g.Cfg.Rules, rng)
	})
	idle := overcooked.Func(func(*overcooked.Episode, int, *rand.Rand) int { return overcooked.Stay })
	actions, ret, err := overcooked.Play(cfg, cook, idle, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(actions), "steps, soups served:", ret > 0)
	// Output:
	// layout cramped_room players 2 horizon 400
	// 400 steps, soups served: true
}

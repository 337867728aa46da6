package overcooked

import (
	"fmt"
	"math/rand/v2"
)

// NewGames starts n training episodes of world with the shaped-reward factor and draws, from rng,
// the learner's seat in each (the other player's seat is the other one): what every on-policy
// iteration of E3T, SP and FCP starts with.
func NewGames(world *Env, n int, factor float64, rng *rand.Rand) (games []*Episode, seat, other []int) {
	games, seat, other = make([]*Episode, n), make([]int, n), make([]int, n)
	for k := range games {
		games[k] = world.NewEpisode()
		games[k].ShapingFactor = factor
		seat[k] = rng.IntN(2)
		other[k] = 1 - seat[k]
	}
	return games, seat, other
}

// RunEpisodes is the episode loop of evaluation (Evaluate, Play); training collects its samples
// with Collector.Collect instead. At each step, to the horizon, the actors act in order — actor i
// plays seat seats[i][k] of game k and act(i, games, seats[i]) returns its actions (an actor that
// fills a seat an earlier one filled overrides it) — then every game steps through world.Step (each
// game's outcome is then games[k].Last), then after(t, joint, acts) sees the step: the joint action
// of each game and each actor's actions (for rewards and for agents that watch their partner,
// Agent.Saw).
func RunEpisodes(world *Env, games []*Episode, seats [][]int,
	act func(i int, games []*Episode, seats []int) ([]int, error),
	after func(t int, joint [][2]int, acts [][]int) error) error {
	for i, s := range seats {
		if len(s) != len(games) {
			return fmt.Errorf("overcooked: actor %d has %d seats for %d games", i, len(s), len(games))
		}
	}
	joint := make([][2]int, len(games))
	acts := make([][]int, len(seats))
	for t := 0; t < world.Cfg.Horizon; t++ {
		for i, s := range seats {
			a, err := act(i, games, s)
			if err != nil {
				return fmt.Errorf("step %d, actor %d: %w", t, i, err)
			}
			for k := range games {
				joint[k][s[k]] = a[k]
			}
			acts[i] = a
		}
		for k, g := range games {
			next, _, err := world.Step(g, joint[k][:])
			if err != nil {
				return fmt.Errorf("step %d, game %d: %w", t, k, err)
			}
			games[k] = next.(*Episode)
		}
		if after != nil {
			if err := after(t, joint, acts); err != nil {
				return err
			}
		}
	}
	return nil
}

package overcooked

import (
	"errors"
	"math/rand/v2"
)

// Agent acts for one player in a batch of Overcooked games, each an Episode (its Game, its rules
// through the embedded Env, and the observations Obs the last step computed — overwritten by the
// next step when the trainer steps with ReuseObs, so an agent copies what it keeps). Stateful agents
// (a partner model's action history) keep one history per game.
type Agent interface {
	// Reset starts n games.
	Reset(n int)
	// Act returns player idx[k]'s action in game k.
	Act(games []*Episode, idx []int, rng *rand.Rand) ([]int, error)
	// Saw tells the agent the other player's action in each game after a step.
	Saw(other []int)
}

// Stateful is implemented by agents that keep a per-game history (a partner model's): such an agent
// cannot sit in both seats of a game, where the two players' steps would share its history.
type Stateful interface {
	Stateful() bool
}

// ScriptedAgent wraps a rule-based cook.
type ScriptedAgent struct{ Scripted }

func (a ScriptedAgent) Reset(int) {}
func (a ScriptedAgent) Saw([]int) {}

// Act implements Agent.
func (a ScriptedAgent) Act(games []*Episode, idx []int, rng *rand.Rand) ([]int, error) {
	out := make([]int, len(games))
	for k, g := range games {
		out[k] = a.Scripted.Act(g.Game, idx[k], g.Cfg.Rules, rng)
	}
	return out, nil
}

// Evaluate plays episodes games of `a` with `b` on a layout configuration, half with `a` as player 0
// and half as player 1, and returns the mean sparse return per episode (soups × 20).
func Evaluate(cfg Config, a, b Agent, episodes int, seed uint64) (float64, error) {
	rets, err := EvaluateEpisodes(cfg, a, b, episodes, seed)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, r := range rets {
		total += r
	}
	return total / float64(episodes), nil
}

// EvaluateEpisodes plays episodes games of a with b, a in seat k%2 of game k (so half the games in
// each seat), all games stepped together, and returns each game's sparse return.
func EvaluateEpisodes(cfg Config, a, b Agent, episodes int, seed uint64) ([]float64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6576616c))
	world, err := New(cfg)
	if err != nil {
		return nil, err
	}
	games := make([]*Episode, episodes)
	ia, ib := make([]int, episodes), make([]int, episodes)
	for k := range games {
		games[k] = world.NewEpisode()
		ia[k], ib[k] = k%2, 1-k%2
	}
	rets := make([]float64, episodes)
	err = playGames(games, a, b, ia, ib, rng, func(k int, _ [2]int, out Outcome) { rets[k] += out.Sparse[0] + out.Sparse[1] })
	if err != nil {
		return nil, err
	}
	return rets, nil
}

// playGames steps games of a and b together to the horizon (RunEpisodes) — a in seat ia[k] and b
// in seat ib[k] of game k, their randomness drawn from rng — and calls step with each game's joint
// action and outcome. It resets both agents for len(games) games first.
func playGames(games []*Episode, a, b Agent, ia, ib []int, rng *rand.Rand, step func(k int, joint [2]int, out Outcome)) error {
	if sameStateful(a, b) {
		return errors.New("overcooked: one stateful agent in both seats would mix the two players' steps in its per-game history: play it with a copy of itself (load it twice)")
	}
	a.Reset(len(games))
	b.Reset(len(games))
	agents := []Agent{a, b}
	return RunEpisodes(games[0].Env, games, [][]int{ia, ib},
		func(i int, g []*Episode, seats []int) ([]int, error) { return agents[i].Act(g, seats, rng) },
		func(_ int, joint [][2]int, acts [][]int) error {
			for k, g := range games {
				step(k, joint[k], g.Last)
			}
			a.Saw(acts[1])
			b.Saw(acts[0])
			return nil
		})
}

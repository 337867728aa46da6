package overcooked

import (
	"bytes"
	"fmt"
	"image/png"
	"math/rand/v2"
)

// Func is an Agent written as a plain function: the action of `player` in game g (g.Game is the
// state, g.Cfg.Rules the rules). It is how a notebook cell writes its own cook:
//
//	cook := overcooked.Func(func(g *overcooked.Episode, player int, rng *rand.Rand) int { return overcooked.Interact })
type Func func(g *Episode, player int, rng *rand.Rand) int

func (f Func) Reset(int) {}
func (f Func) Saw([]int) {}

// Act implements Agent.
func (f Func) Act(games []*Episode, idx []int, rng *rand.Rand) ([]int, error) {
	out := make([]int, len(games))
	for k, g := range games {
		out[k] = f(g, idx[k], rng)
	}
	return out, nil
}

// Play runs one game of a (player 0) with b (player 1) for cfg.Horizon steps from the layout's start
// and returns the joint actions and the sparse return (soups × 20). The agents' randomness comes from
// seed.
func Play(cfg Config, a, b Agent, seed uint64) (actions [][2]int, ret float64, err error) {
	world, err := New(cfg)
	if err != nil {
		return nil, 0, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x67696600))
	err = playGames([]*Episode{world.NewEpisode()}, a, b, []int{0}, []int{1}, rng, func(_ int, joint [2]int, out Outcome) {
		ret += out.Sparse[0] + out.Sparse[1]
		actions = append(actions, joint)
	})
	if err != nil {
		return nil, 0, err
	}
	return actions, ret, nil
}

// Replay plays the joint actions from the layout's start (at most cfg.Horizon of them: a step past
// the horizon is an error) and returns the first state and the state after every `every`-th step.
func Replay(cfg Config, actions [][2]int, every int) ([]*State, error) {
	world, err := New(cfg)
	if err != nil {
		return nil, err
	}
	g := world.NewEpisode()
	states := []*State{g.Game.Clone()}
	for t, j := range actions {
		next, _, err := world.Step(g, j[:])
		if err != nil {
			return nil, fmt.Errorf("replay step %d: %w", t+1, err)
		}
		g = next.(*Episode)
		if every <= 1 || t%every == every-1 {
			states = append(states, g.Game.Clone())
		}
	}
	return states, nil
}

// EpisodeGIF replays the joint actions (a frame every `every` steps, tiles enlarged `scale` times) as an
// animated GIF, with a PNG poster of the middle frame for places that show no animation.
func EpisodeGIF(cfg Config, actions [][2]int, every, scale int) (gif, poster []byte, err error) {
	g, err := New(cfg) // the rules as the game applies them
	if err != nil {
		return nil, nil, err
	}
	states, err := Replay(cfg, actions, every)
	if err != nil {
		return nil, nil, err
	}
	gif, err = GIF(states, g.Cfg.Rules, 8, scale)
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, Upscale(states[len(states)/2].Image(g.Cfg.Rules), scale)); err != nil {
		return nil, nil, err
	}
	return gif, b.Bytes(), nil
}

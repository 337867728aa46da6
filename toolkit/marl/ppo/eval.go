package ppo

import (
	"fmt"
	"maps"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// Episode is one evaluation episode: its shared return, its length, the Info of its last step
// (env.Transition.Info: SMAX's "won") and the joint action of every step (to replay it from its
// seed).
type Episode struct {
	Return  float64
	Length  int
	Info    map[string]float64
	Actions [][]int
}

// AppendInputs appends the actor's input rows of one state to dst, as training builds them
// (ac.Sampler): each agent's observation times scale, then its one-hot id.
func AppendInputs(dst []float32, obs [][]float32, scale float32) []float32 {
	n := len(obs)
	for i, o := range obs {
		for _, x := range o {
			dst = append(dst, x*scale)
		}
		for j := range n {
			if j == i {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		}
	}
	return dst
}

// Play runs the actor on `episodes` fresh episodes of scenario at once (episode k reset with seed
// seed+k), each agent reading its observation times scale with its one-hot id appended, as
// training does (ac.Sampler), and taking its most likely available action (greedy) or a sampled
// one; every episode runs to its end (at most the horizon).
func Play(scenario string, actor *ac.Net, scale float32, episodes int, seed uint64, greedy bool) ([]Episode, error) {
	if episodes < 1 {
		return nil, fmt.Errorf("ppo: play %d episodes", episodes)
	}
	e, err := env.Make(scenario)
	if err != nil {
		return nil, err
	}
	sp := e.Spec()
	n := sp.Agents
	states, obs := make([]env.State, episodes), make([][][]float32, episodes)
	for k := range states {
		if states[k], obs[k], err = e.Reset(seed + uint64(k)); err != nil {
			return nil, err
		}
	}
	out := make([]Episode, episodes)
	done := make([]bool, episodes)
	r := rand.New(rand.NewPCG(seed, 0x706c6179))
	for t := 0; t < sp.Horizon; t++ {
		var live []int
		var in []float32
		var masks [][]bool
		for k := range states {
			if done[k] {
				continue
			}
			live = append(live, k)
			in = AppendInputs(in, obs[k], scale)
			masks = append(masks, env.Avail(e, states[k])...)
		}
		if len(live) == 0 {
			break
		}
		logits, err := actor.Apply(in, len(live)*n)
		if err != nil {
			return nil, err
		}
		acts, _ := ac.Policy(logits, masks, r, greedy)
		for q, k := range live {
			next, tr, err := e.Step(states[k], acts[q*n:(q+1)*n])
			if err != nil {
				return nil, fmt.Errorf("episode %d step %d: %w", k, t, err)
			}
			states[k], obs[k] = next, tr.Obs
			out[k].Actions = append(out[k].Actions, acts[q*n:(q+1)*n])
			out[k].Return += tr.Shared
			out[k].Length++
			if tr.Done {
				done[k], out[k].Info = true, maps.Clone(tr.Info)
			}
		}
	}
	return out, nil
}

package m3apg

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// Reseedable states draw the environment's own randomness (an enemy's choices, damage jitter) from
// a generator a rollout can restart, so that rollouts from one state see different futures.
type Reseedable interface{ Reseed(seed uint64) }

// Policy picks every agent's action in a state.
type Policy func(s env.State, r *rand.Rand) []int

// UniformPolicy picks each agent's action uniformly among its available ones (env.Avail): the
// policy an untrained actor approximates, and the one M3APG's policy evaluation freezes.
func UniformPolicy(e env.Env) Policy {
	return func(s env.State, r *rand.Rand) []int {
		av := env.Avail(e, s)
		out := make([]int, len(av))
		for i, m := range av {
			var on []int
			for a, ok := range m {
				if ok {
					on = append(on, a)
				}
			}
			if len(on) > 0 {
				out[i] = on[r.IntN(len(on))]
			}
		}
		return out
	}
}

// MonteCarloQ estimates Q^π(s, joint): the shared reward of joint in s plus the γ-discounted shared
// rewards that follow it under policy, to the episode's end, averaged over rollouts futures (each
// from a clone of s reseeded with its own seed when the state is Reseedable, policy drawing from its
// own stream). It returns the mean and its standard error. The environment must be deterministic
// given a state's seed, and every episode must end (SMAX's do, by its step limit).
func MonteCarloQ(e env.Env, s env.State, joint []int, policy Policy, gamma float64, rollouts int, seed uint64) (mean, se float64, err error) {
	if rollouts < 1 {
		return 0, 0, fmt.Errorf("m3apg: %d Monte-Carlo rollouts", rollouts)
	}
	limit := e.Spec().Horizon
	var sum, sq float64
	for k := range rollouts {
		st := s.Clone()
		if rs, ok := st.(Reseedable); ok {
			rs.Reseed(seed + uint64(k))
		}
		r := rand.New(rand.NewPCG(seed+uint64(k), 0x6d637121))
		ret, disc, acts := 0.0, 1.0, joint
		for t := 0; ; t++ {
			next, tr, err := e.Step(st, acts)
			if err != nil {
				return 0, 0, fmt.Errorf("m3apg: rollout %d step %d: %w", k, t, err)
			}
			ret += disc * tr.Shared
			disc *= gamma
			if tr.Done {
				break
			}
			if t > limit {
				return 0, 0, fmt.Errorf("m3apg: rollout %d did not end within the horizon %d", k, limit)
			}
			st = next
			acts = policy(st, r)
		}
		sum += ret
		sq += ret * ret
	}
	n := float64(rollouts)
	mean = sum / n
	if rollouts > 1 {
		se = math.Sqrt(max(0, (sq-n*mean*mean)/(n-1)) / n)
	}
	return mean, se, nil
}

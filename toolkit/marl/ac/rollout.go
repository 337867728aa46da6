package ac

import (
	"fmt"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// Rollout is T steps of E environment copies with N agents each, as the learners consume them.
// Per-agent arrays are indexed [(t·E + e)·N + i]; per-env arrays [t·E + e].
type Rollout struct {
	T, E, N, NA      int
	ObsDim, StateDim int       // ObsDim includes the appended agent one-hot
	Obs              []float32 // [T·E·N·ObsDim], scaled observation ⊕ agent id
	State            []float32 // [T·E·StateDim]
	Avail            []float32 // [T·E·N·NA]
	Act              []int     // [T·E·N]
	LogP             []float32 // [T·E·N]
	Rew              []float64 // [T·E], the shared reward
	AgentRew         []float64 // [T·E·N], each agent's own reward (env.Transition.Rewards)
	Done             []bool    // [T·E]
	// After the last step: what bootstraps the returns.
	LastObs, LastState, LastAvail []float32
	// Episodes finished during the rollout: their shared returns and lengths.
	EpisodeReturns []float64
	EpisodeLengths []int
}

// Sampler runs an actor on a vectorized environment and keeps per-copy episode accumulators
// across rollouts.
type Sampler struct {
	Vec   *env.Vec
	Actor *Net
	// Scale multiplies observations and states (LBF positions and levels are small integers).
	Scale float32
	r     *rand.Rand
	ret   []float64
	steps []int
}

// NewSampler resets the environments with seed.
func NewSampler(v *env.Vec, actor *Net, scale float32, seed uint64) (*Sampler, error) {
	if err := v.Reset(seed); err != nil {
		return nil, err
	}
	return &Sampler{Vec: v, Actor: actor, Scale: scale, r: rand.New(rand.NewPCG(seed, 0x726f6c6c)),
		ret: make([]float64, v.Len()), steps: make([]int, v.Len())}, nil
}

func (s *Sampler) inputs() (obs, state, avail []float32, masks [][]bool) {
	n, na := s.Vec.Spec.Agents, s.Vec.Spec.Actions
	for k, st := range s.Vec.States {
		av := env.Avail(s.Vec.Env, st)
		for i := 0; i < n; i++ {
			o := s.Vec.Obs()[k][i]
			for _, x := range o {
				obs = append(obs, x*s.Scale)
			}
			for j := 0; j < n; j++ {
				if j == i {
					obs = append(obs, 1)
				} else {
					obs = append(obs, 0)
				}
			}
			for a := 0; a < na; a++ {
				if av[i][a] {
					avail = append(avail, 1)
				} else {
					avail = append(avail, 0)
				}
			}
			masks = append(masks, av[i])
		}
		for _, x := range env.Global(s.Vec.Env, st) {
			state = append(state, x*s.Scale)
		}
	}
	return
}

// Collect runs T steps (sampling actions, or the greedy ones) and returns the rollout.
func (s *Sampler) Collect(T int, greedy bool) (*Rollout, error) {
	sp := s.Vec.Spec
	E, n, na := s.Vec.Len(), sp.Agents, sp.Actions
	ro := &Rollout{T: T, E: E, N: n, NA: na, ObsDim: sp.ObsSize + n, StateDim: sp.StateSize}
	for t := 0; t < T; t++ {
		obs, state, avail, masks := s.inputs()
		logits, err := s.Actor.Apply(obs, E*n)
		if err != nil {
			return nil, fmt.Errorf("actor: %w", err)
		}
		acts, logp := Policy(logits, masks, s.r, greedy)
		ro.Obs = append(ro.Obs, obs...)
		ro.State = append(ro.State, state...)
		ro.Avail = append(ro.Avail, avail...)
		ro.Act = append(ro.Act, acts...)
		ro.LogP = append(ro.LogP, logp...)
		joint := make([][]int, E)
		for k := range joint {
			joint[k] = acts[k*n : (k+1)*n]
		}
		trs, err := s.Vec.Step(joint)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", t, err)
		}
		for k, tr := range trs {
			ro.Rew = append(ro.Rew, tr.Shared)
			if len(tr.Rewards) != n {
				return nil, fmt.Errorf("step %d: copy %d gave %d agent rewards for %d agents", t, k, len(tr.Rewards), n)
			}
			ro.AgentRew = append(ro.AgentRew, tr.Rewards...)
			ro.Done = append(ro.Done, tr.Done)
			s.ret[k] += tr.Shared
			s.steps[k]++
			if tr.Done {
				ro.EpisodeReturns = append(ro.EpisodeReturns, s.ret[k])
				ro.EpisodeLengths = append(ro.EpisodeLengths, s.steps[k])
				s.ret[k], s.steps[k] = 0, 0
			}
		}
	}
	ro.LastObs, ro.LastState, ro.LastAvail, _ = s.inputs()
	return ro, nil
}

// Evaluate plays one episode on each of `episodes` fresh copies of scenario (seeded from seed, so
// distinct from any training stream that uses another seed) with the actor — greedy (most likely
// available action) or sampled — and returns each episode's shared return.
func Evaluate(scenario string, actor *Net, scale float32, episodes int, seed uint64, greedy bool) ([]float64, error) {
	if episodes < 1 {
		return nil, fmt.Errorf("evaluate: %d episodes", episodes)
	}
	vec, err := env.NewVec(scenario, episodes)
	if err != nil {
		return nil, err
	}
	limit := vec.Spec.Horizon
	sampler, err := NewSampler(vec, actor, scale, seed)
	if err != nil {
		return nil, err
	}
	ro, err := sampler.Collect(limit, greedy)
	if err != nil {
		return nil, err
	}
	returns := make([]float64, episodes)
	for k := range returns {
		for t := 0; t < limit; t++ {
			returns[k] += ro.Rew[t*episodes+k]
			if ro.Done[t*episodes+k] {
				break
			}
		}
	}
	return returns, nil
}

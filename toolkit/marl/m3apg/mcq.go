package m3apg

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/ppo"
)

// Reseedable states draw the environment's own randomness (an enemy's choices, damage jitter) from
// a generator a rollout can restart, so that rollouts from one state see different futures.
type Reseedable interface{ Reseed(seed uint64) }

// Policy picks every agent's action in a state whose observations are obs.
type Policy func(s env.State, obs [][]float32, r *rand.Rand) []int

// UniformPolicy picks each agent's action uniformly among its available ones (env.Avail).
func UniformPolicy(e env.Env) Policy {
	return func(s env.State, _ [][]float32, r *rand.Rand) []int {
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

// ActorPolicy is a shared-parameter actor as training runs it (ac.Sampler): each agent reads its
// observation times scale with its one-hot id appended and samples among its available actions.
func ActorPolicy(e env.Env, actor *ac.Net, scale float32) Policy {
	return func(s env.State, obs [][]float32, r *rand.Rand) []int {
		n := len(obs)
		logits, err := actor.Apply(ppo.AppendInputs(nil, obs, scale), n)
		if err != nil {
			panic(fmt.Sprintf("m3apg: actor policy: %v", err)) // a broken engine, not a bad input
		}
		acts, _ := ac.Policy(logits, env.Avail(e, s), r, false)
		return acts
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
			acts = policy(st, tr.Obs, r)
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

// MCEval sizes the Monte-Carlo critic evaluation (CriticErrorMC).
type MCEval struct {
	// States are collected from Episodes episodes played with the policy, every Every-th step.
	States, Episodes, Every int
	// Joints joint actions per state, half seen and half held out (as far as the state's available
	// joint actions allow), each valued by Rollouts rollouts.
	Joints, Rollouts int
	Gamma            float64
}

// CriticErrorMC is a critic's RMS error against Monte-Carlo estimates of Q^π (MonteCarloQ) on seen
// and on held-out joint actions (held, indexed as Train's hold-out), at states the policy visits:
// the critic error where no exact Q exists. Joint actions are drawn uniformly among the available
// ones, until Joints/2 of each kind or 50·Joints draws; a state without a held-out available joint
// action contributes seen ones only. It returns both errors and the number of (state, joint) pairs
// of each kind.
func CriticErrorMC(e env.Env, critic *Critic, policy Policy, held []bool, m MCEval, seed uint64) (seen, unseen float64, nSeen, nUnseen int, err error) {
	na := e.Spec().Actions
	uniform := UniformPolicy(e) // the joint actions valued: uniform among the available ones
	r := rand.New(rand.NewPCG(seed, 0x6d636576))
	var states []env.State
	for ep := 0; ep < m.Episodes && len(states) < m.States; ep++ {
		st, obs, err := e.Reset(seed + uint64(ep))
		if err != nil {
			return 0, 0, 0, 0, err
		}
		for t := 0; len(states) < m.States; t++ {
			if t%m.Every == 0 {
				states = append(states, st.Clone())
			}
			next, tr, err := e.Step(st, policy(st, obs, r))
			if err != nil {
				return 0, 0, 0, 0, err
			}
			if tr.Done {
				break
			}
			st, obs = next, tr.Obs
		}
	}
	index := func(j []int) int {
		k := 0
		for _, a := range j {
			k = k*na + a
		}
		return k
	}
	var gs [][]float32
	var joints [][]int
	var mc []float64
	var isHeld []bool
	for si, st := range states {
		picked := map[int]bool{}
		want := [2]int{m.Joints / 2, m.Joints - m.Joints/2} // seen, held out
		for try := 0; try < 50*m.Joints && (want[0] > 0 || want[1] > 0); try++ {
			j := uniform(st, nil, r)
			k := index(j)
			h := held[k]
			if picked[k] || want[b2i(h)] == 0 {
				continue
			}
			picked[k] = true
			want[b2i(h)]--
			q, _, err := MonteCarloQ(e, st, j, policy, m.Gamma, m.Rollouts, seed+uint64(1_000_000*(si+1)+1000*len(picked)))
			if err != nil {
				return 0, 0, 0, 0, err
			}
			gs, joints, mc, isHeld = append(gs, env.Global(e, st)), append(joints, j), append(mc, q), append(isHeld, h)
		}
	}
	if len(joints) == 0 {
		return 0, 0, 0, 0, fmt.Errorf("m3apg: no state to evaluate the critic on")
	}
	pred, err := critic.Q(gs, joints)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	var s2 [2]float64
	var cnt [2]int
	for k := range pred {
		d := pred[k] - mc[k]
		s2[b2i(isHeld[k])] += d * d
		cnt[b2i(isHeld[k])]++
	}
	rms := func(i int) float64 {
		if cnt[i] == 0 {
			return math.NaN()
		}
		return math.Sqrt(s2[i] / float64(cnt[i]))
	}
	return rms(0), rms(1), cnt[0], cnt[1], nil
}

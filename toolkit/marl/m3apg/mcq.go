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

// Policy picks every agent's action in each of a batch of states: obs[b] are the agents'
// observations in states[b], rs[b] the random stream of that state's rollout. A batch lets an
// actor score every rollout of a Monte-Carlo estimate in one call.
type Policy func(states []env.State, obs [][][]float32, rs []*rand.Rand) [][]int

// UniformPolicy picks each agent's action uniformly among its available ones (env.Avail).
func UniformPolicy(e env.Env) Policy {
	return func(states []env.State, _ [][][]float32, rs []*rand.Rand) [][]int {
		out := make([][]int, len(states))
		for b, s := range states {
			av := env.Avail(e, s)
			out[b] = make([]int, len(av))
			for i, m := range av {
				var on []int
				for a, ok := range m {
					if ok {
						on = append(on, a)
					}
				}
				if len(on) > 0 {
					out[b][i] = on[rs[b].IntN(len(on))]
				}
			}
		}
		return out
	}
}

// ActorPolicy is a shared-parameter actor as training runs it (ac.Sampler): each agent reads its
// observation times scale with its one-hot id appended and samples among its available actions;
// one actor call scores the whole batch, padded with zero rows to a power of two (the engine
// compiles one graph per batch shape, and a Monte-Carlo batch shrinks as its rollouts end).
func ActorPolicy(e env.Env, actor *ac.Net, scale float32) Policy {
	return func(states []env.State, obs [][][]float32, rs []*rand.Rand) [][]int {
		var in []float32
		rows := 0
		for _, o := range obs {
			in = ppo.AppendInputs(in, o, scale)
			rows += len(o)
		}
		padded := 1
		for padded < rows {
			padded *= 2
		}
		if rows > 0 {
			in = append(in, make([]float32, (padded-rows)*(len(in)/rows))...)
		}
		logits, err := actor.Apply(in, padded)
		if err != nil {
			panic(fmt.Sprintf("m3apg: actor policy: %v", err)) // a broken engine, not a bad input
		}
		na := len(logits) / padded
		out := make([][]int, len(states))
		row := 0
		for b, s := range states {
			n := len(obs[b])
			out[b], _ = ac.Policy(logits[row*na:(row+n)*na], env.Avail(e, s), rs[b], false)
			row += n
		}
		return out
	}
}

// MCQ is MonteCarloQ's estimate for each of a state's joint actions: Q and its standard error, Q
// centred on the mean over the joint actions valued (the joint-action part of Q, what a policy
// gradient's advantage reads) with its standard error, and the joint action's immediate shared
// reward (mean over the rollouts) centred the same way (how much of Q's joint-action part the next
// reward already shows).
type MCQ struct {
	Q, SE, Centred, CentredSE, RewardCentred []float64
}

// MonteCarloQ estimates Q^π(s, joint) for each joint action given: the shared reward of the joint
// action in s plus the γ-discounted shared rewards that follow it under policy, to the episode's
// end, averaged over rollouts futures. Rollout k of every joint action starts from a clone of s
// reseeded with seed+k (when the state is Reseedable) and draws the policy's choices from its own
// stream seeded seed+k — common random numbers, so that the differences between joint actions carry
// less of the futures' noise; the centred estimates' errors are read from the per-rollout centred
// returns. Every rollout runs in one batch (one policy call per step). The environment must be
// deterministic given a state's seed, and every episode must end (SMAX's do, by its step limit).
func MonteCarloQ(e env.Env, s env.State, joints [][]int, policy Policy, gamma float64, rollouts int, seed uint64) (MCQ, error) {
	if rollouts < 1 || len(joints) == 0 {
		return MCQ{}, fmt.Errorf("m3apg: %d Monte-Carlo rollouts of %d joint actions", rollouts, len(joints))
	}
	nj, limit := len(joints), e.Spec().Horizon
	B := nj * rollouts
	sts, rs, acts := make([]env.State, B), make([]*rand.Rand, B), make([][]int, B)
	ret, first, disc, done := make([]float64, B), make([]float64, B), make([]float64, B), make([]bool, B)
	for j := range joints {
		for k := range rollouts {
			b := j*rollouts + k
			sts[b] = s.Clone()
			if r, ok := sts[b].(Reseedable); ok {
				r.Reseed(seed + uint64(k))
			}
			rs[b], acts[b], disc[b] = rand.New(rand.NewPCG(seed+uint64(k), 0x6d637121)), joints[j], 1
		}
	}
	for t := 0; ; t++ {
		var live []int
		var liveSt []env.State
		var liveObs [][][]float32
		var liveR []*rand.Rand
		for b := range B {
			if done[b] {
				continue
			}
			next, tr, err := e.Step(sts[b], acts[b])
			if err != nil {
				return MCQ{}, fmt.Errorf("m3apg: rollout %d of joint action %v, step %d: %w", b%rollouts, joints[b/rollouts], t, err)
			}
			ret[b] += disc[b] * tr.Shared
			disc[b] *= gamma
			if t == 0 {
				first[b] = tr.Shared
			}
			if tr.Done {
				done[b] = true
				continue
			}
			sts[b] = next
			live, liveSt, liveObs, liveR = append(live, b), append(liveSt, next), append(liveObs, tr.Obs), append(liveR, rs[b])
		}
		if len(live) == 0 {
			break
		}
		if t > limit {
			return MCQ{}, fmt.Errorf("m3apg: a rollout did not end within the horizon %d", limit)
		}
		for i, a := range policy(liveSt, liveObs, liveR) {
			acts[live[i]] = a
		}
	}
	out := MCQ{Q: make([]float64, nj), SE: make([]float64, nj), Centred: make([]float64, nj), CentredSE: make([]float64, nj), RewardCentred: make([]float64, nj)}
	centred := make([]float64, B) // rollout k's return minus its mean over the joint actions
	for k := range rollouts {
		var m float64
		for j := range nj {
			m += ret[j*rollouts+k] / float64(nj)
		}
		for j := range nj {
			centred[j*rollouts+k] = ret[j*rollouts+k] - m
		}
	}
	var meanR float64
	for j := range nj {
		out.Q[j], out.SE[j] = meanSE(ret[j*rollouts : (j+1)*rollouts])
		out.Centred[j], out.CentredSE[j] = meanSE(centred[j*rollouts : (j+1)*rollouts])
		out.RewardCentred[j], _ = meanSE(first[j*rollouts : (j+1)*rollouts])
		meanR += out.RewardCentred[j] / float64(nj)
	}
	for j := range nj {
		out.RewardCentred[j] -= meanR
	}
	return out, nil
}

// meanSE is a sample's mean and the standard error of that mean (0 for one value).
func meanSE(x []float64) (mean, se float64) {
	n := float64(len(x))
	var sum, sq float64
	for _, v := range x {
		sum += v
	}
	mean = sum / n
	for _, v := range x {
		sq += (v - mean) * (v - mean)
	}
	if len(x) > 1 {
		se = math.Sqrt(sq / (n - 1) / n)
	}
	return mean, se
}

// MCEval sizes the Monte-Carlo critic evaluation (MCTargets).
type MCEval struct {
	// States are collected from Episodes episodes played with the policy, every Every-th step.
	States, Episodes, Every int
	// Joints joint actions per state, half seen and half held out (as far as the state's available
	// joint actions allow), each valued by Rollouts rollouts.
	Joints, Rollouts int
	Gamma            float64
	// FromPolicy draws the joint actions valued from the policy itself (the ones it takes, which
	// its data cover: a critic's "seen" then means trained on) instead of uniformly among the
	// available ones (which a peaked policy's data rarely hold, seen or held out).
	FromPolicy bool `json:"from_policy,omitempty"`
}

// Validate names a size MCTargets cannot run with.
func (m MCEval) Validate() error {
	if m.States < 1 || m.Episodes < 1 || m.Every < 1 || m.Joints < 2 || m.Rollouts < 2 || m.Gamma <= 0 || m.Gamma > 1 {
		return fmt.Errorf("m3apg: Monte-Carlo evaluation: states, episodes, every ≥ 1, joints and rollouts ≥ 2, gamma in (0, 1] are needed (%+v)", m)
	}
	return nil
}

// MCSet is a critic's test set where no exact Q exists (MCTargets): rows of (state, joint action)
// at states a policy visits, with the joint action seen by the critic's training or held out, and
// Monte-Carlo estimates of the policy's Q. A state's rows are contiguous.
type MCSet struct {
	Global [][]float32 // the row's global state (the critic's input)
	Joints [][]int
	State  []int // the row's state, 0, 1, …
	Held   []bool
	Q      MCQ
}

// MCTargets builds an MCSet: up to m.States states from m.Episodes episodes played with policy
// (every m.Every-th step, episode k reset with seed+k), and at each, joint actions drawn uniformly
// among the available ones (or from the policy: m.FromPolicy) until m.Joints/2 seen and m.Joints/2 held out (held, indexed as
// JointIndex) or 50·m.Joints draws, valued together by MonteCarloQ (a state whose joint actions
// are all of one kind contributes that kind only).
func MCTargets(e env.Env, policy Policy, held []bool, m MCEval, seed uint64) (*MCSet, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	na := e.Spec().Actions
	draw := UniformPolicy(e) // the joint actions valued: uniform among the available ones, or the policy's
	if m.FromPolicy {
		draw = policy
	}
	r := rand.New(rand.NewPCG(seed, 0x6d636576))
	var states []env.State
	var obs [][][]float32 // the agents' observations in each state (the policy's input)
	for ep := 0; ep < m.Episodes && len(states) < m.States; ep++ {
		st, o, err := e.Reset(seed + uint64(ep))
		if err != nil {
			return nil, err
		}
		for t := 0; len(states) < m.States; t++ {
			if t%m.Every == 0 {
				states, obs = append(states, st.Clone()), append(obs, o)
			}
			next, tr, err := e.Step(st, policy([]env.State{st}, [][][]float32{o}, []*rand.Rand{r})[0])
			if err != nil {
				return nil, err
			}
			if tr.Done {
				break
			}
			st, o = next, tr.Obs
		}
	}
	if len(states) == 0 {
		return nil, fmt.Errorf("m3apg: no state to evaluate the critic on")
	}
	set := &MCSet{}
	for si, st := range states {
		picked := map[int]bool{}
		var joints [][]int
		var isHeld []bool
		want := [2]int{m.Joints / 2, m.Joints - m.Joints/2} // seen, held out
		for try := 0; try < 50*m.Joints && (want[0] > 0 || want[1] > 0); try++ {
			j := draw([]env.State{st}, [][][]float32{obs[si]}, []*rand.Rand{r})[0]
			k := JointIndex(j, na)
			h := held[k]
			if picked[k] || want[b2i(h)] == 0 {
				continue
			}
			picked[k] = true
			want[b2i(h)]--
			joints, isHeld = append(joints, j), append(isHeld, h)
		}
		if len(joints) < 2 {
			continue // one joint action: nothing to centre on
		}
		q, err := MonteCarloQ(e, st, joints, policy, m.Gamma, m.Rollouts, seed+uint64(1_000_000*(si+1)))
		if err != nil {
			return nil, fmt.Errorf("m3apg: state %d: %w", si, err)
		}
		g := env.Global(e, st)
		for i := range joints {
			set.Global, set.Joints, set.State, set.Held = append(set.Global, g), append(set.Joints, joints[i]), append(set.State, si), append(set.Held, isHeld[i])
		}
		set.Q.Q, set.Q.SE = append(set.Q.Q, q.Q...), append(set.Q.SE, q.SE...)
		set.Q.Centred, set.Q.CentredSE = append(set.Q.Centred, q.Centred...), append(set.Q.CentredSE, q.CentredSE...)
		set.Q.RewardCentred = append(set.Q.RewardCentred, q.RewardCentred...)
	}
	if len(set.Joints) == 0 {
		return nil, fmt.Errorf("m3apg: no state with two joint actions to value")
	}
	return set, nil
}

// MCErrors are a critic's errors on an MCSet, on the seen and the held-out joint actions: RMS error
// of Q (Seen, Unseen) and of Q centred on each state's mean over its valued joint actions (JointSeen,
// JointUnseen: how well it ranks joint actions in a state, whatever its V(s) error) — each with the
// Monte-Carlo noise taken out (the mean squared standard error subtracted from the mean squared
// error, floored at 0: E[(q̂ − Q̂)²] = (q̂ − Q)² + SE²) — and the number of rows of each kind.
type MCErrors struct {
	Seen, Unseen, JointSeen, JointUnseen float64
	NSeen, NUnseen                       int
}

// Errors scores a critic on the set (MCErrors).
func (s *MCSet) Errors(c *Critic) (MCErrors, error) {
	pred, err := c.Q(s.Global, s.Joints)
	if err != nil {
		return MCErrors{}, err
	}
	return s.ErrorsOf(pred), nil
}

// ErrorsOf scores predictions pred (one per row) on the set (MCErrors).
func (s *MCSet) ErrorsOf(pred []float64) MCErrors {
	centre := make([]float64, len(pred)) // pred centred on its state's mean
	for lo := 0; lo < len(pred); {
		hi := lo
		for hi < len(pred) && s.State[hi] == s.State[lo] {
			hi++
		}
		var m float64
		for k := lo; k < hi; k++ {
			m += pred[k] / float64(hi-lo)
		}
		for k := lo; k < hi; k++ {
			centre[k] = pred[k] - m
		}
		lo = hi
	}
	var d2, n2, c2, cn2 [2]float64
	var cnt [2]int
	for k := range pred {
		h := b2i(s.Held[k])
		d2[h] += (pred[k] - s.Q.Q[k]) * (pred[k] - s.Q.Q[k])
		n2[h] += s.Q.SE[k] * s.Q.SE[k]
		c2[h] += (centre[k] - s.Q.Centred[k]) * (centre[k] - s.Q.Centred[k])
		cn2[h] += s.Q.CentredSE[k] * s.Q.CentredSE[k]
		cnt[h]++
	}
	rms := func(sq, noise [2]float64, i int) float64 {
		if cnt[i] == 0 {
			return math.NaN()
		}
		return math.Sqrt(max(0, (sq[i]-noise[i])/float64(cnt[i])))
	}
	return MCErrors{Seen: rms(d2, n2, 0), Unseen: rms(d2, n2, 1), JointSeen: rms(c2, cn2, 0), JointUnseen: rms(c2, cn2, 1), NSeen: cnt[0], NUnseen: cnt[1]}
}

// Spread is the set's scale: the errors (MCErrors, seen and held-out rows together) of the best
// constant predictor (its Q's mean) as Total, and of a critic that knows each state's mean Q exactly
// and ignores the joint action as Joint — the joint-action part of Q the Monte-Carlo estimates show
// beyond their noise; Noise is the RMS standard error of the centred estimates.
func (s *MCSet) Spread() (total, joint, noise float64) {
	var mean float64
	for _, q := range s.Q.Q {
		mean += q / float64(len(s.Q.Q))
	}
	var d2, n2, c2, cn2 float64
	for k, q := range s.Q.Q {
		d2 += (q - mean) * (q - mean)
		n2 += s.Q.SE[k] * s.Q.SE[k]
		c2 += s.Q.Centred[k] * s.Q.Centred[k]
		cn2 += s.Q.CentredSE[k] * s.Q.CentredSE[k]
	}
	n := float64(len(s.Q.Q))
	return math.Sqrt(max(0, (d2-n2)/n)), math.Sqrt(max(0, (c2-cn2)/n)), math.Sqrt(cn2 / n)
}

// RewardHiddenShare is the share of Q's joint-action part (the centred Monte-Carlo Q) that the next
// reward does not show: Σ (centred Q − centred immediate reward)² ÷ Σ centred Q², pooled over the
// set's rows, each sum less the centred estimates' squared standard errors (their noise), floored at
// 0 — 0 when the next reward ranks joint actions as Q does, 1 when it says nothing; NaN when the
// estimates show no joint-action part beyond their noise.
func (s *MCSet) RewardHiddenShare() float64 {
	var num, den, noise float64
	for k, c := range s.Q.Centred {
		d := c - s.Q.RewardCentred[k]
		num += d * d
		den += c * c
		noise += s.Q.CentredSE[k] * s.Q.CentredSE[k]
	}
	if den-noise <= 0 {
		return math.NaN()
	}
	return max(0, num-noise) / (den - noise)
}

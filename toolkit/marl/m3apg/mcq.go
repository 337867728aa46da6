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

// MCQ is MonteCarloQ's record for each of a state's joint actions: the discounted return of each
// rollout (Returns[j][k]: joint action j, rollout k — rollout k of every joint action shares its
// random numbers) and the joint action's immediate shared reward in it (First[j][k]).
type MCQ struct {
	Returns, First [][]float64
}

// Q is joint action j's estimate of Q (the mean of its rollouts' returns) and its standard error.
func (q MCQ) Q(j int) (mean, se float64) { return meanSE(q.Returns[j]) }

// MonteCarloQ estimates Q^π(s, joint) for each joint action given: the shared reward of the joint
// action in s plus the γ-discounted shared rewards that follow it under policy, to the episode's
// end, over rollouts futures. Rollout k of every joint action starts from a clone of s reseeded
// with seed+k (when the state is Reseedable) and draws the policy's choices from its own stream
// seeded seed+k — common random numbers, so that the differences between joint actions carry less
// of the futures' noise (MCSet reads them per rollout). Every rollout runs in one batch (one policy
// call per step). The environment must be deterministic given a state's seed, and every episode
// must end (SMAX's do, by its step limit).
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
	out := MCQ{Returns: make([][]float64, nj), First: make([][]float64, nj)}
	for j := range nj {
		out.Returns[j], out.First[j] = ret[j*rollouts:(j+1)*rollouts], first[j*rollouts:(j+1)*rollouts]
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
// Monte-Carlo estimates of the policy's Q. A state's rows are contiguous; its seen rows and its
// held-out rows are each a group, within which joint actions are ranked (Q centred on the group's
// mean: what a critic must order, whatever its V(s) error, and the part a policy gradient's
// advantage reads), so a critic's ranking of one kind never depends on its values of the other.
type MCSet struct {
	Global [][]float32 // the row's global state (the critic's input)
	Joints [][]int
	State  []int // the row's state, 0, 1, …
	Held   []bool
	// Returns[k] and First[k] are row k's rollouts' returns and immediate rewards (MCQ): rollout r
	// of every row of a state shares its random numbers.
	Returns, First [][]float64
	// Q and SE are each row's estimate (its returns' mean) and standard error; Centred and
	// CentredSE the same for Q centred on its group's mean, read per rollout (common random
	// numbers); Future and FutureSE for what follows the next reward (return less immediate reward)
	// centred the same way; RewardCentred the immediate reward's mean centred on its group's.
	// Ranked marks the rows of groups of two or more (a lone row ranks nothing).
	Q, SE, Centred, CentredSE, Future, FutureSE, RewardCentred []float64
	Ranked                                                     []bool
}

// add appends a state's rows (its joint actions, their kinds and their rollouts) and their
// estimates, centred per group.
func (s *MCSet) add(state int, global []float32, joints [][]int, held []bool, q MCQ) {
	base := len(s.Joints)
	for i := range joints {
		s.Global, s.Joints, s.State, s.Held = append(s.Global, global), append(s.Joints, joints[i]), append(s.State, state), append(s.Held, held[i])
		s.Returns, s.First = append(s.Returns, q.Returns[i]), append(s.First, q.First[i])
		m, se := meanSE(q.Returns[i])
		s.Q, s.SE = append(s.Q, m), append(s.SE, se)
	}
	s.Centred, s.CentredSE = append(s.Centred, make([]float64, len(joints))...), append(s.CentredSE, make([]float64, len(joints))...)
	s.Future, s.FutureSE = append(s.Future, make([]float64, len(joints))...), append(s.FutureSE, make([]float64, len(joints))...)
	s.RewardCentred = append(s.RewardCentred, make([]float64, len(joints))...)
	s.Ranked = append(s.Ranked, make([]bool, len(joints))...)
	for _, kind := range []bool{false, true} {
		var g []int // the group's rows
		for i := range joints {
			if held[i] == kind {
				g = append(g, base+i)
			}
		}
		if len(g) < 2 {
			continue
		}
		n := len(q.Returns[0])
		c, f := make([][]float64, len(g)), make([][]float64, len(g))
		for a := range g {
			c[a], f[a] = make([]float64, n), make([]float64, n)
		}
		for r := range n {
			var mc, mf float64
			for _, k := range g {
				mc += s.Returns[k][r] / float64(len(g))
				mf += (s.Returns[k][r] - s.First[k][r]) / float64(len(g))
			}
			for a, k := range g {
				c[a][r], f[a][r] = s.Returns[k][r]-mc, s.Returns[k][r]-s.First[k][r]-mf
			}
		}
		var mr float64
		for _, k := range g {
			r, _ := meanSE(s.First[k])
			mr += r / float64(len(g))
		}
		for a, k := range g {
			s.Centred[k], s.CentredSE[k] = meanSE(c[a])
			s.Future[k], s.FutureSE[k] = meanSE(f[a])
			r, _ := meanSE(s.First[k])
			s.RewardCentred[k], s.Ranked[k] = r-mr, true
		}
	}
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
		set.add(si, env.Global(e, st), joints, isHeld, q)
	}
	if len(set.Joints) == 0 {
		return nil, fmt.Errorf("m3apg: no state with two joint actions to value")
	}
	return set, nil
}

// MCErrors are a critic's errors on an MCSet, on the seen and the held-out joint actions: RMS error
// of Q (Seen, Unseen) and of its ranking within each group (JointSeen, JointUnseen: its values
// centred on the group's mean against the centred estimates, ranked rows only) — each with the
// Monte-Carlo noise taken out (the mean squared standard error subtracted from the mean squared
// error, floored at 0: E[(q̂ − Q̂)²] = (q̂ − Q)² + SE² for a critic independent of the rollouts) —
// and the number of rows of each kind.
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
	centre := s.centre(pred)
	var d2, n2, c2, cn2 [2]float64
	var cnt, ranked [2]int
	for k := range pred {
		h := b2i(s.Held[k])
		d2[h] += (pred[k] - s.Q[k]) * (pred[k] - s.Q[k])
		n2[h] += s.SE[k] * s.SE[k]
		cnt[h]++
		if s.Ranked[k] {
			c2[h] += (centre[k] - s.Centred[k]) * (centre[k] - s.Centred[k])
			cn2[h] += s.CentredSE[k] * s.CentredSE[k]
			ranked[h]++
		}
	}
	return MCErrors{Seen: rmsLessNoise(d2[0], n2[0], cnt[0]), Unseen: rmsLessNoise(d2[1], n2[1], cnt[1]),
		JointSeen: rmsLessNoise(c2[0], cn2[0], ranked[0]), JointUnseen: rmsLessNoise(c2[1], cn2[1], ranked[1]), NSeen: cnt[0], NUnseen: cnt[1]}
}

// centre is x centred on its group's mean (the state's rows of the same kind).
func (s *MCSet) centre(x []float64) []float64 {
	out := make([]float64, len(x))
	for lo := 0; lo < len(x); {
		hi := lo
		for hi < len(x) && s.State[hi] == s.State[lo] {
			hi++
		}
		for _, kind := range []bool{false, true} {
			var m float64
			var n int
			for k := lo; k < hi; k++ {
				if s.Held[k] == kind {
					m += x[k]
					n++
				}
			}
			for k := lo; k < hi; k++ {
				if s.Held[k] == kind {
					out[k] = x[k] - m/float64(n)
				}
			}
		}
		lo = hi
	}
	return out
}

// rmsLessNoise is √(max(0, (sq − noise)/n)), NaN for no rows.
func rmsLessNoise(sq, noise float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(max(0, (sq-noise)/float64(n)))
}

// Spread is the set's scale, with the Monte-Carlo noise taken out as in MCErrors: Total is the best
// constant predictor's error on Q (its rows' mean), Joint the ranking error of a critic that ignores
// the joint action (the RMS of the centred estimates, ranked rows: Q's joint-action part), Noise the
// RMS standard error of the centred estimates.
func (s *MCSet) Spread() (total, joint, noise float64) {
	var mean float64
	for _, q := range s.Q {
		mean += q / float64(len(s.Q))
	}
	var d2, n2, c2, cn2 float64
	ranked := 0
	for k, q := range s.Q {
		d2 += (q - mean) * (q - mean)
		n2 += s.SE[k] * s.SE[k]
		if s.Ranked[k] {
			c2 += s.Centred[k] * s.Centred[k]
			cn2 += s.CentredSE[k] * s.CentredSE[k]
			ranked++
		}
	}
	if ranked == 0 {
		return rmsLessNoise(d2, n2, len(s.Q)), math.NaN(), math.NaN()
	}
	return rmsLessNoise(d2, n2, len(s.Q)), rmsLessNoise(c2, cn2, ranked), math.Sqrt(cn2 / float64(ranked))
}

// RewardHiddenShare is the share of Q's joint-action part the next reward does not account for:
// 1 − R² of the centred Q estimates on the centred immediate rewards (a least-squares line through
// the origin, pooled over the ranked rows; Σ ĉ² less its squared standard errors, the immediate
// reward's own noise neglected), clipped to [0, 1] — the push game's 1 − η² for a reward that is
// not a handful of levels: 0 when the next reward ranks the joint actions as Q does, 1 when it says
// nothing about it. NaN when the estimates show no joint-action part beyond their noise.
func (s *MCSet) RewardHiddenShare() float64 {
	var cr, cc, noise, rr float64
	for k := range s.Q {
		if !s.Ranked[k] {
			continue
		}
		cr += s.Centred[k] * s.RewardCentred[k]
		cc += s.Centred[k] * s.Centred[k]
		noise += s.CentredSE[k] * s.CentredSE[k]
		rr += s.RewardCentred[k] * s.RewardCentred[k]
	}
	if cc-noise <= 0 {
		return math.NaN()
	}
	if rr == 0 {
		return 1
	}
	return min(1, max(0, 1-cr*cr/((cc-noise)*rr)))
}

package m3apg

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
	"math"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Config is a flat, documented configuration (cleanrl's Args) of Central-Q policy gradient with the
// critic of Critic.Kind.
type Config struct {
	// Scenario is the environment ("push:4p-5x5").
	Scenario string       `json:"scenario"`
	Critic   CriticConfig `json:"critic"`
	// Envs copies stepped together, Steps per rollout, Iters rollouts.
	Envs  int `json:"envs"`
	Steps int `json:"steps"`
	Iters int `json:"iters"`
	// Hidden units of the actor's two tanh layers (parameters shared, agent id appended).
	Hidden int `json:"hidden"`
	// Gamma and Lambda of the critic's TD(λ) targets (SARSA-style on the taken joint actions).
	Gamma  float64 `json:"gamma"`
	Lambda float64 `json:"lambda"`
	// Actor: plain policy gradient with the counterfactual baseline
	// A_i = Q(s, a) − Σ_b π_i(b)·Q(s, (b, a₋ᵢ)), an entropy bonus, Adam at LRActor.
	EntCoef     float64 `json:"ent_coef"`
	LRActor     float64 `json:"lr_actor"`
	MaxGradNorm float64 `json:"max_grad_norm"`
	// CriticEpochs × MiniBatches critic updates per rollout.
	CriticEpochs int `json:"critic_epochs"`
	MiniBatches  int `json:"mini_batches"`
	// HoldOut is the fraction of joint actions whose transitions never reach the critic's training
	// data (drawn once per run): the critic's error on them is its error on unseen joint actions.
	HoldOut float64 `json:"hold_out"`
	// HoldOutClasses > 0 (push games) holds out whole effect classes instead (PushEffects: the net
	// push clipped to the game's MaxMove): that many classes other than "no move", drawn once per
	// run, and every joint action of them — "unseen" then means a new effect, not a new name for
	// a seen one. HoldOut is then unused.
	HoldOutClasses int `json:"hold_out_classes,omitempty"`
	// EvalEvery iterations (push games only) the critic is compared with the exact Q of the current
	// policy on up to EvalRows (step, cell, joint action) triples of each set, seen and unseen.
	EvalEvery int `json:"eval_every"`
	EvalRows  int `json:"eval_rows"`
	// EvalAt are environment-step budgets at which the critic is also compared (at the first
	// iteration reaching each), for critic error against budget.
	EvalAt []int `json:"eval_at,omitempty"`
	// FreezeActor turns the run into policy evaluation: the actor keeps its initial, near-uniform
	// policy (never updated), so every critic kind learns the Q of the same fixed policy and their
	// errors against its exact Q compare like with like.
	FreezeActor bool `json:"freeze_actor,omitempty"`
}

// Default is the configuration of a critic kind on a scenario.
func Default(scenario, kind string) Config {
	return Config{Scenario: scenario, Critic: DefaultCritic(kind), Envs: 16, Steps: 10, Iters: 150, Hidden: 64,
		Gamma: 0.9, Lambda: 0.8, EntCoef: 0.01, LRActor: 1e-3, MaxGradNorm: 10, CriticEpochs: 4, MiniBatches: 4,
		HoldOut: 0.3, EvalEvery: 25, EvalRows: 20000}
}

// Validate names an invalid field.
func (c Config) Validate() error {
	if c.Envs < 1 || c.Steps < 1 || c.Iters < 1 || c.Hidden < 1 || c.CriticEpochs < 1 || c.MiniBatches < 1 || c.EvalRows < 1 {
		return fmt.Errorf("m3apg: envs, steps, iters, hidden, critic_epochs, mini_batches and eval_rows must be ≥ 1 (%+v)", c)
	}
	if c.HoldOut < 0 || c.HoldOut >= 1 || c.Gamma < 0 || c.Gamma > 1 || c.Lambda < 0 || c.Lambda > 1 || c.HoldOutClasses < 0 {
		return fmt.Errorf("m3apg: hold_out %v must be in [0, 1), hold_out_classes %d ≥ 0, gamma %v and lambda %v in [0, 1]", c.HoldOut, c.HoldOutClasses, c.Gamma, c.Lambda)
	}
	for _, b := range c.EvalAt {
		if b < 1 {
			return fmt.Errorf("m3apg: eval_at budget %d must be ≥ 1 environment step", b)
		}
	}
	return nil
}

// Hooks are optional callbacks.
type Hooks struct {
	Progress track.Progress
	// Critic, when set, is called with the critic as initialised (trained false) and, at the end,
	// trained, before it is freed (e.g. to read its embedding); its error ends the run.
	Critic func(c *Critic, trained bool) error
	// Budget, when set, is called at each EvalAt budget reached, with the environment steps taken
	// (e.g. to read the embedding against budget); its error ends the run.
	Budget func(c *Critic, steps, budget int) error
	// CriticData, when set, sees the joint actions of each iteration's critic training rows (the
	// hold-out's test: no held-out joint action reaches the critic).
	CriticData func(joints [][]int)
	// ActorInit, when set, is called once the actor is made, before Ready: e.g. to load the weights
	// of a trained policy (SetWeights) that FreezeActor then evaluates.
	ActorInit func(actor *ac.Net) error
	// Ready, when set, is called before the first rollout with the actor as initialised and the
	// hold-out (as Trained's): under FreezeActor the policy every later rollout samples, so the
	// Monte-Carlo targets of its Q can be built here (MCTargets) and each Budget compared with them.
	Ready func(actor *ac.Net, held []bool) error
	// Trained, when set, is called at the end with the trained critic, the actor (frozen, under
	// FreezeActor) and the hold-out (held[k]: joint action k, in base-Actions digits with agent 0
	// first, never reached the critic), before they are freed: the critic's error where no exact Q
	// exists (MCSet.Errors); its error ends the run.
	Trained func(c *Critic, actor *ac.Net, held []bool) error
}

// Train runs Central-Q policy gradient with the configured critic and returns the curves against
// environment steps: episodic_return, value_loss, forward_loss, entropy, and (push games)
// critic_error_seen / critic_error_unseen (RMS error against the exact Q of the current policy, every
// EvalEvery iterations and at the end) and budget/critic_error_seen / …_unseen (the same, at the
// first iteration reaching each EvalAt budget).
func Train(cfg Config, seed uint64, hooks Hooks) (_ track.Curves, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if hooks.Progress == nil {
		hooks.Progress = track.NoProgress{}
	}
	be, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	vec, err := env.NewVec(cfg.Scenario, cfg.Envs)
	if err != nil {
		return nil, err
	}
	sp := vec.Spec
	n, na, sd := sp.Agents, sp.Actions, sp.StateSize
	obsDim := sp.ObsSize + n
	actor, err := ac.NewNet(be, []int{obsDim, cfg.Hidden, cfg.Hidden, na}, 0.01, seed)
	if err != nil {
		return nil, err
	}
	defer actor.Close()
	trA, err := ac.NewActorTrainer(actor, cfg.LRActor, 0.2, cfg.EntCoef, cfg.MaxGradNorm)
	if err != nil {
		return nil, err
	}
	defer trA.Close()
	critic, err := NewCritic(be, cfg.Critic, n, na, sd, seed+1)
	if err != nil {
		return nil, err
	}
	defer critic.Close()
	if hooks.Critic != nil {
		if err := hooks.Critic(critic, false); err != nil {
			return nil, err
		}
	}
	r := rand.New(rand.NewPCG(seed, 0x6d3361))
	push, _ := vec.Env.(*env.Push)
	held, err := holdOut(cfg, push, n, na, r)
	if err != nil {
		return nil, err
	}
	if hooks.ActorInit != nil {
		if err := hooks.ActorInit(actor); err != nil {
			return nil, err
		}
	}
	if hooks.Ready != nil {
		if err := hooks.Ready(actor, held); err != nil {
			return nil, err
		}
	}
	index := func(j []int) int { return JointIndex(j, na) }
	sampler, err := ac.NewSampler(vec, actor, 1, seed)
	if err != nil {
		return nil, err
	}
	curves := track.Curves{}
	envSteps := 0
	var recent []float64
	var frozen *evalSet // policy evaluation: the rows and exact Q criticError compares with, built once
	for it := 1; it <= cfg.Iters; it++ {
		ro, err := sampler.Collect(cfg.Steps, false)
		if err != nil {
			return curves, err
		}
		envSteps += ro.T * ro.E
		recent = append(recent, ro.EpisodeReturns...)
		T, E := ro.T, ro.E
		states := rows(ro.State, sd, T*E)
		taken := make([][]int, T*E)
		for k := range taken {
			taken[k] = ro.Act[k*n : (k+1)*n]
		}
		q, err := critic.Q(states, taken)
		if err != nil {
			return curves, err
		}
		// The joint action after the last step, sampled from the actor, bootstraps the targets.
		logits, err := actor.Apply(ro.LastObs, E*n)
		if err != nil {
			return curves, err
		}
		lastActs, _ := ac.Policy(logits, masks(ro.LastAvail, E*n, na), r, false)
		lastJoint := make([][]int, E)
		for e := range lastJoint {
			lastJoint[e] = lastActs[e*n : (e+1)*n]
		}
		lastQ, err := critic.Q(rows(ro.LastState, sd, E), lastJoint)
		if err != nil {
			return curves, err
		}
		targets := make([]float64, T*E)
		for e := 0; e < E; e++ {
			rew, qs, done := make([]float64, T), make([]float64, T), make([]bool, T)
			for t := 0; t < T; t++ {
				rew[t], qs[t], done[t] = ro.Rew[t*E+e], q[t*E+e], ro.Done[t*E+e]
			}
			for t, y := range ac.TDLambda(rew, qs, done, lastQ[e], cfg.Gamma, cfg.Lambda) {
				targets[t*E+e] = y
			}
		}
		// Actor: the counterfactual advantages from the critic (skipped in policy evaluation).
		am := map[string]float64{}
		if !cfg.FreezeActor {
			adv, err := counterfactualAdvantages(actor, critic, ro, states, taken)
			if err != nil {
				return curves, err
			}
			if am, err = ac.Minibatches(T*E*n, 1, cfg.MiniBatches, r, func(idx []int) (nn.StepStats, error) {
				return trA.Update(ac.ActorBatch(ro, adv, idx))
			}); err != nil {
				return curves, err
			}
		}
		// Critic: the taken joint actions that are not held out, with their state changes.
		var train []int
		for k := range taken {
			if !held[index(taken[k])] {
				train = append(train, k)
			}
		}
		delta := make([][]float32, T*E)
		for k := range delta {
			t, e := k/E, k%E
			var next []float32
			switch {
			case ro.Done[k] && push != nil: // the episode's last transition (the rollout resets): s′ from the game's dynamics
				next = push.NextState(states[k], taken[k])
			case ro.Done[k]:
				continue // s′ is not in the rollout
			case t+1 < T:
				next = states[(t+1)*E+e]
			default:
				next = ro.LastState[e*sd : (e+1)*sd]
			}
			d := make([]float32, sd)
			for x := range d {
				d[x] = next[x] - states[k][x]
			}
			delta[k] = d
		}
		if hooks.CriticData != nil {
			js := make([][]int, len(train))
			for i, k := range train {
				js[i] = taken[k]
			}
			hooks.CriticData(js)
		}
		cm := map[string]float64{}
		if len(train) > 0 {
			cm, err = ac.Minibatches(len(train), cfg.CriticEpochs, cfg.MiniBatches, r, func(idx []int) (nn.StepStats, error) {
				var st [][]float32
				var js [][]int
				var ys []float64
				var ds [][]float32
				for _, i := range idx {
					k := train[i]
					st, js, ys, ds = append(st, states[k]), append(js, taken[k]), append(ys, targets[k]), append(ds, delta[k])
				}
				return critic.Update(st, js, ys, ds)
			})
			if err != nil {
				return curves, err
			}
		}
		x := float64(envSteps)
		curves.Add("value_loss", x, cm["value_loss"])
		curves.Add("forward_loss", x, cm["forward_loss"])
		curves.Add("entropy", x, am["entropy"])
		msg := ac.FlushReturns(curves, x, &recent)
		var budgets []int // the EvalAt budgets this iteration reached
		for _, b := range cfg.EvalAt {
			if envSteps >= b && envSteps-T*E < b {
				budgets = append(budgets, b)
			}
		}
		regular := it%cfg.EvalEvery == 0 || it == cfg.Iters
		if push != nil && (regular || len(budgets) > 0) {
			set := frozen
			if set == nil {
				if set, err = newEvalSet(push, actor, held, cfg, seed); err != nil {
					return curves, err
				}
				if cfg.FreezeActor { // the policy, so the rows and their exact Q, never change
					frozen = set
				}
			}
			seen, unseen, err := criticError(critic, set)
			if err != nil {
				return curves, err
			}
			if regular {
				curves.Add("critic_error_seen", x, seen)
				curves.Add("critic_error_unseen", x, unseen)
			}
			if len(budgets) > 0 {
				curves.Add("budget/critic_error_seen", x, seen)
				curves.Add("budget/critic_error_unseen", x, unseen)
			}
			msg += fmt.Sprintf(" critic error seen %.3f unseen %.3f", seen, unseen)
		}
		for _, b := range budgets {
			if hooks.Budget != nil {
				if err := hooks.Budget(critic, envSteps, b); err != nil {
					return curves, err
				}
			}
		}
		hooks.Progress.Update(it, msg)
	}
	if hooks.Critic != nil {
		if err := hooks.Critic(critic, true); err != nil {
			return curves, err
		}
	}
	if hooks.Trained != nil {
		if err := hooks.Trained(critic, actor, held); err != nil {
			return curves, err
		}
	}
	return curves, nil
}

// holdOut marks the joint actions whose transitions never reach the critic: a random HoldOut
// share, or (push games, HoldOutClasses > 0) every joint action of HoldOutClasses effect classes
// other than "no move", drawn from r.
func holdOut(cfg Config, push *env.Push, n, na int, r *rand.Rand) ([]bool, error) {
	joints := int(math.Pow(float64(na), float64(n)))
	held := make([]bool, joints)
	if cfg.HoldOutClasses == 0 {
		for k := range held {
			held[k] = r.Float64() < cfg.HoldOut
		}
		return held, nil
	}
	if push == nil {
		return nil, fmt.Errorf("m3apg: hold_out_classes needs a push game (effect classes)")
	}
	class, classes := PushEffects(n, push.MaxMove)
	present := map[int]bool{}
	for _, c := range class {
		present[c] = true
	}
	still := PushEffect(0, 0, push.MaxMove)
	var pool []int
	for c := 0; c < classes; c++ {
		if present[c] && c != still {
			pool = append(pool, c)
		}
	}
	if cfg.HoldOutClasses >= len(pool) {
		return nil, fmt.Errorf("m3apg: hold_out_classes %d leaves no moving effect class to learn from (%d classes)", cfg.HoldOutClasses, len(pool))
	}
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	out := map[int]bool{}
	for _, c := range pool[:cfg.HoldOutClasses] {
		out[c] = true
	}
	for k := range held {
		held[k] = out[class[k]]
	}
	return held, nil
}

// counterfactualAdvantages is COMA's A_i = Q(s, a) − Σ_b π_i(b)·Q(s, (b, a₋ᵢ)) for every step and
// agent of a rollout ([T·E·N], the rollout's order), with Q from the critic and π the actor's policy
// over the agent's available actions (the rollout's masks: SMAX's; every action in the push game).
func counterfactualAdvantages(actor *ac.Net, critic *Critic, ro *ac.Rollout, states [][]float32, taken [][]int) ([]float64, error) {
	n, na := ro.N, ro.NA
	logits, err := actor.Apply(ro.Obs, len(taken)*n)
	if err != nil {
		return nil, err
	}
	var cfStates [][]float32
	var cfJoints [][]int
	for k := range taken {
		for i := 0; i < n; i++ {
			for b := 0; b < na; b++ {
				j := append([]int(nil), taken[k]...)
				j[i] = b
				cfStates, cfJoints = append(cfStates, states[k]), append(cfJoints, j)
			}
		}
	}
	cfQ, err := critic.Q(cfStates, cfJoints)
	if err != nil {
		return nil, err
	}
	avail := masks(ro.Avail, len(taken)*n, na)
	adv := make([]float64, len(taken)*n)
	for k := range taken {
		for i := 0; i < n; i++ {
			row := k*n + i
			adv[row] = CounterfactualAdvantage(cfQ[row*na:(row+1)*na], dist.Softmax(logits[row*na:(row+1)*na], avail[row]), taken[k][i])
		}
	}
	return adv, nil
}

// CounterfactualAdvantage is Q(s, a) − Σ_b π(b)·Q(s, (b, a₋ᵢ)) from one agent's counterfactual
// action values q[b] = Q(s, (b, a₋ᵢ)), its policy pi and its taken action.
func CounterfactualAdvantage(q, pi []float64, taken int) float64 {
	var base float64
	for b := range q {
		base += pi[b] * q[b]
	}
	return q[taken] - base
}

// masks reads a rollout's availability rows ([rows·na] of 1/0; nil or empty: every action
// available) as one mask per row.
func masks(avail []float32, rows, na int) [][]bool {
	out := make([][]bool, rows)
	for i := range out {
		out[i] = make([]bool, na)
		for a := range out[i] {
			out[i][a] = len(avail) == 0 || avail[i*na+a] > 0.5
		}
	}
	return out
}

// JointIndex is a joint action's index among the na^N joint actions (base-na digits, agent 0 first):
// the index of Train's hold-out.
func JointIndex(j []int, na int) int {
	k := 0
	for _, a := range j {
		k = k*na + a
	}
	return k
}

func rows(x []float32, dim, n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = x[i*dim : (i+1)*dim]
	}
	return out
}

// criticError compares the critic with the exact Q on an evalSet's rows — seen joint actions (in
// the critic's training data) and unseen ones (held out) — and returns the RMS errors (NaN for a
// set without rows).
func criticError(critic *Critic, e *evalSet) (seen, unseen float64, err error) {
	rms := func(i int) (float64, error) {
		if len(e.states[i]) == 0 {
			return math.NaN(), nil
		}
		got, err := critic.Q(e.states[i], e.joints[i])
		if err != nil {
			return 0, err
		}
		var se float64
		for k := range got {
			se += (got[k] - e.q[i][k]) * (got[k] - e.q[i][k])
		}
		return math.Sqrt(se / float64(len(got))), nil
	}
	if seen, err = rms(0); err != nil {
		return 0, 0, err
	}
	unseen, err = rms(1)
	return seen, unseen, err
}

// evalSet holds the rows a critic is compared on, [0] with seen joint actions and [1] with unseen
// ones: states, joint actions and the exact Q of the policy they were built for.
type evalSet struct {
	states [2][][]float32
	joints [2][][]int
	q      [2][]float64
}

// newEvalSet draws criticError's rows — up to EvalRows (step, cell, joint action) triples with a
// joint action of each set; seed fixes them — and their exact Q under the actor's current policy
// (env.Push.ExactQ).
func newEvalSet(p *env.Push, actor *ac.Net, held []bool, cfg Config, seed uint64) (*evalSet, error) {
	n, T, cells := p.Spec().Agents, p.Limit(), p.Cells()
	pis := make([][][][]float64, T)
	for t := 0; t < T; t++ {
		var obs []float32
		for c := 0; c < cells; c++ {
			s := p.StateOf(c, t)
			for i := 0; i < n; i++ {
				obs = append(obs, s...)
				for j := 0; j < n; j++ {
					obs = append(obs, float32(b2i(i == j)))
				}
			}
		}
		logits, err := actor.Apply(obs, cells*n)
		if err != nil {
			return nil, err
		}
		pis[t] = make([][][]float64, cells)
		for c := 0; c < cells; c++ {
			pis[t][c] = make([][]float64, n)
			for i := 0; i < n; i++ {
				row := c*n + i
				pis[t][c][i] = dist.Softmax(logits[row*4:(row+1)*4], nil)
			}
		}
	}
	q, err := p.ExactQ(func(c, t int) [][]float64 { return pis[t][c] }, cfg.Gamma)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x6576616c))
	e := &evalSet{}
	for i, wantHeld := range []bool{false, true} {
		for tries := 0; len(e.states[i]) < cfg.EvalRows && tries < 20*cfg.EvalRows; tries++ {
			k := r.IntN(len(held))
			if held[k] != wantHeld {
				continue
			}
			t, c := r.IntN(T), r.IntN(cells)
			if c == p.Goal() {
				continue
			}
			e.states[i], e.joints[i], e.q[i] = append(e.states[i], p.StateOf(c, t)), append(e.joints[i], env.JointAction(k, n)), append(e.q[i], q.Q[t][c][k])
		}
	}
	return e, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Package fcp is Fictitious Co-Play (Strouse et al., NeurIPS 2021), the two-stage population
// baseline of the E3T paper (toolkit/exp/e3t/README.md): first a population of self-play agents, each kept
// at several points of its training so that partners of every skill are in it (the initial
// weights too); then a best response trained by PPO with partners drawn from that frozen
// population. The population is data — overcooked.Agent values handed to Train, however they were
// trained — and the whole best-response loop is Train, in this file.
package fcp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Config is a flat, documented configuration.
type Config struct {
	// Game is the Overcooked layout and its rules (horizon, cook time).
	Game overcooked.Config `json:"game"`
	// Envs games per iteration, each one full episode (Game.Horizon steps); Iters iterations.
	Envs  int `json:"envs"`
	Iters int `json:"iters"`
	// Partners population members play per iteration, drawn with replacement, each with an equal
	// block of the games (larger blocks batch the partners' forward passes).
	Partners int `json:"partners"`
	// Hidden units of the two-layer tanh MLPs (actor, critic).
	Hidden int `json:"hidden"`
	// ObsScale multiplies the 96 featurize_state values (the population's agents read the same).
	ObsScale float32 `json:"obs_scale"`
	// PPO: discount, GAE λ, clip, entropy bonus, epochs × mini-batches, Adam learning rate.
	Gamma       float64 `json:"gamma"`
	Lambda      float64 `json:"lambda"`
	Clip        float64 `json:"clip"`
	EntCoef     float64 `json:"ent_coef"`
	Epochs      int     `json:"epochs"`
	MiniBatches int     `json:"mini_batches"`
	LR          float64 `json:"lr"`
	MaxGradNorm float64 `json:"max_grad_norm"`
	// ShapingSteps: the shaped-reward factor anneals linearly from 1 to 0 over this many
	// environment steps.
	ShapingSteps int `json:"shaping_steps"`
	// SnapshotAt are the fractions of training (0: the initial weights, 1: the final ones) at which
	// the best response's weights are kept (Result.Snapshots): its return along training, scored
	// by the caller (the cost curve).
	SnapshotAt []float64 `json:"snapshot_at,omitempty"`
}

// Validate names an invalid field.
func (c Config) Validate() error {
	switch {
	case c.Envs < 1 || c.Iters < 1 || c.Hidden < 1 || c.Epochs < 1 || c.MiniBatches < 1 || c.ShapingSteps < 1:
		return fmt.Errorf("fcp: envs, iters, hidden, epochs, mini_batches and shaping_steps must be ≥ 1")
	case c.Partners < 1 || c.Partners > c.Envs:
		return fmt.Errorf("fcp: partners %d must lie in 1..envs (%d)", c.Partners, c.Envs)
	case c.ObsScale <= 0:
		return fmt.Errorf("fcp: obs_scale %v must be > 0", c.ObsScale)
	}
	return nil
}

// Options are what a run needs beyond its configuration.
type Options struct {
	// Monitor, when set, is evaluated every MonitorEvery iterations (curve "monitor_return").
	Monitor      overcooked.Agent
	MonitorEvery int
	Progress     track.Progress
}

// Result is the trained best response and its curves.
type Result struct {
	// Actor is the best response's policy network (observation → action logits); the caller
	// closes it. Policy wraps it as an overcooked.Agent.
	Actor *ac.Net
	// Curves against environment steps: episodic_return (sparse, with the population partners),
	// shaped_return, shaping_factor, policy_loss, value_loss, entropy, approx_kl, clip_ratio,
	// monitor_return, seconds, SPS.
	Curves   track.Curves
	EnvSteps int
	// Snapshots of the actor's weights at Config.SnapshotAt, SnapshotInfo where each was taken.
	Snapshots    [][]float32
	SnapshotInfo []ac.Snapshot
}

// Train runs stage 2: a best response to the frozen population. Members play several blocks of
// games in an iteration, so they must keep no history between steps (a partner model would mix
// the blocks' histories): Train calls only Reset and Act on them.
func Train(cfg Config, seed uint64, population []overcooked.Agent, opt Options) (_ *Result, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(population) == 0 {
		return nil, fmt.Errorf("fcp: empty population")
	}
	if opt.Progress == nil {
		opt.Progress = track.NoProgress{}
	}
	be, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	const na = overcooked.NumActions
	obsDim := overcooked.VectorSize
	actor, err := ac.NewNet(be, []int{obsDim, cfg.Hidden, cfg.Hidden, na}, 0.01, seed)
	if err != nil {
		return nil, err
	}
	defer func() { // only the actor outlives Train, and not on an error
		if err != nil {
			actor.Close()
		}
	}()
	critic, err := ac.NewNet(be, []int{obsDim, cfg.Hidden, cfg.Hidden, 1}, 1, seed+1)
	if err != nil {
		return nil, err
	}
	defer critic.Close()
	trA, err := ac.NewActorTrainer(actor, cfg.LR, cfg.Clip, cfg.EntCoef, cfg.MaxGradNorm)
	if err != nil {
		return nil, err
	}
	defer trA.Close()
	trC, err := ac.NewValueTrainer(critic, cfg.LR, cfg.MaxGradNorm)
	if err != nil {
		return nil, err
	}
	defer trC.Close()
	ego := &Policy{Actor: actor, ObsScale: cfg.ObsScale}
	rng := rand.New(rand.NewPCG(seed, 0x65337433))
	// One kitchen; every iteration plays cfg.Envs fresh episodes of it.
	world, err := overcooked.New(cfg.Game)
	if err != nil {
		return nil, err
	}
	world.ReuseObs = true // the policies copy the observations they read (Policy.inputs)
	col := overcooked.NewCollector(world)
	res := &Result{Actor: actor, Curves: track.Curves{}}
	clk := track.StartClock()
	keep := func(done int) error {
		if !ac.SnapshotDue(cfg.SnapshotAt, cfg.Iters, done) {
			return nil
		}
		w, err := actor.Weights()
		if err != nil {
			return fmt.Errorf("snapshot at iteration %d: %w", done, err)
		}
		res.Snapshots, res.SnapshotInfo = append(res.Snapshots, w), append(res.SnapshotInfo, ac.SnapshotAt(res.Curves, done, res.EnvSteps, clk))
		return nil
	}
	if err := keep(0); err != nil {
		return nil, err
	}
	blocks := Blocks(cfg.Envs, cfg.Partners)
	for it := 1; it <= cfg.Iters; it++ {
		factor := max(0, 1-float64(res.EnvSteps)/float64(cfg.ShapingSteps))
		games, seat, _ := overcooked.NewGames(world, cfg.Envs, factor, rng)
		partner := team{members: make([]overcooked.Agent, len(blocks)), blocks: blocks}
		for b := range partner.members {
			partner.members[b] = population[rng.IntN(len(population))]
		}
		ro, err := col.Collect(games, seat, ego, partner, rng)
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		res.EnvSteps += ro.T * cfg.Envs
		// GAE per game; every episode ends at the horizon (no bootstrap).
		vals, err := critic.Apply(ro.Obs, ro.T*ro.E)
		if err != nil {
			return nil, err
		}
		adv, ret := ac.HorizonGAE(ro.Rew, vals, ro.T, ro.E, cfg.Gamma, cfg.Lambda)
		am, cm, err := ac.PPOEpochs(trA, trC, &ro.Rollout, ac.Normalize(adv), ret, cfg.Epochs, cfg.MiniBatches, rng)
		if err != nil {
			return nil, fmt.Errorf("iteration %d %w", it, err)
		}
		x := float64(res.EnvSteps)
		status := ac.AddShapedIteration(res.Curves, x, ro.Sparse/float64(cfg.Envs), ro.Shaped/float64(ro.E), factor, am, cm, clk)
		if err := keep(it); err != nil {
			return nil, err
		}
		if opt.Monitor != nil {
			m, err := ac.Monitor(res.Curves, x, it, cfg.Iters, opt.MonitorEvery, func() (float64, error) {
				return overcooked.Evaluate(cfg.Game, ego, opt.Monitor, 4, seed*7919+uint64(it))
			})
			if err != nil {
				return nil, err
			}
			status += m
		}
		opt.Progress.Update(it, status)
	}
	return res, nil
}

// team is the best response's partner in one iteration: members[b] plays the games of blocks[b],
// in one call per block. It passes on only Reset and Act (the members keep no history).
type team struct {
	members []overcooked.Agent
	blocks  [][]int
}

// Reset implements overcooked.Agent: every member gets room for any block.
func (t team) Reset(n int) {
	for _, m := range t.members {
		m.Reset(n)
	}
}

// Saw implements overcooked.Agent (the members see nothing).
func (t team) Saw([]int) {}

// Act implements overcooked.Agent: each member acts in its block of games.
func (t team) Act(games []*overcooked.Episode, idx []int, rng *rand.Rand) ([]int, error) {
	out := make([]int, len(games))
	for b, m := range t.members {
		bg, bi := make([]*overcooked.Episode, len(t.blocks[b])), make([]int, len(t.blocks[b]))
		for j, k := range t.blocks[b] {
			bg[j], bi[j] = games[k], idx[k]
		}
		a, err := m.Act(bg, bi, rng)
		if err != nil {
			return nil, err
		}
		for j, k := range t.blocks[b] {
			out[k] = a[j]
		}
	}
	return out, nil
}

// Policy is a memoryless MLP cook: it samples from the actor's softmax over its scaled observation.
type Policy struct {
	Actor    *ac.Net
	ObsScale float32
}

// Reset implements overcooked.Agent (no state).
func (p *Policy) Reset(int) {}

// Saw implements overcooked.Agent (no state).
func (p *Policy) Saw([]int) {}

// Act implements overcooked.Agent.
func (p *Policy) Act(games []*overcooked.Episode, idx []int, rng *rand.Rand) ([]int, error) {
	a, _, err := p.sample(p.inputs(games, idx), len(games), rng)
	return a, err
}

// Sample implements overcooked.Learner: Act, with the scaled observations acted on and the
// actions' log-probabilities.
func (p *Policy) Sample(games []*overcooked.Episode, idx []int, rng *rand.Rand) ([]float32, []int, []float32, error) {
	in := p.inputs(games, idx)
	a, logp, err := p.sample(in, len(games), rng)
	return in, a, logp, err
}

// inputs are the scaled featurize_state vectors of player idx[k] in each game (the ones the env's
// last step computed, copied: VectorObs).
func (p *Policy) inputs(games []*overcooked.Episode, idx []int) []float32 {
	in := make([]float32, 0, len(games)*overcooked.VectorSize)
	for k, g := range games {
		v := g.VectorObs(idx[k])
		for j := range v {
			v[j] *= p.ObsScale
		}
		in = append(in, v...)
	}
	return in
}

func (p *Policy) sample(in []float32, n int, rng *rand.Rand) ([]int, []float32, error) {
	logits, err := p.Actor.Apply(in, n)
	if err != nil {
		return nil, nil, err
	}
	masks := make([][]bool, n)
	for k := range masks {
		masks[k] = []bool{true, true, true, true, true, true}
	}
	acts, logp := ac.Policy(logits, masks, rng, false)
	return acts, logp, nil
}

// Blocks splits games 0..envs-1 into n contiguous blocks of (almost) equal size.
func Blocks(envs, n int) [][]int {
	out := make([][]int, n)
	for k := 0; k < envs; k++ {
		b := k * n / envs
		out[b] = append(out[b], k)
	}
	return out
}

// PickCheckpoints chooses which of a self-play run's snapshots join FCP's population, by the rule
// of ZSC-Eval's FCP (sjtu-marl/ZSC-Eval, zsceval/scripts/extract_models/extract_sp_models.py, and
// AlexWanghaoming/CBPR's FCP_stage1.py): the initial weights, the final ones, and the "middle"
// checkpoint whose training return is closest to half the final return — a partner of middling
// skill, whatever the step it was reached at. The FCP paper (Strouse et al., NeurIPS 2021, arXiv
// 2110.08176) keeps checkpoints "taken throughout training" — by a secondary source its population
// is 32 agents × 3 checkpoints (start, middle, end); [UNVERIFIED] the paper's own definition of the
// middle one, not read in its text. returns[i] is snapshot i's training return, in training order
// (snapshot 0 the initial weights, the last the final ones); the indices come back in that order,
// each once (a run with fewer than three snapshots keeps them all; ties go to the earlier one).
func PickCheckpoints(returns []float64) []int {
	n := len(returns)
	if n < 3 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	half, mid := returns[n-1]/2, 1
	for i := 2; i < n-1; i++ {
		if math.Abs(returns[i]-half) < math.Abs(returns[mid]-half) {
			mid = i
		}
	}
	return []int{0, mid, n - 1}
}

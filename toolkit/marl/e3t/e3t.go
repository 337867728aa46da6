// Package e3t trains Overcooked cooks for zero-shot coordination (toolkit/exp/e3t/README.md): PPO self-play
// (SP, the first stage of the FCP baseline in toolkit/marl/fcp) and E3T — the ego plays with
// a partner that mixes ε·uniform with a slowly copied version of the ego, only the ego is trained,
// and an optional partner model predicts the partner's next action from the last K (observation,
// action) pairs and conditions the ego's policy on it. The whole loop is Train, in this file.
package e3t

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/dist"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Config is a flat, documented configuration.
type Config struct {
	// Game is the Overcooked layout and its rules (horizon, cook time).
	Game overcooked.Config `json:"game"`
	// Mode is "sp" (both cooks are the learner) or "e3t" (the learner with the mixture partner).
	Mode string `json:"mode"`
	// Epsilon is E3T's partner mixture weight on the uniform policy (the authors' cramped_room run:
	// 0.7; ZSC-Eval: 0.25). [UNVERIFIED] the paper's per-layout values.
	Epsilon float64 `json:"epsilon"`
	// CopyRate c: after every update the partner's weights become (1−c)·partner + c·ego (code: 0.1).
	CopyRate float64 `json:"copy_rate"`
	// PartnerModel conditions the ego on a predicted partner action from the last K steps.
	PartnerModel bool `json:"partner_model"`
	K            int  `json:"k"`
	// Envs games per iteration, each one full episode (Game.Horizon steps); Iters iterations.
	Envs  int `json:"envs"`
	Iters int `json:"iters"`
	// Hidden units of the two-layer tanh MLPs (actor, critic, partner model).
	Hidden int `json:"hidden"`
	// PPO: discount, GAE λ, clip, entropy bonus, epochs × mini-batches, Adam learning rates.
	Gamma       float64 `json:"gamma"`
	Lambda      float64 `json:"lambda"`
	Clip        float64 `json:"clip"`
	EntCoef     float64 `json:"ent_coef"`
	Epochs      int     `json:"epochs"`
	MiniBatches int     `json:"mini_batches"`
	LR          float64 `json:"lr"`
	PMLR        float64 `json:"pm_lr"`
	// PMEpochs passes over each iteration's (history, partner action) pairs train the partner model,
	// in MiniBatches mini-batches with its own Adam optimiser (the authors: 8; 0 or 1: one pass).
	PMEpochs    int     `json:"pm_epochs,omitempty"`
	MaxGradNorm float64 `json:"max_grad_norm"`
	// ShapingSteps: the shaped-reward factor anneals linearly from 1 to 0 over this many
	// environment steps (overcooked_ai's reward-shaping horizon).
	ShapingSteps int `json:"shaping_steps"`
	// LearnBothSeats (mode sp): train on both players' samples, 2 gradient samples per
	// environment step; false trains on the ego seat only (a random seat per game), the same number
	// of gradient samples as E3T and the best response get.
	LearnBothSeats bool `json:"learn_both_seats"`
	// PMCeilingEvery > 0 (mode e3t) measures the partner model's ceiling (curve pm_ceiling, see
	// PMCeiling) on the partner's states every PMCeilingEvery steps of every game, each with
	// PMCeilingDraws draws of the noise the partner's partner-model slot reads. It draws from its own
	// random stream: the training is the same with it or without it. [UNVERIFIED] PaperLab's
	// choice: every 8th step, 16 draws (Authors).
	PMCeilingEvery int `json:"pm_ceiling_every,omitempty"`
	PMCeilingDraws int `json:"pm_ceiling_draws,omitempty"`
	// SnapshotAt are the fractions of training (0: the initial weights, 1: the final ones) at which
	// the actor's weights are kept in Result.Snapshots — FCP's past checkpoints, of every skill.
	SnapshotAt []float64 `json:"snapshot_at"`
}

// Default is the configuration of the experiment on a layout (JaxMARL's IPPO settings for
// Overcooked where they apply: tanh 64-64, lr 2.5e-4 → here 1e-3 for the short budget, γ 0.99, GAE
// 0.95, clip 0.2, entropy 0.01, 4 epochs × 4 mini-batches).
func Default(game overcooked.Config, mode string) Config {
	return Config{Game: game, Mode: mode, Epsilon: 0.5, CopyRate: 0.1, K: 5, Envs: 16, Iters: 150, Hidden: 64,
		Gamma: 0.99, Lambda: 0.95, Clip: 0.2, EntCoef: 0.01, Epochs: 4, MiniBatches: 4, LR: 1e-3, PMLR: 1e-3,
		MaxGradNorm: 0.5, ShapingSteps: 600_000, SnapshotAt: []float64{0, 0.25, 0.5, 1}}
}

// Authors is the authors' configuration of a layout (yanxue7/E3T-Overcooked, as read in the
// cramped_room run script and encoder_ppo.py): ε 0.7, 30 games × 400 steps = 12,000 environment
// steps per update, 400 updates (4.8 M steps), PPO 8 epochs × 6 mini-batches, entropy 0.1, clip 0.05,
// gradient-norm clip 0.1, GAE λ 0.98, γ 0.99, Adam 1e-3, the partner model trained 8 passes per
// update with its own optimiser, the reward shaping annealed to 0 over 2.5 M steps. What differs is
// the network (two tanh layers of 64 on featurize_state, not 3 conv layers on the lossless grid)
// and the separate critic optimiser (the authors: one loss with value coefficient 1).
// [UNVERIFIED] the partner model's learning rate (not stated): the policy's 1e-3.
func Authors(game overcooked.Config, mode string) Config {
	return Config{Game: game, Mode: mode, Epsilon: 0.7, CopyRate: 0.1, K: 5, Envs: 30, Iters: 400, Hidden: 64,
		Gamma: 0.99, Lambda: 0.98, Clip: 0.05, EntCoef: 0.1, Epochs: 8, MiniBatches: 6, LR: 1e-3, PMLR: 1e-3, PMEpochs: 8,
		MaxGradNorm: 0.1, ShapingSteps: 2_500_000, SnapshotAt: []float64{0, 0.25, 0.5, 1}, PMCeilingEvery: 8, PMCeilingDraws: 16}
}

// Validate names an invalid field.
func (c Config) Validate() error {
	switch {
	case c.Mode != "sp" && c.Mode != "e3t":
		return fmt.Errorf("e3t: mode %q, want sp or e3t", c.Mode)
	case c.Epsilon < 0 || c.Epsilon > 1 || c.CopyRate < 0 || c.CopyRate > 1:
		return fmt.Errorf("e3t: epsilon %v and copy_rate %v must lie in [0,1]", c.Epsilon, c.CopyRate)
	case c.PartnerModel && c.K < 1:
		return fmt.Errorf("e3t: partner model needs k ≥ 1")
	case c.PartnerModel && c.Mode == "sp":
		// SP trains both seats as learners; the partner model's history is kept for the ego seat only.
		return fmt.Errorf("e3t: partner_model needs mode e3t (with sp both players are the learner)")
	case c.PMEpochs < 0:
		return fmt.Errorf("e3t: pm_epochs %d must be ≥ 0", c.PMEpochs)
	case c.PMCeilingEvery < 0 || c.PMCeilingEvery > 0 && c.PMCeilingDraws < 1:
		return fmt.Errorf("e3t: pm_ceiling_every %d must be ≥ 0, and pm_ceiling_draws %d ≥ 1 when it is set", c.PMCeilingEvery, c.PMCeilingDraws)
	case c.Envs < 1 || c.Iters < 1 || c.Hidden < 1 || c.Epochs < 1 || c.MiniBatches < 1 || c.ShapingSteps < 1:
		return fmt.Errorf("e3t: envs, iters, hidden, epochs, mini_batches and shaping_steps must be ≥ 1")
	}
	for _, f := range c.SnapshotAt {
		if f < 0 || f > 1 {
			return fmt.Errorf("e3t: snapshot_at %v: fractions must lie in [0, 1]", c.SnapshotAt)
		}
	}
	return nil
}

// Options are what a run needs beyond its configuration.
type Options struct {
	// Monitor, when set, is evaluated every MonitorEvery iterations (curve "monitor_return").
	Monitor      Agent
	MonitorEvery int
	Progress     track.Progress
}

// Result is a trained cook and its curves.
type Result struct {
	Policy *Policy
	// Curves against environment steps: episodic_return (sparse, with the training partner),
	// shaped_return, shaping_factor, policy_loss, value_loss, entropy, approx_kl, clip_ratio,
	// pm_loss, pm_accuracy (the partner model's predictions during the iteration's games, before it
	// trains on them), pm_train_accuracy (on its mini-batches while it trains), pm_ceiling (the most
	// accuracy any partner model could reach on those games, Config.PMCeilingEvery; pm_ceiling_half
	// from half its draws) and pm_floor (the best constant guess's), monitor_return,
	// seconds, SPS, and each iteration's rollout_seconds and update_seconds.
	Curves track.Curves
	// Snapshots of the actor weights at Config.SnapshotAt (FCP's past checkpoints, E3T's cost
	// curve), PMSnapshots the partner model's weights at the same points (with a partner model), and
	// SnapshotInfo where each was taken.
	Snapshots    [][]float32
	PMSnapshots  [][]float32
	SnapshotInfo []ac.Snapshot
	EnvSteps     int
	// RolloutSeconds (playing the games: the policies' forward passes, the environment, the
	// observations) and UpdateSeconds (GAE, PPO and the partner model's training, the partner copy)
	// split the run's wall time.
	RolloutSeconds, UpdateSeconds float64
}

// Train runs one training, cleanrl-style: each iteration plays Envs games to the horizon
// (overcooked.Collector), fits the critic and the actor by PPO on the ego's samples, trains the
// partner model on the partner's actions, and moves the E3T partner toward the ego (softCopy).
func Train(cfg Config, seed uint64, opt Options) (_ *Result, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
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
	if cfg.PartnerModel {
		obsDim += na // the partner model's predicted distribution of the partner's next action
	}
	actor, err := ac.NewNet(be, []int{obsDim, cfg.Hidden, cfg.Hidden, na}, 0.01, seed)
	if err != nil {
		return nil, err
	}
	ego := &Policy{Actor: actor, K: cfg.K}
	defer func() { // only the ego policy outlives Train (the caller closes it), and not on an error
		if err != nil {
			ego.Close()
		}
	}()
	critic, err := ac.NewNet(be, []int{obsDim, cfg.Hidden, cfg.Hidden, 1}, 1, seed+1)
	if err != nil {
		return nil, err
	}
	defer critic.Close()
	var trPM *nn.Trainer
	pmIn := cfg.K*(overcooked.VectorSize+na) + overcooked.VectorSize
	if cfg.PartnerModel {
		if ego.PM, err = ac.NewNet(be, []int{pmIn, cfg.Hidden, cfg.Hidden, na}, 0.01, seed+2); err != nil {
			return nil, err
		}
		if trPM, err = ac.NewTrainer(&ego.PM.Model, cfg.PMLR, cfg.MaxGradNorm, []string{"accuracy"}, ac.ClassifierLoss(ego.PM.Layers())); err != nil {
			return nil, err
		}
		defer trPM.Close()
	}
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
	// The other seat: E3T's partner; in SP the ego itself, or none when the ego learns from both seats.
	var partner overcooked.Agent
	var mate *Policy
	var probe *ceilingProbe // measures the partner model's ceiling (PMCeilingEvery)
	switch {
	case cfg.Mode == "e3t":
		if mate, err = newPartner(ego, cfg); err != nil {
			return nil, err
		}
		defer mate.Actor.Close() // the partner model is the ego's
		partner = mate
		if cfg.PMCeilingEvery > 0 {
			probe = &ceilingProbe{Policy: mate, every: cfg.PMCeilingEvery}
			partner = probe
		}
	case !cfg.LearnBothSeats:
		partner = ego // the same policy, not trained on
	}
	rng := rand.New(rand.NewPCG(seed, 0x65337433))
	ceilRNG := rand.New(rand.NewPCG(seed, 0x6365696c)) // the ceiling's noise draws, apart from training's
	// One kitchen; every iteration plays cfg.Envs fresh episodes of it.
	world, err := overcooked.New(cfg.Game)
	if err != nil {
		return nil, err
	}
	world.ReuseObs = true // the policies copy the observations they read (observe)
	col, learner := overcooked.NewCollector(world), &egoLearner{Policy: ego}
	var labels, preds []int32 // the partner's actions and the ego's predictions of them (reused)
	res := &Result{Policy: ego, Curves: track.Curves{}}
	clk := track.StartClock()
	if err := res.keepSnapshot(ego, cfg, 0, clk); err != nil {
		return nil, err
	}
	for it := 1; it <= cfg.Iters; it++ {
		factor := max(0, 1-float64(res.EnvSteps)/float64(cfg.ShapingSteps))
		games, seat, _ := overcooked.NewGames(world, cfg.Envs, factor, rng)
		t0 := time.Now()
		ro, err := col.Collect(games, seat, learner, partner, rng)
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		t1 := time.Now()
		res.RolloutSeconds += t1.Sub(t0).Seconds()
		res.EnvSteps += ro.T * cfg.Envs
		// GAE per stream; every episode ends at the horizon (no bootstrap).
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
		if probe != nil { // the partner that played these games, before it moves toward the ego
			b, err := probe.measure(cfg.PMCeilingDraws, ceilRNG)
			if err != nil {
				return nil, fmt.Errorf("iteration %d partner-model ceiling: %w", it, err)
			}
			res.Curves.Add("pm_ceiling", x, b.Ceiling)
			res.Curves.Add("pm_ceiling_half", x, b.CeilingHalf)
			res.Curves.Add("pm_floor", x, b.Floor)
		}
		if cfg.PartnerModel {
			labels = appendInt32(labels[:0], ro.Partner)
			pm, err := trainPartnerModel(trPM, learner.pmRows, pmIn, labels, cfg.PMEpochs, cfg.MiniBatches, rng)
			if err != nil {
				return nil, fmt.Errorf("iteration %d partner model: %w", it, err)
			}
			res.Curves.Add("pm_loss", x, pm["loss"])
			res.Curves.Add("pm_train_accuracy", x, pm["accuracy"])
			preds = appendPredictions(preds[:0], ro.Obs, obsDim) // what the ego read, before the model trained
			res.Curves.Add("pm_accuracy", x, Accuracy(preds, labels))
		}
		if mate != nil {
			if err := softCopy(mate.Actor, actor, cfg.CopyRate); err != nil {
				return nil, fmt.Errorf("iteration %d partner copy: %w", it, err)
			}
		}
		upd := time.Since(t1).Seconds()
		res.UpdateSeconds += upd
		res.Curves.Add("rollout_seconds", x, t1.Sub(t0).Seconds())
		res.Curves.Add("update_seconds", x, upd)
		status := ac.AddShapedIteration(res.Curves, x, ro.Sparse/float64(cfg.Envs), ro.Shaped/float64(ro.E), factor, am, cm, clk)
		if err := res.keepSnapshot(ego, cfg, it, clk); err != nil {
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

// egoLearner is the ego as the collector's overcooked.Learner: it also keeps the partner-model inputs it
// read at every step of the rollout (the partner model's training inputs; none without one).
type egoLearner struct {
	*Policy
	pmRows []float32
}

// Reset starts n games and empties the kept partner-model inputs.
func (l *egoLearner) Reset(n int) {
	l.Policy.Reset(n)
	l.pmRows = l.pmRows[:0]
}

// Sample implements overcooked.Learner.
func (l *egoLearner) Sample(games []*overcooked.Episode, idx []int, rng *rand.Rand) ([]float32, []int, []float32, error) {
	in, pin, err := l.Inputs(games, idx, rng)
	if err != nil {
		return nil, nil, nil, err
	}
	acts, logp, err := l.ActFrom(in, len(games), rng)
	l.pmRows = append(l.pmRows, pin...)
	return in, acts, logp, err
}

// newPartner is E3T's training partner: a copy of the ego's actor (moved toward the ego after every
// update, softCopy) whose actions mix ε·uniform, its partner-model slot fed noise (the authors' code).
func newPartner(ego *Policy, cfg Config) (*Policy, error) {
	m, err := ego.Actor.CloneWeights()
	if err != nil {
		return nil, err
	}
	mate := &Policy{Actor: &ac.Net{Sizes: ego.Actor.Sizes, Model: m}, K: cfg.K, Epsilon: cfg.Epsilon}
	if cfg.PartnerModel {
		mate.PM, mate.NoisePM = ego.PM, true
	}
	return mate, nil
}

// softCopy moves the partner's actor toward the ego's: each weight becomes (1−c)·partner + c·ego,
// computed in float64.
func softCopy(partner, ego *ac.Net, c float64) error {
	we, err := ego.Weights()
	if err != nil {
		return err
	}
	wp, err := partner.Weights()
	if err != nil {
		return err
	}
	for i := range wp {
		wp[i] = float32((1-c)*float64(wp[i]) + c*float64(we[i]))
	}
	return partner.SetWeights(wp)
}

// trainPartnerModel fits the partner model to one iteration's pairs — the inputs rows (dim values
// each) and the partner's actions labels — in epochs passes (at least one) of mb shuffled
// mini-batches with its own optimiser, and returns the mean loss and accuracy.
func trainPartnerModel(tr *nn.Trainer, rows []float32, dim int, labels []int32, epochs, mb int, rng *rand.Rand) (map[string]float64, error) {
	b := ac.NewBatch(tr.Net.Backend())
	defer b.Close()
	return ac.Minibatches(len(labels), max(1, epochs), mb, rng, func(idx []int) (nn.StepStats, error) {
		ys := make([]int32, len(idx))
		for k, i := range idx {
			ys[k] = labels[i]
		}
		return tr.Update(ac.ClassifierBatch(b.Rows("x", rows, dim, idx), ys))
	})
}

// appendPredictions appends, for each actor-input row of obs (dim values), the partner model's
// prediction the ego read in it: the most likely action of the distribution in its last NumActions
// values.
func appendPredictions(dst []int32, obs []float32, dim int) []int32 {
	for r := dim; r <= len(obs); r += dim {
		dst = append(dst, int32(dist.Greedy(obs[r-overcooked.NumActions:r], nil)))
	}
	return dst
}

// appendInt32 appends the actions a as int32 (the partner model's labels).
func appendInt32(dst []int32, a []int) []int32 {
	for _, x := range a {
		dst = append(dst, int32(x))
	}
	return dst
}

// keepSnapshot keeps the ego's weights (actor, and partner model if any) when done of cfg.Iters
// iterations is one of the fractions cfg.SnapshotAt of training (once, however many fractions round
// to it), with where it was taken.
func (res *Result) keepSnapshot(ego *Policy, cfg Config, done int, clk track.Clock) error {
	if !ac.SnapshotDue(cfg.SnapshotAt, cfg.Iters, done) {
		return nil
	}
	w, err := ego.Actor.Weights()
	if err != nil {
		return fmt.Errorf("snapshot at iteration %d: %w", done, err)
	}
	res.Snapshots = append(res.Snapshots, w)
	if ego.PM != nil {
		pw, err := ego.PM.Weights()
		if err != nil {
			return fmt.Errorf("snapshot at iteration %d: partner model: %w", done, err)
		}
		res.PMSnapshots = append(res.PMSnapshots, pw)
	}
	res.SnapshotInfo = append(res.SnapshotInfo, ac.SnapshotAt(res.Curves, done, res.EnvSteps, clk))
	return nil
}

// Accuracy is the share of predictions equal to their labels (0 when there are none).
func Accuracy(pred, labels []int32) float64 {
	if len(pred) == 0 || len(pred) != len(labels) {
		return 0
	}
	n := 0
	for i := range pred {
		if pred[i] == labels[i] {
			n++
		}
	}
	return float64(n) / float64(len(pred))
}

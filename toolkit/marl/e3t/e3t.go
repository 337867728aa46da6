// Package e3t trains Overcooked cooks for zero-shot coordination (toolkit/exp/e3t/README.md): PPO self-play
// (SP, the first stage of the FCP baseline in toolkit/marl/fcp) and E3T — the ego plays with
// a partner that mixes ε·uniform with a slowly copied version of the ego, only the ego is trained,
// and an optional partner model predicts the partner's next action from the last K (observation,
// action) pairs and conditions the ego's policy on it. The whole loop is Train, in this file.
package e3t

import (
	"fmt"
	"math"
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

// Authors is the authors' configuration of a layout (yanxue7/E3T-Overcooked, the cramped_room run
// script and encoder_ppo.py; issue 36's audit): ε 0.7, 30 games × 400 steps = 12,000 environment
// steps per update, 400 updates (4.8 M steps), PPO 8 epochs × 6 mini-batches, entropy 0.1, clip 0.05,
// gradient-norm clip 0.1, GAE λ 0.98, γ 0.99, Adam 1e-3, the partner model trained 8 passes per
// update with its own optimiser, the reward shaping annealed to 0 over 2.5 M steps. What differs is
// the network (two tanh layers of 64 on featurize_state, not 3 conv layers on the lossless grid)
// and the separate critic optimiser (the authors: one loss with value coefficient 1).
// [UNVERIFIED] the partner model's learning rate (not stated): the policy's 1e-3.
func Authors(game overcooked.Config, mode string) Config {
	return Config{Game: game, Mode: mode, Epsilon: 0.7, CopyRate: 0.1, K: 5, Envs: 30, Iters: 400, Hidden: 64,
		Gamma: 0.99, Lambda: 0.98, Clip: 0.05, EntCoef: 0.1, Epochs: 8, MiniBatches: 6, LR: 1e-3, PMLR: 1e-3, PMEpochs: 8,
		MaxGradNorm: 0.1, ShapingSteps: 2_500_000, SnapshotAt: []float64{0, 0.25, 0.5, 1}}
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
	// trains on them), pm_train_accuracy (on its mini-batches while it trains), monitor_return,
	// seconds, SPS, and each iteration's rollout_seconds and update_seconds.
	Curves track.Curves
	// Snapshots of the actor weights at Config.SnapshotAt (for FCP's past checkpoints).
	Snapshots [][]float32
	EnvSteps  int
	// RolloutSeconds (playing the games: the policies' forward passes, the environment, the
	// observations) and UpdateSeconds (GAE, PPO and the partner model's training, the partner copy)
	// split the run's wall time.
	RolloutSeconds, UpdateSeconds float64
}

// Train runs one training.
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
		obsDim += na
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
	// The E3T partner: a soft copy of the ego actor, ε-mixed, its partner-model slot fed noise.
	var mate *Policy
	if cfg.Mode == "e3t" {
		m, err := actor.CloneWeights()
		if err != nil {
			return nil, err
		}
		pa := &ac.Net{Sizes: actor.Sizes, Model: m}
		defer pa.Close()
		mate = &Policy{Actor: pa, K: cfg.K, Epsilon: cfg.Epsilon}
		if cfg.PartnerModel {
			mate.PM, mate.NoisePM = ego.PM, true
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x65337433))
	// One kitchen; every iteration plays cfg.Envs fresh episodes of it through its Step.
	world, err := overcooked.New(cfg.Game)
	if err != nil {
		return nil, err
	}
	world.ReuseObs = true // the policies copy the observations they read (observe)
	res := &Result{Policy: ego, Curves: track.Curves{}}
	snapshot := func(done int) error { // keep the weights at each requested fraction of training, once
		for _, f := range cfg.SnapshotAt {
			if int(math.Round(f*float64(cfg.Iters))) == done {
				w, err := actor.Weights()
				if err != nil {
					return fmt.Errorf("snapshot at iteration %d: %w", done, err)
				}
				res.Snapshots = append(res.Snapshots, w)
				return nil
			}
		}
		return nil
	}
	if err := snapshot(0); err != nil {
		return nil, err
	}
	start := time.Now()
	H := cfg.Game.Horizon
	// Rollout buffers, sized once for every iteration (growing them by append copied ~30 MB per
	// iteration, and fresh ones each iteration cost their zeroing and page faults).
	maxS := 2 * cfg.Envs
	obsBuf, actsBuf, logpBuf := make([]float32, 0, H*maxS*obsDim), make([]int, 0, H*maxS), make([]float32, 0, H*maxS)
	rew := make([]float64, H*maxS)
	var pmRowsBuf []float32
	var pmLabelsBuf, pmPredBuf []int32 // the partner's actions and the ego's predictions of them
	if cfg.PartnerModel {
		pmRowsBuf, pmLabelsBuf, pmPredBuf = make([]float32, 0, H*cfg.Envs*pmIn), make([]int32, 0, H*cfg.Envs), make([]int32, 0, H*cfg.Envs)
	}
	for it := 1; it <= cfg.Iters; it++ {
		factor := max(0, 1-float64(res.EnvSteps)/float64(cfg.ShapingSteps))
		games, egoIdx, mateIdx := overcooked.NewGames(world, cfg.Envs, factor, rng)
		// Learning streams: the ego in every game, and in SP also the other player; then the
		// partner in the other seat (none when the learner fills both seats).
		seats := [][]int{egoIdx}
		if cfg.Mode == "sp" && cfg.LearnBothSeats {
			seats = append(seats, mateIdx)
		}
		learners := len(seats)
		if learners == 1 {
			seats = append(seats, mateIdx)
		}
		ego.Reset(cfg.Envs)
		if mate != nil {
			mate.Reset(cfg.Envs)
		}
		S := learners * cfg.Envs                                                // streams
		obs, acts, logp, rew := obsBuf[:0], actsBuf[:0], logpBuf[:0], rew[:H*S] // every rew entry is written below
		pmRows, pmLabels, pmPred := pmRowsBuf[:0], pmLabelsBuf[:0], pmPredBuf[:0]
		sparse, shaped := 0.0, 0.0
		act := func(i int, games []*overcooked.Episode, idx []int) ([]int, error) {
			if i < learners { // a learning stream: sample and record what the ego acted on
				in, pin, err := ego.Inputs(games, idx, rng)
				if err != nil {
					return nil, err
				}
				a, lp, err := ego.ActFrom(in, cfg.Envs, rng)
				if err != nil {
					return nil, err
				}
				obs, acts, logp = append(obs, in...), append(acts, a...), append(logp, lp...)
				pmRows = append(pmRows, pin...)
				if cfg.PartnerModel { // the prediction the actor read: the last na values of each row
					for k := 0; k < cfg.Envs; k++ {
						pmPred = append(pmPred, int32(dist.Greedy(in[(k+1)*obsDim-na:(k+1)*obsDim], nil)))
					}
				}
				return a, nil
			}
			var a []int
			var err error
			if cfg.Mode == "sp" { // the same policy, not trained on
				a, err = ego.Act(games, idx, rng)
			} else {
				a, err = mate.Act(games, idx, rng)
			}
			if cfg.PartnerModel {
				for _, x := range a {
					pmLabels = append(pmLabels, int32(x))
				}
			}
			return a, err
		}
		after := func(t int, _ [][2]int, stepActs [][]int) error {
			for k, g := range games {
				out := g.Last
				sp := out.Sparse[0] + out.Sparse[1]
				sparse += sp
				for s, idx := range seats[:learners] {
					rew[t*S+s*cfg.Envs+k] = sp + factor*out.Shaped[idx[k]]
					shaped += out.Shaped[idx[k]]
				}
			}
			ego.Saw(stepActs[len(stepActs)-1]) // the other player's actions
			if mate != nil {
				mate.Saw(stepActs[0])
			}
			return nil
		}
		t0 := time.Now()
		if err := overcooked.RunEpisodes(world, games, seats, act, after); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		t1 := time.Now()
		res.RolloutSeconds += t1.Sub(t0).Seconds()
		res.EnvSteps += H * cfg.Envs
		// GAE per stream; every episode ends at the horizon (no bootstrap).
		vals, err := critic.Apply(obs, H*S)
		if err != nil {
			return nil, err
		}
		adv, ret := ac.HorizonGAE(rew, vals, H, S, cfg.Gamma, cfg.Lambda)
		adv = ac.Normalize(adv)
		ro := &ac.Rollout{N: 1, NA: na, ObsDim: obsDim, Obs: obs, Act: acts, LogP: logp, Avail: ac.AllAvailable(H * S * na)}
		am, cm, err := ac.PPOEpochs(trA, trC, ro, adv, ret, cfg.Epochs, cfg.MiniBatches, rng)
		if err != nil {
			return nil, fmt.Errorf("iteration %d %w", it, err)
		}
		x := float64(res.EnvSteps)
		if cfg.PartnerModel {
			b := ac.NewBatch(be)
			pm, err := ac.Minibatches(len(pmLabels), max(1, cfg.PMEpochs), cfg.MiniBatches, rng, func(idx []int) (nn.StepStats, error) {
				ys := make([]int32, len(idx))
				for k, i := range idx {
					ys[k] = pmLabels[i]
				}
				return trPM.Update(ac.ClassifierBatch(b.Rows("x", pmRows, pmIn, idx), ys))
			})
			b.Close()
			if err != nil {
				return nil, fmt.Errorf("iteration %d partner model: %w", it, err)
			}
			res.Curves.Add("pm_loss", x, pm["loss"])
			res.Curves.Add("pm_train_accuracy", x, pm["accuracy"])
			res.Curves.Add("pm_accuracy", x, Accuracy(pmPred, pmLabels))
		}
		if mate != nil {
			we, _ := actor.Weights()
			wp, _ := mate.Actor.Weights()
			for i := range wp {
				wp[i] = float32((1-cfg.CopyRate)*float64(wp[i]) + cfg.CopyRate*float64(we[i]))
			}
			if err := mate.Actor.SetWeights(wp); err != nil {
				return nil, err
			}
		}
		upd := time.Since(t1).Seconds()
		res.UpdateSeconds += upd
		res.Curves.Add("rollout_seconds", x, t1.Sub(t0).Seconds())
		res.Curves.Add("update_seconds", x, upd)
		if err := snapshot(it); err != nil {
			return nil, err
		}
		status := ac.AddShapedIteration(res.Curves, x, sparse/float64(cfg.Envs), shaped/float64(S), factor, am, cm, start)
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

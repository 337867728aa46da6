package pref

import (
	"fmt"
	"maps"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/track"
)

// TrainConfig configures one round of DPO or SPO.
type TrainConfig struct {
	// Beta is β of the loss (and of the implicit rewards it defines).
	Beta float64 `json:"beta"`
	// Steps of Adam on BatchSize pairs drawn with replacement (seeded by Seed and the step).
	Steps     int          `json:"steps"`
	BatchSize int          `json:"batch_size"`
	Opt       lm.OptConfig `json:"opt"`
	Seed      uint64       `json:"seed"`
	// EvalEvery > 0 calls OnEval every EvalEvery steps (and at steps 0 and Steps).
	EvalEvery int `json:"eval_every"`
	// DenseEvery > 0 also calls OnEval every DenseEvery steps up to step DenseUntil (with EvalEvery
	// > 0): a path measured closely where a round moves fastest, its first steps, and every
	// EvalEvery steps after.
	DenseEvery int `json:"dense_every,omitempty"`
	DenseUntil int `json:"dense_until,omitempty"`
	// RPOAlpha > 0 adds RPOAlpha × the NLL of the chosen responses (PairLossRPO).
	RPOAlpha float64 `json:"rpo_alpha,omitempty"`
}

// Validate names an invalid field.
func (c TrainConfig) Validate() error {
	if c.DenseEvery < 0 || c.DenseUntil < 0 || (c.DenseEvery > 0 && c.EvalEvery == 0) {
		return fmt.Errorf("pref config: dense_every %d, dense_until %d with eval_every %d: need ≥ 0, and eval_every > 0 for dense evaluations", c.DenseEvery, c.DenseUntil, c.EvalEvery)
	}
	if !(c.Beta > 0) || c.Steps < 1 || c.BatchSize < 1 || c.EvalEvery < 0 || c.RPOAlpha < 0 {
		return fmt.Errorf("pref config: beta %v, steps %d, batch_size %d, eval_every %d: need beta > 0, steps and batch_size ≥ 1",
			c.Beta, c.Steps, c.BatchSize, c.EvalEvery)
	}
	return c.Opt.Validate()
}

// EvalAt reports whether step (1…Steps) is an evaluation step: every EvalEvery steps, every
// DenseEvery steps up to DenseUntil, and the last step (step 0 is evaluated whenever EvalEvery > 0).
func (c TrainConfig) EvalAt(step int) bool {
	if c.EvalEvery <= 0 {
		return false
	}
	return step%c.EvalEvery == 0 || step == c.Steps || (c.DenseEvery > 0 && step <= c.DenseUntil && step%c.DenseEvery == 0)
}

// Hooks are optional callbacks, and a cache of log-probabilities.
type Hooks struct {
	// OnEval evaluates the policy being trained at an eval step.
	OnEval func(policy *lm.Model, step int) (map[string]float64, error)
	// OnStep sees each step's loss, grad_norm and TRL metrics (a live plot: plot.Live.Step).
	OnStep   func(step int, metrics map[string]float64)
	Progress track.Progress
	// Scores, when set, caches the pairs' log-probabilities under models that no longer change (the
	// reference and the finished stages of NextRound's history), so that rounds on the same pairs
	// from the same history — a λ or β sweep — score each of those models once.
	Scores *Scores
}

// TrainPairs runs one round of DPO (offsets 0) or SPO (offsets from earlier rounds) on policy
// against ref, whose log-probabilities of every pair are computed once before training and cached.
// It returns the curves: loss, grad_norm and TRL's rewards/… and logps/… per step; OnEval's metrics
// at eval steps.
func TrainPairs(policy, ref *lm.Model, pairs []PairEx, cfg TrainConfig, hooks Hooks) (track.Curves, error) {
	refC, refR, err := refScores(ref, pairs, cfg, hooks)
	if err != nil {
		return nil, err
	}
	return trainPairs(policy, pairs, refC, refR, cfg, hooks)
}

// refScores checks a round's configuration and pairs and scores the pairs under the reference
// (from hooks.Scores when it holds them).
func refScores(ref *lm.Model, pairs []PairEx, cfg TrainConfig, hooks Hooks) (chosen, rejected []float64, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("pref: no pairs")
	}
	return hooks.Scores.Of(ref, pairs)
}

// trainPairs is TrainPairs with the reference's log-probabilities of the pairs given.
func trainPairs(policy *lm.Model, pairs []PairEx, refC, refR []float64, cfg TrainConfig, hooks Hooks) (track.Curves, error) {
	if hooks.Progress == nil {
		hooks.Progress = track.NoProgress{}
	}
	metrics := Metrics
	if cfg.RPOAlpha > 0 {
		metrics = append(append([]string(nil), Metrics...), "nll_loss")
	}
	tr, err := lm.NewTrainer(policy, cfg.Opt, metrics, PairLossRPO(cfg.Beta, cfg.RPOAlpha))
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	curves := track.Curves{}
	eval := func(step int) error {
		if hooks.OnEval == nil {
			return nil
		}
		v, err := hooks.OnEval(policy, step)
		if err != nil {
			return fmt.Errorf("pref eval at step %d: %w", step, err)
		}
		curves.AddAll(float64(step), v)
		return nil
	}
	if cfg.EvalEvery > 0 {
		if err := eval(0); err != nil {
			return curves, err
		}
	}
	for step := 1; step <= cfg.Steps; step++ {
		batch := make([]PairEx, cfg.BatchSize)
		bc := make([]float64, cfg.BatchSize)
		br := make([]float64, cfg.BatchSize)
		for i, k := range lm.BatchIndices(len(pairs), cfg.BatchSize, cfg.Seed, step) {
			batch[i], bc[i], br[i] = pairs[k], refC[k], refR[k]
		}
		in, err := pack(policy, batch, bc, br)
		if err != nil {
			return curves, err
		}
		st, err := tr.Update(in)
		if err != nil {
			return curves, err
		}
		curves.Add("loss", float64(step), st.Loss)
		curves.Add("grad_norm", float64(step), st.GradNorm)
		curves.AddAll(float64(step), st.Metrics)
		if cfg.EvalAt(step) {
			if err := eval(step); err != nil {
				return curves, err
			}
		}
		if hooks.OnStep != nil {
			m := map[string]float64{"loss": st.Loss, "grad_norm": st.GradNorm}
			maps.Copy(m, st.Metrics)
			hooks.OnStep(step, m)
		}
		hooks.Progress.Update(step, fmt.Sprintf("loss %.4f margin %.3f acc %.3f", st.Loss, st.Metrics["rewards/margins"], st.Metrics["rewards/accuracies"]))
	}
	return curves, nil
}

// DefaultTrain is one DPO round for the tiny model: β 0.2, steps of Adam 1e-3 on batches of 64
// pairs, an evaluation every 50 steps, seed 1 (the spo experiment's round).
func DefaultTrain(steps int) TrainConfig {
	return TrainConfig{Beta: 0.2, Steps: steps, BatchSize: 64, Opt: lm.DefaultOpt(1e-3), EvalEvery: 50, Seed: 1}
}

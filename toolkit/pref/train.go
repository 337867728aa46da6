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
	// RPOAlpha > 0 adds RPOAlpha × the NLL of the chosen responses (PairLossRPO).
	RPOAlpha float64 `json:"rpo_alpha,omitempty"`
}

// Validate names an invalid field.
func (c TrainConfig) Validate() error {
	if !(c.Beta > 0) || c.Steps < 1 || c.BatchSize < 1 || c.EvalEvery < 0 || c.RPOAlpha < 0 {
		return fmt.Errorf("pref config: beta %v, steps %d, batch_size %d, eval_every %d: need beta > 0, steps and batch_size ≥ 1",
			c.Beta, c.Steps, c.BatchSize, c.EvalEvery)
	}
	return c.Opt.Validate()
}

// Hooks are optional callbacks.
type Hooks struct {
	// OnEval evaluates the policy being trained at an eval step.
	OnEval func(policy *lm.Model, step int) (map[string]float64, error)
	// OnStep sees each step's loss, grad_norm and TRL metrics (a live plot: plot.Live.Step).
	OnStep   func(step int, metrics map[string]float64)
	Progress track.Progress
}

// TrainPairs runs one round of DPO (offsets 0) or SPO (offsets from earlier rounds) on policy
// against ref, whose log-probabilities of every pair are computed once before training and cached.
// It returns the curves: loss, grad_norm and TRL's rewards/… and logps/… per step; OnEval's metrics
// at eval steps.
func TrainPairs(policy, ref *lm.Model, pairs []PairEx, cfg TrainConfig, hooks Hooks) (track.Curves, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("pref: no pairs")
	}
	if hooks.Progress == nil {
		hooks.Progress = track.NoProgress{}
	}
	refC, refR, err := SeqLogProbs(ref, pairs)
	if err != nil {
		return nil, err
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
		if cfg.EvalEvery > 0 && (step%cfg.EvalEvery == 0 || step == cfg.Steps) {
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

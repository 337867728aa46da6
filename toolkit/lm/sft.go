package lm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/track"
)

// SFTLoss is the next-token cross-entropy averaged over completion tokens (token-level mean), over a
// packed batch (BatchInputs, each [B,T]).
var SFTLoss = Loss{Name: "sft", Inputs: BatchInputs, Fn: func(c Config, w *Views, in In) (*Node, []*Node) {
	logits, _, _ := Forward(c, w, in)
	lp := TokenLogProbs(logits, in.Get("targets"))
	return Neg(MaskedMean(lp, in.Get("loss_mask"))), nil
}}

// SFTConfig configures supervised fine-tuning.
type SFTConfig struct {
	// Steps of Adam; BatchSize sequences per step, drawn with replacement by a generator seeded
	// with Seed.
	Steps     int       `json:"steps"`
	BatchSize int       `json:"batch_size"`
	Seed      uint64    `json:"seed"`
	Opt       OptConfig `json:"opt"`
	// EvalEvery > 0 evaluates every EvalEvery steps (and at the end): the loss on the eval set and
	// whatever OnEval returns.
	EvalEvery int `json:"eval_every"`
}

// Validate names the first invalid field.
func (s SFTConfig) Validate() error {
	if s.Steps < 1 || s.BatchSize < 1 || s.EvalEvery < 0 {
		return fmt.Errorf("sft config: steps = %d, batch_size = %d, eval_every = %d: need steps, batch_size ≥ 1, eval_every ≥ 0", s.Steps, s.BatchSize, s.EvalEvery)
	}
	return s.Opt.Validate()
}

// SFTHooks are optional callbacks of TrainSFT.
type SFTHooks struct {
	// OnEval returns extra evaluation metrics at an eval step (e.g. exact match from sampling).
	OnEval func(step int) (map[string]float64, error)
	// Progress receives a line per step (toolkit/nb.Progress shows it live in a notebook).
	Progress track.Progress
}

// TrainSFT fine-tunes m on train examples, evaluating on eval, and returns the trainer (holding the
// optimizer state, for checkpoints) and the curves: train_loss, grad_norm, lr per step; eval_loss
// and OnEval's metrics per eval; seconds (wall time) per eval.
func TrainSFT(m *Model, cfg SFTConfig, train, eval []Example, hooks SFTHooks) (*Trainer, track.Curves, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if len(train) == 0 {
		return nil, nil, fmt.Errorf("sft: no training examples")
	}
	tr, err := NewTrainer(m, cfg.Opt, nil, SFTLoss)
	if err != nil {
		return nil, nil, err
	}
	curves, err := ContinueSFT(tr, cfg, train, eval, hooks)
	return tr, curves, err
}

// ContinueSFT runs SFT steps on an existing trainer until tr.Step reaches cfg.Steps (used to resume
// from a checkpoint: the batches drawn depend only on the seed and the step, so a resumed run
// continues with the same numbers).
func ContinueSFT(tr *Trainer, cfg SFTConfig, train, eval []Example, hooks SFTHooks) (track.Curves, error) {
	if hooks.Progress == nil {
		hooks.Progress = track.NoProgress{}
	}
	m := tr.Model
	curves := track.Curves{}
	start := time.Now()
	doEval := func(step int) error {
		vals := map[string]float64{}
		if len(eval) > 0 {
			l, err := m.Loss(eval)
			if err != nil {
				return err
			}
			vals["eval_loss"] = l
		}
		if hooks.OnEval != nil {
			extra, err := hooks.OnEval(step)
			if err != nil {
				return fmt.Errorf("sft eval at step %d: %w", step, err)
			}
			for k, v := range extra {
				vals[k] = v
			}
		}
		vals["seconds"] = time.Since(start).Seconds()
		curves.AddAll(float64(step), vals)
		return nil
	}
	if tr.Step == 0 && cfg.EvalEvery > 0 {
		if err := doEval(0); err != nil {
			return curves, err
		}
	}
	for tr.Step < cfg.Steps {
		step := tr.Step + 1
		exs := sampleBatch(train, cfg.BatchSize, cfg.Seed, step)
		batch, err := Pack(exs, FitWidth(exs, m.Config.Context, true), true)
		if err != nil {
			return curves, err
		}
		st, err := tr.Update(batch.Inputs())
		if err != nil {
			return curves, err
		}
		curves.Add("train_loss", float64(step), st.Loss)
		curves.Add("grad_norm", float64(step), st.GradNorm)
		curves.Add("lr", float64(step), st.LR)
		status := fmt.Sprintf("loss %.4f", st.Loss)
		if cfg.EvalEvery > 0 && (step%cfg.EvalEvery == 0 || step == cfg.Steps) {
			if err := doEval(step); err != nil {
				return curves, err
			}
			for _, k := range curves.Names() {
				if k != "train_loss" && k != "grad_norm" && k != "lr" && k != "seconds" {
					if v, ok := curves.Last(k); ok && !math.IsNaN(v) {
						status += fmt.Sprintf(" %s %.4f", k, v)
					}
				}
			}
		}
		hooks.Progress.Update(step, status)
	}
	return curves, nil
}

// sampleBatch draws n examples with replacement; the draw depends only on (seed, step).
func sampleBatch(data []Example, n int, seed uint64, step int) []Example {
	out := make([]Example, n)
	for i, k := range BatchIndices(len(data), n, seed, step) {
		out[i] = data[k]
	}
	return out
}

// BatchIndices draws the size indices (with replacement, of n items) of training step step's batch:
// a function of the seed and the step only, so a resumed run draws the same batches.
func BatchIndices(n, size int, seed uint64, step int) []int {
	r := rand.New(rand.NewPCG(seed, uint64(step)))
	out := make([]int, size)
	for i := range out {
		out[i] = r.IntN(n)
	}
	return out
}

// DefaultSFT is supervised fine-tuning for the tiny model from scratch: steps of Adam 3e-3 (warm-up
// over the first tenth, cosine to a tenth of the rate, gradients clipped at 1) on batches of 64,
// seed 1 — a starting point to edit in a notebook, not a tuned setting.
func DefaultSFT(steps int) SFTConfig {
	opt := DefaultOpt(3e-3)
	opt.WarmupSteps, opt.TotalSteps, opt.MinLRFrac, opt.ClipNorm = max(1, steps/10), steps, 0.1, 1
	return SFTConfig{Steps: steps, BatchSize: 64, Seed: 1, Opt: opt}
}

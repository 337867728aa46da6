package rl

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Task is what the loop trains on: a pool of prompts and a verifiable reward.
type Task interface {
	NumPrompts() int
	Prompt(i int) []int32
	// Reward of generation g for prompt i (1 correct, 0 wrong for the arithmetic task).
	Reward(i int, g lm.Generation) float64
}

// BatchRewarder is a Task that scores a rollout's generations together (a reward model scores a
// batch in one call instead of one per generation); Collect uses Rewards instead of Reward when the
// task has it. prompts[i] is generation i's prompt index.
type BatchRewarder interface {
	Rewards(prompts []int, gens []lm.Generation) ([]float64, error)
}

// Config is the whole configuration of a GRPO-family run (GRPO, Dr.GRPO, RLOO, CAPO, with or without
// the noise mask).
type Config struct {
	// Estimator is the advantage estimator's registered name: grpo, dr_grpo, rloo, capo.
	Estimator string    `json:"estimator"`
	Adv       AdvParams `json:"adv"`
	// UseMask applies CAPO's reference-perplexity noise mask with thresholds Mask.
	UseMask bool           `json:"use_mask"`
	Mask    MaskThresholds `json:"mask"`
	// Steps of rollout+update; PromptsPerStep prompts (cycled through the pool in seeded random
	// order) with G samples each per step.
	Steps          int `json:"steps"`
	PromptsPerStep int `json:"prompts_per_step"`
	G              int `json:"g"`
	// PPOEpochs passes over each rollout batch, split into MiniBatches updates per pass.
	PPOEpochs   int `json:"ppo_epochs"`
	MiniBatches int `json:"mini_batches"`
	// Sampling of rollouts (MaxNew, Temperature, TopK; the seed is derived from Seed and the step).
	Sample lm.SampleConfig `json:"sample"`
	Opt    lm.OptConfig    `json:"opt"`
	Loss   LossConfig      `json:"loss"`
	// EvalEvery > 0 calls Hooks.OnEval every EvalEvery steps (and at steps 0 and Steps).
	EvalEvery int    `json:"eval_every"`
	Seed      uint64 `json:"seed"`
}

// DefaultConfig is a GRPO-family run for the tiny model with an estimator (grpo, dr_grpo, rloo,
// capo): 200 steps of 16 prompts × 8 samples, 2 PPO epochs of 2 mini-batches, completions of up to
// 8 tokens at temperature 1, Adam 1e-4 with gradient clipping at 1, the default PPO loss and
// advantage parameters (CAPO's τ = 0.5, the paper's), an evaluation every 20 steps, seed 1 — a
// starting point to edit in a notebook, not a tuned setting.
func DefaultConfig(estimator string) Config {
	opt := lm.DefaultOpt(1e-4)
	opt.ClipNorm = 1
	return Config{Estimator: estimator, Adv: DefaultAdvParams(), Steps: 200, PromptsPerStep: 16, G: 8, PPOEpochs: 2, MiniBatches: 2,
		Sample: lm.SampleConfig{MaxNew: 8, Temperature: 1}, Opt: opt, Loss: DefaultLoss(), EvalEvery: 20, Seed: 1}
}

// Validate names the first invalid field.
func (c Config) Validate() error {
	if _, err := EstimatorByName(c.Estimator); err != nil {
		return err
	}
	if c.Steps < 1 || c.PromptsPerStep < 1 || c.G < 2 || c.PPOEpochs < 1 || c.MiniBatches < 1 {
		return fmt.Errorf("rl config: steps %d, prompts_per_step %d, g %d, ppo_epochs %d, mini_batches %d: need ≥ 1 (g ≥ 2)",
			c.Steps, c.PromptsPerStep, c.G, c.PPOEpochs, c.MiniBatches)
	}
	if (c.PromptsPerStep*c.G)%c.MiniBatches != 0 {
		return fmt.Errorf("rl config: %d samples per step do not split into %d mini-batches", c.PromptsPerStep*c.G, c.MiniBatches)
	}
	if c.UseMask && !(c.Mask.High > 0 && c.Mask.Low > 0) {
		return fmt.Errorf("rl config: use_mask needs positive thresholds, got %+v", c.Mask)
	}
	if c.Sample.MaxNew < 1 {
		return fmt.Errorf("rl config: sample.max_new = %d", c.Sample.MaxNew)
	}
	if err := c.Adv.Validate(); err != nil {
		return err
	}
	if err := c.Loss.Validate(); err != nil {
		return err
	}
	return c.Opt.Validate()
}

// Hooks are the loop's optional callbacks.
type Hooks struct {
	// OnEval returns evaluation metrics (e.g. held-out accuracy and AUC) at an eval step.
	OnEval func(step int) (map[string]float64, error)
	// OnRollout sees every step's rollout after its advantages and mask are computed (read only).
	OnRollout func(step int, ro *Rollout)
	// OnStep sees each step's logged metrics (reward, kl, entropy, … and OnEval's at eval steps):
	// what a live plot in a notebook draws (plot.Live).
	OnStep   func(step int, metrics map[string]float64)
	Progress track.Progress
}

// Rollout is one step's sampled batch and what the loop computed about it.
type Rollout struct {
	Prompts []int // prompt index of each sample (G consecutive samples per prompt)
	Gens    []lm.Generation
	Rewards []float64
	Adv     []float64 // after the mask
	Mask    []float64 // 1 kept, 0 masked (all ones without the mask)
	RefLP   []lm.Scored
	// Diag are the mechanism measures of this batch's advantages (Diagnose).
	Diag Diagnostics
	// Examples are the (prompt, completion) token sequences the updates train on.
	Examples []lm.Example
}

// Train runs the GRPO-family loop on policy; ref is the frozen reference model (its perplexities
// feed the mask and the KL). It returns the trainer and the curves: per step reward, reward_std,
// frac_reward_zero_std, completion_length, mask_kept, the advantage diagnostics (DiagnosticNames),
// kl, entropy, clip_ratio, approx_kl, loss, grad_norm, grad_clipped, seconds; and OnEval's metrics at
// eval steps.
func Train(policy, ref *lm.Model, task Task, cfg Config, hooks Hooks) (*lm.Trainer, track.Curves, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if task.NumPrompts() < cfg.PromptsPerStep {
		return nil, nil, fmt.Errorf("rl: %d prompts in the pool, %d needed per step", task.NumPrompts(), cfg.PromptsPerStep)
	}
	if hooks.Progress == nil {
		hooks.Progress = track.NoProgress{}
	}
	est, _ := EstimatorByName(cfg.Estimator)
	tr, err := NewPPOTrainer(policy, cfg.Opt, cfg.Loss)
	if err != nil {
		return nil, nil, err
	}
	curves := track.Curves{}
	start := time.Now()
	eval := func(step int) (map[string]float64, error) {
		if hooks.OnEval == nil {
			return nil, nil
		}
		vals, err := hooks.OnEval(step)
		if err != nil {
			return nil, fmt.Errorf("rl eval at step %d: %w", step, err)
		}
		vals["seconds"] = time.Since(start).Seconds()
		curves.AddAll(float64(step), vals)
		return vals, nil
	}
	if cfg.EvalEvery > 0 {
		vals, err := eval(0)
		if err != nil {
			return tr, curves, err
		}
		if hooks.OnStep != nil && vals != nil {
			hooks.OnStep(0, vals)
		}
	}
	order := newPromptOrder(task.NumPrompts(), cfg.Seed)
	for step := 1; step <= cfg.Steps; step++ {
		ro, err := Collect(policy, ref, task, order.next(cfg.PromptsPerStep), cfg, est, step)
		if err != nil {
			return tr, curves, fmt.Errorf("rl step %d: %w", step, err)
		}
		if hooks.OnRollout != nil {
			hooks.OnRollout(step, ro)
		}
		stats, err := update(tr, ro, cfg, step)
		if err != nil {
			return tr, curves, fmt.Errorf("rl step %d: %w", step, err)
		}
		logged := rolloutMetrics(ro, cfg.G)
		maps.Copy(logged, stats)
		curves.AddAll(float64(step), logged)
		status := fmt.Sprintf("reward %.3f kl %.4f entropy %.3f", mean(ro.Rewards), stats["kl"], stats["entropy"])
		if cfg.EvalEvery > 0 && (step%cfg.EvalEvery == 0 || step == cfg.Steps) {
			vals, err := eval(step)
			if err != nil {
				return tr, curves, err
			}
			maps.Copy(logged, vals)
			for _, k := range []string{"eval_accuracy", "eval_auc"} {
				if v, ok := curves.Last(k); ok {
					status += fmt.Sprintf(" %s %.3f", k, v)
				}
			}
		}
		if hooks.OnStep != nil {
			hooks.OnStep(step, logged)
		}
		hooks.Progress.Update(step, status)
	}
	return tr, curves, nil
}

// NewPPOTrainer is the trainer of PPOLoss(loss) on policy. Compiled update graphs are cached per
// model (and shared by its clones) under the loss's identity, which holds every LossConfig field
// (PPOLoss's Params): two runs from clones of one warm start with different loss settings never
// share a graph.
func NewPPOTrainer(policy *lm.Model, opt lm.OptConfig, loss LossConfig) (*lm.Trainer, error) {
	return lm.NewTrainer(policy, opt, PPOMetrics, PPOLoss(loss))
}

// promptOrder cycles through the prompt pool in a fresh seeded permutation per epoch.
type promptOrder struct {
	r    *rand.Rand
	n    int
	perm []int
}

func newPromptOrder(n int, seed uint64) *promptOrder {
	return &promptOrder{r: rand.New(rand.NewPCG(seed, 0x70726f6d)), n: n}
}

func (o *promptOrder) next(k int) []int {
	out := make([]int, 0, k)
	for len(out) < k {
		if len(o.perm) == 0 {
			o.perm = o.r.Perm(o.n)
		}
		out = append(out, o.perm[0])
		o.perm = o.perm[1:]
	}
	return out
}

// Collect samples G responses for each prompt, scores them with the verifier and the reference
// model, and computes masked advantages.
func Collect(policy, ref *lm.Model, task Task, prompts []int, cfg Config, est Estimator, step int) (*Rollout, error) {
	g := cfg.G
	ro := &Rollout{}
	var ids [][]int32
	for _, p := range prompts {
		for k := 0; k < g; k++ {
			ro.Prompts = append(ro.Prompts, p)
			ids = append(ids, task.Prompt(p))
		}
	}
	sc := cfg.Sample
	sc.Seed = cfg.Seed*1_000_003 + uint64(step)
	gens, err := policy.Sample(ids, sc)
	if err != nil {
		return nil, err
	}
	ro.Gens = gens
	exs := make([]lm.Example, len(gens))
	br, batched := task.(BatchRewarder)
	if batched {
		if ro.Rewards, err = br.Rewards(ro.Prompts, gens); err != nil {
			return nil, fmt.Errorf("rl: rewards at step %d: %w", step, err)
		}
		if len(ro.Rewards) != len(gens) {
			return nil, fmt.Errorf("rl: %d rewards for %d generations at step %d", len(ro.Rewards), len(gens), step)
		}
	}
	for i, gen := range gens {
		if !batched {
			ro.Rewards = append(ro.Rewards, task.Reward(ro.Prompts[i], gen))
		}
		exs[i] = lm.Example{Prompt: ids[i], Completion: gen.Tokens}
	}
	ro.Examples = exs
	if ro.RefLP, err = ref.Score(exs, false); err != nil {
		return nil, err
	}
	ro.Adv = make([]float64, len(gens))
	ro.Mask = make([]float64, len(gens))
	groups := make([]Group, len(prompts))
	pre := make([][]float64, len(prompts))
	masks := make([][]float64, len(prompts))
	for k := 0; k < len(prompts); k++ {
		grp := Group{Rewards: ro.Rewards[k*g : (k+1)*g]}
		correct := make([]bool, g)
		ppl := make([]float64, g)
		for j := 0; j < g; j++ {
			grp.LPM = append(grp.LPM, gens[k*g+j].LPM)
			correct[j] = grp.Rewards[j] > 0.5
			ppl[j] = ro.RefLP[k*g+j].PPL()
		}
		adv := est(grp, cfg.Adv)
		mask := make([]float64, g)
		if cfg.UseMask {
			mask = NoiseMask(correct, ppl, cfg.Mask)
		} else {
			for j := range mask {
				mask[j] = 1
			}
		}
		for j := 0; j < g; j++ {
			ro.Adv[k*g+j] = adv[j] * mask[j]
			ro.Mask[k*g+j] = mask[j]
		}
		groups[k], pre[k], masks[k] = grp, adv, mask
	}
	spec, err := EstimatorSpecByName(cfg.Estimator)
	if err != nil {
		return nil, err
	}
	ro.Diag = Diagnose(groups, pre, masks, spec.pairTau(cfg.Adv))
	return ro, nil
}

// update runs PPOEpochs × MiniBatches optimizer steps on a rollout and returns the mean metrics:
// the loss's, loss, grad_norm (before clipping) and grad_clipped (the share of the updates whose
// gradient the optimizer's ClipNorm rescaled).
func update(tr *lm.Trainer, ro *Rollout, cfg Config, step int) (map[string]float64, error) {
	n := len(ro.Gens)
	r := rand.New(rand.NewPCG(cfg.Seed, uint64(step)*7919))
	sums := map[string]float64{}
	count, clipped := 0, 0.0
	for epoch := 0; epoch < cfg.PPOEpochs; epoch++ {
		perm := r.Perm(n)
		size := n / cfg.MiniBatches
		for mb := 0; mb < cfg.MiniBatches; mb++ {
			idx := perm[mb*size : (mb+1)*size]
			batch, err := packRollout(tr.Model, ro, idx)
			if err != nil {
				return nil, err
			}
			st, err := tr.Update(batch)
			if err != nil {
				return nil, err
			}
			sums["loss"] += st.Loss
			sums["grad_norm"] += st.GradNorm
			if cfg.Opt.ClipNorm > 0 && st.GradNorm > cfg.Opt.ClipNorm {
				clipped++
			}
			for k, v := range st.Metrics {
				sums[k] += v
			}
			count++
		}
	}
	sums["grad_clipped"] = clipped
	for k := range sums {
		sums[k] /= float64(count)
	}
	return sums, nil
}

// packRollout builds the PPOLoss inputs for the samples idx of a rollout.
func packRollout(m *lm.Model, ro *Rollout, idx []int) (lm.Inputs, error) {
	exs := make([]lm.Example, len(idx))
	for k, i := range idx {
		exs[k] = ro.Examples[i]
	}
	b, err := lm.Pack(exs, lm.FitWidth(exs, m.Config.Context, false), false)
	if err != nil {
		return lm.Inputs{}, err
	}
	old := make([]float32, b.B*b.T)
	adv := make([]float32, b.B*b.T)
	ref := make([]float32, b.B*b.T)
	for k, i := range idx {
		start := k*b.T + b.CompletionStart[k]
		for j := 0; j < b.CompletionLen[k]; j++ {
			old[start+j] = ro.Gens[i].LogProbs[j]
			ref[start+j] = ro.RefLP[i].LogProbs[j]
			adv[start+j] = float32(ro.Adv[i])
		}
	}
	in := b.Inputs()
	in.Add("old_logprobs", tensors.FromFlatDataAndDimensions(old, b.B, b.T))
	in.Add("advantages", tensors.FromFlatDataAndDimensions(adv, b.B, b.T))
	in.Add("ref_logprobs", tensors.FromFlatDataAndDimensions(ref, b.B, b.T))
	return in, nil
}

// rolloutMetrics are TRL's rollout metrics for one step, and the advantages' mechanism measures
// (Diagnostics.Metrics: Σ|A| per mixed group, Cov(lpm, A) per unit |A|, misranked pair and weight
// shares, the mask's dropped share).
func rolloutMetrics(ro *Rollout, g int) map[string]float64 {
	groups := len(ro.Rewards) / g
	var stdSum, zero, length, kept float64
	for k := 0; k < groups; k++ {
		_, s := meanStdUnbiased(ro.Rewards[k*g : (k+1)*g])
		stdSum += s
		if s == 0 {
			zero++
		}
	}
	for i, gen := range ro.Gens {
		length += float64(len(gen.Tokens))
		kept += ro.Mask[i]
	}
	n := float64(len(ro.Gens))
	out := map[string]float64{
		"reward":               mean(ro.Rewards),
		"reward_std":           stdSum / float64(groups),
		"frac_reward_zero_std": zero / float64(groups),
		"completion_length":    length / n,
		"mask_kept":            kept / n,
	}
	maps.Copy(out, ro.Diag.Metrics())
	return out
}

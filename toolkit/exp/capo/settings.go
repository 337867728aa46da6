package capo

import "github.com/paperlab/paperlab/toolkit/exp"

// note is where most of the paper's values come from: no code is public and the full text could not
// be read beyond its opening, so they are the values a secondary paper note quotes ([C3] in
// toolkit/exp/capo/README.md's Sources).
const note = "[C3]"

// verlNote follows each value the paper leaves to its training framework: the paper trains with
// verl ([C3] setup), whose actor defaults these are ([V1]–[V3] in the README's Sources, read at the
// commits named there); whether the paper kept them is not known.
const verlNote = " (the paper trains with verl, [C3] setup; [UNVERIFIED] that it kept this default)"

// PaperSettings are the paper's values for the fields of Config that the sources state (the paper
// note [C3]: its method and setup; Qwen2.5-Math 1.5B / 7B on DeepScaleR with verl on 8×A100) and,
// where it trains with verl and says nothing, verl's defaults; each differing one with why. Fields
// neither gives (the optimiser's betas, the SFT warm start, the task) are PaperLab's.
var PaperSettings = []exp.Setting{
	{Field: "RL.Adv.Tau", Paper: exp.Range{Lo: 0.5, Hi: 0.6}, Source: exp.SourceNote, Ref: note + " setup: τ = 0.6 (1.5B) / 0.5 (7B); " + note + " ablations: τ ∈ {0.4, 0.6, 1.0} changes accuracy and AUC by < 1 point. capo-tau0.2 and capo-tau1.0 (Methods) are the τ claims' named methods"},
	{Field: "RL.Adv.CAPONorm", Paper: "none", Source: exp.SourceNote, Ref: note + " method: Ã as the plain pairwise sums; [UNVERIFIED] whether the paper normalises by |P|·|N|, by G or by the group std",
		Why: "÷G (\"group\"): with G fixed a constant factor, which Adam's invariance to a constant gradient scale cancels (up to its ε = 1e-8 and the clip at norm 1, which acts on the scaled gradient: grad_clipped_share in the results says how often it acted) — the same update as the plain sums. capo-gnorm (rl's \"grpo\": each group rescaled to GRPO's Σ|A|) is not a normalisation control but a different weighting across groups (Methods)"},
	{Field: "RL.G", Paper: 8, Source: exp.SourceNote, Ref: note + " setup: rollout n = 8"},
	{Field: "RL.Loss.ClipEps", Paper: 0.2, Source: exp.SourceNote, Ref: note + " setup: ε_clip = 0.2"},
	{Field: "RL.Loss.KLCoef", Paper: 0, Source: exp.SourceNote, Ref: note + " method: KL and entropy coefficients are 0"},
	{Field: "RL.Loss.EntCoef", Paper: 0, Source: exp.SourceNote, Ref: note + " method: KL and entropy coefficients are 0"},
	{Field: "RL.Loss.Agg", Paper: "token-mean", Source: exp.SourceCode, Ref: "[V1] verl/trainer/config/actor/actor.yaml: loss_agg_mode token-mean" + verlNote},
	{Field: "RL.Sample.Temperature", Paper: 1.0, Source: exp.SourceNote, Ref: note + " setup: temperature 1.0"},
	{Field: "RL.Opt.LR", Paper: 1e-6, Source: exp.SourceNote, Ref: note + " setup: lr 1e-6",
		Why: "a 2-layer d = 64 model SFT-trained from scratch, not a pretrained 1.5B/7B model: at 3e-5 neither method moved AUC in 600 steps in the first runs, so RL uses Adam 1e-4 (ConfigFor); the learning-rate part (-part lr: grpo-lr3e-5 and capo-lr3e-5, 1,800 steps) reads whether this step size decides the CAPO–GRPO comparison"},
	{Field: "RL.Opt.WeightDecay", Paper: 0.01, Source: exp.SourceCode, Ref: "[V1] verl/trainer/config/actor/actor.yaml: optim.weight_decay 0.01; [V3] verl/trainer/config/optim/fsdp.yaml: optimizer AdamW" + verlNote},
	{Field: "RL.Opt.ClipNorm", Paper: 1.0, Source: exp.SourceCode, Ref: "[V2] verl/trainer/config/actor/dp_actor.yaml: grad_clip 1.0" + verlNote},
	{Field: "RL.PPOEpochs", Paper: 1, Source: exp.SourceCode, Ref: "[V1] verl/trainer/config/actor/actor.yaml: ppo_epochs 1" + verlNote},
	{Field: "RL.PromptsPerStep", Paper: 128, Source: exp.SourceNote, Ref: note + " setup: batch 128",
		Why: "scale: 16 prompts × G = 8 rollouts per step keeps the main part (600 steps: grpo and capo on 8 seeds, τ 0.2 and 1.0, GRPO at 4 mini-batches and GSPO on 5) near an hour on 2 CPU cores (83 min on 2026-12-06, over the issue's 60); no follow-up planned"},
	{Field: "RL.MiniBatches", Paper: 2, Source: exp.SourceNote, Ref: note + " setup: batch 128, PPO mini-batch 64 (two mini-batches per batch; derived)"},
	{Field: "RL.Steps", Paper: 600, Source: exp.SourceNote, Ref: note + " setup: 600 steps for 1.5B (400 for 7B). With 16 prompts a step instead of 128 a step is another amount of data: the budget-* room checks measure whether the methods have stopped improving"},
	{Field: "EvalSamples", Paper: 16, Source: exp.SourceNote, Ref: note + " setup: rollout n = 16 at validation (mean@16)"},
	{Field: "FinalSamples", Paper: 16, Source: exp.SourceNote, Ref: note + " metrics: mean@16; perplexity-consistency voting with N = 16"},
	{Field: "RL.Mask.High", Paper: 2.5, Source: exp.SourceNote, Ref: note + " method and setup: ref_high = 2.5",
		Why: "the thresholds are set per seed from the SFT model's own PPL quantiles (MaskQuantiles; each seed's values are in the run's notes), as the paper derives 2.5 from its reference model; a Qwen model's PPL scale does not transfer to a tiny model. The configuration's 0 is a placeholder each seed overwrites"},
	{Field: "RL.Mask.Low", Paper: 1.05, Source: exp.SourceNote, Ref: note + " method and setup: ref_low = 1.05",
		Why: "set per seed from the SFT model's PPL quantiles like ref_high (each seed's values in the run's notes); the configuration's 0 is a placeholder each seed overwrites"},
}

package spo

import "github.com/paperlab/paperlab/toolkit/exp"

// The keys in the settings' Ref texts are the sources listed under "## Sources" in this package's
// README.md: [S1]–[S5] the paper's abstract, the opening of its full text, two secondary notes and
// the AAAI page; [T1] TRL's DPOConfig and [T2] transformers' TrainingArguments (framework defaults).
// No code was found for the paper.

// refData cites what the sources say about the data: PKU-SafeRLHF-30k and HelpSteer2 with Llama-2
// bases (a secondary note), nothing on its composition.
const refData = "[S3] TL;DR: PKU-SafeRLHF-30k and HelpSteer2, Llama-2 bases"

// refNone is the ref of a setting whose value none of the sources read gives: no code was found and
// only the opening of the paper's full text could be read, so its hyperparameters were not obtained.
const refNone = "[S1] abstract, [S2] opening of the full text, [S3] TL;DR, [S4] method review: no value given"

// refLoss marks what rests on our reconstruction of SPO's loss from the constrained problem the
// method review states (a KL bound to the previous round's model plus a constraint that keeps the
// earlier dimensions), not on the paper's equations.
const refLoss = "[S4] method review: round n maximises R_n under KL(π_n‖π_{n−1}) ≤ H₀ and a constraint on earlier dimensions; the loss with λ is our Lagrangian reconstruction [UNVERIFIED]"

// notObtained is the paper value of a setting this project could not read (no code was found and
// the paper's hyperparameters were not in the parts of it that could be read).
const notObtained = "not obtained"

// PaperSettings are SPO's values for the fields of Config that the sources state, and the ones they
// do not (β, λ, the learning rate and the steps: PaperLab's choices, said so). The models (Llama-2
// bases with LoRA) have no counterpart in Config (a 2-layer transformer trained from scratch), and
// the loss itself is our reconstruction from the stated constrained problem (its Lagrangian):
// L = −log σ(β·Δθ − λ·Δr̂₁) with r̂₁ = β₁·log π₁/π_SFT, whose sign and base model are [UNVERIFIED]
// (spo-flip is the sign diagnostic).
var PaperSettings = []exp.Setting{
	{Field: "Dims", Paper: []string{"helpful", "harmless"}, Source: exp.SourceNote,
		Ref: "[S1] abstract: helpfulness and harmlessness as the example dimensions; [S4] method review: one dimension per round (helpfulness, then harmlessness)"},
	{Field: "Task.TwoLabel", Paper: true, Source: exp.SourceNote,
		Ref: refData + " (PKU-SafeRLHF's pairs carry both a \"better\" and a \"safer\" label)"},
	{Field: "Task.RefusalShare", Paper: "not measured (PKU-SafeRLHF's share of safe-but-unhelpful chosen responses)", Source: exp.SourceNote, Ref: refData,
		Why: "30 % of the pairs are a refusal (safe, ignores the prompt) against a response covering the prompt with one unsafe letter: fixed before any run when the two-label task " +
			"was introduced (2026-12-03) [UNVERIFIED], so that naive sequential DPO forgets by the mechanism the paper targets (harmlessness data that rewards ignoring the prompt); " +
			"the room check \"" + roomForget + "\" measures whether it does."},
	{Field: "PairsPerDim", Paper: "≈30k pairs, each labelled on both dimensions (PKU-SafeRLHF-30k)", Source: exp.SourceNote, Ref: refData,
		Why: "2,000 pairs, each labelled on both dimensions: PaperLab's 2-core CPU scale."},
	{Field: "Round1.Beta", Paper: notObtained, Source: exp.SourceNote, Ref: refNone,
		Why: "β₁ = 0.2 [UNVERIFIED]: between DPO's common 0.1 (TRL's default, [T1] beta) and 0.5; round 2 reads round 1's implicit reward at this β₁ (pref.Stage)."},
	{Field: "Round2.Beta", Paper: notObtained, Source: exp.SourceNote, Ref: refNone,
		Why: "β = β₁ = 0.2 [UNVERIFIED], so that the optimum's exponent λβ₁/β (π₂ ∝ π₁·(π₁/π_SFT)^{λβ₁/β}·e^{R₂/β}) is λ."},
	{Field: "Lambda", Paper: notObtained + " (fixed or derived)", Source: exp.SourceNote, Ref: refLoss,
		Why: "λ = 0.5, the middle of the sweep {0.1, 0.25, 0.5, 1, 2} fixed on 2026-12-03 before any run [UNVERIFIED]; the sweep is run beside it and λ = 0 is seq-dpo. " +
			"Until then the default was λ = 4 (sweep 1 and 16), which a review of 2026-12-02 found made the offset larger than DPO's own final margin " +
			"(room check \"" + roomOffset + "\")."},
	{Field: "Round1.Steps", Paper: notObtained, Source: exp.SourceNote, Ref: refNone,
		Why: "Round 1 runs until its held-out helpfulness is flat, measured on a one-seed probe at a constant rate [UNVERIFIED] PaperLab's budget; with the rate decaying to 0 " +
			"its end is flat by construction, so since 2026-12-06 the run's own constant-rate probes (ProbeSeeds) are the room check \"" + roomConverged + "\", which can fail."},
	{Field: "Round2.Steps", Paper: notObtained, Source: exp.SourceNote, Ref: refNone,
		Why: "Round 2 runs until naive DPO's helpfulness stops falling on probe seeds [UNVERIFIED] PaperLab's budget; with the rate decaying to 0 its end is settled by " +
			"construction, so the run's constant-rate probe of naive round 2 is the room check \"" + roomSettled + "\"; methods are compared along their paths at matched harmlessness and matched KL."},
	{Field: "Round1.Opt.LR", Paper: notObtained + " (LoRA fine-tuning)", Source: exp.SourceNote, Ref: "[S3] TL;DR: LoRA fine-tuning, no rate given",
		Why: "Adam 1e-3 decaying to 0 over each round (LRDecay, as TRL's DPOTrainer does by default: [T2] lr_scheduler_type \"linear\"), gradient-norm clipping at 1 in both rounds " +
			"([T2] max_grad_norm 1.0), for a 2-layer model trained from scratch [UNVERIFIED]. On one-seed probes at a constant rate naive DPO's helpfulness was still swinging " +
			"between checkpoints at the end of round 2; with the decay the paths settle."},
	{Field: "SeqBetas", Paper: notObtained + " (the baselines' tuning)", Source: exp.SourceNote, Ref: refNone,
		Why: "naive sequential DPO at round-2 β ∈ {0.05, 0.1, 0.2, 0.5, 1}: five settings against SPO's five λ, so that spo-1 compares SPO with naive DPO's front (exp.ChooseFront), " +
			"not with one β; fixed 2026-12-06 before any run of it (the 2026-12-05 audit: one β against five λ)."},
	{Field: "MixedShares", Paper: notObtained + " (mixed-data DPO's data mix)", Source: exp.SourceNote, Ref: refNone,
		Why: "shares of harmlessness pairs {0.25, 0.5, 2/3, 0.8, 0.9}: five settings, as SPO's λ; spo-2 compares SPO with mixed DPO's front. Fixed 2026-12-06 before any run of it."},
	{Field: "Round2.DenseEvery", Paper: notObtained, Source: exp.SourceNote, Ref: refNone,
		Why: "every path evaluated every 5 steps over its first 50 (then every 25): naive DPO's whole forgetting happened in round 2's first 25 steps of the 2026-12-03 run, so a " +
			"matched value rested on an interpolation between π₁ and the first evaluation (the 2026-12-05 audit)."},
	{Field: "ProbeSeeds", Paper: notObtained, Source: exp.SourceNote, Ref: refNone,
		Why: "round 1 and naive round 2 at a constant rate on 2 seeds (dpo-1-const, seq-dpo-const): with the rate decaying to 0 a round's end is flat by construction, so the " +
			"\"" + roomConverged + "\" and \"" + roomSettled + "\" checks read these probes, which can fail."},
	{Field: "SlowLR", Paper: notObtained, Source: exp.SourceNote, Ref: refNone,
		Why: "part slow: round 2 at Adam 1e-4 (a tenfold smaller step), naive DPO at each β and SPO at each λ on 5 seeds: whether the verdicts depend on how fast round 2 moves."},
	{Field: "RefusalShares", Paper: "not measured (PKU-SafeRLHF's share of safe-but-unhelpful chosen responses)", Source: exp.SourceNote, Ref: refData,
		Why: "part refusal: shares 0.1 and 0.2 beside the main run's 0.3 (5 seeds), naive DPO at β₂ 0.2, SPO at λ 0.5, mixed DPO at share 0.5 (the main run's settings, fixed " +
			"2026-12-06): the refusal share is the condition under which forgetting occurs."},
	{Field: "Third", Paper: "HelpSteer2's attributes (more than two dimensions)", Source: exp.SourceNote, Ref: "[S3] TL;DR: scales to more dimensions (HelpSteer2)",
		Why: "part three: a third synthetic attribute, conciseness (−letters per response), labelled on the same pairs; it conflicts with covering the prompt. [UNVERIFIED] PaperLab's stand-in for HelpSteer2."},
	{Field: "ThreeLambdas", Paper: notObtained, Source: exp.SourceNote, Ref: refLoss,
		Why: "SPO's λ on dimensions 1 and 2 in round 3: 0.5 each, the main run's λ, fixed 2026-12-06 before any run; the offsets use each earlier dimension's reward recovered from the rounds' implicit rewards (pref.DimensionGaps)."},
}

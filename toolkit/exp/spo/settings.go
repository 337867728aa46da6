package spo

import "github.com/paperlab/paperlab/toolkit/exp"

// refNote is where this project's notes on SPO stand (no code was found for the paper).
const refNote = "SPO abstract and notes (shared/papers §2.1)"

// refLoss marks what rests on our reconstruction of SPO's loss, not on the paper's equations.
const refLoss = "reconstructed loss, shared/papers §2.2 [UNVERIFIED]"

// notObtained is the paper value of a setting this project could not read (no code was found and
// the PDF's hyperparameter tables were not obtained: shared/papers Appendix B item 2).
const notObtained = "not obtained"

// PaperSettings are SPO's values for the fields of Config that the sources state, and the ones they
// do not (β, λ, the learning rate and the steps: PaperLab's choices, said so). The models (Llama-2
// bases with LoRA) have no counterpart in Config (a 2-layer transformer trained from scratch), and
// the loss itself is our reconstruction from the stated Lagrangian (§2.2): L = −log σ(β·Δθ − λ·Δr̂₁)
// with r̂₁ = β₁·log π₁/π_SFT, whose sign and base model are [UNVERIFIED] (spo-flip is the sign
// diagnostic).
var PaperSettings = []exp.Setting{
	{Field: "Dims", Paper: []string{"helpful", "harmless"}, Source: exp.SourceNote, Ref: refNote + " (helpfulness, then harmlessness)"},
	{Field: "Task.TwoLabel", Paper: true, Source: exp.SourceNote, Ref: refNote + ": PKU-SafeRLHF-30k pairs carry both a \"better\" and a \"safer\" label"},
	{Field: "Task.RefusalShare", Paper: "not measured (PKU-SafeRLHF's share of safe-but-unhelpful chosen responses)", Source: exp.SourceNote, Ref: refNote,
		Why: "30 % of the pairs are a refusal (safe, ignores the prompt) against a response covering the prompt with one unsafe letter: the issue-34 value, chosen before any run " +
			"[UNVERIFIED], so that naive sequential DPO forgets by the mechanism the paper targets (harmlessness data that rewards ignoring the prompt); the room check " +
			"\"" + roomForget + "\" measures whether it does."},
	{Field: "PairsPerDim", Paper: "≈30k pairs, each labelled on both dimensions (PKU-SafeRLHF-30k)", Source: exp.SourceNote, Ref: refNote,
		Why: "2,000 pairs, each labelled on both dimensions: PaperLab's 2-core CPU scale."},
	{Field: "Round1.Beta", Paper: notObtained, Source: exp.SourceNote, Ref: refNote,
		Why: "β₁ = 0.2 [UNVERIFIED]: between DPO's common 0.1 and 0.5; round 2 reads round 1's implicit reward at this β₁ (pref.Stage)."},
	{Field: "Round2.Beta", Paper: notObtained, Source: exp.SourceNote, Ref: refNote,
		Why: "β = β₁ = 0.2 [UNVERIFIED], so that the optimum's exponent λβ₁/β (π₂ ∝ π₁·(π₁/π_SFT)^{λβ₁/β}·e^{R₂/β}) is λ."},
	{Field: "Lambda", Paper: notObtained + " (fixed or derived)", Source: exp.SourceNote, Ref: refLoss,
		Why: "λ = 0.5, the middle of the issue's sweep {0.1, 0.25, 0.5, 1, 2}, chosen before any run [UNVERIFIED]; the sweep is run beside it and λ = 0 is seq-dpo. " +
			"The 2026-12-02 audit found λ = 4 made the offset larger than DPO's own margin (room check \"" + roomOffset + "\")."},
	{Field: "Round1.Steps", Paper: notObtained, Source: exp.SourceNote, Ref: refNote,
		Why: "Round 1 runs until its held-out helpfulness is flat, measured on a one-seed probe at a constant rate [UNVERIFIED] PaperLab's budget; with the rate decaying to 0 " +
			"its end is flat by construction (a note on the claims, not a room check)."},
	{Field: "Round2.Steps", Paper: notObtained, Source: exp.SourceNote, Ref: refNote,
		Why: "Round 2 runs until naive DPO's helpfulness stops falling on probe seeds [UNVERIFIED] PaperLab's budget; with the rate decaying to 0 its end is settled by " +
			"construction (a note on the claims), and methods are compared along their paths at matched harmlessness and matched KL."},
	{Field: "Round1.Opt.LR", Paper: notObtained + " (LoRA fine-tuning)", Source: exp.SourceNote, Ref: refNote,
		Why: "Adam 1e-3 decaying to 0 over each round (LRDecay, as TRL's DPOTrainer does by default), gradient-norm clipping at 1 in both rounds, for a 2-layer model " +
			"trained from scratch [UNVERIFIED]. On one-seed probes at a constant rate naive DPO's helpfulness was still swinging between checkpoints at the end of round 2; with the decay the paths settle."},
}

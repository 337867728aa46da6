package spo

import "github.com/paperlab/paperlab/toolkit/exp"

// refNote is where this project's notes on SPO stand (no code was found for the paper).
const refNote = "SPO abstract and notes (shared/papers §2.1)"

// PaperSettings are SPO's values for the fields of Config that the sources state. They state
// little: no code was found, and β, λ (fixed or derived), the learning rate, the epochs and the
// round-2 base model of the implicit rewards were not obtained (shared/papers §2.2 and Appendix B
// item 2), so Round.*, Lambda and Sweep are PaperLab's choices (ConfigFor). The models (Llama-2
// bases with LoRA) have no counterpart in Config (a 2-layer transformer trained from scratch).
// Running the audit's fair protocol (pairs labelled on both dimensions, β₁ from round 1,
// λ ∈ {0…2}) is issue 34.
var PaperSettings = []exp.Setting{
	{Field: "Dims", Paper: []string{"helpful", "harmless"}, Source: exp.SourceNote, Ref: refNote + " (helpfulness, then harmlessness)"},
	{Field: "PairsPerDim", Paper: "≈30k pairs, each labelled on both dimensions (PKU-SafeRLHF-30k)", Source: exp.SourceNote, Ref: refNote,
		Why: "2,000 pairs per dimension, each dimension's pairs drawn on their own prompts and labelled on that dimension only (Bradley–Terry on the synthetic rewards): PaperLab's CPU scale " +
			"and the first task design. The audit (shared/papers §2.3) asks for pairs labelled on both dimensions, with refusal pairs in the harmlessness data: issue 34."},
}

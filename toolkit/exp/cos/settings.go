package cos

import "github.com/paperlab/paperlab/toolkit/exp"

// Sources of CoS's settings as this project read them (shared/papers §3.1 and its audit).
const (
	refCode  = "baaivision/CoS, DPO trainer and shell configs (shared/papers §3.1)"
	refNote  = "CoS paper notes (shared/papers §3.1)"
	refAudit = "audit 2026-12-02 (shared/papers §3.3)"
)

// PaperSettings are CoS's values for the fields of Config that its paper notes or code state; both
// experiments (cos and cos-vision) share them. Every difference is the tiny-LM stand-in's scale on
// 2 CPU cores or a choice this project made where the paper's setting did not work at that scale;
// running the paper's protocol (16 Monte-Carlo rollouts, an independent PRM, epochs instead of
// steps, pass@N) is issue 35. Not represented as fields: the 8B policy and 38B PRM backbones
// (our Model is a 2-layer transformer trained from scratch), sampling at T = 1 for the DPO data
// (hard-coded, as CoS), the BCO weight 0, the gap threshold t and the binarisation of the
// GPT-4o labels (not obtained, shared/papers Appendix B item 3).
var PaperSettings = []exp.Setting{
	{Field: "Rounds", Paper: 3, Source: exp.SourceNote, Ref: refNote},
	{Field: "DPOSamples", Paper: 16, Source: exp.SourceCode, Ref: refCode + "; " + refAudit},
	{Field: "DPOPrompts", Paper: "≈20k pairs per round (pairs, not prompts)", Source: exp.SourceNote, Ref: refNote + " (about 20k pairs per round; ~19k + 8.8k in the v3 config)",
		Why: "400 prompts a round (at most 400 pairs): sampling 16 traces of each, scoring them with the PRM and three DPO variants × 3 rounds × 5 seeds fit PaperLab's 2-core CPU budget. The paper's scale is issue 35."},
	{Field: "Ref", Paper: "sft", Source: exp.SourceCode, Ref: refCode + " (policy and reference initialised from the SFT model)"},
	{Field: "Round.Beta", Paper: 0.1, Source: exp.SourceNote, Ref: refNote},
	{Field: "Round.RPOAlpha", Paper: 1.0, Source: exp.SourceCode, Ref: refCode + " (rpo_alpha = 1)"},
	{Field: "Round.Opt.LR", Paper: 5e-6, Source: exp.SourceCode, Ref: refCode,
		Why: "2e-4 for a 2-layer policy trained from scratch (its SFT ran at 1e-3): 5e-6 is a fine-tuning rate for an 8B pretrained VLM and would hardly move this model in a round's 25 steps. [UNVERIFIED] PaperLab's choice; issue 35."},
	{Field: "Round.Opt.TotalSteps", Paper: "cosine decay over the round", Source: exp.SourceCode, Ref: refCode,
		Why: "A constant rate (TotalSteps 0) over a round's 25 steps: too few for a schedule to matter. Issue 35."},
	{Field: "Round.Steps", Paper: "1 epoch of the round's pairs", Source: exp.SourceCode, Ref: refCode,
		Why: "25 steps of 32 pairs, about two epochs of round 1's ~400 pairs; at 120 steps (ten epochs) outcome DPO overfit its pairs (seed 1 greedy 0.973 → 0.517, ConfigFor). Epochs of the round's own pairs are issue 35."},
	{Field: "MCRollouts", Paper: 16, Source: exp.SourceNote, Ref: refNote + " (Math-Shepherd, 16 completions per step prefix); " + refAudit,
		Why: "8 rollouts per step prefix: Monte-Carlo labelling is the PRM's main CPU cost (rollouts × steps × ~4,000 traces per seed); with hard labels (good when any rollout reaches the answer) 8 rollouts miss a good step only when its success rate is low. The paper's 16 is issue 35."},
	{Field: "Labels", Paper: "hard", Source: exp.SourceCode, Ref: refAudit + " (hard good/bad step labels, BCE per tag)"},
	{Field: "PRMPrompts", Paper: "≈200k labelled traces (100k Monte-Carlo + 100k GPT-4o-judged)", Source: exp.SourceNote, Ref: refNote,
		Why: "2,000 prompts × 2 samples ≈ 4,000 Monte-Carlo-labelled traces per seed, no GPT-4o labels (no external judge offline): PaperLab's CPU budget. Issue 35."},
	{Field: "PRM.Steps", Paper: "2 epochs", Source: exp.SourceNote, Ref: refNote + " (InternVL2.5-MPO-38B PRM, 2 epochs)",
		Why: "800 steps of 64 traces, about 13 epochs of ~4,000 traces: the head's policy-feature weights start near 0 and needed that many steps to rank steps (ConfigFor's seed-1 probe). Issue 35."},
	{Field: "PRMReadsPolicy", Paper: false, Source: exp.SourceCode, Ref: refCode + " (modeling_internvl_prm.py: a separate 38B PRM for an 8B policy); " + refAudit,
		Why: "Our PRM shares the SFT policy's trunk and reads its step log-probabilities: at this scale the plain trunk-and-head PRM stayed near chance within a question (Config). The audit found it then ranks traces like the policy's own lowest step probability; an independent PRM is issue 35."},
	{Field: "StepWeight", Paper: 0.2, Source: exp.SourceCode, Ref: refCode + " (DPO data files an8st2: answer 0.8, steps 0.2); " + refNote},
	{Field: "Aggregation", Paper: "mean", Source: exp.SourceNote, Ref: refNote + " (score = 0.2·mean(step scores) + 0.8·answer score)"},
	{Field: "SearchN", Paper: "N up to 64", Source: exp.SourceNote, Ref: refNote + " (PRM beam search > 5 points above self-consistency at N = 64)",
		Why: "N up to 32 on 150 questions: the beam's cost grows with N × steps on 2 CPU cores. N = 64 and pass@N are issue 35."},
}

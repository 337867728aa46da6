package e3t

import "github.com/paperlab/paperlab/toolkit/exp"

// refCode points at the authors' settings as this project read them from their code
// (yanxue7/E3T-Overcooked: human_aware_rl/encoder/encoder_ppo.py and the cramped_room run script).
const refCode = "yanxue7/E3T-Overcooked cramped_room run, papers §7.1"

// PaperSettings are the authors' values for the fields of Config that their code states (the
// paper's own per-layout values were not obtained: shared/papers §7.1 and Appendix B). Since issue
// 36 the default run uses them (marl/e3t.Authors). Not represented: the value-loss coefficient (1.0
// in the run script; our critic has its own optimiser), the partner model's learning rate (not
// stated; the policy's 1e-3) and the reward-shaping constants (Train.Game.Rules is filled per layout by
// Config.Game from overcooked.DefaultConfig: 20 per soup, 3/3/5 shaping, as overcooked_ai, §7.2).
var PaperSettings = []exp.Setting{
	{Field: "Horizon", Paper: 400, Source: exp.SourceCode, Ref: "overcooked_ai and the authors' BC-proxy evaluation, papers §7.1–7.2"},
	{Field: "CookTime", Paper: 20, Source: exp.SourceCode, Ref: "overcooked_ai, papers §7.2"},
	{Field: "Train.Epsilon", Paper: 0.7, Source: exp.SourceCode, Ref: refCode + "; ZSC-Eval uses 0.25 (ε 0.25 and 0.5 run as the named methods e3t-eps0.25 and e3t-eps0.5, on cramped_room alone)"},
	{Field: "Train.CopyRate", Paper: 0.1, Source: exp.SourceCode, Ref: refCode + ": COPY; ZSC-Eval weights_copy_factor 0.1"},
	{Field: "Train.K", Paper: 5, Source: exp.SourceCode, Ref: refCode + ": context encoder over the last 5 (observation, partner action) pairs"},
	{Field: "Train.Envs", Paper: 30, Source: exp.SourceCode, Ref: refCode + ": 30 parallel envs, 12,000 steps per update"},
	{Field: "Train.Iters", Paper: 400, Source: exp.SourceCode, Ref: refCode + ": 4.8e6 total steps / 12,000 per update"},
	{Field: "Train.Hidden", Paper: 64, Source: exp.SourceCode, Ref: refCode + ": 3 conv layers × 25 filters, then a 3 × 64 MLP",
		Why: "Same width; the authors' network reads the lossless grid encoding with 3 conv layers and 3 hidden layers, ours featurize_state's 96 values with 2 tanh layers (a CPU-sized network; the lossless planes are in toolkit/marl/env/overcooked for whoever wants the authors' encoder)."},
	{Field: "Train.Gamma", Paper: 0.99, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.Lambda", Paper: 0.98, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.Clip", Paper: 0.05, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.EntCoef", Paper: 0.1, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.Epochs", Paper: 8, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.MiniBatches", Paper: 6, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.LR", Paper: 1e-3, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.PMEpochs", Paper: 8, Source: exp.SourceCode, Ref: refCode + ": the partner model's own optimiser, 8 passes per update (issue 36's audit)"},
	{Field: "Train.MaxGradNorm", Paper: 0.1, Source: exp.SourceCode, Ref: refCode},
	{Field: "Train.ShapingSteps", Paper: 2.5e6, Source: exp.SourceCode, Ref: refCode + ": shaping annealed to 0 over 2.5e6 steps"},
}

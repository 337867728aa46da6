package e3t

import "github.com/paperlab/paperlab/toolkit/exp"

// Sources cited below by key are listed in this package's README.md, section Sources: [E4] is the
// authors' repository yanxue7/E3T-Overcooked at commit 6d9b7e7 (the configuration file
// human_aware_rl/encoder/encoder_ppo.py, the cramped_room run script
// human_aware_rl/experiments/ppo_sp_experiments.sh that overrides it, and the training loop
// baselines/ppo2/encoder_ppo2.py); [E5] is ZSC-Eval's independent E3T script; [E6] is overcooked_ai.
const (
	refConfig = "[E4] human_aware_rl/encoder/encoder_ppo.py"
	refScript = "[E4] human_aware_rl/experiments/ppo_sp_experiments.sh (cramped_room run)"
	refLoop   = "[E4] baselines/ppo2/encoder_ppo2.py"
)

// PaperSettings are the authors' values for the fields of Config that their code states (the
// paper's own per-layout values were not obtained: its result tables and per-layout ε are not in
// any source we read). The default run uses them since 2026-12-04 (marl/e3t.Authors). Not
// represented: the value-loss coefficient (VF_COEF=1 in the run script; our critic has its own
// optimiser), the partner model's learning rate (the authors' loop hands the partner model's own
// Adam the policy's learning rate, 1e-3; ours is PMLR, the same 1e-3) and the reward-shaping
// constants (Train.Game.Rules is filled per layout by Config.Game from overcooked.DefaultConfig: 20
// per soup, 3/3/5 shaping, as overcooked_ai's BASE_REW_SHAPING_PARAMS and the authors' config).
var PaperSettings = []exp.Setting{
	{Field: "Horizon", Paper: 400, Source: exp.SourceCode, Ref: refConfig + ": horizon = 400 (the episode length of training and of the human-proxy evaluation)"},
	{Field: "CookTime", Paper: 20, Source: exp.SourceCode, Ref: "[E6] src/overcooked_ai_py/mdp/overcooked_mdp.py: a recipe's cook time defaults to 20 ticks"},
	{Field: "Train.Epsilon", Paper: 0.7, Source: exp.SourceCode, Ref: refScript + ": RAND=0.7 (the config's default is 0.3); [E5] train_e3t.sh uses --epsilon 0.25 (ε 0.25 and 0.5 run as the named methods e3t-eps0.25 and e3t-eps0.5, on cramped_room alone)"},
	{Field: "Train.CopyRate", Paper: 0.1, Source: exp.SourceCode, Ref: refScript + ": COPY=0.1, applied in " + refLoop + " as θ_p ← 0.9 θ_p + 0.1 θ_e each update; [E5] --weights_copy_factor 0.1"},
	{Field: "Train.K", Paper: 5, Source: exp.SourceCode, Ref: refScript + ": LENGTH=5, the context encoder's last 5 (observation, partner action) pairs (the config's default is 10)"},
	{Field: "Train.Envs", Paper: 30, Source: exp.SourceCode, Ref: refConfig + ": sim_threads = 30 parallel games, TOTAL_BATCH_SIZE = 12000 steps per update"},
	{Field: "Train.Iters", Paper: 400, Source: exp.SourceCode, Ref: refScript + ": PPO_RUN_TOT_TIMESTEPS=4.8e6 / 12,000 steps per update"},
	{Field: "Train.Hidden", Paper: 64, Source: exp.SourceCode, Ref: refConfig + ": NUM_CONV_LAYERS = 3 × NUM_FILTERS = 25, then NUM_HIDDEN_LAYERS = 3 × SIZE_HIDDEN_LAYERS = 64",
		Why: "Same width; the authors' network reads the lossless grid encoding with 3 conv layers and 3 hidden layers, ours featurize_state's 96 values with 2 tanh layers (a CPU-sized network; the lossless planes are in toolkit/marl/env/overcooked for whoever wants the authors' encoder)."},
	{Field: "Train.Gamma", Paper: 0.99, Source: exp.SourceCode, Ref: refConfig + ": GAMMA = 0.99"},
	{Field: "Train.Lambda", Paper: 0.98, Source: exp.SourceCode, Ref: refConfig + ": LAM = 0.98"},
	{Field: "Train.Clip", Paper: 0.05, Source: exp.SourceCode, Ref: refConfig + ": CLIPPING = 0.05"},
	{Field: "Train.EntCoef", Paper: 0.1, Source: exp.SourceCode, Ref: refConfig + ": ENTROPY = 0.1"},
	{Field: "Train.Epochs", Paper: 8, Source: exp.SourceCode, Ref: refConfig + ": STEPS_PER_UPDATE = 8 (PPO epochs per update)"},
	{Field: "Train.MiniBatches", Paper: 6, Source: exp.SourceCode, Ref: refConfig + ": MINIBATCHES = 6"},
	{Field: "Train.LR", Paper: 1e-3, Source: exp.SourceCode, Ref: refScript + ": LR=1e-3 (constant: encoder_ppo.py's LR_ANNEALING = 1)"},
	{Field: "Train.PMEpochs", Paper: 8, Source: exp.SourceCode, Ref: refLoop + ": the partner model trained by its own Adam optimiser, 8 passes over the update's batch (for _ in range(8)), before the PPO epochs"},
	{Field: "Train.MaxGradNorm", Paper: 0.1, Source: exp.SourceCode, Ref: refConfig + ": MAX_GRAD_NORM = 0.1"},
	{Field: "PopulationSeeds", Paper: "32 self-play agents in all", Source: exp.SourcePaper,
		Ref: "[E8] Strouse et al. 2021 (FCP), §2.4: \"PP and FCP are trained with a population size of N = 32 agents\", self-play agents differing only in their seed (§1); [E9] ZSC-Eval's FCP uses 4, 8 or 12 (POP_SIZE_LIST in zsceval/scripts/prep/gen_S2_yml.py)",
		Why: "12 self-play agents in all (the SP method's 5 training seeds and these 7), ZSC-Eval's largest population, to keep the main comparison near 150 minutes on 2 cores; 32 would more than double the population's cost"},
	{Field: "PopulationSnapshotEvery", Paper: "3 checkpoints per agent: initial, middle, final", Source: exp.SourcePaper,
		Ref: "[E8] §2.4: 3 checkpoints per agent, at initialization, at the end of training and \"at the middle of training, defined as when the agent reaches 50% of its final reward\"; [E9] zsceval/scripts/extract_models/extract_sp_models.py implements it: mid = the checkpoint whose sparse training return is closest to half the final one (the mean of the last 5 logs)",
		Why: "the same rule (fcp.PickCheckpoints): a snapshot every 5 % of training is the candidate set the middle checkpoint is chosen from"},
	{Field: "FCPIters", Paper: 2000, Source: exp.SourceCode,
		Ref: "[E9] zsceval/scripts/overcooked/shell/train_fcp_stage_2.sh and train_sp.sh: FCP's best response trains 5e7 steps for a 12-agent population against self-play's 1e7, 5× a self-play run (here 5 × 400 iterations); [E8]'s own budget was not found",
		Why: "800 iterations (9.6 M steps), 2× the authors' E3T budget on cramped_room and E3T's own on coordination_ring, to fit the 150-minute budget; the best response's settled check measures whether it suffices"},
	{Field: "Train.ShapingSteps", Paper: 2.5e6, Source: exp.SourceCode, Ref: refScript + ": REW_SHAPING_HORIZON=2.5e6, shaping annealed linearly to 0 over 2.5e6 steps"},
}

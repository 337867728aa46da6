package smax

import "github.com/paperlab/paperlab/toolkit/exp"

// Sources cited by key are listed in this package's README.md, section Sources: [S1] is JaxMARL's
// MAPPO configuration for SMAX (FLAIROx/JaxMARL at c793d09, baselines/MAPPO/config/
// mappo_homogenous_rnn_smax.yaml), [S2] SMAX itself (jaxmarl/environments/smax, jaxmarl 0.2.0).
const refMAPPO = "[S1] baselines/MAPPO/config/mappo_homogenous_rnn_smax.yaml"

// PaperSettings are the values the sources state for fields of Config. TAPE's and M3APG's own SMAC
// settings are not known here (their papers' text was not read: see the tape and m3apg
// experiments); the gate trains MAPPO as JaxMARL does on SMAX, where its configuration says.
var PaperSettings = []exp.Setting{
	{Field: "PPO.LRActor", Paper: 2e-3, Source: exp.SourceCode, Ref: refMAPPO + ": LR 0.002 (annealed linearly to 0: ANNEAL_LR True)"},
	{Field: "PPO.LRCritic", Paper: 2e-3, Source: exp.SourceCode, Ref: refMAPPO + ": one optimiser, LR 0.002"},
	{Field: "PPO.Envs", Paper: 128, Source: exp.SourceCode, Ref: refMAPPO + ": NUM_ENVS 128",
		Why: "64 games per update on 2 cores (half the samples per update; the number of updates grows instead)"},
	{Field: "PPO.Steps", Paper: 128, Source: exp.SourceCode, Ref: refMAPPO + ": NUM_STEPS 128",
		Why: "64 steps per game per update (a 3m battle lasts 15–40 steps)"},
	{Field: "PPO.Iters", Paper: 610, Source: exp.SourceCode, Ref: refMAPPO + ": TOTAL_TIMESTEPS 1e7 / (128 × 128) = 610 updates",
		Why: "400 updates of 4,096 steps, 1.6 M steps: the gate's budget on 2 cores (≤ 30 minutes for MAPPO and IPPO × 5 seeds); the settled check measures whether it suffices"},
	{Field: "PPO.Hidden", Paper: 128, Source: exp.SourceCode, Ref: refMAPPO + ": FC_DIM_SIZE 128, GRU_HIDDEN_DIM 128, ReLU",
		Why: "an MLP of two tanh layers of 64 without the GRU (marl/ppo's network): the agents see the unit list every step, and 3m needs no memory to focus fire"},
	{Field: "PPO.Epochs", Paper: 4, Source: exp.SourceCode, Ref: refMAPPO + ": UPDATE_EPOCHS 4"},
	{Field: "PPO.MiniBatches", Paper: 4, Source: exp.SourceCode, Ref: refMAPPO + ": NUM_MINIBATCHES 4"},
	{Field: "PPO.Gamma", Paper: 0.99, Source: exp.SourceCode, Ref: refMAPPO + ": GAMMA 0.99"},
	{Field: "PPO.Lambda", Paper: 0.95, Source: exp.SourceCode, Ref: refMAPPO + ": GAE_LAMBDA 0.95"},
	{Field: "PPO.Clip", Paper: 0.2, Source: exp.SourceCode, Ref: refMAPPO + ": CLIP_EPS 0.2"},
	{Field: "PPO.EntCoef", Paper: 0.0, Source: exp.SourceCode, Ref: refMAPPO + ": ENT_COEF 0.0"},
	{Field: "PPO.MaxGradNorm", Paper: 0.25, Source: exp.SourceCode, Ref: refMAPPO + ": MAX_GRAD_NORM 0.25"},
	{Field: "Scenario", Paper: "smax:3m", Source: exp.SourceCode, Ref: refMAPPO + ": MAP_NAME 2s3z in the file; 3m is the easiest map of the issue's list; ENV_KWARGS see_enemy_actions, walls_cause_death, attack_mode closest (our DefaultConfig)",
		Why: "the global state normalised (-norm: positions over the map size, cooldowns over the type's) for a tanh critic; SMAX's world state keeps raw positions up to 32"},
}

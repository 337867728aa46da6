package m3apg

import (
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/smax"
)

// PaperSettings are the values a source states for fields of Config. M3APG has no public code and
// its full text could not be read: only the abstract ([M1] in README.md's Sources: SMAC maps, a
// Central-Q policy gradient whose critic sees an MI-trained joint-action embedding, no numbers)
// and its bibliographic record ([M2]). So no field has a source value: the team sizes (N = 3–6)
// are PaperLab's own plan for a tiny reproduction, not the paper's setting; the embedding sizes,
// the MI weight, the forward loss and the embedding schedule are reconstructions ([UNVERIFIED])
// with no source value; and the hard-game protocol of 2026-12-04 (Central-Q's JointInit, the hard
// game's grid, limit, γ and held-out classes, the budgets) is ours as well. `paperlab settings
// m3apg` lists all of them as PaperLab's choices.
//
// Part smax (2026-12-08) takes JaxMARL's MAPPO settings for SMAX ([M5], the smax experiment's
// [S1]) where they apply: MAPPO's are the smax gate's rows, and the Central-Q learners share γ, λ
// and the network's width with it.
var PaperSettings = append(smaxSettings(), []exp.Setting{
	{Field: "SMAX.Learner.Gamma", Paper: 0.99, Source: exp.SourceCode, Ref: refMAPPO + ": GAMMA 0.99"},
	{Field: "SMAX.Learner.Lambda", Paper: 0.95, Source: exp.SourceCode, Ref: refMAPPO + ": GAE_LAMBDA 0.95 (the learners' TD(λ))"},
	{Field: "SMAX.Learner.Hidden", Paper: 128, Source: exp.SourceCode, Ref: refMAPPO + ": FC_DIM_SIZE 128, GRU_HIDDEN_DIM 128",
		Why: "two tanh layers of 64, as MAPPO's actor in the gate (no GRU): the agents see the unit list every step"},
}...)

// refMAPPO is JaxMARL's MAPPO configuration for SMAX, [M5] in README.md's Sources.
const refMAPPO = "[M5] baselines/MAPPO/config/mappo_homogenous_rnn_smax.yaml"

// smaxSettings are the smax experiment's MAPPO rows as part smax's MAPPO (fields SMAX.PPO.…),
// citing [M5], the same source under this README's key.
func smaxSettings() []exp.Setting {
	var out []exp.Setting
	for _, s := range smax.PaperSettings {
		if rest, ok := strings.CutPrefix(s.Field, "PPO."); ok {
			s.Field, s.Ref = "SMAX.PPO."+rest, strings.Replace(s.Ref, "[S1]", "[M5]", 1)
			out = append(out, s)
		}
	}
	return out
}

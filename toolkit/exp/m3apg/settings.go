package m3apg

import "github.com/paperlab/paperlab/toolkit/exp"

// PaperSettings are the values a source states for fields of Config. M3APG has no public code and
// its full text could not be read: only the abstract ([M1] in README.md's Sources: SMAC maps, a
// Central-Q policy gradient whose critic sees an MI-trained joint-action embedding, no numbers)
// and its bibliographic record ([M2]). So no field has a source value: the team sizes (N = 3–6)
// are PaperLab's own plan for a tiny reproduction, not the paper's setting; the embedding sizes,
// the MI weight, the forward loss and the embedding schedule are reconstructions ([UNVERIFIED])
// with no source value; and the hard-game protocol of 2026-12-04 (Central-Q's JointInit, the hard
// game's grid, limit, γ and held-out classes, the budgets) is ours as well. `paperlab settings
// m3apg` lists all of them as PaperLab's choices.
var PaperSettings []exp.Setting

package m3apg

import "github.com/paperlab/paperlab/toolkit/exp"

// PaperSettings are the values a source states for fields of Config. M3APG has no public code and
// we have only its abstract (shared/papers §6: SMAC maps, Central-Q policy gradient with an
// MI-trained joint-action embedding, no numbers), so no field has a source value: the team sizes
// (N = 3–6) extend the project's own plan for the tiny reproduction (§6.3: 4–6, a plan rather than
// the paper's setting), and the embedding sizes, the MI weight,
// the forward loss and the embedding schedule are reconstructions ([UNVERIFIED], §6.2) with no
// source value, listed by `paperlab settings m3apg` as PaperLab's choices — as are issue 38's
// protocol pieces (Central-Q's JointInit, the hard game's grid, limit, γ and held-out classes, the
// budgets), none of which the paper fixes.
var PaperSettings []exp.Setting

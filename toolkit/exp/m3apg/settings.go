package m3apg

import "github.com/paperlab/paperlab/toolkit/exp"

// PaperSettings are the values a source states for fields of Config. M3APG has no public code and
// we have only its abstract (shared/papers §6: SMAC maps, Central-Q policy gradient with an
// MI-trained joint-action embedding, no numbers), so the only stated value is the team sizes of the
// project's own plan for the tiny reproduction (§6.3, a note); the embedding sizes, the MI weight,
// the forward loss and the embedding schedule are reconstructions ([UNVERIFIED], §6.2) with no
// source value, listed by `paperlab settings m3apg` as PaperLab's choices. The protocol changes the
// audit asks for (working baselines, a game whose reward hides the effect, class hold-outs, error
// against budget) are follow-up issue 38.
var PaperSettings = []exp.Setting{
	{Field: "Agents", Paper: []int{4, 5, 6}, Source: exp.SourceNote, Ref: "shared/papers §6.3 (N = 4–6 agents, 4 actions each)",
		Why: "N = 3 (64 joint actions) added below the note's 4–6 as PaperLab's choice, to widen the range over which the " +
			"gap's growth with N is measured; the paper's own setting (SMAC maps, not a push game) is not reproduced here — follow-up issue 38"},
}

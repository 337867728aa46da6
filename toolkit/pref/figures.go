package pref

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// GapSet is a named set of pairs (training pairs, held-out pairs, …) whose implicit-reward gaps
// GapFigure draws.
type GapSet struct {
	Name  string
	Pairs []PairEx
}

// GapFigure is the histogram of each set's implicit-reward gaps after a round of DPO
// (ImplicitRewardGaps of policy against ref at β: > 0 means the policy raised the chosen response
// over the rejected one relative to ref), overlaid in one panel whose range includes 0, and each
// set's share of pairs with a positive gap.
func GapFigure(title string, policy, ref *lm.Model, beta float64, sets ...GapSet) (*plot.Figure, []float64, error) {
	if len(sets) == 0 {
		return nil, nil, fmt.Errorf("gap figure %q: no pair sets", title)
	}
	hists := make([]plot.Hist, len(sets))
	positive := make([]float64, len(sets))
	all := []float64{0}
	for i, s := range sets {
		if len(s.Pairs) == 0 {
			return nil, nil, fmt.Errorf("gap figure %q: set %q has no pairs", title, s.Name)
		}
		gaps, err := ImplicitRewardGaps(policy, ref, beta, s.Pairs)
		if err != nil {
			return nil, nil, fmt.Errorf("gap figure %q, set %q: %w", title, s.Name, err)
		}
		for _, g := range gaps {
			if g > 0 {
				positive[i]++
			}
		}
		positive[i] /= float64(len(gaps))
		hists[i] = plot.Hist{Name: s.Name, Values: gaps}
		all = append(all, gaps...)
	}
	lo, hi := plot.FitRange(all, false)
	f, err := plot.Histograms(title, "implicit-reward gap (> 0: chosen preferred)", lo, hi, 24, 1, []plot.HistPanel{{Hists: hists}})
	return f, positive, err
}

package rl

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/stats"
)

// MaskThresholds are CAPO's reference-perplexity thresholds (CAPO's noise mask): a correct response is kept when
// PPL_ref ≤ High (a correct answer the reference model finds very unlikely is a lucky guess); an
// incorrect one is kept when PPL_ref ≥ Low (an incorrect answer it finds very likely is
// near-correct, unfairly penalised). The paper uses High 2.5, Low 1.05 on its models.
type MaskThresholds struct {
	High float64 `json:"ref_high"`
	Low  float64 `json:"ref_low"`
}

// NoiseMask returns m(o) for each response: 1 to keep, 0 to drop. It applies to any estimator's
// advantages (Â = m·Ã; [UNVERIFIED] whether masked responses still enter the others' pairwise sums —
// here they do: Ã is computed over the whole group first, as the simplest reading of the paper's mask).
func NoiseMask(correct []bool, refPPL []float64, th MaskThresholds) []float64 {
	m := make([]float64, len(correct))
	for i, c := range correct {
		if (c && refPPL[i] <= th.High) || (!c && refPPL[i] >= th.Low) {
			m[i] = 1
		}
	}
	return m
}

// ThresholdsFromQuantiles derives the mask thresholds from the reference (SFT) model's perplexities
// on its own samples, each a quantile by linear interpolation between order statistics
// (stats.Percentile). The paper says only that its 2.5 / 1.05 come "from the interquartile range of
// the reference model's PPL on correct and incorrect answers" [UNVERIFIED]; two readings:
//
//   - rule "cross" (default here): High = the qHigh quantile of PPL on *incorrect* samples (a correct
//     answer less likely than most wrong ones is a lucky guess) and Low = the qLow quantile on
//     *correct* ones (a wrong answer more confident than most right ones is near-correct). This
//     matches the paper's values being far apart (2.5 ≫ 1.05).
//   - rule "same": High = the qHigh quantile on correct samples, Low = the qLow quantile on incorrect
//     ones (our assumption: the paper derives 2.5 and 1.05 from its reference model's PPL quantiles).
func ThresholdsFromQuantiles(rule string, correct []bool, ppl []float64, qHigh, qLow float64) (MaskThresholds, error) {
	var pc, pi []float64
	for i, c := range correct {
		if c {
			pc = append(pc, ppl[i])
		} else {
			pi = append(pi, ppl[i])
		}
	}
	if len(pc) == 0 || len(pi) == 0 {
		return MaskThresholds{}, fmt.Errorf("rl: mask thresholds need both correct (%d) and incorrect (%d) samples", len(pc), len(pi))
	}
	if !(qHigh >= 0 && qHigh <= 1 && qLow >= 0 && qLow <= 1) {
		return MaskThresholds{}, fmt.Errorf("rl: mask quantiles %v and %v, want both in [0, 1]", qHigh, qLow)
	}
	switch rule {
	case "cross":
		return MaskThresholds{High: stats.Percentile(pi, qHigh), Low: stats.Percentile(pc, qLow)}, nil
	case "same":
		return MaskThresholds{High: stats.Percentile(pc, qHigh), Low: stats.Percentile(pi, qLow)}, nil
	}
	return MaskThresholds{}, fmt.Errorf("rl: mask threshold rule %q, want cross or same", rule)
}

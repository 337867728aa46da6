package rl

import "math"

// Diagnostics are the mechanism measures of an advantage estimator on one batch of groups (issue
// 33): what the advantages do to the confidence ranking, whichever estimator made them.
type Diagnostics struct {
	// AbsAdvPerMixedGroup is the mean over mixed groups (some correct, some wrong) of Σ|A| in the
	// group: how much signal a group with something to learn gets.
	AbsAdvPerMixedGroup float64 `json:"abs_adv_per_mixed_group"`
	// CovLPMPerAbsA is the batch covariance of lpm and A over every response (population form),
	// divided by the mean |A|: > 0 when the update favours responses the policy is already confident
	// in (sharpening), < 0 when it favours the unconfident ones.
	CovLPMPerAbsA float64 `json:"cov_lpm_adv_per_abs_adv"`
	// MisrankedPairShare is the share of (correct, wrong) pairs in mixed groups whose wrong answer
	// has the higher lpm; MisrankedWeightShare the share of CAPO's pair weight σ((lpm_j − lpm_i)/τ)
	// on them (the weight a pair gets whatever the estimator; at τ it says where CAPO's signal goes).
	MisrankedPairShare   float64 `json:"misranked_pair_share"`
	MisrankedWeightShare float64 `json:"misranked_weight_share"`
	// MaskDroppedShare is the share of Σ|A| that the noise mask drops (0 without a mask).
	MaskDroppedShare float64 `json:"mask_dropped_share"`
	// MixedGroups counts the groups the per-group and per-pair measures average over.
	MixedGroups int `json:"mixed_groups"`
}

// Diagnose measures a batch: the groups, the advantages an estimator gave each response (before
// the mask), the mask per response (nil: none) and CAPO's τ for the pair weights. Groups and
// advantages are aligned (adv[g][i] is response i of group g); responses are correct when their
// reward is > 0.5, as CAPO splits them.
func Diagnose(groups []Group, adv [][]float64, mask [][]float64, tau float64) Diagnostics {
	var d Diagnostics
	var n, sumL, sumA, sumLA, sumAbs, dropped float64
	var pairs, misranked, weight, misWeight float64
	for g, grp := range groups {
		pos, neg, abs := 0, 0, 0.0
		for i, r := range grp.Rewards {
			a := adv[g][i]
			n++
			sumL += grp.LPM[i]
			sumA += a
			sumLA += grp.LPM[i] * a
			sumAbs += math.Abs(a)
			abs += math.Abs(a)
			if mask != nil && mask[g][i] == 0 {
				dropped += math.Abs(a)
			}
			if r > 0.5 {
				pos++
			} else {
				neg++
			}
		}
		if pos == 0 || neg == 0 {
			continue
		}
		d.MixedGroups++
		d.AbsAdvPerMixedGroup += abs
		for i, ri := range grp.Rewards {
			if ri <= 0.5 {
				continue
			}
			for j, rj := range grp.Rewards {
				if rj > 0.5 {
					continue
				}
				w := sigmoid((grp.LPM[j] - grp.LPM[i]) / tau)
				pairs++
				weight += w
				if grp.LPM[j] > grp.LPM[i] {
					misranked++
					misWeight += w
				}
			}
		}
	}
	if d.MixedGroups > 0 {
		d.AbsAdvPerMixedGroup /= float64(d.MixedGroups)
		d.MisrankedPairShare = misranked / pairs
		d.MisrankedWeightShare = misWeight / weight
	}
	if n > 0 && sumAbs > 0 {
		cov := sumLA/n - (sumL/n)*(sumA/n)
		d.CovLPMPerAbsA = cov / (sumAbs / n)
		d.MaskDroppedShare = dropped / sumAbs
	}
	return d
}

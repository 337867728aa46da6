package rl

import "math"

// Diagnostics are the mechanism measures of an advantage estimator on one batch of groups (issue
// 33): what the advantages do to the confidence ranking, whichever estimator made them.
type Diagnostics struct {
	// AbsAdvPerMixedGroup is the mean over mixed groups (some correct, some wrong) of Σ|A| in the
	// group, A the applied advantages (after the mask): how much signal a group with something to
	// learn gets.
	AbsAdvPerMixedGroup float64 `json:"abs_adv_per_mixed_group"`
	// CovLPMPerAbsA is the batch covariance of lpm and the applied A over every response (population
	// form), divided by the mean |A|: > 0 when the update favours responses the policy is already
	// confident in (sharpening: entropy falls), < 0 when it favours the unconfident ones (entropy
	// rises).
	CovLPMPerAbsA float64 `json:"cov_lpm_adv_per_abs_adv"`
	// MisrankedPairShare is the share of (correct, wrong) pairs in mixed groups whose wrong answer
	// has the higher lpm; MisrankedWeightShare the share of the estimator's own pair weight on them
	// (see Diagnose).
	MisrankedPairShare   float64 `json:"misranked_pair_share"`
	MisrankedWeightShare float64 `json:"misranked_weight_share"`
	// MaskDroppedShare is the share of the estimator's Σ|A| (before the mask) that the noise mask
	// drops (0 without a mask).
	MaskDroppedShare float64 `json:"mask_dropped_share"`
	// MixedGroups counts the groups the per-group and per-pair measures average over.
	MixedGroups int `json:"mixed_groups"`
}

// DiagnosticNames are the logged names of the Diagnostics measures, in the order Metrics gives them.
var DiagnosticNames = []string{"abs_adv_per_mixed_group", "cov_lpm_adv_per_abs_adv", "misranked_pair_share", "misranked_weight_share", "mask_dropped_share"}

// Metrics are the measures under their logged names (DiagnosticNames); the per-group and per-pair
// ones are left out when the batch has no mixed group (undefined, not zero).
func (d Diagnostics) Metrics() map[string]float64 {
	out := map[string]float64{"cov_lpm_adv_per_abs_adv": d.CovLPMPerAbsA, "mask_dropped_share": d.MaskDroppedShare}
	if d.MixedGroups > 0 {
		out["abs_adv_per_mixed_group"] = d.AbsAdvPerMixedGroup
		out["misranked_pair_share"] = d.MisrankedPairShare
		out["misranked_weight_share"] = d.MisrankedWeightShare
	}
	return out
}

// Diagnose measures a batch: the groups, the advantages the estimator gave each response before
// the mask, the mask per response (nil: none) and the pair shape of the estimator. Groups and
// advantages are aligned (adv[g][i] is response i of group g); responses are correct when their
// reward is > 0.5, as CAPO splits them.
//
// Pair weights: every estimator here is a sum over a group's (correct i, wrong j) pairs, A_i =
// c_g·Σ_j s_ij for correct i and A_j = −c_g·Σ_i s_ij for wrong j, with a per-group constant c_g (the
// normalisation: GRPO's 1/(G·std), CAPO's 1/G, …) and a pair shape s_ij: 1 for the linear estimators
// (GRPO, Dr.GRPO, RLOO: the U-statistic form of CAPO's diagnosis) and CAPO's σ((lpm_j − lpm_i)/τ)/τ when tau > 0. The
// weight of a pair is c_g·s_ij, with c_g = Σ_{i∈P} A_i / Σ_{pairs} s_ij read off the advantages
// themselves, so that a per-group rescaling (capo-gnorm) is counted.
func Diagnose(groups []Group, adv [][]float64, mask [][]float64, tau float64) Diagnostics {
	var d Diagnostics
	var n, sumL, sumA, sumLA, sumAbs, sumAbsPre, dropped float64
	var pairs, misranked, weight, misWeight float64
	shape := func(li, lj float64) float64 {
		if tau > 0 {
			return sigmoid((lj-li)/tau) / tau
		}
		return 1
	}
	for g, grp := range groups {
		pos, neg, abs, posA := 0, 0, 0.0, 0.0
		for i, r := range grp.Rewards {
			pre, a := adv[g][i], adv[g][i]
			if mask != nil {
				a *= mask[g][i]
				if mask[g][i] == 0 {
					dropped += math.Abs(pre)
				}
			}
			n++
			sumL += grp.LPM[i]
			sumA += a
			sumLA += grp.LPM[i] * a
			sumAbs += math.Abs(a)
			sumAbsPre += math.Abs(pre)
			abs += math.Abs(a)
			if r > 0.5 {
				pos++
				posA += pre
			} else {
				neg++
			}
		}
		if pos == 0 || neg == 0 {
			continue
		}
		d.MixedGroups++
		d.AbsAdvPerMixedGroup += abs
		var s, sMis float64
		for i, ri := range grp.Rewards {
			if ri <= 0.5 {
				continue
			}
			for j, rj := range grp.Rewards {
				if rj > 0.5 {
					continue
				}
				w := shape(grp.LPM[i], grp.LPM[j])
				pairs++
				s += w
				if grp.LPM[j] > grp.LPM[i] {
					misranked++
					sMis += w
				}
			}
		}
		if s > 0 {
			c := posA / s
			weight += c * s
			misWeight += c * sMis
		}
	}
	if d.MixedGroups > 0 {
		d.AbsAdvPerMixedGroup /= float64(d.MixedGroups)
		d.MisrankedPairShare = misranked / pairs
		if weight > 0 {
			d.MisrankedWeightShare = misWeight / weight
		}
	}
	if n > 0 && sumAbs > 0 {
		cov := sumLA/n - (sumL/n)*(sumA/n)
		d.CovLPMPerAbsA = cov / (sumAbs / n)
	}
	if sumAbsPre > 0 {
		d.MaskDroppedShare = dropped / sumAbsPre
	}
	return d
}

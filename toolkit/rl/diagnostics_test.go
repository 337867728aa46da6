package rl

import (
	"math"
	"testing"
)

// Diagnose on a hand-computed batch: one mixed group of 3 (one misranked pair of 2), one all-wrong
// group that only the batch-wide measures see.
func TestDiagnose(t *testing.T) {
	groups := []Group{
		{Rewards: []float64{1, 0, 0}, LPM: []float64{-0.5, -0.2, -0.9}},
		{Rewards: []float64{0, 0}, LPM: []float64{-1, -1}},
	}
	p := AdvParams{Tau: 0.5, CAPONorm: "none"}
	adv := [][]float64{CAPO(groups[0], p), CAPO(groups[1], p)}
	mask := [][]float64{{1, 0, 1}, {1, 1}}
	d := Diagnose(groups, adv, mask, p.Tau)
	w1, w2 := sigmoid((-0.2+0.5)/0.5), sigmoid((-0.9+0.5)/0.5) // pair weights (misranked, ranked)
	if d.MixedGroups != 1 || d.MisrankedPairShare != 0.5 || math.Abs(d.MisrankedWeightShare-w1/(w1+w2)) > 1e-15 {
		t.Fatalf("pairs: %+v, want misranked weight share %v", d, w1/(w1+w2))
	}
	// Σ|A| per mixed group and the covariance read the applied advantages (response 1 is masked).
	pre := math.Abs(adv[0][0]) + math.Abs(adv[0][1]) + math.Abs(adv[0][2])
	applied := math.Abs(adv[0][0]) + math.Abs(adv[0][2])
	if math.Abs(d.AbsAdvPerMixedGroup-applied) > 1e-12 {
		t.Fatalf("Σ|A| per mixed group %v, want %v", d.AbsAdvPerMixedGroup, applied)
	}
	if want := math.Abs(adv[0][1]) / pre; math.Abs(d.MaskDroppedShare-want) > 1e-12 {
		t.Fatalf("mask share %v, want %v", d.MaskDroppedShare, want)
	}
	// Covariance over all 5 responses, per unit mean applied |A|.
	l := []float64{-0.5, -0.2, -0.9, -1, -1}
	a := []float64{adv[0][0], 0, adv[0][2], 0, 0}
	var ml, ma, mla float64
	for i := range l {
		ml, ma, mla = ml+l[i]/5, ma+a[i]/5, mla+l[i]*a[i]/5
	}
	if want := (mla - ml*ma) / (applied / 5); math.Abs(d.CovLPMPerAbsA-want) > 1e-12 {
		t.Fatalf("cov per |A| %v, want %v", d.CovLPMPerAbsA, want)
	}
	// Any estimator's advantages can be diagnosed; without a mask nothing is dropped.
	g := [][]float64{GRPO(groups[0], p), GRPO(groups[1], p)}
	if dg := Diagnose(groups, g, nil, 0); dg.MaskDroppedShare != 0 || dg.MixedGroups != 1 || dg.MisrankedWeightShare != 0.5 {
		t.Fatalf("GRPO diagnostics %+v", dg)
	}
	if z := Diagnose(nil, nil, nil, 0.5); z != (Diagnostics{}) {
		t.Fatalf("empty batch %+v", z)
	}
}

// The pair weight of a linear estimator carries its per-group constant: GRPO weighs a pair of a
// group by 1/(G·std), so a misranked pair in a low-variance group counts more than one in a
// balanced group; capo-gnorm's per-group rescaling is read off the advantages the same way.
func TestDiagnosePairWeights(t *testing.T) {
	groups := []Group{
		{Rewards: []float64{1, 0, 0, 0}, LPM: []float64{-0.5, -0.2, -0.9, -0.8}}, // 1 of 3 pairs misranked, std 0.5
		{Rewards: []float64{1, 1, 0, 0}, LPM: []float64{-0.5, -0.4, -0.9, -0.8}}, // none misranked, std 0.577
	}
	p := AdvParams{Eps: 0, Tau: 0.5, CAPONorm: "grpo"}
	adv := [][]float64{GRPO(groups[0], p), GRPO(groups[1], p)}
	c1, c2 := 1/(4*stdOf(groups[0].Rewards)), 1/(4*stdOf(groups[1].Rewards))
	want := c1 / (3*c1 + 4*c2)
	if d := Diagnose(groups, adv, nil, 0); math.Abs(d.MisrankedWeightShare-want) > 1e-12 || d.MisrankedPairShare != 1.0/7 {
		t.Fatalf("GRPO weight share %v (pair share %v), want %v and 1/7", d.MisrankedWeightShare, d.MisrankedPairShare, want)
	}
	// capo-gnorm: σ-shaped pairs, each group rescaled to GRPO's Σ|A|.
	cadv := [][]float64{CAPO(groups[0], p), CAPO(groups[1], p)}
	var mis, all float64
	for g, grp := range groups {
		var s, sMis, posA float64
		for i := range grp.Rewards {
			if grp.Rewards[i] < 0.5 {
				continue
			}
			posA += cadv[g][i]
			for j := range grp.Rewards {
				if grp.Rewards[j] > 0.5 {
					continue
				}
				w := sigmoid((grp.LPM[j] - grp.LPM[i]) / p.Tau)
				s += w
				if grp.LPM[j] > grp.LPM[i] {
					sMis += w
				}
			}
		}
		mis, all = mis+posA*sMis/s, all+posA
	}
	if d := Diagnose(groups, cadv, nil, p.Tau); math.Abs(d.MisrankedWeightShare-mis/all) > 1e-12 {
		t.Fatalf("capo-gnorm weight share %v, want %v", d.MisrankedWeightShare, mis/all)
	}
}

func stdOf(x []float64) float64 { _, s := meanStdUnbiased(x); return s }

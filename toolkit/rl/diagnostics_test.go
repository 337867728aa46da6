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
	abs := math.Abs(adv[0][0]) + math.Abs(adv[0][1]) + math.Abs(adv[0][2])
	if math.Abs(d.AbsAdvPerMixedGroup-abs) > 1e-12 {
		t.Fatalf("Σ|A| per mixed group %v, want %v", d.AbsAdvPerMixedGroup, abs)
	}
	if want := math.Abs(adv[0][1]) / abs; math.Abs(d.MaskDroppedShare-want) > 1e-12 {
		t.Fatalf("mask share %v, want %v", d.MaskDroppedShare, want)
	}
	// Covariance over all 5 responses, per unit mean |A|.
	l := []float64{-0.5, -0.2, -0.9, -1, -1}
	a := []float64{adv[0][0], adv[0][1], adv[0][2], 0, 0}
	var ml, ma, mla float64
	for i := range l {
		ml, ma, mla = ml+l[i]/5, ma+a[i]/5, mla+l[i]*a[i]/5
	}
	if want := (mla - ml*ma) / (abs / 5); math.Abs(d.CovLPMPerAbsA-want) > 1e-12 {
		t.Fatalf("cov per |A| %v, want %v", d.CovLPMPerAbsA, want)
	}
	// Any estimator's advantages can be diagnosed; without a mask nothing is dropped.
	g := [][]float64{GRPO(groups[0], p), GRPO(groups[1], p)}
	if dg := Diagnose(groups, g, nil, p.Tau); dg.MaskDroppedShare != 0 || dg.MixedGroups != 1 {
		t.Fatalf("GRPO diagnostics %+v", dg)
	}
	if z := Diagnose(nil, nil, nil, 0.5); z != (Diagnostics{}) {
		t.Fatalf("empty batch %+v", z)
	}
}

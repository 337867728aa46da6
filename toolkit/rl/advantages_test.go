package rl

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCAPOHandComputed(t *testing.T) {
	g := Group{Rewards: []float64{1, 0, 1, 0}, LPM: []float64{-0.1, -0.2, -0.5, -0.05}}
	p := AdvParams{Tau: 0.5, CAPONorm: "none"}
	s := sigmoid
	want := []float64{
		(s(-0.2) + s(0.1)) / 0.5,  // correct, lpm −0.1, against wrong −0.2 and −0.05
		-(s(-0.2) + s(0.6)) / 0.5, // wrong, lpm −0.2, against correct −0.1 and −0.5
		(s(0.6) + s(0.9)) / 0.5,   // correct but unsure (lpm −0.5): misranked against both wrong
		-(s(0.1) + s(0.9)) / 0.5,  // wrong but confident (lpm −0.05): misranked against both correct
	}
	got := CAPO(g, p)
	sum := 0.0
	for i := range want {
		if !near(got[i], want[i]) {
			t.Fatalf("CAPO = %v, want %v", got, want)
		}
		sum += got[i]
	}
	if !near(sum, 0) {
		t.Fatalf("CAPO advantages sum to %v, want 0", sum)
	}
	// Signs, and the misranked samples get the largest weights of their class.
	if !(got[0] > 0 && got[2] > 0 && got[1] < 0 && got[3] < 0) {
		t.Fatalf("signs wrong: %v", got)
	}
	if !(got[2] > got[0] && got[3] < got[1]) {
		t.Fatalf("misranked samples should weigh most: %v", got)
	}
	// Normalisations are constant rescalings.
	for norm, scale := range map[string]float64{"group": 1.0 / 4, "pairs": 1.0 / 4} {
		p.CAPONorm = norm
		for i, v := range CAPO(g, p) {
			if !near(v, want[i]*scale) {
				t.Fatalf("norm %s: %v", norm, CAPO(g, p))
			}
		}
	}
}

func TestDegenerateGroupsGiveZero(t *testing.T) {
	p := DefaultAdvParams()
	for _, rewards := range [][]float64{{1, 1, 1, 1}, {0, 0, 0, 0}} {
		g := Group{Rewards: rewards, LPM: []float64{-0.1, -0.9, -0.3, -2}}
		for name, est := range estimators {
			for i, a := range est.Advantages(g, p) {
				if a != 0 {
					t.Fatalf("%s on rewards %v: advantage[%d] = %v, want 0", name, rewards, i, a)
				}
			}
		}
	}
}

// TestGRPOIsPairwiseLinearUpToScale: for binary rewards, GRPO's advantage is the pairwise linear form
// (1/G)·Σ_j (R_i − R_j) (CAPO's diagnosis) divided by the group's standard deviation; Dr.GRPO is that form exactly.
func TestGRPOIsPairwiseLinearUpToScale(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	p := DefaultAdvParams()
	for trial := 0; trial < 200; trial++ {
		n := 2 + r.IntN(15)
		g := Group{Rewards: make([]float64, n), LPM: make([]float64, n)}
		for i := range g.Rewards {
			if r.Float64() < 0.4 {
				g.Rewards[i] = 1
			}
		}
		pair := make([]float64, n)
		for i := range pair {
			for j := range pair {
				pair[i] += g.Rewards[i] - g.Rewards[j]
			}
			pair[i] /= float64(n)
		}
		dr, gr := DrGRPO(g, p), GRPO(g, p)
		m := mean(g.Rewards)
		ss := 0.0
		for _, x := range g.Rewards {
			ss += (x - m) * (x - m)
		}
		std := math.Sqrt(ss / float64(n-1))
		for i := range pair {
			if !near(dr[i], pair[i]) || !near(gr[i], pair[i]/(std+p.Eps)) {
				t.Fatalf("rewards %v: pairwise %v, dr_grpo %v, grpo %v", g.Rewards, pair, dr, gr)
			}
		}
	}
}

// TestCAPOLargeTauIsDrGRPO: as τ grows every pair weight tends to σ(0)/τ = 1/(2τ), so τ·CAPO tends to
// (G/2)·Dr.GRPO: the logistic surrogate becomes the linear one.
func TestCAPOLargeTauIsDrGRPO(t *testing.T) {
	g := Group{Rewards: []float64{1, 0, 0, 1, 0}, LPM: []float64{-0.1, -0.3, -0.02, -1.2, -0.6}}
	tau := 1e6
	c := CAPO(g, AdvParams{Tau: tau, CAPONorm: "none"})
	d := DrGRPO(g, AdvParams{})
	for i := range c {
		if math.Abs(c[i]*tau-d[i]*float64(len(d))/2) > 1e-5 {
			t.Fatalf("τ·CAPO = %v vs (G/2)·Dr.GRPO = %v", c[i]*tau, d[i]*float64(len(d))/2)
		}
	}
}

func TestRLOOAndGRPONorm(t *testing.T) {
	g := Group{Rewards: []float64{1, 0, 0, 1}, LPM: []float64{-0.1, -0.3, -0.02, -1.2}}
	want := []float64{1 - 1.0/3, 0 - 2.0/3, 0 - 2.0/3, 1 - 1.0/3}
	for i, v := range RLOO(g, AdvParams{}) {
		if !near(v, want[i]) {
			t.Fatalf("RLOO = %v, want %v", RLOO(g, AdvParams{}), want)
		}
	}
	p := DefaultAdvParams()
	p.CAPONorm = "grpo"
	var mc, mg float64
	for i, v := range CAPO(g, p) {
		mc += math.Abs(v)
		mg += math.Abs(GRPO(g, p)[i])
	}
	if !near(mc, mg) {
		t.Fatalf("grpo-normalised CAPO mass %v, GRPO mass %v", mc, mg)
	}
	if _, err := EstimatorByName("ppo2"); err == nil {
		t.Fatal("unknown estimator accepted")
	}
	if err := (AdvParams{Tau: 0, CAPONorm: "group"}).Validate(); err == nil {
		t.Fatal("tau 0 accepted")
	}
}

func TestNoiseMaskFollowsSection12(t *testing.T) {
	th := MaskThresholds{High: 2.5, Low: 1.05}
	correct := []bool{true, true, true, false, false, false}
	ppl := []float64{1.2, 2.5, 3.0, 1.01, 1.05, 4.0}
	// correct: kept iff PPL ≤ 2.5 (a very unlikely correct answer is a lucky guess);
	// incorrect: kept iff PPL ≥ 1.05 (a very likely wrong answer is near-correct).
	want := []float64{1, 1, 0, 0, 1, 1}
	got := NoiseMask(correct, ppl, th)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("mask %v, want %v", got, want)
		}
	}
}

func TestThresholdsFromQuantiles(t *testing.T) {
	correct := []bool{true, true, true, true, true, false, false, false, false, false}
	ppl := []float64{1.0, 1.1, 1.2, 1.3, 1.4, 2.0, 3.0, 4.0, 5.0, 6.0}
	cross, err := ThresholdsFromQuantiles("cross", correct, ppl, 0.75, 0.25)
	if err != nil || !near(cross.High, 5.0) || !near(cross.Low, 1.1) {
		t.Fatalf("cross: %+v %v; want high = q75(incorrect) = 5, low = q25(correct) = 1.1", cross, err)
	}
	same, err := ThresholdsFromQuantiles("same", correct, ppl, 0.75, 0.25)
	if err != nil || !near(same.High, 1.3) || !near(same.Low, 3.0) {
		t.Fatalf("same: %+v %v; want high = q75(correct) = 1.3, low = q25(incorrect) = 3", same, err)
	}
	if _, err := ThresholdsFromQuantiles("cross", []bool{true}, []float64{1}, 0.75, 0.25); err == nil {
		t.Fatal("one class accepted")
	}
}

// A pairwise estimator carries its pair shape: CAPO's τ from the parameters; the linear ones none,
// so a new estimator is never diagnosed with another's shape by its name.
func TestEstimatorPairShape(t *testing.T) {
	p := DefaultAdvParams()
	p.Tau = 0.7
	for name, want := range map[string]float64{"capo": 0.7, "grpo": 0, "dr_grpo": 0, "rloo": 0} {
		s, err := EstimatorSpecByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.pairTau(p); got != want {
			t.Errorf("%s: pair τ %v, want %v", name, got, want)
		}
	}
	if _, err := EstimatorSpecByName("nope"); err == nil || !strings.Contains(err.Error(), "capo") {
		t.Fatalf("unknown estimator: %v", err)
	}
}

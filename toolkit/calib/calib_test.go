package calib

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestAUCHandComputed(t *testing.T) {
	cases := []struct {
		name string
		conf []float64
		ok   []bool
		want float64
	}{
		{"perfect", []float64{0.9, 0.8, 0.2, 0.1}, []bool{true, true, false, false}, 1},
		{"reversed", []float64{0.1, 0.2, 0.8, 0.9}, []bool{true, true, false, false}, 0},
		// pairs (pos,neg): (0.9,0.5)=1 (0.9,0.7)=1 (0.6,0.5)=1 (0.6,0.7)=0 → 3/4
		{"mixed", []float64{0.9, 0.6, 0.5, 0.7}, []bool{true, true, false, false}, 0.75},
		// all tied → ½
		{"all ties", []float64{0.5, 0.5, 0.5}, []bool{true, false, false}, 0.5},
		// pos {0.5, 0.9}, neg {0.5, 0.1}: (0.5,0.5)=½ (0.5,0.1)=1 (0.9,0.5)=1 (0.9,0.1)=1 → 3.5/4
		{"one tie", []float64{0.5, 0.9, 0.5, 0.1}, []bool{true, true, false, false}, 0.875},
		// negative log-probs work as scores
		{"lpm scores", []float64{-0.1, -2, -0.5}, []bool{true, false, false}, 1},
	}
	for _, c := range cases {
		got, err := AUC(c.conf, c.ok)
		if err != nil || !near(got, c.want) {
			t.Errorf("%s: AUC = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// bruteAUC counts pairs directly.
func bruteAUC(conf []float64, ok []bool) float64 {
	var s, n float64
	for i := range conf {
		for j := range conf {
			if ok[i] && !ok[j] {
				n++
				switch {
				case conf[i] > conf[j]:
					s++
				case conf[i] == conf[j]:
					s += 0.5
				}
			}
		}
	}
	return s / n
}

func randomCase(r *rand.Rand, n int) ([]float64, []bool) {
	conf := make([]float64, n)
	ok := make([]bool, n)
	for i := range conf {
		conf[i] = math.Round(r.Float64()*10) / 10 // many ties
		ok[i] = r.Float64() < conf[i]*0.8+0.1
	}
	ok[0], ok[1] = true, false
	return conf, ok
}

func TestAUCMatchesPairCountAndIsInvariantToMonotoneTransforms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		conf, ok := randomCase(r, 2+r.IntN(60))
		got, err := AUC(conf, ok)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteAUC(conf, ok); !near(got, want) {
			t.Fatalf("trial %d: AUC %v, pair count %v", trial, got, want)
		}
		for _, f := range []func(float64) float64{
			func(x float64) float64 { return math.Log(x + 1e-3) },
			func(x float64) float64 { return 7*x - 3 },
			func(x float64) float64 { return math.Exp(5 * x) },
			func(x float64) float64 { return 1 / (1 + math.Exp(-20*(x-0.5))) },
		} {
			tr := make([]float64, len(conf))
			for i, c := range conf {
				tr[i] = f(c)
			}
			if g2, _ := AUC(tr, ok); !near(g2, got) {
				t.Fatalf("trial %d: AUC changed under a monotone transform: %v -> %v", trial, got, g2)
			}
		}
		// A decreasing transform gives 1−AUC.
		neg := make([]float64, len(conf))
		for i, c := range conf {
			neg[i] = -c
		}
		if g3, _ := AUC(neg, ok); !near(g3, 1-got) {
			t.Fatalf("trial %d: AUC(−conf) = %v, want %v", trial, g3, 1-got)
		}
	}
}

func TestDegenerateInputIsAnError(t *testing.T) {
	if _, err := AUC(nil, nil); err == nil {
		t.Error("AUC(empty) gave no error")
	}
	if _, err := AUC([]float64{0.1, 0.2}, []bool{true}); err == nil {
		t.Error("AUC(mismatched) gave no error")
	}
	if _, err := AUC([]float64{0.1, 0.2}, []bool{true, true}); !errors.Is(err, ErrSingleClass) {
		t.Errorf("AUC(single class) = %v, want ErrSingleClass", err)
	}
	if _, err := AUC([]float64{math.NaN(), 0.2}, []bool{true, false}); err == nil {
		t.Error("AUC(NaN) gave no error")
	}
	if _, err := ECE([]float64{0.5, 1.5}, []bool{true, false}, 10); err == nil {
		t.Error("ECE(confidence 1.5) gave no error")
	}
	if _, err := ECE([]float64{0.5}, []bool{true}, 0); err == nil {
		t.Error("ECE(0 bins) gave no error")
	}
	if _, err := Brier([]float64{math.Inf(1)}, []bool{true}); err == nil {
		t.Error("Brier(Inf) gave no error")
	}
	if _, _, err := PrecisionCoverage(nil, nil); err == nil {
		t.Error("PrecisionCoverage(empty) gave no error")
	}
	if _, err := MajorityVote(nil); err == nil {
		t.Error("MajorityVote(empty) gave no error")
	}
	if _, err := RPCVote([]Sample{{Answer: "1", LogProb: math.NaN()}}); err == nil {
		t.Error("RPC vote with NaN gave no error")
	}
	if _, err := RPCVote(nil); err == nil {
		t.Error("RPCVote(empty) gave no error")
	}
}

func TestECEHandComputed(t *testing.T) {
	// 10 bins. 0.05,0.05 → bin 0 (acc 0.5, conf 0.05): |0.45|·2/6
	// 0.95 (correct), 1.0 (wrong) → bin 9 (acc .5, conf .975): |0.475|·2/6
	// 0.5 (correct), 0.5 (correct) → bin 5 (acc 1, conf .5): 0.5·2/6
	conf := []float64{0.05, 0.05, 0.95, 1.0, 0.5, 0.5}
	ok := []bool{true, false, true, false, true, true}
	want := (0.45 + 0.475 + 0.5) * 2 / 6
	got, err := ECE(conf, ok, 10)
	if err != nil || !near(got, want) {
		t.Fatalf("ECE = %v, %v; want %v", got, err, want)
	}
	mce, _ := MCE(conf, ok, 10)
	if !near(mce, 0.5) {
		t.Fatalf("MCE = %v; want 0.5", mce)
	}
	brier, _ := Brier(conf, ok)
	wantB := (0.95*0.95 + 0.05*0.05 + 0.05*0.05 + 1 + 0.25 + 0.25) / 6
	if !near(brier, wantB) {
		t.Fatalf("Brier = %v; want %v", brier, wantB)
	}
}

func TestBinEdges(t *testing.T) {
	for bins := 1; bins <= 20; bins++ {
		for b := 0; b <= bins; b++ {
			edge := float64(b) / float64(bins)
			want := b
			if b == bins {
				want = bins - 1
			}
			if got := binIndex(edge, bins); got != want {
				t.Fatalf("bins=%d: edge %v went to bin %d; want %d (inner edges go up, 1.0 to the last)", bins, edge, got, want)
			}
			if b > 0 {
				below := math.Nextafter(edge, 0)
				if got := binIndex(below, bins); got != b-1 {
					t.Fatalf("bins=%d: %v went to bin %d; want %d", bins, below, got, b-1)
				}
			}
		}
	}
}

func TestPerfectCalibrationHasZeroECE(t *testing.T) {
	// In each bin, accuracy equals the (constant) confidence.
	var conf []float64
	var ok []bool
	for _, p := range []float64{0.25, 0.75} {
		for i := 0; i < 4; i++ {
			conf = append(conf, p)
			ok = append(ok, float64(i) < p*4)
		}
	}
	if e, _ := ECE(conf, ok, 10); !near(e, 0) {
		t.Fatalf("ECE of a calibrated model = %v", e)
	}
}

func TestPrecisionCoverage(t *testing.T) {
	conf := []float64{0.9, 0.8, 0.8, 0.3}
	ok := []bool{true, false, true, false}
	cov, prec, err := PrecisionCoverage(conf, ok)
	if err != nil {
		t.Fatal(err)
	}
	wantCov := []float64{0.25, 0.75, 1}
	wantPrec := []float64{1, 2.0 / 3, 0.5}
	for i := range wantCov {
		if !near(cov[i], wantCov[i]) || !near(prec[i], wantPrec[i]) {
			t.Fatalf("curve = %v / %v; want %v / %v", cov, prec, wantCov, wantPrec)
		}
	}
	aurc, _ := AURC(conf, ok)
	if want := 0.25*0 + 0.5*(1.0/3) + 0.25*0.5; !near(aurc, want) {
		t.Fatalf("AURC = %v; want %v", aurc, want)
	}
	if p, _ := PrecisionAt(cov, prec, 0.5); !near(p, 2.0/3) {
		t.Fatalf("PrecisionAt(0.5) = %v", p)
	}
}

func TestVoting(t *testing.T) {
	s := []Sample{
		{Answer: "7", Path: "a", LogProb: -3},
		{Answer: "5", Path: "b", LogProb: -0.7},
		{Answer: "7", Path: "c", LogProb: -2.5},
		{Answer: "5", Path: "b", LogProb: -0.7},
		{Answer: "7", Path: "d", LogProb: -3},
	}
	if m, _ := MajorityVote(s); m != "7" {
		t.Fatalf("majority = %q; want 7", m)
	}
	// RPC: 5 → e^-0.7 (path b once) = 0.497; 7 → e^-3+e^-2.5+e^-3 = 0.182.
	if v, _ := RPCVote(s); v != "5" {
		t.Fatalf("RPC vote = %q; want 5", v)
	}
	// A path sampled again adds nothing, distinct paths add up: three distinct paths of 7 at
	// e^-1.2 each (0.904) beat one path of 5 at e^-0.2 (0.819) sampled three times.
	s2 := []Sample{{Answer: "5", Path: "x", LogProb: -0.2}, {Answer: "5", Path: "x", LogProb: -0.2}, {Answer: "5", Path: "x", LogProb: -0.2},
		{Answer: "7", Path: "p", LogProb: -1.2}, {Answer: "7", Path: "q", LogProb: -1.2}, {Answer: "7", Path: "r", LogProb: -1.2}}
	if v, _ := RPCVote(s2); v != "7" {
		t.Fatalf("RPC vote = %q; want 7", v)
	}
	if _, err := RPCVote([]Sample{{Answer: "1", Path: "a", LogProb: 0.5}}); err == nil {
		t.Fatal("a positive log-probability accepted")
	}
	tie := []Sample{{Answer: "b"}, {Answer: "a"}, {Answer: "a"}, {Answer: "b"}}
	if m, _ := MajorityVote(tie); m != "b" {
		t.Fatalf("tie went to %q; want the first sampled, b", m)
	}
}

// AURCOf on a curve equals AURC on the scores the curve came from.
func TestAURCOfMatchesAURC(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	conf, ok := randomCase(r, 200)
	a, err := AURC(conf, ok)
	if err != nil {
		t.Fatal(err)
	}
	cov, prec, _ := PrecisionCoverage(conf, ok)
	if b := AURCOf(cov, prec); a != b {
		t.Fatalf("AURC %v, AURCOf %v", a, b)
	}
}

// RPC's weights on a hand-made example: a path sampled three times counts once, so two distinct
// paths of answer "8" (0.15 + 0.10) outweigh the one path of "7" (0.20) that majority voting prefers.
func TestRPCMassHandExample(t *testing.T) {
	s := []Sample{
		{Answer: "7", Path: "1,3;7", LogProb: math.Log(0.20)},
		{Answer: "8", Path: "1,4;8", LogProb: math.Log(0.15)},
		{Answer: "7", Path: "1,3;7", LogProb: math.Log(0.20)},
		{Answer: "8", Path: "2,4;8", LogProb: math.Log(0.10)},
		{Answer: "7", Path: "1,3;7", LogProb: math.Log(0.20)},
	}
	mass, err := RPCMass(s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mass["7"]-0.20) > 1e-12 || math.Abs(mass["8"]-0.25) > 1e-12 || len(mass) != 2 {
		t.Fatalf("RPC mass %v, want 7: 0.20, 8: 0.25", mass)
	}
	if a, _ := RPCVote(s); a != "8" {
		t.Fatalf("RPC vote %q, want 8", a)
	}
	if a, _ := MajorityVote(s); a != "7" {
		t.Fatalf("majority vote %q, want 7", a)
	}
	if v := VoteShare(s, "7"); v != 0.6 {
		t.Fatalf("vote share of 7 = %v, want 0.6", v)
	}
	if _, err := RPCMass([]Sample{{Answer: "1", Path: "1", LogProb: 0.5}}); err == nil {
		t.Fatal("a positive log-probability was accepted")
	}
}

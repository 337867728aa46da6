package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The masked softmax sums to one, is zero where masked and matches exp(LogSoftmax); LogProb agrees
// with LogSoftmax; Greedy is the first largest available logit.
func TestSoftmaxLogProbGreedy(t *testing.T) {
	logits := []float32{0.5, 3, -1, 3, 2}
	mask := []bool{true, false, true, true, true}
	p := Softmax(logits, mask)
	lp := LogSoftmax(logits, mask)
	sum := 0.0
	for i, v := range p {
		sum += v
		if !mask[i] {
			if v != 0 || !math.IsInf(lp[i], -1) {
				t.Fatalf("masked entry %d: p %v, log p %v", i, v, lp[i])
			}
			continue
		}
		if math.Abs(math.Exp(lp[i])-v) > 1e-12 || LogProb(logits, mask, i) != lp[i] {
			t.Fatalf("entry %d: p %v, exp(log p) %v, LogProb %v", i, v, math.Exp(lp[i]), LogProb(logits, mask, i))
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Fatalf("sum %v", sum)
	}
	if g := Greedy(logits, mask); g != 3 {
		t.Fatalf("greedy %d, want 3 (entry 1 is masked)", g)
	}
	if g := Greedy(logits, nil); g != 1 {
		t.Fatalf("greedy without a mask %d, want the first maximum 1", g)
	}
}

// Sample's frequencies match the softmax, never pick a masked entry, and return the entry's
// log-probability; the same seed gives the same draws.
func TestSampleFrequencies(t *testing.T) {
	logits := []float64{1, 0, 2, -0.5}
	mask := []bool{true, true, false, true}
	p := Softmax(logits, mask)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200_000
	counts := make([]float64, len(logits))
	for range n {
		a, lp := Sample(r, logits, mask)
		if !mask[a] {
			t.Fatalf("sampled masked entry %d", a)
		}
		if lp != LogProb(logits, mask, a) {
			t.Fatalf("log-probability %v of %d, want %v", lp, a, LogProb(logits, mask, a))
		}
		counts[a]++
	}
	for i := range p {
		if f := counts[i] / n; math.Abs(f-p[i]) > 4*math.Sqrt(p[i]*(1-p[i])/n)+1e-9 {
			t.Fatalf("entry %d: frequency %.4f, probability %.4f", i, f, p[i])
		}
	}
	a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	x, y := []int{}, []int{}
	for range 100 {
		i, _ := Sample(a, logits, mask)
		j, _ := Sample(b, logits, mask)
		x, y = append(x, i), append(y, j)
	}
	for i := range x {
		if x[i] != y[i] {
			t.Fatal("same seed, different draws")
		}
	}
}

// Rows chooses per row with its own mask; greedy rows give their argmax and its log-probability.
func TestRows(t *testing.T) {
	logits := []float32{1, 5, 0, 2, 2, 9}
	masks := [][]bool{{true, false, true}, {true, true, false}}
	acts, logp := Rows(logits, 2, masks, rand.New(rand.NewPCG(1, 1)), true)
	if acts[0] != 0 || acts[1] != 0 {
		t.Fatalf("greedy %v, want [0 0] (the masked maxima 5 and 9 are skipped, ties go to the first)", acts)
	}
	if want := float32(LogProb(logits[3:], masks[1], 0)); logp[1] != want || math.Abs(float64(logp[1])-math.Log(0.5)) > 1e-6 {
		t.Fatalf("log p %v, want %v = log 0.5", logp[1], want)
	}
}

// SampleProbs follows the probabilities and falls back to the last index.
func TestSampleProbs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	p := []float64{0.2, 0.0, 0.8}
	c := 0
	for range 10_000 {
		switch SampleProbs(r, p) {
		case 1:
			t.Fatal("drew a zero-probability index")
		case 2:
			c++
		}
	}
	if c < 7700 || c > 8300 {
		t.Fatalf("index 2 drawn %d / 10000 times for p = 0.8", c)
	}
	if SampleProbs(r, []float64{0, 0}) != 1 {
		t.Fatal("no fallback to the last index")
	}
}

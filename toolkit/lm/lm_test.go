package lm

import (
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/backend"
)

func goBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func additionData(t testing.TB, tok *Tokenizer, seed uint64, n int) []Example {
	t.Helper()
	ps, err := arith.Generate(arith.Addition(), seed, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Example, n)
	for i, p := range ps {
		pr, err := tok.Encode(p.Prompt)
		if err != nil {
			t.Fatal(err)
		}
		co, err := tok.Encode(p.Completion())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = Example{Prompt: pr, Completion: co}
	}
	return out
}

func arithTok(t testing.TB) *Tokenizer {
	tok, err := NewTokenizer(arith.Alphabet)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestKVCacheMatchesFullForward: greedy generation with the KV cache returns, for every generated
// token, the log-probability that a full forward pass (Score) gives the same sequence.
func TestKVCacheMatchesFullForward(t *testing.T) {
	for _, positions := range []string{"learned", "rotary"} {
		t.Run(positions, func(t *testing.T) {
			tok := arithTok(t)
			c := ConfigR()
			c.Positions = positions
			c.InitStd = 0.3 // a random model with peaked, varied distributions
			m, err := NewOn(goBackend(t), c, tok, 3)
			if err != nil {
				t.Fatal(err)
			}
			data := additionData(t, tok, 1, 11)
			prompts := make([][]int32, len(data))
			for i, ex := range data {
				prompts[i] = ex.Prompt[:1+i%len(ex.Prompt)] // varied prompt lengths → left padding
			}
			gens, err := m.Sample(prompts, SampleConfig{MaxNew: 8, Temperature: 1, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			exs := make([]Example, len(gens))
			for i, g := range gens {
				if len(g.Tokens) == 0 {
					t.Fatalf("prompt %d: nothing generated", i)
				}
				exs[i] = Example{Prompt: prompts[i], Completion: g.Tokens}
			}
			scored, err := m.Score(exs, false)
			if err != nil {
				t.Fatal(err)
			}
			for i := range gens {
				if len(scored[i].LogProbs) != len(gens[i].LogProbs) {
					t.Fatalf("row %d: %d scored tokens, %d generated", i, len(scored[i].LogProbs), len(gens[i].LogProbs))
				}
				for j := range gens[i].LogProbs {
					if d := math.Abs(float64(gens[i].LogProbs[j] - scored[i].LogProbs[j])); d > 1e-4 {
						t.Fatalf("row %d token %d: cache log-prob %v, full forward %v", i, j, gens[i].LogProbs[j], scored[i].LogProbs[j])
					}
				}
			}
		})
	}
}

// TestSFTLossFalls is the smoke-scale learning check: 60 steps on 2-digit addition cut the loss by
// at least 40%.
func TestSFTLossFalls(t *testing.T) {
	tok := arithTok(t)
	m, err := NewOn(goBackend(t), ConfigR(), tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	train := additionData(t, tok, 1, 2000)
	eval := additionData(t, tok, 2, 128)
	opt := DefaultOpt(3e-3)
	opt.WarmupSteps = 10
	_, curves, err := TrainSFT(m, SFTConfig{Steps: 60, BatchSize: 64, Seed: 1, Opt: opt, EvalEvery: 60}, train, eval, SFTHooks{})
	if err != nil {
		t.Fatal(err)
	}
	first, last := curves["eval_loss"].Y[0], curves["eval_loss"].Y[len(curves["eval_loss"].Y)-1]
	t.Logf("eval loss %.3f -> %.3f", first, last)
	if !(last < 0.6*first) {
		t.Fatalf("eval loss fell from %.3f to %.3f; want below %.3f", first, last, 0.6*first)
	}
}

func TestNaNStopsWithStep(t *testing.T) {
	tok := arithTok(t)
	m, err := NewOn(goBackend(t), ConfigR(), tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.Weights()
	before := append([]float32(nil), w...)
	w[0] = float32(math.NaN())
	if err := m.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	train := additionData(t, tok, 1, 64)
	_, _, err = TrainSFT(m, SFTConfig{Steps: 3, BatchSize: 8, Opt: DefaultOpt(1e-3)}, train, nil, SFTHooks{})
	if err == nil || !contains(err.Error(), "sft step 1: loss = NaN") {
		t.Fatalf("err = %v; want it to name step 1 and the NaN loss", err)
	}
	after, _ := m.Weights()
	if !math.IsNaN(float64(after[0])) || after[1] != before[1] {
		t.Fatal("weights changed by a step with a NaN loss")
	}
}

func contains(s, sub string) bool { return len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0) }
func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

var _ = tensors.FromValue[[]float32]

// Extra heads come after every other weight: the shared weights are the same bytes as without them.
func TestExtraHeadsKeepLayout(t *testing.T) {
	c := ConfigR()
	plain, err := Init(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	c.ExtraHeads = []HeadSpec{{Name: "prm", Out: 2}}
	withHead, err := Init(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(withHead) != len(plain)+c.Dim*2+2 {
		t.Fatalf("%d weights with the head, %d without", len(withHead), len(plain))
	}
	for i := range plain {
		if plain[i] != withHead[i] {
			t.Fatalf("weight %d changed by adding a head", i)
		}
	}
	bad := c
	bad.ExtraHeads = []HeadSpec{{Name: "prm", Out: 2}, {Name: "prm", Out: 1}}
	if bad.Validate() == nil {
		t.Fatal("duplicate head names accepted")
	}
}

// Sampling with a stop token ends each completion right after it, and the completion up to the stop
// is that of an unstopped run with the same seed (one prompt per call: rows share the generator, so
// a row that stops early shifts the draws of the rows after it).
func TestSampleStopsAtStopToken(t *testing.T) {
	tok, err := NewTokenizer("ab#")
	if err != nil {
		t.Fatal(err)
	}
	c := ConfigR()
	c.Vocab = tok.Size()
	m, err := New(c, tok, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	hash := int32(5)
	seen := 0
	for seed := uint64(0); seed < 12; seed++ {
		prompt := [][]int32{{3, int32(3 + seed%2)}}
		full, err := m.Sample(prompt, SampleConfig{MaxNew: 10, Temperature: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		stopped, err := m.Sample(prompt, SampleConfig{MaxNew: 10, Temperature: 1, Seed: seed, Stop: []int32{hash}})
		if err != nil {
			t.Fatal(err)
		}
		f, g := full[0], stopped[0]
		cut := slices.Index(f.Tokens, hash)
		if cut < 0 {
			if g.Stopped || !slices.Equal(g.Tokens, f.Tokens) {
				t.Fatalf("seed %d: no stop token in %v but got %v (stopped %v)", seed, f.Tokens, g.Tokens, g.Stopped)
			}
			continue
		}
		seen++
		if !g.Stopped || g.Finished || !slices.Equal(g.Tokens, f.Tokens[:cut+1]) {
			t.Fatalf("seed %d: %v, want %v", seed, g.Tokens, f.Tokens[:cut+1])
		}
	}
	if seen == 0 {
		t.Fatal("no sample reached the stop token: the test checks nothing")
	}
}

// SampleKL of a model from itself on its own samples is about 0 (its sampled log-probabilities are
// its scores), from a different model it is the mean gap of the summed log-probabilities, and
// shifting every sampled token's log-probability by d moves it by d × tokens per sample.
func TestSampleKL(t *testing.T) {
	tok := arithTok(t)
	c := ConfigR()
	c.Vocab, c.InitStd = tok.Size(), 0.3
	m, err := NewOn(goBackend(t), c, tok, 3)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewOn(goBackend(t), c, tok, 4)
	if err != nil {
		t.Fatal(err)
	}
	data := additionData(t, tok, 1, 8)
	prompts := make([][]int32, len(data))
	for i, ex := range data {
		prompts[i] = ex.Prompt
	}
	gens, err := m.Sample(prompts, SampleConfig{MaxNew: 6, Temperature: 1, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	self, err := SampleKL(m, prompts, gens)
	if err != nil || math.Abs(self) > 1e-4 {
		t.Fatalf("KL from itself %v (%v)", self, err)
	}
	kl, err := SampleKL(other, prompts, gens)
	if err != nil || kl <= 0.01 {
		t.Fatalf("KL from another random model %v (%v), want clearly > 0", kl, err)
	}
	tokens := 0
	for i := range gens {
		for j := range gens[i].LogProbs {
			gens[i].LogProbs[j] += 0.5
			tokens++
		}
	}
	shifted, err := SampleKL(other, prompts, gens)
	if want := kl + 0.5*float64(tokens)/float64(len(gens)); err != nil || math.Abs(shifted-want) > 1e-3 {
		t.Fatalf("shifted KL %v, want %v (%v)", shifted, want, err)
	}
}

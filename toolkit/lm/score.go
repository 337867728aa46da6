package lm

import (
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/nn"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// ScoreBatch is the largest number of sequences scored in one graph call; smaller batches are
// padded up to a multiple of 8 rows so that a handful of shapes is compiled.
const ScoreBatch = 256

// Scored holds the model's view of one completion.
type Scored struct {
	// LogProbs[i] is log p(completion token i | prompt, earlier tokens) (EOS included when scored).
	LogProbs []float32
	// Entropy[i] is the entropy of the next-token distribution at that position.
	Entropy []float32
	// LPM is the mean of LogProbs (length-normalised log-likelihood, −log perplexity).
	LPM float64
}

// PPL is the perplexity exp(−LPM).
func (s Scored) PPL() float64 { return math.Exp(-s.LPM) }

// scoreFunc is the graph of per-token log-probabilities and entropies of a packed batch.
func (m *Model) scoreFunc() nn.Func {
	c := m.Config
	return nn.Func{Name: "lm-score", Inputs: append([]string{"tokens", "positions", "key_mask", "targets"}, c.EmbedInputs()...),
		Fn: func(w *Views, in In) []*Node {
			logits, _, _ := Forward(c, w, in)
			return []*Node{TokenLogProbs(logits, in.Get("targets")), TokenEntropy(logits)}
		}}
}

// Score returns, for each example, the log-probabilities of its completion tokens given its prompt
// (withEOS: an EOS is appended and scored, as after training on demonstrations).
func (m *Model) Score(examples []Example, withEOS bool) ([]Scored, error) {
	out := make([]Scored, 0, len(examples))
	for lo := 0; lo < len(examples); lo += ScoreBatch {
		hi := min(lo+ScoreBatch, len(examples))
		chunk := examples[lo:hi]
		padded := make([]Example, roundUp(len(chunk), 8))
		copy(padded, chunk)
		b, err := Pack(padded, FitWidth(chunk, m.Config.Context, withEOS), withEOS)
		if err != nil {
			return nil, err
		}
		for i := len(chunk); i < len(padded); i++ { // padding rows: nothing real
			for j := 0; j < b.T; j++ {
				b.KeyMask[i*b.T+j], b.LossMask[i*b.T+j] = 0, 0
			}
			b.CompletionLen[i] = 0
		}
		in := Inputs{Names: []string{"tokens", "positions", "key_mask", "targets"}, Values: []any{
			tensors.FromFlatDataAndDimensions(b.Tokens, b.B, b.T),
			tensors.FromFlatDataAndDimensions(b.Positions, b.B, b.T),
			tensors.FromFlatDataAndDimensions(b.KeyMask, b.B, b.T),
			tensors.FromFlatDataAndDimensions(b.Targets, b.B, b.T)}}
		if err := m.AddEmbedInputs(&in); err != nil {
			return nil, err
		}
		res, err := m.call(m.scoreFunc(), in)
		if err != nil {
			return nil, err
		}
		lp, err := tensors.CopyFlatData[float32](res[0])
		if err != nil {
			return nil, err
		}
		ent, err := tensors.CopyFlatData[float32](res[1])
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			r.FinalizeAll()
		}
		for i := range chunk {
			s := Scored{}
			start, n := b.CompletionStart[i], b.CompletionLen[i]
			sum := 0.0
			for j := start; j < start+n; j++ {
				s.LogProbs = append(s.LogProbs, lp[i*b.T+j])
				s.Entropy = append(s.Entropy, ent[i*b.T+j])
				sum += float64(lp[i*b.T+j])
			}
			if n > 0 {
				s.LPM = sum / float64(n)
			}
			if nn.Bad(s.LPM) {
				return nil, fmt.Errorf("lm: score of example %d is %v", lo+i, s.LPM)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// Loss is the SFT loss (mean negative log-likelihood per completion token, EOS included) on examples.
func (m *Model) Loss(examples []Example) (float64, error) {
	scored, err := m.Score(examples, true)
	if err != nil {
		return 0, err
	}
	var sum float64
	n := 0
	for _, s := range scored {
		for _, lp := range s.LogProbs {
			sum -= float64(lp)
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("lm: loss of no tokens")
	}
	return sum / float64(n), nil
}

func roundUp(n, k int) int { return (n + k - 1) / k * k }

// SampleKL is the Monte-Carlo KL divergence of the sampling policy from ref, E_{y~π}[log π(y|x) −
// log ref(y|x)], over generations sampled at temperature 1 (their own log-probabilities) from
// prompts (EOS included where a generation finished). Summed in the generations' order, so a
// caller gets the same bits from the same samples.
func SampleKL(ref *Model, prompts [][]int32, gens []Generation) (float64, error) {
	exs := make([]Example, len(gens))
	var own float64
	for i, g := range gens {
		exs[i] = Example{Prompt: prompts[i], Completion: g.Tokens}
		for _, lp := range g.LogProbs {
			own += float64(lp)
		}
	}
	scored, err := ref.Score(exs, false)
	if err != nil {
		return 0, err
	}
	var lp float64
	for _, sc := range scored {
		for _, v := range sc.LogProbs {
			lp += float64(v)
		}
	}
	return (own - lp) / float64(len(gens)), nil
}

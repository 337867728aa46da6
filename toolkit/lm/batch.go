package lm

import (
	"fmt"

	"github.com/gomlx/gomlx/core/tensors"
)

// Example is one training sequence: a prompt and its completion (token ids, without BOS/EOS).
type Example struct {
	Prompt     []int32
	Completion []int32
}

// Batch is a packed batch of right-padded sequences BOS·prompt·completion·EOS of fixed width
// (the model's context). Row b's input is Tokens[b], its next-token targets Targets[b]; LossMask
// marks the targets that belong to the completion (and its EOS).
type Batch struct {
	B, T      int
	Tokens    []int32   // [B·T]
	Targets   []int32   // [B·T]
	Positions []int32   // [B·T]
	KeyMask   []float32 // [B·T]: 1 for real input tokens
	LossMask  []float32 // [B·T]: 1 where the target is a completion token or EOS
	// CompletionStart[b] is the input index whose target is the first completion token.
	CompletionStart []int
	// CompletionLen[b] counts completion targets (completion tokens plus EOS when present).
	CompletionLen []int
}

// Pack builds a batch of width t from examples. withEOS appends EOS to each completion (training on
// demonstrations); RL packs sampled completions as they were generated (their EOS already inside).
// A sequence longer than the width is an error naming the example.
func Pack(examples []Example, t int, withEOS bool) (*Batch, error) {
	b := len(examples)
	p := &Batch{B: b, T: t, Tokens: make([]int32, b*t), Targets: make([]int32, b*t), Positions: make([]int32, b*t),
		KeyMask: make([]float32, b*t), LossMask: make([]float32, b*t), CompletionStart: make([]int, b), CompletionLen: make([]int, b)}
	for i, ex := range examples {
		seq := make([]int32, 0, 2+len(ex.Prompt)+len(ex.Completion))
		seq = append(seq, BOS)
		seq = append(seq, ex.Prompt...)
		seq = append(seq, ex.Completion...)
		if withEOS {
			seq = append(seq, EOS)
		}
		if len(seq)-1 > t {
			return nil, fmt.Errorf("lm: example %d has %d tokens with BOS/EOS, more than the context %d allows", i, len(seq), t+1)
		}
		row := i * t
		start := len(ex.Prompt) // input index whose target is the first completion token
		p.CompletionStart[i] = start
		for j := 0; j < t; j++ {
			p.Positions[row+j] = int32(j)
			if j < len(seq)-1 {
				p.Tokens[row+j] = seq[j]
				p.Targets[row+j] = seq[j+1]
				p.KeyMask[row+j] = 1
				if j >= start {
					p.LossMask[row+j] = 1
					p.CompletionLen[i]++
				}
			}
		}
	}
	return p, nil
}

// FitWidth returns the batch width for examples: the longest input (BOS·prompt·completion, with
// EOS when withEOS, minus the last token) rounded up to a multiple of 8 and capped by the context.
// Rounding keeps the number of compiled shapes small (3 for context 24) while short tasks do not pay
// for the full context.
func FitWidth(examples []Example, context int, withEOS bool) int {
	longest := 1
	for _, ex := range examples {
		n := 1 + len(ex.Prompt) + len(ex.Completion) // BOS + tokens, minus the final target
		if !withEOS {
			n--
		}
		longest = max(longest, n)
	}
	return min(roundUp(longest, 8), context)
}

// BatchInputs are the names of a packed batch's inputs, in the order Inputs and Tensors give them.
var BatchInputs = []string{"tokens", "positions", "key_mask", "targets", "loss_mask"}

// Inputs returns the batch as named inputs (BatchInputs); losses append their own.
func (p *Batch) Inputs() Inputs {
	return Inputs{Names: append([]string(nil), BatchInputs...), Values: p.Tensors()}
}

// Tensors returns tokens, positions, key mask, targets and loss mask as [B,T] tensors (BatchInputs'
// order), for calling a compiled graph directly.
func (p *Batch) Tensors() []any {
	return []any{
		tensors.FromFlatDataAndDimensions(p.Tokens, p.B, p.T),
		tensors.FromFlatDataAndDimensions(p.Positions, p.B, p.T),
		tensors.FromFlatDataAndDimensions(p.KeyMask, p.B, p.T),
		tensors.FromFlatDataAndDimensions(p.Targets, p.B, p.T),
		tensors.FromFlatDataAndDimensions(p.LossMask, p.B, p.T),
	}
}

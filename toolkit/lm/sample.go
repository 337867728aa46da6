package lm

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// SampleBatch is the largest number of prompts generated in one batch; smaller batches are padded
// up to a power of two (≥ 8) so that few shapes are compiled.
const SampleBatch = 128

// SampleConfig configures generation.
type SampleConfig struct {
	// MaxNew is the most tokens generated per prompt (EOS included).
	MaxNew int `json:"max_new"`
	// Temperature divides the logits before sampling; 0 means greedy (argmax).
	Temperature float64 `json:"temperature"`
	// TopK > 0 samples among the K most likely tokens only.
	TopK int `json:"top_k"`
	// Seed of the host-side sampling generator: the same seed gives the same samples.
	Seed uint64 `json:"seed"`
	// NoEOS never samples EOS, so every completion has MaxNew tokens (benchmarks use it to time a
	// fixed amount of work).
	NoEOS bool `json:"no_eos,omitempty"`
	// Stop ends a completion right after any of these tokens (kept; Generation.Stopped), e.g. a step
	// tag, to generate one reasoning step at a time.
	Stop []int32 `json:"stop,omitempty"`
}

// Generation is one sampled completion.
type Generation struct {
	// Tokens are the generated ids, ending with EOS when the model stopped by itself.
	Tokens []int32
	// LogProbs[i] is log p(Tokens[i]) under the model at temperature 1.
	LogProbs []float32
	// LPM is the mean of LogProbs (−log perplexity), the confidence score CAPO calibrates.
	LPM float64
	// Finished reports that the completion ended with EOS (not cut off by MaxNew or the context).
	Finished bool
	// Stopped reports that it ended with a SampleConfig.Stop token.
	Stopped bool
}

// Text decodes the completion (without EOS).
func (g Generation) Text(tok *Tokenizer) string { return tok.Decode(g.Tokens) }

// prefillFunc runs the left-padded prompts through the model: the last position's logits and the
// KV cache, with room for the generated tokens.
func (m *Model) prefillFunc() nn.Func {
	c := m.Config
	return nn.Func{Name: "lm-prefill", Inputs: append([]string{"tokens", "positions", "key_mask"}, c.EmbedInputs()...),
		Fn: func(w *Views, in In) []*Node {
			tokens, keyMaskFull := in.Get("tokens"), in.Get("key_mask")
			g := tokens.Graph()
			b, p := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
			tmax := keyMaskFull.Shape().Dimensions[1]
			in["key_mask"] = SliceAxis(keyMaskFull, 1, AxisRange(0, p))
			logits, ks, vs := Forward(c, w, in)
			last := Reshape(SliceAxis(logits, 1, AxisElem(p-1)), b, c.Vocab)
			stack := func(xs []*Node) *Node {
				all := make([]*Node, len(xs))
				for i, x := range xs {
					all[i] = InsertAxes(x, 0) // [1,B,P,H,Dh]
				}
				cache := Concatenate(all, 0) // [L,B,P,H,Dh]
				if tmax > p {                // room for the generated tokens (no Pad op on ORT: concatenate zeros)
					zeros := Zeros(g, shapes.Make(dtypes.Float32, c.Layers, b, tmax-p, c.Heads, c.HeadDim()))
					cache = Concatenate([]*Node{cache, zeros}, 2)
				}
				return cache
			}
			return []*Node{last, stack(ks), stack(vs)}
		}}
}

// decodeFunc is one KV-cache decode step (DecodeStep): new tokens and positions [B], the cache
// column they are written to (scalar), the key mask [B,Tmax] and the caches.
func (m *Model) decodeFunc() nn.Func {
	c := m.Config
	return nn.Func{Name: "lm-decode", Inputs: []string{"tokens", "positions", "col", "key_mask", "cache_k", "cache_v"},
		Fn: func(w *Views, in In) []*Node {
			logits, k, v := DecodeStep(c, w, in.Get("tokens"), in.Get("positions"), in.Get("col"), in.Get("key_mask"), in.Get("cache_k"), in.Get("cache_v"))
			return []*Node{logits, k, v}
		}}
}

// Sample generates completions for prompts (token ids without BOS) with a KV cache: one prefill
// call on the left-padded prompts, then one decode call per new token. Sampling happens on the host
// from the returned logits with a seeded generator, so it is reproducible and engine-independent up
// to float rounding of the logits.
func (m *Model) Sample(prompts [][]int32, sc SampleConfig) ([]Generation, error) {
	if sc.MaxNew < 1 {
		return nil, fmt.Errorf("lm: sample max_new = %d, need ≥ 1", sc.MaxNew)
	}
	if sc.Temperature < 0 || sc.TopK < 0 {
		return nil, fmt.Errorf("lm: sample temperature %v and top_k %d must be ≥ 0", sc.Temperature, sc.TopK)
	}
	out := make([]Generation, 0, len(prompts))
	for lo, chunk := 0, 0; lo < len(prompts); lo, chunk = lo+SampleBatch, chunk+1 {
		hi := min(lo+SampleBatch, len(prompts))
		gens, err := m.sampleChunk(prompts[lo:hi], sc, rand.New(rand.NewPCG(sc.Seed, uint64(chunk))))
		if err != nil {
			return nil, err
		}
		out = append(out, gens...)
	}
	return out, nil
}

// Bucket is the batch size a batch of n rows is padded to: the smallest power of two from 8 that
// holds n. Padding to it bounds the number of compiled shapes while the batch size varies.
func Bucket(n int) int {
	b := 8
	for b < n {
		b *= 2
	}
	return b
}

func (m *Model) sampleChunk(prompts [][]int32, sc SampleConfig, r *rand.Rand) ([]Generation, error) {
	c := m.Config
	n := len(prompts)
	b := Bucket(n)
	plen := make([]int, b) // prompt length with BOS
	p := 0
	for i, pr := range prompts {
		plen[i] = len(pr) + 1
		p = max(p, plen[i])
	}
	for i := n; i < b; i++ {
		plen[i] = 1 // padding rows: just BOS
	}
	p = min(roundUp(p, 4), c.Context)
	if p >= c.Context {
		return nil, fmt.Errorf("lm: a prompt of %d tokens (with BOS) leaves no room in the context %d", p, c.Context)
	}
	tmax := min(p+sc.MaxNew, c.Context)
	tokens := make([]int32, b*p)
	pos := make([]int32, b*p)
	keyMask := make([]float32, b*tmax)
	for i := 0; i < b; i++ {
		pad := p - plen[i]
		for j := 0; j < p; j++ {
			if j >= pad {
				k := j - pad
				if k == 0 {
					tokens[i*p+j] = BOS
				} else {
					tokens[i*p+j] = prompts[i][k-1]
				}
				pos[i*p+j] = int32(k)
				keyMask[i*tmax+j] = 1
			}
		}
	}
	in := Inputs{Names: []string{"tokens", "positions", "key_mask"}, Values: []any{
		tensors.FromFlatDataAndDimensions(tokens, b, p),
		tensors.FromFlatDataAndDimensions(pos, b, p),
		tensors.FromFlatDataAndDimensions(keyMask, b, tmax)}}
	if err := m.AddEmbedInputs(&in); err != nil {
		return nil, err
	}
	res, err := m.call(m.prefillFunc(), in)
	if err != nil {
		return nil, err
	}
	logits, cacheK, cacheV := res[0], res[1], res[2]
	gens := make([]Generation, n)
	done := make([]bool, b)
	for i := n; i < b; i++ {
		done[i] = true
	}
	next := make([]int32, b)
	nextPos := make([]int32, b)
	for t := 0; ; t++ {
		lg, err := tensors.CopyFlatData[float32](logits)
		logits.FinalizeAll()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if done[i] {
				continue
			}
			row := lg[i*c.Vocab : (i+1)*c.Vocab]
			tok, lp := pick(row, sc, r)
			gens[i].Tokens = append(gens[i].Tokens, tok)
			gens[i].LogProbs = append(gens[i].LogProbs, lp)
			next[i] = tok
			nextPos[i] = int32(plen[i] + t)
			switch {
			case tok == EOS:
				done[i], gens[i].Finished = true, true
			case len(sc.Stop) > 0 && slices.Contains(sc.Stop, tok):
				done[i], gens[i].Stopped = true, true
			case len(gens[i].Tokens) >= sc.MaxNew || plen[i]+t+1 >= c.Context || p+t+1 >= tmax:
				done[i] = true // cut off
			}
		}
		if allTrue(done) {
			break
		}
		col := p + t
		for i := 0; i < b; i++ {
			keyMask[i*tmax+col] = 1
			if done[i] {
				next[i], nextPos[i] = PAD, 0
			}
		}
		var step Inputs
		step.Add("tokens", tensors.FromFlatDataAndDimensions(append([]int32(nil), next...), b))
		step.Add("positions", tensors.FromFlatDataAndDimensions(append([]int32(nil), nextPos...), b))
		step.Add("col", int32(col))
		step.Add("key_mask", tensors.FromFlatDataAndDimensions(append([]float32(nil), keyMask...), b, tmax))
		step.Add("cache_k", cacheK)
		step.Add("cache_v", cacheV)
		res, err = m.call(m.decodeFunc(), step)
		cacheK.FinalizeAll()
		cacheV.FinalizeAll()
		if err != nil {
			return nil, err
		}
		logits, cacheK, cacheV = res[0], res[1], res[2]
	}
	cacheK.FinalizeAll()
	cacheV.FinalizeAll()
	for i := range gens {
		s := 0.0
		for _, lp := range gens[i].LogProbs {
			s += float64(lp)
		}
		gens[i].LPM = s / float64(len(gens[i].LogProbs))
	}
	return gens, nil
}

func allTrue(x []bool) bool {
	for _, v := range x {
		if !v {
			return false
		}
	}
	return true
}

// pick chooses the next token from one row of logits and returns it with its log-probability at
// temperature 1. PAD and BOS are never produced.
func pick(row []float32, sc SampleConfig, r *rand.Rand) (int32, float32) {
	v := len(row)
	first := EOS
	if sc.NoEOS {
		first = NumSpecial
	}
	norm := make([]bool, v) // the distribution: EOS and symbols (PAD and BOS are never produced)
	for i := EOS; i < v; i++ {
		norm[i] = true
	}
	logp := dist.LogSoftmax(row, norm)
	if sc.Temperature == 0 {
		tok := first + dist.Greedy(logp[first:], nil)
		return int32(tok), float32(logp[tok])
	}
	cand := make([]int, 0, v)
	for i := first; i < v; i++ {
		cand = append(cand, i)
	}
	if sc.TopK > 0 && sc.TopK < len(cand) {
		sort.SliceStable(cand, func(a, b int) bool { return logp[cand[a]] > logp[cand[b]] })
		cand = cand[:sc.TopK]
	}
	scaled := make([]float64, len(cand)) // log-probabilities at the temperature
	for k, i := range cand {
		scaled[k] = logp[i] / sc.Temperature
	}
	k, _ := dist.Sample(r, scaled, nil)
	tok := cand[k]
	return int32(tok), float32(logp[tok])
}

// Repeat is k copies of prompts, one after the other: sample r of prompt q at r·len(prompts) + q,
// the order every caller that samples several completions per prompt reads back.
func Repeat(prompts [][]int32, k int) [][]int32 {
	out := make([][]int32, 0, k*len(prompts))
	for range k {
		out = append(out, prompts...)
	}
	return out
}

// Package lm is PaperLab's tiny decoder-only transformer: model, tokenizer, SFT trainer, KV-cache
// sampling with per-token log-probabilities, scoring of given continuations, and checkpoints.
//
// Layout (GoMLX style, kept apart):
//   - config.go, tokenizer.go: what the model is and what it reads;
//   - params.go: the model state — all weights in one flat float32 vector with a named layout
//     (toolkit/nn's Layout and Model, shared with the multi-agent nets);
//   - graph.go: pure graph functions (forward pass, KV-cache decode, losses) on *graph.Node;
//   - trainer.go: the update step any loss plugs into (toolkit/nn's Adam/AdamW, clipping,
//     warmup+cosine schedule, NaN check); batch.go: packing examples into padded batches;
//   - sft.go: the SFT loop (progress, eval, curves); sample.go, score.go: inference;
//   - checkpoint.go: atomic save and exact load (toolkit/nn's format, with the model's config).
//
// Keeping every weight in one flat vector makes the optimizer a handful of graph ops instead of a
// dozen per weight tensor, makes a reference model just another vector fed to the same compiled
// graph, and makes checkpoints exact byte copies.
package lm

import (
	"fmt"
)

// Config describes the transformer.
type Config struct {
	// Vocab is the number of token ids (the tokenizer's size).
	Vocab int `json:"vocab"`
	// Context is the longest sequence the model handles (positions 0..Context-1).
	Context int `json:"context"`
	// Layers, Dim and Heads: depth, width and attention heads (Dim must be a multiple of Heads).
	Layers int `json:"layers"`
	Dim    int `json:"dim"`
	Heads  int `json:"heads"`
	// FF is the feed-forward hidden width (0: 4·Dim).
	FF int `json:"ff"`
	// Positions is "learned" (absolute embeddings) or "rotary" (RoPE on queries and keys).
	Positions string `json:"positions"`
	// Activation is "gelu" (exact, erf), "gelu_tanh" (tanh approximation) or "relu".
	Activation string `json:"activation"`
	// InitStd is the standard deviation of the normal initialisation (GPT-2: 0.02); residual output
	// projections are scaled by 1/sqrt(2·Layers).
	InitStd float64 `json:"init_std"`
	// ExtraHeads are heads read from the hidden states beside the next-token head (e.g. a 2-way
	// process-reward head, a value head); see Head. Their weights come after every other weight, so
	// a configuration without them has exactly the layout and initial weights it always had.
	ExtraHeads []HeadSpec `json:"extra_heads,omitempty"`
	// Renderer names a patch embedder's renderer (RegisterRenderer): tokens it renders (e.g. a
	// problem statement drawn as glyphs) reach the trunk as Pixels-long pixel vectors through a
	// linear patch embedding, never as token ids; "" is the token embedder alone.
	Renderer string `json:"renderer,omitempty"`
	Pixels   int    `json:"pixels,omitempty"`
	// PatchAdd adds a rendered position's patch embedding to its token's embedding instead of
	// replacing it: one position then carries a token and an observation (a decision transformer
	// with one token per step: the return-to-go bin and previous action as the token, the
	// observation as the patch). False: the patch replaces the token.
	PatchAdd bool `json:"patch_add,omitempty"`
	// PatchHidden > 0 makes the patch embedding a one-hidden-layer MLP (Pixels → PatchHidden,
	// the trunk's activation, → Dim) instead of linear: per-observation features that are
	// conjunctions of pixels (e.g. where a goal lies relative to the agent) — a decision
	// transformer's observation encoder. 0: linear (every earlier configuration's graph and layout).
	PatchHidden int `json:"patch_hidden,omitempty"`
}

// HeadSpec declares an extra head: Out outputs per position, weights "heads/<Name>/w" [Dim, Out]
// and "heads/<Name>/bias" [Out]; with Features > 0 the head also reads that many per-position
// features given beside the hidden states (weights "heads/<Name>/features" [Features, Out]; see
// HeadWithFeatures).
type HeadSpec struct {
	Name     string `json:"name"`
	Out      int    `json:"out"`
	Features int    `json:"features,omitempty"`
}

// ConfigR is the reference configuration R of the benchmarks: 2 layers, d=64, 4 heads, vocabulary
// 20, context 24, FF 4·d, GELU, learned positions.
func ConfigR() Config {
	return Config{Vocab: 20, Context: 24, Layers: 2, Dim: 64, Heads: 4, FF: 256, Positions: "learned", Activation: "gelu", InitStd: 0.02}
}

// For is the configuration with the vocabulary of tok (a task's own tokenizer): ConfigR().For(tok).
func (c Config) For(tok *Tokenizer) Config {
	c.Vocab = tok.Size()
	return c
}

// FFDim returns the feed-forward width.
func (c Config) FFDim() int {
	if c.FF > 0 {
		return c.FF
	}
	return 4 * c.Dim
}

// HeadDim is Dim/Heads.
func (c Config) HeadDim() int { return c.Dim / c.Heads }

// Validate returns an error naming the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.Vocab < 4:
		return fmt.Errorf("lm config: vocab = %d, need ≥ 4 (3 special tokens and one symbol)", c.Vocab)
	case c.Context < 2:
		return fmt.Errorf("lm config: context = %d, need ≥ 2", c.Context)
	case c.Layers < 1:
		return fmt.Errorf("lm config: layers = %d, need ≥ 1", c.Layers)
	case c.Dim < 1 || c.Heads < 1 || c.Dim%c.Heads != 0:
		return fmt.Errorf("lm config: dim = %d must be a positive multiple of heads = %d", c.Dim, c.Heads)
	case c.FF < 0:
		return fmt.Errorf("lm config: ff = %d", c.FF)
	case c.Positions != "learned" && c.Positions != "rotary":
		return fmt.Errorf("lm config: positions = %q, want learned or rotary", c.Positions)
	case c.Positions == "rotary" && c.HeadDim()%2 != 0:
		return fmt.Errorf("lm config: rotary positions need an even head dimension, got %d", c.HeadDim())
	case c.Activation != "gelu" && c.Activation != "gelu_tanh" && c.Activation != "relu":
		return fmt.Errorf("lm config: activation = %q, want gelu, gelu_tanh or relu", c.Activation)
	case !(c.InitStd > 0):
		return fmt.Errorf("lm config: init_std = %v, need > 0", c.InitStd)
	}
	if c.PatchHidden < 0 || (c.PatchHidden > 0 && c.Renderer == "") {
		return fmt.Errorf("lm config: patch_hidden = %d needs ≥ 0 and a patch embedder (renderer, pixels)", c.PatchHidden)
	}
	if c.PatchAdd && c.Renderer == "" {
		return fmt.Errorf("lm config: patch_add without a patch embedder (renderer, pixels)")
	}
	if (c.Renderer == "") != (c.Pixels == 0) || c.Pixels < 0 {
		return fmt.Errorf("lm config: renderer = %q with pixels = %d: a patch embedder needs both", c.Renderer, c.Pixels)
	}
	seen := map[string]bool{}
	for i, h := range c.ExtraHeads {
		if h.Name == "" || h.Out < 1 || h.Features < 0 || seen[h.Name] {
			return fmt.Errorf("lm config: extra_heads[%d] = %+v: need a unique non-empty name, out ≥ 1 and features ≥ 0", i, h)
		}
		seen[h.Name] = true
	}
	return nil
}

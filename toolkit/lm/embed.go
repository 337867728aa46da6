package lm

import (
	"fmt"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/registry"
)

// A Renderer draws the tokens of a sequence that a patch embedder sees as pixels: for each position
// of seq (BOS first, then prompt and completion ids; PAD for padding) a pixel vector of the model's
// Pixels length, or nil for a position read as a token. It must be a pure function of seq (a scene
// is drawn the same way every time it is fed: training, scoring and sampling agree).
type Renderer func(tok *Tokenizer, seq []int32, pixels int) ([][]float32, error)

var renderers = registry.New[Renderer]("renderer")

// InputPatches is the Renderer name of a patch embedder whose pixels are not drawn from tokens but
// supplied with every batch ("patches" [B,T,Pixels], "patch_mask" [B,T]): continuous observations
// of a decision transformer, for instance. Nothing is registered under it.
const InputPatches = "input"

// RegisterRenderer makes a renderer available to models whose Config.Renderer names it (a task
// package registers its renderer in init). Registering a name twice panics.
func RegisterRenderer(name string, r Renderer) { renderers.Add(name, r) }

// EmbedInputs are the batch inputs the configured embedder reads beside tokens and positions:
// none for the token embedder, "patches" [B,T,Pixels] and "patch_mask" [B,T] for a patch embedder.
func (c Config) EmbedInputs() []string {
	if c.Renderer == "" {
		return nil
	}
	return []string{"patches", "patch_mask"}
}

// Render returns the patch embedder's inputs for token rows [B,T] (flat): pixels [B,T,Pixels] and
// the mask of rendered positions [B,T] (nil, nil for the token embedder).
func (m *Model) Render(tokens []int32, b, t int) (patches, mask *tensors.Tensor, err error) {
	c := m.Config
	if c.Renderer == "" {
		return nil, nil, nil
	}
	if c.Renderer == InputPatches {
		return nil, nil, fmt.Errorf("lm: a model with renderer %q reads patches given with the batch; there is nothing to render", InputPatches)
	}
	r, err := renderers.Get(c.Renderer)
	if err != nil {
		return nil, nil, fmt.Errorf("lm: %w (import the task package that registers it)", err)
	}
	pix := make([]float32, b*t*c.Pixels)
	msk := make([]float32, b*t)
	for i := 0; i < b; i++ {
		rows, err := r(m.Tok, tokens[i*t:(i+1)*t], c.Pixels)
		if err != nil {
			return nil, nil, fmt.Errorf("lm: renderer %s, row %d: %w", c.Renderer, i, err)
		}
		if len(rows) != t {
			return nil, nil, fmt.Errorf("lm: renderer %s drew %d positions of a row of %d", c.Renderer, len(rows), t)
		}
		for j, px := range rows {
			if px == nil {
				continue
			}
			if len(px) != c.Pixels {
				return nil, nil, fmt.Errorf("lm: renderer %s drew %d pixels at row %d position %d, the model reads %d", c.Renderer, len(px), i, j, c.Pixels)
			}
			msk[i*t+j] = 1
			copy(pix[(i*t+j)*c.Pixels:], px)
		}
	}
	return tensors.FromFlatDataAndDimensions(pix, b, t, c.Pixels), tensors.FromFlatDataAndDimensions(msk, b, t), nil
}

// AddEmbedInputs appends the embedder's inputs, rendered from the batch's "tokens" (a [B,T] tensor), to in.
// With InputPatches the batch must already carry them (an error names what is missing).
func (m *Model) AddEmbedInputs(in *Inputs) error {
	if m.Config.Renderer == "" {
		return nil
	}
	if m.Config.Renderer == InputPatches {
		for _, name := range m.Config.EmbedInputs() {
			if in.Value(name) == nil {
				return fmt.Errorf("lm: renderer %q: the batch must carry %q (it has %v)", InputPatches, name, in.Names)
			}
		}
		return nil
	}
	tok, ok := in.Value("tokens").(*tensors.Tensor)
	if !ok {
		return fmt.Errorf("lm: the batch's tokens are a %T, want a tensor", in.Value("tokens"))
	}
	dims := tok.Shape().Dimensions
	flat, err := tensors.CopyFlatData[int32](tok)
	if err != nil {
		return err
	}
	p, mk, err := m.Render(flat, dims[0], dims[1])
	if err != nil {
		return err
	}
	in.Add("patches", p)
	in.Add("patch_mask", mk)
	return nil
}

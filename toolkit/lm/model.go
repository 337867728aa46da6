package lm

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// Model is a tiny transformer: its configuration, tokenizer, and its flat weights with their layout
// (nn.Model: Layout, Params, compiled graphs shared by clones).
type Model struct {
	Config Config
	Tok    *Tokenizer
	nn.Model
}

// OptConfig, DefaultOpt and StepStats are toolkit/nn's, re-exported for the LM's users.
type (
	OptConfig = nn.OptConfig
	StepStats = nn.StepStats
)

// DefaultOpt is Adam with PyTorch's defaults at learning rate lr, no clipping, constant rate.
var DefaultOpt = nn.DefaultOpt

// New creates a model with weights initialised from seed, on the process-wide engine
// (toolkit/backend). The configuration's Vocab must equal the tokenizer's size.
func New(c Config, tok *Tokenizer, seed uint64) (*Model, error) {
	b, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	return NewOn(b, c, tok, seed)
}

// NewOn is New on a given engine.
func NewOn(b compute.Backend, c Config, tok *Tokenizer, seed uint64) (*Model, error) {
	if tok != nil && c.Vocab != tok.Size() {
		return nil, fmt.Errorf("lm: config vocab %d ≠ tokenizer size %d", c.Vocab, tok.Size())
	}
	flat, err := Init(c, seed)
	if err != nil {
		return nil, err
	}
	return fromFlat(b, c, tok, flat)
}

func fromFlat(b compute.Backend, c Config, tok *Tokenizer, flat []float32) (*Model, error) {
	nm, err := nn.NewModel(b, NewLayout(c), flat)
	if err != nil {
		return nil, err
	}
	return &Model{Config: c, Tok: tok, Model: nm}, nil
}

// NumParams is the number of weights.
func (m *Model) NumParams() int { return m.Layout.Size }

// Clone returns a model with a copy of the weights (e.g. a frozen reference model) that shares the
// compiled graphs.
func (m *Model) Clone() (*Model, error) {
	nm, err := m.CloneWeights()
	if err != nil {
		return nil, err
	}
	return &Model{Config: m.Config, Tok: m.Tok, Model: nm}, nil
}

// call runs a graph on the model's weights and named inputs (nn.Model.Call) and converts GoMLX's
// panics into errors.
func (m *Model) call(f nn.Func, in Inputs) ([]*tensors.Tensor, error) {
	out, err := m.Model.Call(f, in)
	if err != nil {
		return nil, fmt.Errorf("lm: %w", err)
	}
	return out, nil
}

// WithHeads returns a new model of m's configuration plus the extra heads: m's weights (copied) for
// everything m has, the new heads' weights initialised from seed (Init's rule). A process reward
// model or a value model starts from a policy this way.
func (m *Model) WithHeads(seed uint64, heads ...HeadSpec) (*Model, error) {
	c := m.Config
	c.ExtraHeads = append(append([]HeadSpec(nil), c.ExtraHeads...), heads...)
	flat, err := Init(c, seed)
	if err != nil {
		return nil, err
	}
	w, err := m.Weights()
	if err != nil {
		return nil, err
	}
	copy(flat, w) // extra heads come after every other weight
	return fromFlat(m.Backend(), c, m.Tok, flat)
}

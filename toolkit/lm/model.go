package lm

import (
	"fmt"
	"sync"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/backend"
)

// Model is a tiny transformer: its configuration, tokenizer, weight layout and the flat weight
// vector (a tensor that stays on the engine between calls). Clones share compiled graphs.
type Model struct {
	Config Config
	Tok    *Tokenizer
	Layout Layout
	Params *tensors.Tensor

	rt *runtime
}

// runtime holds the engine and the compiled graphs of one configuration; it is shared by clones
// (reference models), since every graph takes the weights as an input.
type runtime struct {
	backend compute.Backend
	mu      sync.Mutex
	execs   map[string]*Exec
}

func (r *runtime) exec(key string, build func() *Exec) *Exec {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.execs[key]; ok {
		return e
	}
	e := build()
	r.execs[key] = e
	return e
}

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
	return fromFlat(b, c, tok, flat), nil
}

func fromFlat(b compute.Backend, c Config, tok *Tokenizer, flat []float32) *Model {
	return &Model{Config: c, Tok: tok, Layout: NewLayout(c), Params: tensors.FromFlatDataAndDimensions(flat, len(flat)),
		rt: &runtime{backend: b, execs: map[string]*Exec{}}}
}

// Backend is the engine the model runs on.
func (m *Model) Backend() compute.Backend { return m.rt.backend }

// NumParams is the number of weights.
func (m *Model) NumParams() int { return m.Layout.Size }

// Clone returns a model with a copy of the weights (e.g. a frozen reference model) that shares
// the compiled graphs.
func (m *Model) Clone() (*Model, error) {
	flat, err := m.Weights()
	if err != nil {
		return nil, err
	}
	c := *m
	c.Params = tensors.FromFlatDataAndDimensions(flat, len(flat))
	return &c, nil
}

// Weights copies the flat weight vector to the host.
func (m *Model) Weights() ([]float32, error) {
	return tensors.CopyFlatData[float32](m.Params)
}

// SetWeights replaces the weights (length must match the layout).
func (m *Model) SetWeights(flat []float32) error {
	if len(flat) != m.Layout.Size {
		return fmt.Errorf("lm: %d weights given, the layout has %d", len(flat), m.Layout.Size)
	}
	m.Params = tensors.FromFlatDataAndDimensions(append([]float32(nil), flat...), len(flat))
	return nil
}

// call runs a compiled graph and converts GoMLX's panics into errors.
func call(e *Exec, args ...any) (out []*tensors.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("lm: %v", r)
		}
	}()
	return e.Call(args...)
}

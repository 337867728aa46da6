// Package nn is PaperLab's small neural-network core shared by every model (the tiny LM, MARL
// actors and critics): all weights of a model live in one flat float32 vector with a named layout;
// graph-side Views slice it into weights and take gradients back as one flat vector; Adam(W) with
// clipping and a warmup+cosine schedule updates it in a handful of graph ops; checkpoints are exact
// byte copies. Models built on it differ only in their layout, initialisation and graph functions.
package nn

import (
	"fmt"
	"sort"
	"sync"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Tensor is one named weight inside the flat parameter vector.
type Tensor struct {
	Name   string
	Offset int
	Dims   []int
	// Decay says whether AdamW's weight decay applies (matrices yes; biases, norms, embeddings no).
	Decay bool
}

// Size is the number of values.
func (t Tensor) Size() int {
	n := 1
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Layout lists a model's weights in the order they sit in the flat vector.
type Layout struct {
	Tensors []Tensor
	Size    int
	byName  map[string]int
}

// Add appends a weight to the layout.
func (l *Layout) Add(name string, decay bool, dims ...int) {
	if l.byName == nil {
		l.byName = map[string]int{}
	}
	if _, dup := l.byName[name]; dup {
		panic("nn: duplicate weight " + name)
	}
	t := Tensor{Name: name, Offset: l.Size, Dims: dims, Decay: decay}
	l.byName[name] = len(l.Tensors)
	l.Tensors = append(l.Tensors, t)
	l.Size += t.Size()
}

// Get returns the named weight.
func (l Layout) Get(name string) (Tensor, bool) {
	i, ok := l.byName[name]
	if !ok {
		return Tensor{}, false
	}
	return l.Tensors[i], true
}

// DecayMask returns 1 for values under weight decay and 0 elsewhere.
func (l Layout) DecayMask() []float32 {
	m := make([]float32, l.Size)
	for _, t := range l.Tensors {
		if t.Decay {
			for i := t.Offset; i < t.Offset+t.Size(); i++ {
				m[i] = 1
			}
		}
	}
	return m
}

// Views is the graph-side view of the flat parameter vector: one node per named weight.
// Gradients are taken with respect to these views and concatenated back into one flat gradient
// (so the Slice that cuts a weight out of the vector is never differentiated: its gradient, Pad,
// is missing on ONNX Runtime).
type Views struct {
	layout Layout
	nodes  []*Node
}

// NewViews slices and reshapes the flat vector into its weights.
func NewViews(l Layout, flat *Node) *Views {
	v := &Views{layout: l, nodes: make([]*Node, len(l.Tensors))}
	for i, t := range l.Tensors {
		s := Slice(flat, AxisRange(t.Offset, t.Offset+t.Size()))
		v.nodes[i] = Reshape(s, t.Dims...)
	}
	return v
}

// W returns the named weight; it panics (a programming error, with an error value that GoMLX reports
// as a failed graph build) when the name is unknown.
func (v *Views) W(name string) *Node {
	i, ok := v.layout.byName[name]
	if !ok {
		names := make([]string, 0, len(v.layout.byName))
		for n := range v.layout.byName {
			names = append(names, n)
		}
		sort.Strings(names)
		panic(fmt.Errorf("nn: no weight %q (have %v)", name, names))
	}
	return v.nodes[i]
}

// Nodes returns the weights' nodes in layout order.
func (v *Views) Nodes() []*Node { return v.nodes }

// FlatGradient returns d loss / d flat as one vector, computed through the views.
func (v *Views) FlatGradient(loss *Node) *Node {
	grads := Gradient(loss, v.nodes...)
	parts := make([]*Node, len(grads))
	for i, g := range grads {
		parts[i] = Reshape(g, v.layout.Tensors[i].Size())
	}
	return Concatenate(parts, 0)
}

// Model is a flat weight vector with its layout, on an engine. Clones share the compiled graphs,
// since every graph takes the weights as an input.
type Model struct {
	Layout Layout
	// Params is the flat weight vector (replaced by each optimizer step).
	Params *tensors.Tensor
	rt     *runtime
}

type runtime struct {
	backend compute.Backend
	mu      sync.Mutex
	execs   map[string]*Exec
	refs    int // models sharing these graphs (the original and its clones)
}

// NewModel puts the weights flat (len = layout size) on engine b.
func NewModel(b compute.Backend, l Layout, flat []float32) (Model, error) {
	if len(flat) != l.Size {
		return Model{}, fmt.Errorf("nn: %d weights for a layout of %d", len(flat), l.Size)
	}
	t, err := onDevice(b, flat)
	if err != nil {
		return Model{}, err
	}
	return Model{Layout: l, Params: t, rt: &runtime{backend: b, execs: map[string]*Exec{}, refs: 1}}, nil
}

// Backend is the engine the model runs on.
func (m *Model) Backend() compute.Backend { return m.rt.backend }

// exec returns the compiled graph cached under key, building it on first use. Keys are derived
// from the graph's description (Func.Key, Loss.Key), never written by callers.
func (m *Model) exec(key string, build func(b compute.Backend) *Exec) *Exec {
	r := m.rt
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.execs[key]; ok {
		return e
	}
	e := build(r.backend)
	r.execs[key] = e
	return e
}

// CloneWeights returns a model with a copy of the weights that shares the compiled graphs.
func (m *Model) CloneWeights() (Model, error) {
	flat, err := m.Weights()
	if err != nil {
		return Model{}, err
	}
	c := *m
	if c.Params, err = onDevice(m.rt.backend, flat); err != nil {
		return Model{}, err
	}
	m.rt.mu.Lock()
	m.rt.refs++
	m.rt.mu.Unlock()
	return c, nil
}

// Close frees the model's weights on the engine and, when no clone still shares them, its compiled
// graphs. Engines with native memory (ONNX Runtime, XLA) never free either on their own: a program
// that builds many models (seeds × methods of an experiment) closes each when done with it. The
// model must not be used after Close; closing twice is a no-op.
func (m *Model) Close() {
	if m.Params != nil {
		_ = m.Params.FinalizeAll()
		m.Params = nil
	}
	r := m.rt
	if r == nil {
		return
	}
	m.rt = nil
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refs--; r.refs > 0 {
		return
	}
	for k, e := range r.execs {
		e.Finalize()
		delete(r.execs, k)
	}
}

// Weights copies the flat weight vector to the host.
func (m *Model) Weights() ([]float32, error) { return tensors.CopyFlatData[float32](m.Params) }

// SetWeights replaces the weights (length must match the layout) and frees the old ones.
func (m *Model) SetWeights(flat []float32) error {
	if len(flat) != m.Layout.Size {
		return fmt.Errorf("nn: %d weights given, the layout has %d", len(flat), m.Layout.Size)
	}
	t, err := onDevice(m.rt.backend, append([]float32(nil), flat...))
	if err != nil {
		return err
	}
	old := m.Params
	m.Params = t
	if old != nil {
		_ = old.FinalizeAll()
	}
	return nil
}

// call runs a compiled graph of m on positional arguments and converts GoMLX's panics into errors
// (Call and Trainer.Update feed it named inputs in their graph's declared order).
//
// Tensors are never freed by the garbage collector on engines with native memory (ONNX Runtime,
// XLA): a host tensor passed as an argument gets a device copy that lives until it is finalized
// explicitly (measured before this: ~7 KB leaked per MLP forward on ONNX Runtime, 24 GB over an
// E3T run). Call therefore donates a fresh device copy of every argument tensor that is only on
// the host — the run consumes it, and the tensor's host data stay valid for reuse. Tensors already
// on the device (weights, outputs of earlier calls) are passed as they are; the caller owns the
// output tensors and finalizes them.
func (m *Model) call(e *Exec, args ...any) (out []*tensors.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	for i, a := range args {
		if t, ok := a.(*tensors.Tensor); ok && !t.IsOnAnyDevice() {
			if args[i], err = DonateTensorBuffer(t, m.rt.backend, 0); err != nil {
				return nil, err
			}
		}
	}
	return e.Call(args...)
}

// onDevice returns a tensor of the flat values already placed on engine b (so repeated calls do not
// copy them again).
func onDevice(b compute.Backend, flat []float32) (*tensors.Tensor, error) {
	t := tensors.FromFlatDataAndDimensions(flat, len(flat))
	if err := t.MaterializeOnDevice(b, false, 0); err != nil {
		return nil, fmt.Errorf("nn: placing %d weights on the engine: %w", len(flat), err)
	}
	return t, nil
}

package lm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	. "github.com/gomlx/gomlx/core/graph"
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

// Layout lists the model's weights in the order they sit in the flat vector.
type Layout struct {
	Tensors []Tensor
	Size    int
	byName  map[string]int
}

// NewLayout returns the weight layout of a configuration.
func NewLayout(c Config) Layout {
	var l Layout
	l.byName = map[string]int{}
	add := func(name string, decay bool, dims ...int) {
		t := Tensor{Name: name, Offset: l.Size, Dims: dims, Decay: decay}
		l.byName[name] = len(l.Tensors)
		l.Tensors = append(l.Tensors, t)
		l.Size += t.Size()
	}
	d, ff := c.Dim, c.FFDim()
	add("embed/tokens", false, c.Vocab, d)
	if c.Positions == "learned" {
		add("embed/positions", false, c.Context, d)
	}
	for i := 0; i < c.Layers; i++ {
		p := layerPrefix(i)
		add(p+"ln1/gain", false, d)
		add(p+"ln1/bias", false, d)
		for _, n := range []string{"q", "k", "v"} {
			add(p+"attn/"+n, true, d, d)
			add(p+"attn/"+n+"_bias", false, d)
		}
		add(p+"attn/out", true, d, d)
		add(p+"attn/out_bias", false, d)
		add(p+"ln2/gain", false, d)
		add(p+"ln2/bias", false, d)
		add(p+"ff/in", true, d, ff)
		add(p+"ff/in_bias", false, ff)
		add(p+"ff/out", true, ff, d)
		add(p+"ff/out_bias", false, d)
	}
	add("final_ln/gain", false, d)
	add("final_ln/bias", false, d)
	add("unembed", true, d, c.Vocab)
	return l
}

// Get returns the named weight.
func (l Layout) Get(name string) (Tensor, bool) {
	i, ok := l.byName[name]
	if !ok {
		return Tensor{}, false
	}
	return l.Tensors[i], true
}

// Init draws initial weights with a seeded generator: normal(0, InitStd) for matrices and
// embeddings (residual output projections scaled by 1/sqrt(2·Layers)), ones for norm gains, zeros
// for biases. The same (config, seed) always gives the same bytes.
func Init(c Config, seed uint64) ([]float32, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	l := NewLayout(c)
	r := rand.New(rand.NewPCG(seed, 0x6c6d /* "lm" */))
	out := make([]float32, l.Size)
	resid := c.InitStd / math.Sqrt(2*float64(c.Layers))
	for _, t := range l.Tensors {
		v := out[t.Offset : t.Offset+t.Size()]
		switch {
		case hasSuffix(t.Name, "/gain"):
			for i := range v {
				v[i] = 1
			}
		case hasSuffix(t.Name, "bias"):
			// zeros
		default:
			std := c.InitStd
			if hasSuffix(t.Name, "attn/out") || hasSuffix(t.Name, "ff/out") {
				std = resid
			}
			for i := range v {
				v[i] = float32(r.NormFloat64() * std)
			}
		}
	}
	return out, nil
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

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
// Gradients are taken with respect to these views and concatenated back into one flat gradient.
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

// W returns the named weight; it panics (a programming error) when the name is unknown.
func (v *Views) W(name string) *Node {
	i, ok := v.layout.byName[name]
	if !ok {
		names := make([]string, 0, len(v.layout.byName))
		for n := range v.layout.byName {
			names = append(names, n)
		}
		sort.Strings(names)
		panic(fmt.Sprintf("lm: no weight %q (have %v)", name, names))
	}
	return v.nodes[i]
}

// FlatGradient returns d loss / d flat as one vector, computed through the views.
func (v *Views) FlatGradient(loss *Node) *Node {
	grads := Gradient(loss, v.nodes...)
	parts := make([]*Node, len(grads))
	for i, g := range grads {
		parts[i] = Reshape(g, v.layout.Tensors[i].Size())
	}
	return Concatenate(parts, 0)
}

package nn

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// In is a graph's inputs by name, as graph nodes.
type In map[string]*Node

// Get returns the named input. A name the graph does not declare is a programming error: it panics
// while the graph is built, naming the input and the names the batch carries.
func (in In) Get(name string) *Node {
	x, ok := in[name]
	if !ok {
		have := make([]string, 0, len(in))
		for k := range in {
			have = append(have, k)
		}
		slices.Sort(have)
		panic(fmt.Errorf("nn: the graph reads input %q, the batch carries %s", name, strings.Join(have, ", ")))
	}
	return x
}

// NamedIn pairs names with nodes (in order).
func NamedIn(names []string, nodes []*Node) In {
	in := make(In, len(names))
	for i, n := range names {
		in[n] = nodes[i]
	}
	return in
}

// Inputs is a batch as it is fed to a graph: named values (tensors, Go slices or scalars) in a fixed
// order.
type Inputs struct {
	Names  []string
	Values []any
}

// Add appends a named value.
func (in *Inputs) Add(name string, v any) {
	in.Names = append(in.Names, name)
	in.Values = append(in.Values, v)
}

// Value returns the named value (nil when the batch does not carry it).
func (in Inputs) Value(name string) any {
	if i := slices.Index(in.Names, name); i >= 0 && i < len(in.Values) {
		return in.Values[i]
	}
	return nil
}

// checkNames reports the first difference between a batch's names and the names a graph reads.
func checkNames(what string, in Inputs, want []string) error {
	if len(in.Values) != len(in.Names) {
		return fmt.Errorf("nn: %s: batch of %d names and %d values", what, len(in.Names), len(in.Values))
	}
	for i := 0; i < max(len(in.Names), len(want)); i++ {
		switch {
		case i >= len(want):
			return fmt.Errorf("nn: %s: batch input %d is %q, the loss reads only %v", what, i, in.Names[i], want)
		case i >= len(in.Names):
			return fmt.Errorf("nn: %s: the batch lacks input %q (it carries %v, the loss reads %v)", what, want[i], in.Names, want)
		case in.Names[i] != want[i]:
			return fmt.Errorf("nn: %s: batch input %d is %q, the loss reads %q there (batch %v, loss %v)", what, i, in.Names[i], want[i], in.Names, want)
		}
	}
	return nil
}

// graphKey is a compiled graph's identity: its kind, name, the JSON of its parameters and its inputs.
func graphKey(kind, name string, params any, inputs []string, fnNil bool) (string, error) {
	if name == "" {
		return "", fmt.Errorf("nn: a %s needs a name", kind)
	}
	if fnNil {
		return "", fmt.Errorf("nn: %s %q has no Fn", kind, name)
	}
	for i, n := range inputs {
		if slices.Contains(inputs[:i], n) {
			return "", fmt.Errorf("nn: %s %q declares input %q twice", kind, name, n)
		}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return "", fmt.Errorf("nn: %s %q: parameters %+v cannot be serialised: %w", kind, name, params, err)
	}
	k, err := json.Marshal(struct {
		Name   string          `json:"name"`
		Params json.RawMessage `json:"params"`
		Inputs []string        `json:"inputs"`
	}{name, p, inputs})
	if err != nil {
		return "", err
	}
	return kind + ":" + string(k), nil
}

// panicAsError re-raises a panic of a graph function as an error: GoMLX turns only error panics
// into a failed compilation (anything else escapes it and leaves the compiled graph waiting forever
// on a compilation that never ends, so that closing the model hangs).
func panicAsError() {
	if r := recover(); r != nil {
		if _, ok := r.(error); ok {
			panic(r)
		}
		panic(fmt.Errorf("%v", r))
	}
}

// Func is an inference graph over a model's weights and named inputs. Its compiled graph is cached
// per model (and shared by the model's clones) under an identity derived from Name, the JSON of
// Params and Inputs: Params holds every value Fn closes over that is not fixed by the model itself
// (a coefficient, a mode, a head), so two Funcs that compute differently never share a graph.
type Func struct {
	Name   string
	Params any
	// Inputs are the batch inputs Fn reads, in the order they are fed; Fn reads them by name (an
	// undeclared name panics while the graph is built).
	Inputs []string
	Fn     func(w *Views, in In) []*Node
}

// Key is the compiled graph's identity (an error for an unnamed Func, a Func without Fn, duplicate
// inputs, or Params that encoding/json cannot marshal).
func (f Func) Key() (string, error) { return graphKey("func", f.Name, f.Params, f.Inputs, f.Fn == nil) }

func (f Func) exec(m *Model) (*Exec, error) {
	key, err := f.Key()
	if err != nil {
		return nil, err
	}
	names, fn, l := slices.Clone(f.Inputs), f.Fn, m.Layout
	return m.exec(key, func(b compute.Backend) *Exec {
		return MustNewExec(b, func(g *Graph, x []*Node) []*Node {
			defer panicAsError()
			return fn(NewViews(l, x[0]), NamedIn(names, x[1:]))
		}).WithName(f.Name)
	}), nil
}

// Call runs f on m's weights and the inputs f declares, picked by name from in (other values of in
// are left alone; a declared input in lacks is an error naming it), and converts GoMLX's panics into
// errors. The caller owns the output tensors and finalizes them.
func (m *Model) Call(f Func, in Inputs) ([]*tensors.Tensor, error) {
	e, err := f.exec(m)
	if err != nil {
		return nil, err
	}
	args := make([]any, 1, 1+len(f.Inputs))
	args[0] = m.Params
	for _, name := range f.Inputs {
		i := slices.Index(in.Names, name)
		if i < 0 || i >= len(in.Values) {
			return nil, fmt.Errorf("nn: %s reads input %q, the batch carries %v", f.Name, name, in.Names)
		}
		args = append(args, in.Values[i])
	}
	return m.call(e, args...)
}

// CallFloats is Call for a Func whose first output is float32: it returns that output's values on
// the host and frees every output.
func (m *Model) CallFloats(f Func, in Inputs) ([]float32, error) {
	out, err := m.Call(f, in)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, o := range out {
			o.FinalizeAll()
		}
	}()
	return tensors.CopyFlatData[float32](out[0])
}

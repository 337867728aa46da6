package lm

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// In is a loss's batch inputs by name, as graph nodes.
type In map[string]*Node

// Get returns the named input. A name the batch does not carry is a programming error: it panics
// while the graph is built, naming the input and the names the batch carries.
func (in In) Get(name string) *Node {
	x, ok := in[name]
	if !ok {
		var have []string
		for k := range in {
			have = append(have, k)
		}
		slices.Sort(have)
		panic(fmt.Sprintf("lm: loss reads input %q, the batch carries %s", name, strings.Join(have, ", ")))
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

// Inputs is a batch as it is fed to a loss: named values (tensors or Go slices) in a fixed order.
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
	if i := slices.Index(in.Names, name); i >= 0 {
		return in.Values[i]
	}
	return nil
}

// Loss is a scalar loss (and named scalar metrics) over named batch inputs: Inputs lists the names a
// batch must carry, in the order the packer declares them; Fn reads them by name. SFT, PPO/GRPO and
// DPO are Losses over the same model and optimizer.
type Loss struct {
	Inputs []string
	Fn     func(c Config, w *Views, in In) (loss *Node, metrics []*Node)
}

// Trainer is toolkit/nn's optimizer state and update step bound to an LM and one Loss.
type Trainer struct {
	*nn.Trainer
	Model *Model
	Loss  Loss
}

// NewTrainer prepares Adam(W) for m with the given loss; name identifies the compiled graph (one per
// loss kind and configuration), metricNames name the loss's metrics in order.
func NewTrainer(m *Model, opt OptConfig, name string, metricNames []string, loss Loss) (*Trainer, error) {
	c := m.Config
	names := append(slices.Clone(loss.Inputs), c.EmbedInputs()...)
	t, err := nn.NewTrainer(&m.Model, opt, "lm-"+name, metricNames, func(w *nn.Views, batch []*Node) (*Node, []*Node) {
		return loss.Fn(c, w, NamedIn(names, batch))
	})
	if err != nil {
		return nil, err
	}
	return &Trainer{Trainer: t, Model: m, Loss: loss}, nil
}

// Update runs one optimizer step on a batch whose names are the loss's, in its order (anything else
// is an error naming the first difference); a patch embedder's inputs are added here (with
// InputPatches the batch carries them after the loss's own).
func (t *Trainer) Update(in Inputs) (StepStats, error) {
	want := t.Loss.Inputs
	if t.Model.Config.Renderer == InputPatches {
		want = append(slices.Clone(want), t.Model.Config.EmbedInputs()...)
	}
	if !slices.Equal(in.Names, want) || len(in.Values) != len(in.Names) {
		return StepStats{}, fmt.Errorf("lm: batch inputs %v, the loss reads %v", in.Names, want)
	}
	if err := t.Model.AddEmbedInputs(&in); err != nil { // a patch embedder's pixels, drawn from the tokens
		return StepStats{}, err
	}
	return t.Trainer.Update(in.Values...)
}

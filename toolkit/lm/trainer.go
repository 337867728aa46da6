package lm

import (
	"fmt"
	"slices"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// In, Inputs and NamedIn are toolkit/nn's named graph inputs, re-exported for the LM's users: a
// batch is fed as named values (Inputs) and a graph reads its nodes by name (In.Get).
type (
	In     = nn.In
	Inputs = nn.Inputs
)

// NamedIn pairs names with nodes (in order).
var NamedIn = nn.NamedIn

// Loss is a scalar loss (and named scalar metrics) over named batch inputs: nn.Loss with the model's
// Config passed to Fn and the embedder's inputs (Config.EmbedInputs) added to those it declares.
// Inputs lists the names a batch must carry, in the order the packer declares them; Fn reads them by
// name. Name and the JSON of Params identify the compiled update step (nn.Loss): Params holds every
// value Fn closes over beyond the model's configuration. SFT, PPO/GRPO and DPO are Losses over the
// same model and optimizer.
type Loss struct {
	Name   string
	Params any
	Inputs []string
	Fn     func(c Config, w *Views, in In) (loss *Node, metrics []*Node)
}

// NN is the loss as toolkit/nn trains it on a model of configuration c.
func (l Loss) NN(c Config) nn.Loss {
	fn := l.Fn
	var f func(w *nn.Views, in nn.In) (*Node, []*Node)
	if fn != nil {
		f = func(w *nn.Views, in nn.In) (*Node, []*Node) { return fn(c, w, in) }
	}
	return nn.Loss{Name: l.Name, Params: l.Params, Inputs: append(slices.Clone(l.Inputs), c.EmbedInputs()...), Fn: f}
}

// Trainer is toolkit/nn's optimizer state and update step bound to an LM and one Loss.
type Trainer struct {
	*nn.Trainer
	Model *Model
	Loss  Loss
}

// NewTrainer prepares Adam(W) for m with the given loss; metricNames name the loss's metrics in
// order. The compiled update step is identified by the loss itself (nn.NewTrainer).
func NewTrainer(m *Model, opt OptConfig, metricNames []string, loss Loss) (*Trainer, error) {
	t, err := nn.NewTrainer(&m.Model, opt, metricNames, loss.NN(m.Config))
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
	return t.Trainer.Update(in)
}

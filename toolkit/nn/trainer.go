package nn

import (
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Loss is a scalar loss (and named scalar metrics) over a model's weights and named batch inputs.
// SFT, PPO, DPO, actor and critic losses are Losses over the same optimizer.
//
// A Trainer's compiled update step is cached per model (and shared by its clones) under an identity
// derived from the loss itself — Name, the JSON of Params and Inputs — with the optimizer settings:
// Params holds every value Fn closes over that the model does not fix (coefficients, modes), so two
// losses that compute differently never share a graph, whatever they are called.
type Loss struct {
	Name   string
	Params any
	// Inputs are the batch inputs Fn reads, in the order a batch carries them; Fn reads them by name
	// (an undeclared name panics while the graph is built).
	Inputs []string
	Fn     func(w *Views, in In) (loss *Node, metrics []*Node)
}

// Key is the compiled update step's identity, without the optimizer settings (an error for an
// unnamed Loss, a Loss without Fn, duplicate inputs, or Params that encoding/json cannot marshal).
func (l Loss) Key() (string, error) { return graphKey("loss", l.Name, l.Params, l.Inputs, l.Fn == nil) }

// Trainer owns the optimizer state of a model and one compiled update step for one Loss.
type Trainer struct {
	Net *Model
	Opt OptConfig
	// M and V are Adam's moment vectors (same layout as the weights); Step counts updates applied.
	M, V *tensors.Tensor
	Step int

	key         string
	metricNames []string
	loss        Loss
	decay       *tensors.Tensor
}

// StepStats reports one update.
type StepStats struct {
	Step     int
	Loss     float64
	GradNorm float64
	LR       float64
	Metrics  map[string]float64
}

// NewTrainer prepares Adam(W) for m with the given loss; metricNames name the loss's metrics in
// order. The compiled update step's identity is derived from the loss (Loss.Key) and opt.
func NewTrainer(m *Model, opt OptConfig, metricNames []string, loss Loss) (*Trainer, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	key, err := loss.Key()
	if err != nil {
		return nil, err
	}
	loss.Inputs = slices.Clone(loss.Inputs)
	b := m.Backend()
	mom, err := onDevice(b, make([]float32, m.Layout.Size))
	if err != nil {
		return nil, err
	}
	vel, err := onDevice(b, make([]float32, m.Layout.Size))
	if err != nil {
		return nil, err
	}
	decay, err := onDevice(b, m.Layout.DecayMask())
	if err != nil {
		return nil, err
	}
	return &Trainer{Net: m, Opt: opt, key: key, metricNames: metricNames, loss: loss, M: mom, V: vel, decay: decay}, nil
}

// SetState restores Adam's moments and the step count (from a checkpoint).
func (t *Trainer) SetState(m, v []float32, step int) error {
	if len(m) != t.Net.Layout.Size || len(v) != t.Net.Layout.Size {
		return fmt.Errorf("nn: optimizer state of %d/%d values for %d weights", len(m), len(v), t.Net.Layout.Size)
	}
	nm, err := onDevice(t.Net.Backend(), append([]float32(nil), m...))
	if err != nil {
		return err
	}
	nv, err := onDevice(t.Net.Backend(), append([]float32(nil), v...))
	if err != nil {
		return err
	}
	_ = t.M.FinalizeAll()
	_ = t.V.FinalizeAll()
	t.M, t.V, t.Step = nm, nv, step
	return nil
}

// optimizerInputs are the training step's first inputs, in the order Update feeds them; the loss's
// named inputs follow.
var optimizerInputs = []string{"weights", "adam_m", "adam_v", "lr", "bias_correction1", "bias_correction2", "decay"}

func (t *Trainer) exec() *Exec {
	key := fmt.Sprintf("train/%s/%+v", t.key, t.Opt.graphKey()) // a new rate or schedule reuses the compiled step
	l, opt, loss := t.Net.Layout, t.Opt, t.loss
	return t.Net.exec(key, func(b compute.Backend) *Exec {
		return MustNewExec(b, func(g *Graph, in []*Node) []*Node {
			defer panicAsError()
			st := NamedIn(optimizerInputs, in[:len(optimizerInputs)])
			flat, m, v := st.Get("weights"), st.Get("adam_m"), st.Get("adam_v")
			w := NewViews(l, flat)
			lossNode, metrics := loss.Fn(w, NamedIn(loss.Inputs, in[len(optimizerInputs):]))
			grad := w.FlatGradient(lossNode)
			np, nm, nv, gnorm := AdamUpdate(opt, flat, m, v, grad, st.Get("lr"), st.Get("bias_correction1"), st.Get("bias_correction2"), st.Get("decay"))
			return append([]*Node{np, nm, nv, lossNode, gnorm}, metrics...)
		}).WithName("train-" + loss.Name)
	})
}

// Update runs one optimizer step on a batch whose names are the loss's Inputs, in their order
// (anything else is an error naming the first difference). A NaN or infinite loss or gradient norm
// stops with an error naming the step, and leaves the weights and optimizer state as they were.
func (t *Trainer) Update(in Inputs) (StepStats, error) {
	if err := checkNames(t.loss.Name, in, t.loss.Inputs); err != nil {
		return StepStats{}, err
	}
	step := t.Step + 1
	o := t.Opt
	lr := o.LRAt(step)
	bc1 := 1 - math.Pow(o.Beta1, float64(step))
	bc2 := 1 - math.Pow(o.Beta2, float64(step))
	args := append([]any{t.Net.Params, t.M, t.V, float32(lr), float32(bc1), float32(bc2), t.decay}, in.Values...)
	out, err := t.Net.call(t.exec(), args...)
	if err != nil {
		return StepStats{}, fmt.Errorf("%s step %d: %w", t.loss.Name, step, err)
	}
	st := StepStats{Step: step, LR: lr, Loss: Scalar64(out[3]), GradNorm: Scalar64(out[4]), Metrics: map[string]float64{}}
	for i, name := range t.metricNames {
		st.Metrics[name] = Scalar64(out[5+i])
	}
	if Bad(st.Loss) || Bad(st.GradNorm) {
		for _, o := range out {
			o.FinalizeAll()
		}
		return st, fmt.Errorf("%s step %d: loss = %v, gradient norm = %v (not finite); weights left as before the step",
			t.loss.Name, step, st.Loss, st.GradNorm)
	}
	old := []*tensors.Tensor{t.Net.Params, t.M, t.V}
	t.Net.Params, t.M, t.V = out[0], out[1], out[2]
	for _, o := range old {
		o.FinalizeAll()
	}
	for _, o := range out[3:] {
		o.FinalizeAll()
	}
	t.Step = step
	return st, nil
}

// Close frees the optimizer state on the engine (not the model: close it separately). The trainer
// must not be used after Close.
func (t *Trainer) Close() {
	for _, x := range []*tensors.Tensor{t.M, t.V, t.decay} {
		if x != nil {
			_ = x.FinalizeAll()
		}
	}
	t.M, t.V, t.decay = nil, nil, nil
}

// ScalarLike is a scalar constant of x's dtype.
func ScalarLike(x *Node, v float64) *Node { return Scalar(x.Graph(), x.DType(), v) }

// Scalar64 reads a scalar tensor as float64 (NaN for other types).
func Scalar64(t *tensors.Tensor) float64 {
	switch v := t.Value().(type) {
	case float32:
		return float64(v)
	case float64:
		return v
	}
	return math.NaN()
}

// Bad reports NaN or ±Inf.
func Bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

package nn

import (
	"fmt"
	"math"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// LossFn builds a scalar loss (and named scalar metrics) from the weights' views and a batch of input
// nodes. SFT, PPO, DPO, actor and critic losses are LossFns over the same optimizer.
type LossFn func(w *Views, batch []*Node) (loss *Node, metrics []*Node)

// Trainer owns the optimizer state of a model and one compiled update step for one LossFn.
type Trainer struct {
	Net *Model
	Opt OptConfig
	// M and V are Adam's moment vectors (same layout as the weights); Step counts updates applied.
	M, V *tensors.Tensor
	Step int

	name        string
	metricNames []string
	lossFn      LossFn
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

// NewTrainer prepares Adam(W) for m with the given loss; name identifies the compiled graph, which is
// cached per model and shared by its clones: it must spell out every parameter the LossFn closes
// over (two losses under one name silently train with whichever graph was compiled first).
// metricNames name the LossFn's metrics in order.
func NewTrainer(m *Model, opt OptConfig, name string, metricNames []string, lossFn LossFn) (*Trainer, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
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
	return &Trainer{Net: m, Opt: opt, name: name, metricNames: metricNames, lossFn: lossFn, M: mom, V: vel, decay: decay}, nil
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

func (t *Trainer) exec() *Exec {
	key := fmt.Sprintf("train:%s:%+v", t.name, t.Opt)
	l, opt, lossFn := t.Net.Layout, t.Opt, t.lossFn
	return t.Net.Exec(key, func(b compute.Backend) *Exec {
		return MustNewExec(b, func(g *Graph, in []*Node) []*Node {
			flat, m, v, lr, bc1, bc2, decay := in[0], in[1], in[2], in[3], in[4], in[5], in[6]
			w := NewViews(l, flat)
			loss, metrics := lossFn(w, in[7:])
			grad := w.FlatGradient(loss)
			np, nm, nv, gnorm := AdamUpdate(opt, flat, m, v, grad, lr, bc1, bc2, decay)
			return append([]*Node{np, nm, nv, loss, gnorm}, metrics...)
		}).WithName("train-" + t.name)
	})
}

// Update runs one optimizer step on a batch (tensors in the order the LossFn reads them). A NaN or
// infinite loss or gradient norm stops with an error naming the step, and leaves the weights and
// optimizer state as they were.
func (t *Trainer) Update(batch ...any) (StepStats, error) {
	step := t.Step + 1
	o := t.Opt
	lr := o.LRAt(step)
	bc1 := 1 - math.Pow(o.Beta1, float64(step))
	bc2 := 1 - math.Pow(o.Beta2, float64(step))
	args := append([]any{t.Net.Params, t.M, t.V, float32(lr), float32(bc1), float32(bc2), t.decay}, batch...)
	out, err := t.Net.Call(t.exec(), args...)
	if err != nil {
		return StepStats{}, fmt.Errorf("%s step %d: %w", t.name, step, err)
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
			t.name, step, st.Loss, st.GradNorm)
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

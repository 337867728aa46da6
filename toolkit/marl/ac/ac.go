// Package ac holds the actor-critic pieces PaperLab's multi-agent algorithms share: MLP actors and
// critics on toolkit/nn's flat weights (independent V(o_i), centralized V(s), DOP-style mixed
// Q_tot = Σ_j k_j(s)·Q_j(s, a_j) + b(s)), a rollout buffer filled from a vectorized environment,
// GAE and TD(λ) as small pure functions, and the PPO-clip actor loss. The algorithms themselves
// (marl/ppo for IPPO/MAPPO, marl/tape for DOP/TAPE, marl/e3t) keep their whole loop in one file.
package ac

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// MLP adds a multilayer perceptron's weights to l: sizes = [in, hidden…, out].
func MLP(l *nn.Layout, prefix string, sizes []int) {
	for i := 0; i+1 < len(sizes); i++ {
		l.Add(fmt.Sprintf("%s/w%d", prefix, i), true, sizes[i], sizes[i+1])
		l.Add(fmt.Sprintf("%s/b%d", prefix, i), false, sizes[i+1])
	}
}

// InitMLP fills an MLP's weights in flat: orthogonal-like scaled normal (std gain/√fan_in, the last
// layer scaled by lastGain, as cleanrl's layer_init uses small output layers), zero biases.
func InitMLP(l nn.Layout, flat []float32, prefix string, sizes []int, lastGain float64, r *rand.Rand) {
	for i := 0; i+1 < len(sizes); i++ {
		t, _ := l.Get(fmt.Sprintf("%s/w%d", prefix, i))
		gain := math.Sqrt2
		if i+2 == len(sizes) {
			gain = lastGain
		}
		std := gain / math.Sqrt(float64(sizes[i]))
		for k := t.Offset; k < t.Offset+t.Size(); k++ {
			flat[k] = float32(r.NormFloat64() * std)
		}
	}
}

// Forward runs an MLP with tanh hidden activations on x [B, in] and returns [B, out].
func Forward(w *nn.Views, prefix string, layers int, x *Node) *Node {
	for i := 0; i < layers; i++ {
		wt, b := w.W(fmt.Sprintf("%s/w%d", prefix, i)), w.W(fmt.Sprintf("%s/b%d", prefix, i))
		x = Add(MatMul(x, wt), Reshape(b, 1, b.Shape().Dimensions[0]))
		if i+1 < layers {
			x = Tanh(x)
		}
	}
	return x
}

// MaskLogits sets unavailable actions' logits to −1e9 (avail [B, A] is 1 for available).
func MaskLogits(logits, avail *Node) *Node {
	return Add(logits, MulScalar(OneMinus(avail), -1e9))
}

// Net is an MLP on toolkit/nn: its sizes and its flat weights.
type Net struct {
	Sizes []int
	nn.Model
}

// NewNet makes an MLP [in, hidden…, out] on engine b with weights drawn from seed.
func NewNet(b compute.Backend, sizes []int, lastGain float64, seed uint64) (*Net, error) {
	var l nn.Layout
	MLP(&l, "mlp", sizes)
	flat := make([]float32, l.Size)
	InitMLP(l, flat, "mlp", sizes, lastGain, rand.New(rand.NewPCG(seed, 0x6d6c70)))
	m, err := nn.NewModel(b, l, flat)
	if err != nil {
		return nil, err
	}
	return &Net{Sizes: sizes, Model: m}, nil
}

// Layers is the number of weight layers.
func (n *Net) Layers() int { return len(n.Sizes) - 1 }

// Apply runs the net on x [B, in] (rows of a host slice) and returns [B, out] on the host.
func (n *Net) Apply(x []float32, rows int) ([]float32, error) {
	layers := n.Layers()
	f := nn.Func{Name: "mlp", Params: map[string]int{"layers": layers}, Inputs: []string{"x"}, Fn: func(w *nn.Views, in nn.In) []*Node {
		return []*Node{Forward(w, "mlp", layers, in.Get("x"))}
	}}
	var in nn.Inputs
	in.Add("x", tensors.FromFlatDataAndDimensions(x, rows, n.Sizes[0]))
	return n.CallFloats(f, in)
}

// Policy samples actions on the host from logits [rows, A] with avail masks, and returns the
// actions and their log-probabilities. Greedy picks the most likely available action.
func Policy(logits []float32, avail [][]bool, r *rand.Rand, greedy bool) (acts []int, logp []float32) {
	return dist.Rows(logits, len(avail), avail, r, greedy)
}

// Float32 is a tensor helper: a host slice as a [rows, cols] tensor.
func Float32(x []float32, rows, cols int) *tensors.Tensor {
	return tensors.FromFlatDataAndDimensions(x, rows, cols)
}

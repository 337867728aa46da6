package ac

import (
	"math/rand/v2"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// Mixed is a DOP-style linearly decomposed critic (TAPE's stochastic tree, built on DOP; toolkit/exp/tape/README.md):
//
//	Q_tot(s, a) = Σ_j k_j(s)·Q_j(s, a_j) + b(s)
//
// with one MLP Q(s ⊕ onehot(j)) → |A| values shared by the agents, mixing weights k(s) = softmax over
// agents of an MLP (so k_j ≥ 0 and Σ_j k_j = 1, as DOP's normalised |hypernetwork| weights), and an
// MLP baseline b(s). [UNVERIFIED] DOP's exact hypernetwork is replaced by this softmax mixer.
type Mixed struct {
	N, NA, StateDim, Hidden int
	nn.Model
}

// NewMixed makes a mixed critic for N agents, NA actions and states of StateDim values.
func NewMixed(b compute.Backend, n, na, stateDim, hidden int, seed uint64) (*Mixed, error) {
	var l nn.Layout
	q := []int{stateDim + n, hidden, hidden, na}
	k := []int{stateDim, hidden, n}
	bb := []int{stateDim, hidden, 1}
	MLP(&l, "q", q)
	MLP(&l, "k", k)
	MLP(&l, "b", bb)
	flat := make([]float32, l.Size)
	r := rand.New(rand.NewPCG(seed, 0x6d6978))
	InitMLP(l, flat, "q", q, 1, r)
	InitMLP(l, flat, "k", k, 0.01, r)
	InitMLP(l, flat, "b", bb, 1, r)
	m, err := nn.NewModel(b, l, flat)
	if err != nil {
		return nil, err
	}
	return &Mixed{N: n, NA: na, StateDim: stateDim, Hidden: hidden, Model: m}, nil
}

// graph returns Q [B·N, A] and k [B, N] for states [B, S].
func (c *Mixed) graph(w *nn.Views, state *Node) (q, k, bias *Node) {
	b := state.Shape().Dimensions[0]
	g := state.Graph()
	// state ⊕ onehot(j) for every agent: [B, N, S+N] → [B·N, S+N].
	rep := BroadcastToDims(Reshape(state, b, 1, c.StateDim), b, c.N, c.StateDim)
	eye := make([][]float32, c.N)
	for i := range eye {
		eye[i] = make([]float32, c.N)
		eye[i][i] = 1
	}
	ids := BroadcastToDims(Reshape(Const(g, eye), 1, c.N, c.N), b, c.N, c.N)
	in := Reshape(Concatenate([]*Node{rep, ids}, 2), b*c.N, c.StateDim+c.N)
	q = Forward(w, "q", 3, in)
	k = Softmax(Forward(w, "k", 2, state), -1)
	bias = Reshape(Forward(w, "b", 2, state), b)
	return
}

// qtot combines per-agent Q of the taken actions (onehot [B·N, A]) into Q_tot [B].
func (c *Mixed) qtot(q, k, bias, actOneHot *Node) *Node {
	b := k.Shape().Dimensions[0]
	qa := Reshape(ReduceSum(Mul(q, actOneHot), -1), b, c.N)
	return Add(ReduceSum(Mul(k, qa), -1), bias)
}

// Eval returns, for states [B, S] on the host: Q [B·N·A], k [B·N] and Q_tot of the given actions
// [B] (actions [B·N]).
func (c *Mixed) Eval(state []float32, acts []int, rows int) (q, k, qt []float32, err error) {
	f := nn.Func{Name: "mixed-eval", Params: c.params(), Inputs: []string{"state", "actions"}, Fn: func(w *nn.Views, in nn.In) []*Node {
		q, k, bias := c.graph(w, in.Get("state"))
		return []*Node{q, k, c.qtot(q, k, bias, OneHot(in.Get("actions"), c.NA, dtypes.Float32))}
	}}
	a32 := make([]int32, len(acts))
	for i, a := range acts {
		a32[i] = int32(a)
	}
	var in nn.Inputs
	in.Add("state", tensors.FromFlatDataAndDimensions(state, rows, c.StateDim))
	in.Add("actions", tensors.FromFlatDataAndDimensions(a32, rows*c.N))
	out, err := c.Call(f, in)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		for _, o := range out {
			o.FinalizeAll()
		}
	}()
	if q, err = tensors.CopyFlatData[float32](out[0]); err != nil {
		return
	}
	if k, err = tensors.CopyFlatData[float32](out[1]); err != nil {
		return
	}
	qt, err = tensors.CopyFlatData[float32](out[2])
	return
}

// MixedInputs are the names of Mixed.Loss's batch inputs: state [B, S], actions [B·N] (int32),
// targets [B].
var MixedInputs = []string{"state", "actions", "targets"}

// params are the sizes the critic's graphs close over.
func (c *Mixed) params() map[string]int {
	return map[string]int{"agents": c.N, "actions": c.NA, "state": c.StateDim, "hidden": c.Hidden}
}

// Loss is the critic's TD loss over MixedInputs: (Q_tot(s, a) − y)² averaged.
func (c *Mixed) Loss() nn.Loss {
	return nn.Loss{Name: "mixed-td", Params: c.params(), Inputs: MixedInputs, Fn: func(w *nn.Views, in nn.In) (*Node, []*Node) {
		q, k, bias := c.graph(w, in.Get("state"))
		qt := c.qtot(q, k, bias, OneHot(in.Get("actions"), c.NA, dtypes.Float32))
		return ReduceAllMean(Square(Sub(qt, in.Get("targets")))), nil
	}}
}

// Batch is the critic's batch (MixedInputs): states [B, S], the agents' actions [B·N] and targets [B].
func (c *Mixed) Batch(state *tensors.Tensor, actions []int32, targets []float32) nn.Inputs {
	var in nn.Inputs
	in.Add("state", state)
	in.Add("actions", actions)
	in.Add("targets", targets)
	return in
}

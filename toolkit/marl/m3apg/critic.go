// Package m3apg is M3APG (shared/papers §6): a Central-Q critic over a learned embedding of the
// joint action, the embedding trained to carry information about the state transition (a
// forward-model loss, the variational bound of the mutual-information term). critic.go is the critic
// of the three variants the issue compares — central-q (one-hot joint action), m3apg (embedding +
// forward model), m3apg-nomi (embedding trained by the value loss only) — with its update step.
//
// [UNVERIFIED] reconstruction choices (§6.2), each a field of CriticConfig: per-agent action
// embeddings concatenated and mixed by a tanh MLP; the forward model predicts s′ − s from (s, e) with
// mean squared error; the MI weight.
package m3apg

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// Critic kinds.
const (
	CentralQ  = "central-q"
	M3APG     = "m3apg"
	M3APGNoMI = "m3apg-nomi"
)

// CriticConfig configures a joint-action critic.
type CriticConfig struct {
	// Kind is central-q, m3apg or m3apg-nomi.
	Kind string `json:"kind"`
	// Hidden units of every tanh MLP; ActionDim the per-agent action embedding; EmbedDim the joint
	// embedding e = f(a₁…a_N).
	Hidden    int `json:"hidden"`
	ActionDim int `json:"action_dim"`
	EmbedDim  int `json:"embed_dim"`
	// MICoef weighs the forward-model loss ‖g(s, e) − (s′ − s)‖² against the value loss (m3apg only).
	MICoef float64 `json:"mi_coef"`
	// Opt is the optimizer (Adam).
	Opt nn.OptConfig `json:"opt"`
}

// DefaultCritic is a small critic of a kind.
func DefaultCritic(kind string) CriticConfig {
	c := CriticConfig{Kind: kind, Hidden: 64, ActionDim: 8, EmbedDim: 8, MICoef: 1, Opt: nn.DefaultOpt(1e-3)}
	if kind == M3APGNoMI {
		c.MICoef = 0
	}
	return c
}

// Critic is Q(s, a) over joint actions of agents with actions each.
type Critic struct {
	Cfg                      CriticConfig
	Agents, Actions, StateSz int
	nn.Model
	tr *nn.Trainer
}

func (c *Critic) joints() int { return int(math.Pow(float64(c.Actions), float64(c.Agents))) }

// NewCritic makes a critic with weights drawn from seed.
func NewCritic(b compute.Backend, cfg CriticConfig, agents, actions, stateSize int, seed uint64) (*Critic, error) {
	if cfg.Kind != CentralQ && cfg.Kind != M3APG && cfg.Kind != M3APGNoMI {
		return nil, fmt.Errorf("m3apg: critic kind %q, want %s, %s or %s", cfg.Kind, CentralQ, M3APG, M3APGNoMI)
	}
	if cfg.Hidden < 1 || cfg.ActionDim < 1 || cfg.EmbedDim < 1 || cfg.MICoef < 0 || agents < 1 || actions < 2 {
		return nil, fmt.Errorf("m3apg: critic config %+v for %d agents × %d actions", cfg, agents, actions)
	}
	c := &Critic{Cfg: cfg, Agents: agents, Actions: actions, StateSz: stateSize}
	var l nn.Layout
	r := rand.New(rand.NewPCG(seed, 0x6d33))
	var inits []func(flat []float32)
	mlp := func(prefix string, sizes []int, lastGain float64) {
		ac.MLP(&l, prefix, sizes)
		inits = append(inits, func(flat []float32) { ac.InitMLP(l, flat, prefix, sizes, lastGain, r) })
	}
	if cfg.Kind == CentralQ {
		mlp("q", []int{stateSize + c.joints(), cfg.Hidden, cfg.Hidden, 1}, 1)
	} else {
		l.Add("embed/actions", true, agents*actions, agents*cfg.ActionDim)
		mlp("mix", []int{agents * cfg.ActionDim, cfg.Hidden, cfg.EmbedDim}, 1)
		mlp("q", []int{stateSize + cfg.EmbedDim, cfg.Hidden, cfg.Hidden, 1}, 1)
		mlp("fwd", []int{stateSize + cfg.EmbedDim, cfg.Hidden, stateSize}, 1)
	}
	flat := make([]float32, l.Size)
	for _, f := range inits {
		f(flat)
	}
	if t, ok := l.Get("embed/actions"); ok {
		for k := t.Offset; k < t.Offset+t.Size(); k++ {
			flat[k] = float32(r.NormFloat64())
		}
	}
	m, err := nn.NewModel(b, l, flat)
	if err != nil {
		return nil, err
	}
	c.Model = m
	if c.tr, err = nn.NewTrainer(&c.Model, cfg.Opt, "m3apg-critic-"+cfg.Kind, []string{"value_loss", "forward_loss"}, c.loss); err != nil {
		return nil, err
	}
	return c, nil
}

// Close releases the weights and optimizer state.
func (c *Critic) Close() {
	c.tr.Close()
	c.Model.Close()
}

// Embed is the joint-action embedding e [B, EmbedDim] of per-agent one-hot actions oh [B, N·A]:
// each agent's action embedding (a block of one block-diagonal matrix), concatenated, mixed by a tanh
// MLP.
func (c *Critic) Embed(w *nn.Views, oh *Node) *Node {
	n, a, d := c.Agents, c.Actions, c.Cfg.ActionDim
	mask := make([][]float32, n*a)
	for i := range mask {
		mask[i] = make([]float32, n*d)
		for j := (i / a) * d; j < (i/a+1)*d; j++ {
			mask[i][j] = 1
		}
	}
	table := Mul(w.W("embed/actions"), Const(oh.Graph(), mask))
	return ac.Forward(w, "mix", 2, Tanh(MatMul(oh, table)))
}

// q returns Q [B] and, for the embedding critics, the forward model's prediction of s′ − s [B, S].
// Inputs: states [B,S], the per-agent one-hots [B, N·A] and the joint one-hot [B, A^N].
func (c *Critic) q(w *nn.Views, states, perAgent, joint *Node) (q, fwd *Node) {
	b := states.Shape().Dimensions[0]
	if c.Cfg.Kind == CentralQ {
		return Reshape(ac.Forward(w, "q", 3, Concatenate([]*Node{states, joint}, -1)), b), nil
	}
	x := Concatenate([]*Node{states, c.Embed(w, perAgent)}, -1)
	return Reshape(ac.Forward(w, "q", 3, x), b), ac.Forward(w, "fwd", 2, x)
}

// loss: batch = states [B,S], per-agent one-hots [B,N·A], joint one-hots [B,A^N], targets [B],
// state changes s′ − s [B,S], and has_next [B] (1 where s′ is known: not for an episode's last
// transition). value_loss = mean (Q − y)²; forward_loss = Σ_rows has_next·Σ_k (g_k − Δs_k)² /
// Σ has_next; loss = value_loss + MICoef·forward_loss (forward_loss 0 for central-q).
func (c *Critic) loss(w *nn.Views, in []*Node) (*Node, []*Node) {
	q, fwd := c.q(w, in[0], in[1], in[2])
	vl := ReduceAllMean(Square(Sub(q, in[3])))
	if fwd == nil {
		return vl, []*Node{vl, ScalarZero(q.Graph(), q.DType())}
	}
	rows := ReduceSum(Square(Sub(fwd, in[4])), -1)
	fl := Div(ReduceAllSum(Mul(rows, in[5])), Max(ReduceAllSum(in[5]), nn.ScalarLike(rows, 1)))
	return Add(vl, MulScalar(fl, c.Cfg.MICoef)), []*Node{vl, fl}
}

// inputs builds the host tensors of a batch.
func (c *Critic) inputs(states [][]float32, joints [][]int) (st, per, joint *tensors.Tensor, err error) {
	b, s, n, a, nj := len(states), c.StateSz, c.Agents, c.Actions, 1
	if c.Cfg.Kind == CentralQ {
		nj = c.joints()
	}
	sf, pf, jf := make([]float32, b*s), make([]float32, b*n*a), make([]float32, b*nj)
	for i := range states {
		if len(states[i]) != s || len(joints[i]) != n {
			return nil, nil, nil, fmt.Errorf("m3apg: row %d has %d state values and %d actions, want %d and %d", i, len(states[i]), len(joints[i]), s, n)
		}
		copy(sf[i*s:], states[i])
		k := 0
		for ag, act := range joints[i] {
			if act < 0 || act >= a {
				return nil, nil, nil, fmt.Errorf("m3apg: row %d agent %d action %d out of range", i, ag, act)
			}
			pf[i*n*a+ag*a+act] = 1
			k = k*a + act
		}
		if nj > 1 {
			jf[i*nj+k] = 1
		}
	}
	return tensors.FromFlatDataAndDimensions(sf, b, s), tensors.FromFlatDataAndDimensions(pf, b, n*a),
		tensors.FromFlatDataAndDimensions(jf, b, nj), nil
}

// Update runs one optimizer step towards targets y for (state, joint action) rows; delta holds each
// row's state change s′ − s (the forward model's target; ignored by central-q), nil for a row
// whose next state is unknown (left out of the forward loss).
func (c *Critic) Update(states [][]float32, joints [][]int, y []float64, delta [][]float32) (nn.StepStats, error) {
	st, per, joint, err := c.inputs(states, joints)
	if err != nil {
		return nn.StepStats{}, err
	}
	b, s := len(states), c.StateSz
	yf, df, hf := make([]float32, b), make([]float32, b*s), make([]float32, b)
	for i := range y {
		yf[i] = float32(y[i])
		if delta != nil && delta[i] != nil {
			copy(df[i*s:], delta[i])
			hf[i] = 1
		}
	}
	return c.tr.Update(st, per, joint, tensors.FromFlatDataAndDimensions(yf, b), tensors.FromFlatDataAndDimensions(df, b, s),
		tensors.FromFlatDataAndDimensions(hf, b))
}

func (c *Critic) qExec() *Exec {
	return c.Exec("m3apg-q-"+c.Cfg.Kind, func(b compute.Backend) *Exec {
		return MustNewExec(b, func(g *Graph, in []*Node) []*Node {
			w := nn.NewViews(c.Layout, in[0])
			q, _ := c.q(w, in[1], in[2], in[3])
			return []*Node{q}
		})
	})
}

// Q evaluates the critic on (state, joint action) rows.
func (c *Critic) Q(states [][]float32, joints [][]int) ([]float64, error) {
	st, per, joint, err := c.inputs(states, joints)
	if err != nil {
		return nil, err
	}
	out, err := c.Call(c.qExec(), c.Params, st, per, joint)
	if err != nil {
		return nil, err
	}
	q, err := tensors.CopyFlatData[float32](out[0])
	out[0].FinalizeAll()
	if err != nil {
		return nil, err
	}
	res := make([]float64, len(q))
	for i, v := range q {
		res[i] = float64(v)
	}
	return res, nil
}

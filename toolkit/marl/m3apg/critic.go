// Package m3apg is M3APG (toolkit/exp/m3apg/README.md): a Central-Q critic over a learned embedding of the
// joint action, the embedding trained to carry information about the state transition (a
// forward-model loss, the variational bound of the mutual-information term). critic.go is the critic
// of the three variants the issue compares — central-q (one-hot joint action), m3apg (embedding +
// forward model), m3apg-nomi (embedding trained by the value loss only) — with its update step.
//
// [UNVERIFIED] reconstruction choices (§6.2), each a field of CriticConfig: per-agent action
// embeddings concatenated and mixed by a tanh MLP; the forward model predicts s′ − s from (s, e) with
// mean squared error; the MI weight; how embedding learning is scheduled against the critic's
// updates (EmbedUpdate: jointly, alternated, or learned then frozen — the fixed-embedding setting of
// the paper's convergence argument).
package m3apg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
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
	// ComaQ is COMA's critic input: Q(s, a₁…a_N) as an MLP over the state and the agents' one-hot
	// actions side by side (N·A inputs, not A^N): it can share what it learns across joint actions.
	ComaQ = "coma-q"
	// VOnly ignores the joint action, Q(s, a) = V(s): the floor a joint-action critic must beat.
	VOnly = "v-only"
)

// Kinds are the critic kinds.
var Kinds = []string{CentralQ, M3APG, M3APGNoMI, ComaQ, VOnly}

// embeds reports whether a critic kind has a joint-action embedding (and a forward model).
func embeds(kind string) bool { return kind == M3APG || kind == M3APGNoMI }

// Forward-loss scalings (CriticConfig.ForwardLoss).
const (
	ForwardRelative = "relative"
	ForwardMSE      = "mse"
)

// Embedding schedules (CriticConfig.EmbedUpdate) of the embedding critics.
const (
	// EmbedJoint: one loss, value + MICoef·forward, moves every weight (the value loss shapes the
	// embedding too).
	EmbedJoint = "joint"
	// EmbedAlternate: every critic update is two optimizer steps — the embedding step (forward-model
	// loss only: action embeddings, mixer and forward model move) and then the value step with the
	// embedding held fixed (stop-gradient: only the Q head moves). The embedding learns from the
	// transition alone; for m3apg-nomi (MICoef 0) it stays at its random initialisation.
	EmbedAlternate = "alternate"
	// EmbedFrozen: as EmbedAlternate for the first EmbedWarmup updates, then value steps only — the
	// embedding is fixed while critic and actor go on learning.
	EmbedFrozen = "frozen"
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
	// MICoef weighs the forward-model loss against the value loss (m3apg only).
	MICoef float64 `json:"mi_coef"`
	// ForwardLoss is how the forward model's squared error ‖g(s, e) − (s′ − s)‖² is scaled:
	// ForwardRelative divides it by the batch's mean ‖s′ − s‖² (a predictor of zero scores 1, so
	// MICoef weighs it against the value loss whatever the units of the state); ForwardMSE leaves it
	// raw (with normalised coordinates a move of one cell is 0.25, and the term all but vanishes
	// beside the value loss) [UNVERIFIED: the paper's variational bound fixes no scale].
	ForwardLoss string `json:"forward_loss,omitempty"`
	// EmbedUpdate schedules embedding learning against the value updates: EmbedJoint ("" means
	// joint), EmbedAlternate or EmbedFrozen [UNVERIFIED: the paper alternates MI and RL phases and
	// analyses convergence with the embedding fixed; the schedule is our choice]. Ignored by central-q.
	EmbedUpdate string `json:"embed_update,omitempty"`
	// EmbedWarmup is the number of critic updates during which a frozen embedding still learns.
	EmbedWarmup int `json:"embed_warmup,omitempty"`
	// JointInit sets central-q's first layer at initialisation: JointInitFanIn draws it with
	// std √2/√(S + A^N), every input counted (PaperLab's first runs: at N = 6, 0.022); JointInitActive
	// with std √2/√(S + 1), the inputs active at once (the state and one joint action's row), as the
	// other kinds' first layers are scaled; JointInitZeroRows (the default, DefaultCritic) as active
	// with the joint-action rows at zero. "" is JointInitFanIn. Ignored by the other kinds.
	JointInit string `json:"joint_init,omitempty"`
	// Opt is the optimizer (Adam; with a split schedule WeightDecay must be 0, or the value step
	// would shrink the embedding it holds fixed).
	Opt nn.OptConfig `json:"opt"`
}

// Central-q first-layer initialisations (CriticConfig.JointInit).
const (
	JointInitFanIn  = "fan-in"
	JointInitActive = "active"
	// JointInitZeroRows: the state rows as JointInitActive, the joint-action rows at zero (Q starts
	// as a function of the state alone; each joint action's row grows from its own data).
	JointInitZeroRows = "zero-rows"
)

// schedule is EmbedUpdate with "" read as EmbedJoint.
func (cfg CriticConfig) schedule() string {
	if cfg.EmbedUpdate == "" {
		return EmbedJoint
	}
	return cfg.EmbedUpdate
}

// DefaultCritic is a small critic of a kind.
//
// Central-q's first layer starts with its state rows at the scale of the inputs active at once and
// its joint-action rows at zero (JointInitZeroRows). The 2026-12-04 diagnosis (scratch probes, one seed,
// not stored; policy evaluation at N = 6, error on seen joint actions after 320k transitions against
// the constant's 1.205 and the 0.732 of a critic that knows V(s) exactly): the fan-in scale of
// PaperLab's first runs stayed at 1.20 at Adam's rate 1e-3 and at 1e-4, and with Monte Carlo targets
// (λ = 1) — neither the step size nor the bootstrapped targets were the cause; the active-input scale
// reached 0.70 (unseen 0.91), zero rows 0.63 (unseen 0.76). In the 3-agent learning test the
// active-input scale's random rows (std 0.58 per joint action) turned the return down (1.89 → −1.38)
// where zero rows raised it (→ 3.64).
func DefaultCritic(kind string) CriticConfig {
	c := CriticConfig{Kind: kind, Hidden: 64, ActionDim: 8, EmbedDim: 8, MICoef: 1, ForwardLoss: ForwardRelative, Opt: nn.DefaultOpt(1e-3), JointInit: JointInitZeroRows}
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
	// tr trains by the joint loss; trEmbed and trValue are the two steps of a split schedule (each
	// with its own Adam state, so weights outside a step's loss get zero moments and stay put).
	tr, trEmbed, trValue *nn.Trainer
	updates              int
}

func (c *Critic) joints() int { return int(math.Pow(float64(c.Actions), float64(c.Agents))) }

// NewCritic makes a critic with weights drawn from seed.
func NewCritic(b compute.Backend, cfg CriticConfig, agents, actions, stateSize int, seed uint64) (*Critic, error) {
	if !slices.Contains(Kinds, cfg.Kind) {
		return nil, fmt.Errorf("m3apg: critic kind %q, want one of %s", cfg.Kind, strings.Join(Kinds, ", "))
	}
	if cfg.Hidden < 1 || cfg.ActionDim < 1 || cfg.EmbedDim < 1 || cfg.MICoef < 0 || agents < 1 || actions < 2 {
		return nil, fmt.Errorf("m3apg: critic config %+v for %d agents × %d actions", cfg, agents, actions)
	}
	split := embeds(cfg.Kind) && cfg.schedule() != EmbedJoint
	switch {
	case cfg.schedule() != EmbedJoint && cfg.schedule() != EmbedAlternate && cfg.schedule() != EmbedFrozen:
		return nil, fmt.Errorf("m3apg: critic embed_update %q, want %s, %s or %s", cfg.EmbedUpdate, EmbedJoint, EmbedAlternate, EmbedFrozen)
	case cfg.ForwardLoss != ForwardRelative && cfg.ForwardLoss != ForwardMSE:
		return nil, fmt.Errorf("m3apg: critic forward_loss %q, want %s or %s", cfg.ForwardLoss, ForwardRelative, ForwardMSE)
	case cfg.JointInit != "" && cfg.JointInit != JointInitFanIn && cfg.JointInit != JointInitActive && cfg.JointInit != JointInitZeroRows:
		return nil, fmt.Errorf("m3apg: critic joint_init %q, want %s, %s or %s", cfg.JointInit, JointInitFanIn, JointInitActive, JointInitZeroRows)
	case cfg.EmbedWarmup < 0:
		return nil, fmt.Errorf("m3apg: critic embed_warmup %d < 0", cfg.EmbedWarmup)
	case split && cfg.Opt.WeightDecay != 0:
		return nil, fmt.Errorf("m3apg: critic embed_update %q needs opt.weight_decay 0 (got %v): decay would move the weights a step holds fixed", cfg.EmbedUpdate, cfg.Opt.WeightDecay)
	}
	c := &Critic{Cfg: cfg, Agents: agents, Actions: actions, StateSz: stateSize}
	var l nn.Layout
	r := rand.New(rand.NewPCG(seed, 0x6d33))
	var inits []func(flat []float32)
	mlp := func(prefix string, sizes []int, lastGain float64) {
		ac.MLP(&l, prefix, sizes)
		inits = append(inits, func(flat []float32) { ac.InitMLP(l, flat, prefix, sizes, lastGain, r) })
	}
	switch cfg.Kind {
	case CentralQ:
		mlp("q", []int{stateSize + c.joints(), cfg.Hidden, cfg.Hidden, 1}, 1)
	case ComaQ:
		mlp("q", []int{stateSize + agents*actions, cfg.Hidden, cfg.Hidden, 1}, 1)
	case VOnly:
		mlp("q", []int{stateSize, cfg.Hidden, cfg.Hidden, 1}, 1)
	default:
		l.Add("embed/actions", true, agents*actions, agents*cfg.ActionDim)
		mlp("mix", []int{agents * cfg.ActionDim, cfg.Hidden, cfg.EmbedDim}, 1)
		mlp("q", []int{stateSize + cfg.EmbedDim, cfg.Hidden, cfg.Hidden, 1}, 1)
		mlp("fwd", []int{stateSize + cfg.EmbedDim, cfg.Hidden, stateSize}, 1)
	}
	flat := make([]float32, l.Size)
	for _, f := range inits {
		f(flat)
	}
	if t, ok := l.Get("q/w0"); ok && cfg.Kind == CentralQ && (cfg.JointInit == JointInitActive || cfg.JointInit == JointInitZeroRows) {
		scale := float32(math.Sqrt(float64(stateSize+c.joints()) / float64(stateSize+1)))
		for k := t.Offset; k < t.Offset+t.Size(); k++ {
			flat[k] *= scale
			if cfg.JointInit == JointInitZeroRows && k >= t.Offset+stateSize*cfg.Hidden {
				flat[k] = 0
			}
		}
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
	metrics := []string{"value_loss", "forward_loss"}
	if !split {
		c.tr, err = nn.NewTrainer(&c.Model, cfg.Opt, metrics, c.criticLoss("m3apg-critic", c.loss))
	} else if c.trEmbed, err = nn.NewTrainer(&c.Model, cfg.Opt, metrics, c.criticLoss("m3apg-critic-embed", c.embedLoss)); err == nil {
		c.trValue, err = nn.NewTrainer(&c.Model, cfg.Opt, metrics, c.criticLoss("m3apg-critic-value", c.valueLoss))
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close releases the weights and optimizer state.
func (c *Critic) Close() {
	for _, t := range []*nn.Trainer{c.tr, c.trEmbed, c.trValue} {
		if t != nil {
			t.Close()
		}
	}
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
// Inputs: states [B,S], the per-agent one-hots [B, N·A] and the joint action's index [B] (int32).
// With holdEmbed the Q head reads the embedding through a stop-gradient (the value loss cannot move
// it).
//
// Central-q's first layer is the MLP's on [state, one-hot joint action], computed as
// states·W[:S] + W[S + joint] (rows gathered, not a [B, A^N] one-hot product: the same function,
// A^N/… times cheaper at N = 6; rows by Gather because slicing's gradient needs Pad, which ONNX
// Runtime lacks).
func (c *Critic) q(w *nn.Views, states, perAgent, joint *Node, holdEmbed bool) (q, fwd *Node) {
	b := states.Shape().Dimensions[0]
	switch c.Cfg.Kind {
	case ComaQ:
		return Reshape(ac.Forward(w, "q", 3, Concatenate([]*Node{states, perAgent}, -1)), b), nil
	case VOnly:
		return Reshape(ac.Forward(w, "q", 3, states), b), nil
	}
	if c.Cfg.Kind == CentralQ {
		g := states.Graph()
		w0, b0 := w.W("q/w0"), w.W("q/b0")
		top := gatherRows(w0, Iota(g, shapes.Make(dtypes.Int32, c.StateSz), 0))
		h := Add(Add(MatMul(states, top), gatherRows(w0, AddScalar(joint, float64(c.StateSz)))), Reshape(b0, 1, c.Cfg.Hidden))
		h = Tanh(h)
		for i := 1; i < 3; i++ {
			wt, bt := w.W(fmt.Sprintf("q/w%d", i)), w.W(fmt.Sprintf("q/b%d", i))
			h = Add(MatMul(h, wt), Reshape(bt, 1, bt.Shape().Dimensions[0]))
			if i < 2 {
				h = Tanh(h)
			}
		}
		return Reshape(h, b), nil
	}
	e := c.Embed(w, perAgent)
	x := Concatenate([]*Node{states, e}, -1)
	xq := x
	if holdEmbed {
		xq = Concatenate([]*Node{states, StopGradient(e)}, -1)
	}
	return Reshape(ac.Forward(w, "q", 3, xq), b), ac.Forward(w, "fwd", 2, x)
}

// gatherRows returns table's rows [len(ids), D] for int32 ids (widened to int64 for ONNX Runtime).
func gatherRows(table, ids *Node) *Node {
	return Gather(table, InsertAxes(ConvertDType(ids, dtypes.Int64), -1))
}

// CriticInputs are the names of the critic losses' batch inputs: states [B, S], per_agent (one-hot
// actions [B, N·A]), joint (the joint action's index [B], int32; read by central-q only), targets
// (value targets y [B]), delta (state changes s′ − s [B, S]) and has_next (1 where s′ is known, not
// an episode's last transition [B]).
var CriticInputs = []string{"states", "per_agent", "joint", "targets", "delta", "has_next"}

// QInputs are the names of the Q graph's inputs (the first three of CriticInputs).
var QInputs = CriticInputs[:3:3]

// params are the configuration and sizes the critic's graphs close over.
func (c *Critic) params() any {
	return struct {
		Cfg     CriticConfig `json:"cfg"`
		Agents  int          `json:"agents"`
		Actions int          `json:"actions"`
		State   int          `json:"state"`
	}{c.Cfg, c.Agents, c.Actions, c.StateSz}
}

// criticLoss is one of the critic's losses over CriticInputs.
func (c *Critic) criticLoss(name string, fn func(w *nn.Views, in nn.In) (*Node, []*Node)) nn.Loss {
	return nn.Loss{Name: name, Params: c.params(), Inputs: CriticInputs, Fn: fn}
}

// losses returns value_loss = mean (Q − y)² and forward_loss = Σ_rows has_next·Σ_k (g_k − Δs_k)² /
// Σ has_next, divided for ForwardRelative by Σ_rows has_next·Σ_k Δs_k² / Σ has_next (0 for
// central-q).
func (c *Critic) losses(w *nn.Views, in nn.In, holdEmbed bool) (vl, fl *Node) {
	q, fwd := c.q(w, in.Get("states"), in.Get("per_agent"), in.Get("joint"), holdEmbed)
	vl = ReduceAllMean(Square(Sub(q, in.Get("targets"))))
	if fwd == nil {
		return vl, ScalarZero(q.Graph(), q.DType())
	}
	delta, hasNext := in.Get("delta"), in.Get("has_next")
	rows := ReduceSum(Square(Sub(fwd, delta)), -1)
	fl = Div(ReduceAllSum(Mul(rows, hasNext)), Max(ReduceAllSum(hasNext), nn.ScalarLike(rows, 1)))
	if c.Cfg.ForwardLoss == ForwardRelative {
		scale := ReduceAllSum(Mul(ReduceSum(Square(delta), -1), hasNext))
		fl = Div(ReduceAllSum(Mul(rows, hasNext)), Max(scale, nn.ScalarLike(rows, 1e-6)))
	}
	return vl, fl
}

// loss (joint schedule) = value_loss + MICoef·forward_loss over every weight.
func (c *Critic) loss(w *nn.Views, in nn.In) (*Node, []*Node) {
	vl, fl := c.losses(w, in, false)
	return Add(vl, MulScalar(fl, c.Cfg.MICoef)), []*Node{vl, fl}
}

// embedLoss (the embedding step of a split schedule) = MICoef·forward_loss: its gradient reaches the
// action embeddings, the mixer and the forward model, never the Q head.
func (c *Critic) embedLoss(w *nn.Views, in nn.In) (*Node, []*Node) {
	vl, fl := c.losses(w, in, false)
	return MulScalar(fl, c.Cfg.MICoef), []*Node{vl, fl}
}

// valueLoss (the value step of a split schedule) = value_loss with the embedding held fixed.
func (c *Critic) valueLoss(w *nn.Views, in nn.In) (*Node, []*Node) {
	vl, fl := c.losses(w, in, true)
	return vl, []*Node{vl, fl}
}

// inputs builds the host tensors of a batch.
func (c *Critic) inputs(states [][]float32, joints [][]int) (st, per, joint *tensors.Tensor, err error) {
	b, s, n, a := len(states), c.StateSz, c.Agents, c.Actions
	sf, pf, jf := make([]float32, b*s), make([]float32, b*n*a), make([]int32, b)
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
		jf[i] = int32(k)
	}
	return tensors.FromFlatDataAndDimensions(sf, b, s), tensors.FromFlatDataAndDimensions(pf, b, n*a),
		tensors.FromFlatDataAndDimensions(jf, b), nil
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
	batch := nn.Inputs{Names: CriticInputs, Values: []any{st, per, joint, tensors.FromFlatDataAndDimensions(yf, b),
		tensors.FromFlatDataAndDimensions(df, b, s), tensors.FromFlatDataAndDimensions(hf, b)}}
	c.updates++
	if c.tr != nil {
		return c.tr.Update(batch)
	}
	if c.Cfg.schedule() == EmbedAlternate || c.updates <= c.Cfg.EmbedWarmup {
		if _, err := c.trEmbed.Update(batch); err != nil {
			return nn.StepStats{}, err
		}
	}
	return c.trValue.Update(batch)
}

// qFunc is the graph of Q over QInputs.
func (c *Critic) qFunc() nn.Func {
	return nn.Func{Name: "m3apg-q", Params: c.params(), Inputs: QInputs, Fn: func(w *nn.Views, in nn.In) []*Node {
		q, _ := c.q(w, in.Get("states"), in.Get("per_agent"), in.Get("joint"), false)
		return []*Node{q}
	}}
}

// Q evaluates the critic on (state, joint action) rows.
func (c *Critic) Q(states [][]float32, joints [][]int) ([]float64, error) {
	st, per, joint, err := c.inputs(states, joints)
	if err != nil {
		return nil, err
	}
	q, err := c.CallFloats(c.qFunc(), nn.Inputs{Names: QInputs, Values: []any{st, per, joint}})
	if err != nil {
		return nil, err
	}
	res := make([]float64, len(q))
	for i, v := range q {
		res[i] = float64(v)
	}
	return res, nil
}

// Embeddings returns the joint-action embedding e of every joint action (agent 0's action most
// significant, env.JointIndex's order): [A^N][EmbedDim]. An error for central-q (no embedding).
func (c *Critic) Embeddings() ([][]float32, error) {
	if !embeds(c.Cfg.Kind) {
		return nil, fmt.Errorf("m3apg: a %s critic has no joint-action embedding", c.Cfg.Kind)
	}
	n, a, nj := c.Agents, c.Actions, c.joints()
	pf := make([]float32, nj*n*a)
	for k := 0; k < nj; k++ {
		x := k
		for i := n - 1; i >= 0; i-- {
			pf[k*n*a+i*a+x%a] = 1
			x /= a
		}
	}
	f := nn.Func{Name: "m3apg-embed", Params: c.params(), Inputs: []string{"per_agent"}, Fn: func(w *nn.Views, in nn.In) []*Node {
		return []*Node{c.Embed(w, in.Get("per_agent"))}
	}}
	var in nn.Inputs
	in.Add("per_agent", tensors.FromFlatDataAndDimensions(pf, nj, n*a))
	flat, err := c.CallFloats(f, in)
	if err != nil {
		return nil, err
	}
	return rows(flat, c.Cfg.EmbedDim, nj), nil
}

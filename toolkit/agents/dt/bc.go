package dt

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// BC is the behaviour-cloning baseline: a tanh MLP from one observation (zero-padded to Pixels) and
// the prefix tokens (multi-hot over Prefixes) to the action logits — no history, no return.
type BC struct {
	Cfg   Config
	Sizes []int
	nn.Model
	tr *nn.Trainer
}

// NewBC makes a BC policy with hidden layers of the given widths, weights drawn from seed.
func NewBC(cfg Config, hidden []int, seed uint64) (*BC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	sizes := append(append([]int{cfg.Pixels + cfg.Prefixes}, hidden...), cfg.Actions)
	var l nn.Layout
	ac.MLP(&l, "bc", sizes)
	flat := make([]float32, l.Size)
	ac.InitMLP(l, flat, "bc", sizes, 0.01, rand.New(rand.NewPCG(seed, 0x6263)))
	m, err := nn.NewModel(b, l, flat)
	if err != nil {
		return nil, err
	}
	p := &BC{Cfg: cfg, Sizes: sizes, Model: m}
	opt := nn.DefaultOpt(cfg.LR)
	opt.ClipNorm = cfg.ClipNorm
	if p.tr, err = nn.NewTrainer(&p.Model, opt, []string{"action_loss"}, p.loss()); err != nil {
		m.Close()
		return nil, err
	}
	return p, nil
}

// Clone returns a BC policy with a copy of the weights and a fresh optimizer (fine-tuning a
// pretrained MLP without touching it).
func (p *BC) Clone() (*BC, error) { return p.CloneWith(p.Cfg.LR) }

// Close frees the weights and optimizer state.
func (p *BC) Close() {
	p.tr.Close()
	p.Model.Close()
}

// bcInputs are the names of the BC loss's batch inputs: x [B, Pixels+Prefixes] (what the MLP
// reads) and actions [B] (int32).
var bcInputs = []string{"x", "actions"}

// params are the sizes the BC graphs close over.
func (p *BC) params() any {
	return struct {
		Sizes   []int `json:"sizes"`
		Actions int   `json:"actions"`
	}{p.Sizes, p.Cfg.Actions}
}

// loss is −mean log π(action | input) over bcInputs.
func (p *BC) loss() nn.Loss {
	return nn.Loss{Name: "dt-bc", Params: p.params(), Inputs: bcInputs, Fn: func(w *nn.Views, in nn.In) (*Node, []*Node) {
		logits := ac.Forward(w, "bc", len(p.Sizes)-1, in.Get("x"))
		lp := ReduceSum(Mul(LogSoftmax(logits, -1), OneHot(in.Get("actions"), p.Cfg.Actions, dtypes.Float32)), -1)
		l := Neg(ReduceAllMean(lp))
		return l, []*Node{l}
	}}
}

// input is one observation and prefix as the MLP reads them.
func (p *BC) input(prefix []int, obs []float32) ([]float32, error) {
	x := make([]float32, p.Cfg.Pixels+p.Cfg.Prefixes)
	if len(obs) > p.Cfg.Pixels {
		return nil, fmt.Errorf("dt bc: observation of %d values, the policy reads %d", len(obs), p.Cfg.Pixels)
	}
	copy(x, obs)
	for _, q := range prefix {
		if q < 0 || q >= p.Cfg.Prefixes {
			return nil, fmt.Errorf("dt bc: prefix entry %d out of [0, %d)", q, p.Cfg.Prefixes)
		}
		x[p.Cfg.Pixels+q] = 1
	}
	return x, nil
}

// Train runs steps updates on minibatches of Batch (observation, action) pairs drawn uniformly from
// the steps of data, and returns the last step's loss.
func (p *BC) Train(data []Seq, steps int, r *rand.Rand) (float64, error) {
	type pair struct {
		x []float32
		a int32
	}
	var pairs []pair
	for i, s := range data {
		for t, a := range s.Actions {
			x, err := p.input(s.Prefix, s.Obs[t])
			if err != nil {
				return 0, fmt.Errorf("sequence %d step %d: %w", i, t, err)
			}
			pairs = append(pairs, pair{x, int32(a)})
		}
	}
	if len(pairs) == 0 {
		return 0, fmt.Errorf("dt bc: no training steps")
	}
	d := p.Cfg.Pixels + p.Cfg.Prefixes
	var last float64
	for s := 0; s < steps; s++ {
		xs, as := make([]float32, 0, p.Cfg.Batch*d), make([]int32, p.Cfg.Batch)
		for i := range as {
			q := pairs[r.IntN(len(pairs))]
			xs, as[i] = append(xs, q.x...), q.a
		}
		st, err := p.tr.Update(nn.Inputs{Names: bcInputs, Values: []any{tensors.FromFlatDataAndDimensions(xs, p.Cfg.Batch, d), tensors.FromFlatDataAndDimensions(as, p.Cfg.Batch)}})
		if err != nil {
			return 0, err
		}
		last = st.Loss
	}
	return last, nil
}

// ActionLogits returns the action logits of each sequence's last observation.
func (p *BC) ActionLogits(seqs []Seq) ([][]float32, error) {
	d := p.Cfg.Pixels + p.Cfg.Prefixes
	xs := make([]float32, 0, len(seqs)*d)
	for i, s := range seqs {
		if len(s.Obs) == 0 {
			return nil, fmt.Errorf("dt bc: sequence %d has no observation", i)
		}
		x, err := p.input(s.Prefix, s.Obs[len(s.Obs)-1])
		if err != nil {
			return nil, err
		}
		xs = append(xs, x...)
	}
	f := nn.Func{Name: "dt-bc-logits", Params: p.params(), Inputs: []string{"x"}, Fn: func(w *nn.Views, in nn.In) []*Node {
		return []*Node{ac.Forward(w, "bc", len(p.Sizes)-1, in.Get("x"))}
	}}
	var in nn.Inputs
	in.Add("x", tensors.FromFlatDataAndDimensions(xs, len(seqs), d))
	flat, err := p.CallFloats(f, in)
	if err != nil {
		return nil, err
	}
	res := make([][]float32, len(seqs))
	for i := range res {
		res[i] = flat[i*p.Cfg.Actions : (i+1)*p.Cfg.Actions]
	}
	return res, nil
}

// CloneWith is Clone with a fresh optimizer at learning rate lr (a rate sweep from one start).
func (p *BC) CloneWith(lr float64) (*BC, error) {
	w, err := p.Weights()
	if err != nil {
		return nil, err
	}
	cfg := p.Cfg
	cfg.LR = lr
	q, err := NewBC(cfg, p.Sizes[1:len(p.Sizes)-1], 0)
	if err != nil {
		return nil, err
	}
	if err := q.SetWeights(w); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// Score is the mean behaviour-cloning loss (−log π(action | input)) over every step of seqs with
// an action, without training: a validation split's measure.
func (p *BC) Score(seqs []Seq) (float64, error) {
	var sum float64
	var n int
	for i, s := range seqs {
		if len(s.Actions) == 0 {
			continue
		}
		steps := make([]Seq, len(s.Actions))
		for t := range s.Actions {
			steps[t] = Seq{Prefix: s.Prefix, Obs: s.Obs[t : t+1]}
		}
		logits, err := p.ActionLogits(steps)
		if err != nil {
			return 0, fmt.Errorf("sequence %d: %w", i, err)
		}
		for t, a := range s.Actions {
			if a < 0 || a >= p.Cfg.Actions {
				return 0, fmt.Errorf("dt bc: sequence %d step %d action %d out of [0, %d)", i, t, a, p.Cfg.Actions)
			}
			sum -= logSoftmaxAt(logits[t], a)
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("dt bc: no actions to score")
	}
	return sum / float64(n), nil
}

// logSoftmaxAt is log softmax(logits)[a], computed stably.
func logSoftmaxAt(logits []float32, a int) float64 {
	m := float64(logits[0])
	for _, v := range logits {
		m = math.Max(m, float64(v))
	}
	var z float64
	for _, v := range logits {
		z += math.Exp(float64(v) - m)
	}
	return float64(logits[a]) - m - math.Log(z)
}

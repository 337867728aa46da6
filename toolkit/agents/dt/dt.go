// Package dt is a decision transformer (Chen et al. 2021; with Prompt-DT's demonstration in
// context, Xu et al. 2022) on PaperLab's shared trunk (toolkit/lm): one token stream of task and
// embodiment tokens, returns-to-go, observations and actions. Observations enter through a patch
// embedder fed with the observation vectors themselves (lm.InputPatches), never through a text
// tokenizer; an embodiment with a smaller observation is zero-padded to Pixels and one with fewer
// actions reads the first of the shared action tokens. The model is trained autoregressively to
// predict each action from everything before it (cross-entropy at the OBS positions), and acts by
// conditioning on a desired return-to-go.
//
// tokens.go is the stream and its packing; dt.go the model, its loss, the training loop and acting;
// bc.go the MLP behaviour-cloning baseline.
package dt

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Config is a flat, documented configuration of the agent and its training.
type Config struct {
	// Dim, Layers, Heads: the trunk; Context the longest stream (prompt included).
	Dim     int `json:"dim"`
	Layers  int `json:"layers"`
	Heads   int `json:"heads"`
	Context int `json:"context"`
	// RTGBins return-to-go tokens over [0, 1]; Actions the largest action set; Prefixes the task and
	// embodiment tokens; Pixels the largest observation.
	RTGBins  int `json:"rtg_bins"`
	Actions  int `json:"actions"`
	Prefixes int `json:"prefixes"`
	Pixels   int `json:"pixels"`
	// LR (Adam, gradient clipped at ClipNorm) and Batch sequences per step.
	LR       float64 `json:"lr"`
	ClipNorm float64 `json:"clip_norm"`
	Batch    int     `json:"batch"`
	// Stream is how a step is laid out: StreamTriples ("" too) three tokens (return-to-go, OBS,
	// action) as in the decision transformer paper; StreamSteps one token per step — the
	// return-to-go bin and the previous action as one token id, the observation's patch added to
	// its embedding (lm.Config.PatchAdd) — a third of the positions, so about a third of the
	// compute (PaperLab's choice, since 2026-12-04).
	Stream string `json:"stream,omitempty"`
	// DecaySteps > 0 decays the rate along a cosine to 0 over that many optimizer steps (then 0);
	// 0 keeps it constant. A new optimizer (Clone) starts the schedule again.
	DecaySteps int `json:"decay_steps,omitempty"`
	// ObsHidden > 0 encodes each observation with a one-hidden-layer MLP of that width before the
	// trunk (lm.Config.PatchHidden); 0 a linear patch embedding (the decision transformer paper's).
	ObsHidden int `json:"obs_hidden,omitempty"`
}

// Stream layouts (Config.Stream).
const (
	StreamTriples = "triples"
	StreamSteps   = "steps"
)

// Vocab is the configuration's token layout.
func (c Config) Vocab() Vocab {
	return Vocab{RTGBins: c.RTGBins, Actions: c.Actions, Prefixes: c.Prefixes, Steps: c.Stream == StreamSteps}
}

// LM is the trunk's configuration: learned positions, GELU, the patch embedder fed from the batch.
func (c Config) LM() lm.Config {
	return lm.Config{Vocab: c.Vocab().Size(), Context: c.Context, Layers: c.Layers, Dim: c.Dim, Heads: c.Heads,
		Positions: "learned", Activation: "gelu", InitStd: 0.02, Renderer: lm.InputPatches, Pixels: c.Pixels, PatchAdd: c.Stream == StreamSteps, PatchHidden: c.ObsHidden}
}

// Validate names an invalid field.
func (c Config) Validate() error {
	if c.RTGBins < 1 || c.Actions < 1 || c.Prefixes < 0 || c.Pixels < 1 || !(c.LR > 0) || c.ClipNorm < 0 || c.Batch < 1 || c.DecaySteps < 0 {
		return fmt.Errorf("dt: rtg_bins, actions, pixels, batch ≥ 1, prefixes ≥ 0, lr > 0, clip_norm ≥ 0 and decay_steps ≥ 0 are needed (%+v)", c)
	}
	if c.Stream != "" && c.Stream != StreamTriples && c.Stream != StreamSteps {
		return fmt.Errorf("dt: stream %q, want %q or %q", c.Stream, StreamTriples, StreamSteps)
	}
	return c.LM().Validate()
}

// Agent is a decision transformer: its configuration, the trunk and (once trained) its optimizer.
type Agent struct {
	Cfg   Config
	Model *lm.Model
	tr    *lm.Trainer
}

// New makes an agent with weights drawn from seed.
func New(cfg Config, seed uint64) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := lm.New(cfg.LM(), nil, seed)
	if err != nil {
		return nil, err
	}
	return &Agent{Cfg: cfg, Model: m}, nil
}

// Clone returns an agent with a copy of the weights and a fresh optimizer (fine-tuning starts
// from a pretrained agent without touching it).
func (a *Agent) Clone() (*Agent, error) {
	m, err := a.Model.Clone()
	if err != nil {
		return nil, err
	}
	return &Agent{Cfg: a.Cfg, Model: m}, nil
}

// Close frees the weights and optimizer state.
func (a *Agent) Close() {
	if a.tr != nil {
		a.tr.Close()
	}
	a.Model.Close()
}

// ActionLoss is the behaviour-cloning loss of the stream: −mean log p(action | everything before)
// over the trajectory's OBS positions ("targets", "target_mask"), with the action accuracy.
var ActionLoss = lm.Loss{
	Name:   "dt-action",
	Inputs: []string{"tokens", "positions", "key_mask", "targets", "target_mask"},
	Fn: func(c lm.Config, w *lm.Views, in lm.In) (*Node, []*Node) {
		loss, acc := actionMeasures(c, w, in)
		return loss, []*Node{loss, acc}
	},
}

// actionMeasures are ActionLoss's loss and action accuracy (training and Score share them).
func actionMeasures(c lm.Config, w *lm.Views, in lm.In) (loss, accuracy *Node) {
	logits, _, _ := lm.Forward(c, w, in)
	mask := in.Get("target_mask")
	loss = Neg(lm.MaskedMean(lm.TokenLogProbs(logits, in.Get("targets")), mask))
	hit := ConvertDType(Equal(ConvertDType(ArgMax(logits, -1), dtypes.Int32), in.Get("targets")), dtypes.Float32)
	return loss, lm.MaskedMean(hit, mask)
}

// Update runs one optimizer step on seqs.
func (a *Agent) Update(seqs []Seq) (lm.StepStats, error) {
	if a.tr == nil {
		opt := lm.DefaultOpt(a.Cfg.LR)
		opt.ClipNorm, opt.TotalSteps = a.Cfg.ClipNorm, a.Cfg.DecaySteps
		tr, err := lm.NewTrainer(a.Model, opt, []string{"action_loss", "action_accuracy"}, ActionLoss)
		if err != nil {
			return lm.StepStats{}, err
		}
		a.tr = tr
	}
	b, err := a.Cfg.Vocab().Pack(seqs, a.Cfg.Context, a.Cfg.Pixels)
	if err != nil {
		return lm.StepStats{}, err
	}
	return a.tr.Update(b.Inputs())
}

// Train runs steps optimizer steps on minibatches of Batch sequences drawn uniformly from data and
// returns the curves action_loss and action_accuracy (means over every 10 steps) against steps.
func (a *Agent) Train(data []Seq, steps int, r *rand.Rand, progress track.Progress) (track.Curves, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("dt: no training sequences")
	}
	if progress == nil {
		progress = track.NoProgress{}
	}
	curves := track.Curves{}
	var loss, acc float64
	var n int
	for s := 1; s <= steps; s++ {
		batch := make([]Seq, a.Cfg.Batch)
		for i := range batch {
			batch[i] = data[r.IntN(len(data))]
		}
		st, err := a.Update(batch)
		if err != nil {
			return curves, fmt.Errorf("dt step %d: %w", s, err)
		}
		loss, acc, n = loss+st.Metrics["action_loss"], acc+st.Metrics["action_accuracy"], n+1
		if s%10 == 0 || s == steps {
			curves.Add("action_loss", float64(s), loss/float64(n))
			curves.Add("action_accuracy", float64(s), acc/float64(n))
			progress.Update(s, fmt.Sprintf("action loss %.3f accuracy %.3f", loss/float64(n), acc/float64(n)))
			loss, acc, n = 0, 0, 0
		}
	}
	return curves, nil
}

// logitsFunc is the stream's logits at every position, read from a packed batch by name.
func (a *Agent) logitsFunc() nn.Func {
	c := a.Model.Config
	return nn.Func{Name: "dt-logits", Inputs: append([]string{"tokens", "positions", "key_mask"}, c.EmbedInputs()...),
		Fn: func(w *nn.Views, in nn.In) []*Node {
			logits, _, _ := lm.Forward(c, w, in)
			return []*Node{logits}
		}}
}

// ActionLogits returns, for each sequence (its last step without an action), the logits of the
// next action over the Cfg.Actions action tokens.
func (a *Agent) ActionLogits(seqs []Seq) ([][]float32, error) {
	v := a.Cfg.Vocab()
	padded := append([]Seq(nil), seqs...)
	// lm.Bucket with Pack's widths bounds the compiled shapes while episodes end and the batch shrinks.
	for len(padded) < lm.Bucket(len(seqs)) {
		padded = append(padded, seqs[0]) // padding rows, read by nobody
	}
	b, err := v.Pack(padded, a.Cfg.Context, a.Cfg.Pixels)
	if err != nil {
		return nil, err
	}
	flat, err := a.Model.CallFloats(a.logitsFunc(), b.Inputs())
	if err != nil {
		return nil, err
	}
	vs := v.Size()
	res := make([][]float32, len(seqs))
	for i := range seqs {
		row := flat[(i*b.T+b.Last[i])*vs:]
		first := int(v.Action(0))
		res[i] = append([]float32(nil), row[first:first+a.Cfg.Actions]...)
	}
	return res, nil
}

// Choose picks an action among the first n of logits: the most likely (greedy) or sampled at
// temperature 1.
func Choose(logits []float32, n int, greedy bool, r *rand.Rand) int {
	a, _ := dist.Choose(r, logits[:n], nil, greedy)
	return a
}

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
	// WarmupSteps > 0 raises the rate linearly from 0 over that many steps of a fresh optimizer
	// (fine-tuning's first steps need not be its largest).
	WarmupSteps int `json:"warmup_steps,omitempty"`
	// PrefixInObs feeds the stream's prefix tokens (multi-hot over Prefixes) into every observation
	// patch beside the observation itself, so the observation encoder reads the task with the
	// state (the patch is Pixels + Prefixes wide); off, the task reaches an observation only
	// through attention to the prefix positions.
	PrefixInObs bool `json:"prefix_in_obs,omitempty"`
	// AuxWeight > 0 adds an auxiliary head (AuxClasses logits read from each trajectory step's
	// hidden state) trained by cross-entropy on Seq.Aux, weighted by AuxWeight, to the action loss.
	AuxWeight  float64 `json:"aux_weight,omitempty"`
	AuxClasses int     `json:"aux_classes,omitempty"`
	// Paired draws minibatches of pairs: streams 2i and 2i+1 of the training data always together
	// (Batch/2 pairs), for data laid out as pairs (e.g. one world demonstrated for two goals).
	Paired bool `json:"paired,omitempty"`
}

// Stream layouts (Config.Stream).
const (
	StreamTriples = "triples"
	StreamSteps   = "steps"
)

// Vocab is the configuration's token layout.
func (c Config) Vocab() Vocab {
	return Vocab{RTGBins: c.RTGBins, Actions: c.Actions, Prefixes: c.Prefixes, Steps: c.Stream == StreamSteps, PrefixInObs: c.PrefixInObs, Aux: c.AuxWeight > 0}
}

// patchWidth is the width of an observation patch: Pixels, plus the prefix multi-hot with PrefixInObs.
func (c Config) patchWidth() int {
	if c.PrefixInObs {
		return c.Pixels + c.Prefixes
	}
	return c.Pixels
}

// auxHead is the name of the auxiliary head (Config.AuxWeight).
const auxHead = "aux"

// LM is the trunk's configuration: learned positions, GELU, the patch embedder fed from the batch.
func (c Config) LM() lm.Config {
	l := lm.Config{Vocab: c.Vocab().Size(), Context: c.Context, Layers: c.Layers, Dim: c.Dim, Heads: c.Heads,
		Positions: "learned", Activation: "gelu", InitStd: 0.02, Renderer: lm.InputPatches, Pixels: c.patchWidth(), PatchAdd: c.Stream == StreamSteps, PatchHidden: c.ObsHidden}
	if c.AuxWeight > 0 {
		l.ExtraHeads = []lm.HeadSpec{{Name: auxHead, Out: c.AuxClasses}}
	}
	return l
}

// Validate names an invalid field.
func (c Config) Validate() error {
	if c.RTGBins < 1 || c.Actions < 1 || c.Prefixes < 0 || c.Pixels < 1 || !(c.LR > 0) || c.ClipNorm < 0 || c.Batch < 1 || c.DecaySteps < 0 {
		return fmt.Errorf("dt: rtg_bins, actions, pixels, batch ≥ 1, prefixes ≥ 0, lr > 0, clip_norm ≥ 0 and decay_steps ≥ 0 are needed (%+v)", c)
	}
	if c.WarmupSteps < 0 || c.AuxWeight < 0 || (c.AuxWeight > 0 && c.AuxClasses < 2) || (c.Paired && c.Batch%2 != 0) {
		return fmt.Errorf("dt: warmup_steps ≥ 0, aux_weight ≥ 0 (with aux_classes ≥ 2 when > 0) and an even batch when paired are needed (%+v)", c)
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

// AuxParams are what AuxLoss closes over.
type AuxParams struct {
	Weight float64 `json:"weight"`
}

// AuxLoss is ActionLoss plus weight times the auxiliary head's cross-entropy on "aux_targets" at the
// positions of "aux_mask" (Config.AuxWeight); its metrics are the action loss and accuracy and the
// auxiliary loss and accuracy.
func AuxLoss(weight float64) lm.Loss {
	return lm.Loss{
		Name:   "dt-action-aux",
		Params: AuxParams{Weight: weight},
		Inputs: []string{"tokens", "positions", "key_mask", "targets", "target_mask", "aux_targets", "aux_mask"},
		Fn: func(c lm.Config, w *lm.Views, in lm.In) (*Node, []*Node) {
			h, logits := hiddenAndLogits(c, w, in)
			loss, acc := maskedCE(logits, in.Get("targets"), in.Get("target_mask"))
			dims := in.Get("tokens").Shape().Dimensions
			aux := Reshape(lm.Head(c, w, auxHead, h), dims[0], dims[1], -1)
			auxLoss, auxAcc := maskedCE(aux, in.Get("aux_targets"), in.Get("aux_mask"))
			return Add(loss, MulScalar(auxLoss, weight)), []*Node{loss, acc, auxLoss, auxAcc}
		},
	}
}

// hiddenAndLogits are the trunk's final hidden states [B·T,D] and the next-token logits [B,T,V].
func hiddenAndLogits(c lm.Config, w *lm.Views, in lm.In) (h, logits *Node) {
	dims := in.Get("tokens").Shape().Dimensions
	h, _, _ = lm.Hidden(c, w, lm.Embed(c, w, in), in.Get("positions"), in.Get("key_mask"))
	return h, Reshape(lm.LMHead(c, w, h), dims[0], dims[1], c.Vocab)
}

// maskedCE is −mean log p(target) over the positions of mask and the share of them whose most
// likely class is the target, for logits [B,T,K] and targets [B,T].
func maskedCE(logits, targets, mask *Node) (loss, accuracy *Node) {
	loss = Neg(lm.MaskedMean(lm.TokenLogProbs(logits, targets), mask))
	hit := ConvertDType(Equal(ConvertDType(ArgMax(logits, -1), dtypes.Int32), targets), dtypes.Float32)
	return loss, lm.MaskedMean(hit, mask)
}

// actionMeasures are ActionLoss's loss and action accuracy (training and Score share them).
func actionMeasures(c lm.Config, w *lm.Views, in lm.In) (loss, accuracy *Node) {
	logits, _, _ := lm.Forward(c, w, in)
	return maskedCE(logits, in.Get("targets"), in.Get("target_mask"))
}

// trainLoss is the loss the configuration trains on and its metric names.
func (c Config) trainLoss() (lm.Loss, []string) {
	if c.AuxWeight > 0 {
		return AuxLoss(c.AuxWeight), []string{"action_loss", "action_accuracy", "aux_loss", "aux_accuracy"}
	}
	return ActionLoss, []string{"action_loss", "action_accuracy"}
}

// Update runs one optimizer step on seqs.
func (a *Agent) Update(seqs []Seq) (lm.StepStats, error) {
	if a.tr == nil {
		opt := lm.DefaultOpt(a.Cfg.LR)
		opt.ClipNorm, opt.TotalSteps, opt.WarmupSteps = a.Cfg.ClipNorm, a.Cfg.DecaySteps, a.Cfg.WarmupSteps
		loss, names := a.Cfg.trainLoss()
		tr, err := lm.NewTrainer(a.Model, opt, names, loss)
		if err != nil {
			return lm.StepStats{}, err
		}
		a.tr = tr
	}
	b, err := a.Cfg.Vocab().Pack(seqs, a.Cfg.Context, a.Cfg.patchWidth())
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
	if a.Cfg.Paired && len(data)%2 != 0 {
		return nil, fmt.Errorf("dt: paired batches need the training streams laid out as pairs, got %d streams", len(data))
	}
	curves := track.Curves{}
	_, names := a.Cfg.trainLoss()
	sums := make([]float64, len(names))
	var n int
	for s := 1; s <= steps; s++ {
		batch := make([]Seq, a.Cfg.Batch)
		for i := 0; i < len(batch); i++ {
			if a.Cfg.Paired { // pair j: streams 2j and 2j+1, side by side
				j := r.IntN(len(data) / 2)
				batch[i], batch[i+1] = data[2*j], data[2*j+1]
				i++
				continue
			}
			batch[i] = data[r.IntN(len(data))]
		}
		st, err := a.Update(batch)
		if err != nil {
			return curves, fmt.Errorf("dt step %d: %w", s, err)
		}
		for i, name := range names {
			sums[i] += st.Metrics[name]
		}
		n++
		if s%10 == 0 || s == steps {
			for i, name := range names {
				curves.Add(name, float64(s), sums[i]/float64(n))
				sums[i] = 0
			}
			progress.Update(s, fmt.Sprintf("action loss %.3f accuracy %.3f", lastY(curves, names[0]), lastY(curves, names[1])))
			n = 0
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
	b, err := v.Pack(padded, a.Cfg.Context, a.Cfg.patchWidth())
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

// lastY is the last value of curve name.
func lastY(c track.Curves, name string) float64 { y := c[name].Y; return y[len(y)-1] }

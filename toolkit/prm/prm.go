// Package prm is a process reward model for the tiny LM (CoS, toolkit/exp/cos/README.md): the transformer
// trunk with a 2-way head read at step-tag positions (p(good) by softmax), trained with binary cross
// entropy on hard or soft step labels; Monte-Carlo step labels from a policy's completions
// (Math-Shepherd); trace scores that weigh steps against the answer; and inference-time search with a
// PRM (best-of-N, PRM-weighted vote, step-level beam search) beside majority voting.
//
// Layout: prm.go (model, loss, training, scoring), label.go (Monte-Carlo labels), score.go (trace
// scores), search.go (inference-time search).
package prm

import (
	"errors"
	"fmt"
	"math"
	"slices"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// HeadName is the PRM head's name in the model configuration.
const HeadName = "prm"

// NumFeatures is the number of policy features a PRM that reads its policy sees at each tag: the
// log-probability the policy gave the step's tokens (the tag excluded) and the running minimum of
// that over the trace's steps so far. Both are clipped at −FeatureClip.
const NumFeatures = 2

// FeatureClip bounds a feature from below (a token the policy all but excluded would otherwise
// dominate the head).
const FeatureClip = 20

// PRM is a process reward model: LM, a policy's transformer with a 2-way head (p(good) by softmax)
// read at each step tag, and, when the head also reads the policy's own view of each step, the frozen
// Policy whose log-probabilities are those features (ReadsPolicy).
type PRM struct {
	LM     *lm.Model
	Tag    int32
	Policy *lm.Model
}

// ReadsPolicy reports whether the head reads the policy's step log-probabilities.
func (p *PRM) ReadsPolicy() bool { return p.Policy != nil }

// Close releases the PRM's weights (not the policy's).
func (p *PRM) Close() { p.LM.Close() }

// New returns a PRM that starts from a policy: its weights, plus a 2-way head drawn from seed. With
// readPolicy the head also reads NumFeatures features from the (frozen) policy at each tag: a
// fine-tuned head alone learns slowly to check a step it could itself predict, while the policy's
// probability of what was written is a sharp signal of a slip (in cos's seed-1 probe: held-out step
// AUC 0.995 for the running minimum alone, 0.62 for the trunk-and-head PRM after 2,400 steps).
func New(policy *lm.Model, tag int32, seed uint64, readPolicy bool) (*PRM, error) {
	spec := lm.HeadSpec{Name: HeadName, Out: 2}
	if readPolicy {
		spec.Features = NumFeatures
	}
	m, err := policy.WithHeads(seed, spec)
	if err != nil {
		return nil, err
	}
	p := &PRM{LM: m, Tag: tag}
	if readPolicy {
		p.Policy = policy
	}
	return p, nil
}

// NewIndependent returns a PRM with a trunk of its own: a fresh model of configuration c (the
// policy's tokenizer; c may be wider or deeper than the policy's) with the 2-way head, all drawn from
// seed, reading no policy features — as CoS trains a separate PRM rather than a head on its policy
// (since 2026-12-03). c.Vocab must be the tokenizer's size.
func NewIndependent(c lm.Config, tok *lm.Tokenizer, tag int32, seed uint64) (*PRM, error) {
	c.ExtraHeads = append(slices.Clone(c.ExtraHeads), lm.HeadSpec{Name: HeadName, Out: 2})
	m, err := lm.New(c, tok, seed)
	if err != nil {
		return nil, err
	}
	return &PRM{LM: m, Tag: tag}, nil
}

// Example is one labelled trace: a prompt, a completion whose steps end with the tag token, and one
// label in [0, 1] per tag (1 good, 0 bad; fractions are soft labels).
type Example struct {
	Prompt, Completion []int32
	Labels             []float64
}

// Inputs are the names of the PRM loss's batch inputs, all [B,T]: the packed sequences, tag_mask (1
// at inputs that are a tag) and labels (the tag's label, 0 elsewhere); a PRM that reads its policy
// also gets step_logp and min_logp (the features at tags, 0 elsewhere).
var Inputs = []string{"tokens", "positions", "key_mask", "tag_mask", "labels"}

// FeatureInputs are the names of the policy features among the batch inputs.
var FeatureInputs = []string{"step_logp", "min_logp"}

// Loss is binary cross entropy over tags: −Σ_tags [y·log p + (1−y)·log(1−p)] / #tags, with
// p = softmax(head)[good] at each tag. Metrics: "tag_accuracy" (p > ½ agrees with y > ½) and
// "p_good" (mean p).
var Loss = lm.Loss{Name: "prm", Inputs: Inputs, Fn: func(c lm.Config, w *lm.Views, in lm.In) (*Node, []*Node) {
	logGood, logBad := logProbs(c, w, in)
	n := logGood.Shape().Dimensions[0]
	mask, y := Reshape(in.Get("tag_mask"), n), Reshape(in.Get("labels"), n)
	bce := Neg(Add(Mul(y, logGood), Mul(OneMinus(y), logBad)))
	loss := lm.MaskedMean(bce, mask)
	p := Exp(logGood)
	// Agreement compared as 0/1 floats: the pure-Go engine has no Equal on booleans.
	above := func(x *Node) *Node { return ConvertDType(GreaterThan(x, nn.ScalarLike(x, 0.5)), x.DType()) }
	agree := ConvertDType(Equal(above(p), above(y)), p.DType())
	return loss, []*Node{lm.MaskedMean(agree, mask), lm.MaskedMean(p, mask)}
}}

// FeatureLoss is Loss for a PRM that reads its policy (its inputs include FeatureInputs).
var FeatureLoss = lm.Loss{Name: "prm-features", Inputs: append(slices.Clone(Inputs), FeatureInputs...), Fn: Loss.Fn}

// Metrics are the names of Loss's metrics.
var Metrics = []string{"tag_accuracy", "p_good"}

// headSpec is the PRM head's declaration in c.
func headSpec(c lm.Config) lm.HeadSpec {
	for _, h := range c.ExtraHeads {
		if h.Name == HeadName {
			return h
		}
	}
	panic("prm: the model has no PRM head")
}

// logProbs returns log p(good) and log p(bad) [B·T] at every position. The two columns of the head's
// log-softmax are read with matmuls by constant vectors, since a Slice's gradient (Pad) is missing on
// ONNX Runtime.
func logProbs(c lm.Config, w *lm.Views, in lm.In) (logGood, logBad *Node) {
	pos := in.Get("positions")
	h, _, _ := lm.Hidden(c, w, lm.Embed(c, w, in), pos, in.Get("key_mask"))
	var logits *Node
	if headSpec(c).Features > 0 {
		n := h.Shape().Dimensions[0]
		f := Concatenate([]*Node{Reshape(in.Get("step_logp"), n, 1), Reshape(in.Get("min_logp"), n, 1)}, -1)
		logits = lm.HeadWithFeatures(c, w, HeadName, h, f)
	} else {
		logits = lm.Head(c, w, HeadName, h)
	}
	lsm := LogSoftmax(logits, -1) // [N, 2]
	n := lsm.Shape().Dimensions[0]
	g := lsm.Graph()
	col := func(v []float32) *Node { return Reshape(MatMul(lsm, Const(g, [][]float32{{v[0]}, {v[1]}})), n) }
	return col([]float32{1, 0}), col([]float32{0, 1})
}

// StepFeatures returns the policy features (NumFeatures per tag, in order) of each (prompt,
// completion): the summed log-probability of each step's tokens between tags (the tag excluded) and
// its running minimum, each clipped at −FeatureClip.
func StepFeatures(policy *lm.Model, tag int32, prompts, completions [][]int32) ([][][NumFeatures]float32, error) {
	exs := make([]lm.Example, len(prompts))
	for i := range prompts {
		exs[i] = lm.Example{Prompt: prompts[i], Completion: completions[i]}
	}
	sc, err := policy.Score(exs, false)
	if err != nil {
		return nil, err
	}
	out := make([][][NumFeatures]float32, len(exs))
	for i, c := range completions {
		step, run := 0.0, 0.0
		first := true
		for j, t := range c {
			if t != tag {
				step += float64(sc[i].LogProbs[j])
				continue
			}
			step = max(step, -FeatureClip)
			if first || step < run {
				run, first = step, false
			}
			out[i] = append(out[i], [NumFeatures]float32{float32(step), float32(run)})
			step = 0
		}
	}
	return out, nil
}

// pack builds the loss inputs of examples (EOS appended, so a completion's last tag is an input);
// feats (nil for a PRM that does not read its policy) are the examples' StepFeatures.
func pack(examples []Example, tag int32, context int, feats [][][NumFeatures]float32) (lm.Inputs, error) {
	exs := make([]lm.Example, len(examples))
	for i, e := range examples {
		exs[i] = lm.Example{Prompt: e.Prompt, Completion: e.Completion}
	}
	b, err := lm.Pack(exs, lm.FitWidth(exs, context, true), true)
	if err != nil {
		return lm.Inputs{}, err
	}
	tagMask := make([]float32, b.B*b.T)
	labels := make([]float32, b.B*b.T)
	var fv [NumFeatures][]float32
	if feats != nil {
		for k := range fv {
			fv[k] = make([]float32, b.B*b.T)
		}
	}
	for i, e := range examples {
		k := 0
		for j := b.CompletionStart[i]; j < b.T && b.KeyMask[i*b.T+j] == 1; j++ {
			if b.Tokens[i*b.T+j] != tag {
				continue
			}
			if k >= len(e.Labels) {
				return lm.Inputs{}, fmt.Errorf("prm: example %d has more tags than its %d labels", i, len(e.Labels))
			}
			tagMask[i*b.T+j], labels[i*b.T+j] = 1, float32(e.Labels[k])
			if feats != nil {
				if k >= len(feats[i]) {
					return lm.Inputs{}, fmt.Errorf("prm: example %d has more tags than its %d features", i, len(feats[i]))
				}
				for f := range fv {
					fv[f][i*b.T+j] = feats[i][k][f]
				}
			}
			k++
		}
		if k != len(e.Labels) {
			return lm.Inputs{}, fmt.Errorf("prm: example %d has %d tags for %d labels", i, k, len(e.Labels))
		}
	}
	in := lm.Inputs{Names: []string{"tokens", "positions", "key_mask"}, Values: b.Tensors()[:3]}
	in.Add("tag_mask", tensors.FromFlatDataAndDimensions(tagMask, b.B, b.T))
	in.Add("labels", tensors.FromFlatDataAndDimensions(labels, b.B, b.T))
	if feats != nil {
		for f, name := range FeatureInputs {
			in.Add(name, tensors.FromFlatDataAndDimensions(fv[f], b.B, b.T))
		}
	}
	return in, nil
}

// features returns the policy features of examples, or nil for a PRM that does not read its policy.
func (p *PRM) features(prompts, completions [][]int32) ([][][NumFeatures]float32, error) {
	if !p.ReadsPolicy() {
		return nil, nil
	}
	return StepFeatures(p.Policy, p.Tag, prompts, completions)
}

// TrainConfig configures PRM training: Steps of Adam on batches of BatchSize examples drawn with
// replacement (a function of Seed and the step, lm.BatchIndices).
//
// With EvalEvery > 0 and a Validate hook, training is judged on held-out traces: every EvalEvery
// steps (and at the last) the hook scores the PRM, the weights of the best score so far are kept
// and restored at the end, and Patience > 0 stops training once that many evaluations in a row have
// not improved on the best (Steps is then a cap). The learning-rate schedule runs over Steps either way.
type TrainConfig struct {
	Steps     int          `json:"steps"`
	BatchSize int          `json:"batch_size"`
	Seed      uint64       `json:"seed"`
	Opt       lm.OptConfig `json:"opt"`
	EvalEvery int          `json:"eval_every,omitempty"`
	Patience  int          `json:"patience,omitempty"`
}

// Validate names the first invalid field.
func (c TrainConfig) Validate() error {
	if c.Steps < 1 || c.BatchSize < 1 || c.EvalEvery < 0 || c.Patience < 0 {
		return fmt.Errorf("prm: training needs steps ≥ 1 and batch_size ≥ 1, eval_every and patience ≥ 0 (got %d, %d, %d, %d)",
			c.Steps, c.BatchSize, c.EvalEvery, c.Patience)
	}
	return nil
}

// TrainHooks are what a caller watches or decides during training: Progress (nil: none), and
// Validate, the held-out score of the PRM (higher is better; NaN when it cannot be measured, which
// never counts as an improvement), read every EvalEvery steps.
type TrainHooks struct {
	Progress track.Progress
	Validate func(p *PRM) (float64, error)
}

// TrainResult is a training's curves ("loss" and "tag_accuracy" per step; "validation" at each
// evaluation), the step whose weights the PRM holds at the end (BestStep, with its validation score
// Best; the last step when nothing validates) and the number of steps run (Ran).
type TrainResult struct {
	Curves   track.Curves
	BestStep int
	Best     float64
	Ran      int
}

// Train fits the PRM head (and trunk) on labelled traces and returns the curves of the loss and tag
// accuracy per step (and of the validation score, TrainConfig).
func (p *PRM) Train(examples []Example, cfg TrainConfig, hooks TrainHooks) (TrainResult, error) {
	if len(examples) == 0 {
		return TrainResult{}, errors.New("prm: training needs examples")
	}
	if err := cfg.Validate(); err != nil {
		return TrainResult{}, err
	}
	validates := cfg.EvalEvery > 0 && hooks.Validate != nil
	prompts, comps := make([][]int32, len(examples)), make([][]int32, len(examples))
	for i, e := range examples {
		prompts[i], comps[i] = e.Prompt, e.Completion
	}
	feats, err := p.features(prompts, comps) // the policy is frozen: once for all steps
	if err != nil {
		return TrainResult{}, err
	}
	loss := Loss
	if p.ReadsPolicy() {
		loss = FeatureLoss
	}
	tr, err := lm.NewTrainer(p.LM, cfg.Opt, Metrics, loss)
	if err != nil {
		return TrainResult{}, err
	}
	defer tr.Close()
	res := TrainResult{Curves: track.Curves{}, Best: math.Inf(-1)}
	var best []float32
	stale := 0
	for step := 1; step <= cfg.Steps; step++ {
		idx := lm.BatchIndices(len(examples), cfg.BatchSize, cfg.Seed, step)
		batch := make([]Example, len(idx))
		var bf [][][NumFeatures]float32
		for i, k := range idx {
			batch[i] = examples[k]
			if feats != nil {
				bf = append(bf, feats[k])
			}
		}
		in, err := pack(batch, p.Tag, p.LM.Config.Context, bf)
		if err != nil {
			return TrainResult{}, err
		}
		st, err := tr.Update(in)
		if err != nil {
			return TrainResult{}, err
		}
		res.Ran = step
		res.Curves.Add("loss", float64(step), st.Loss)
		res.Curves.Add("tag_accuracy", float64(step), st.Metrics["tag_accuracy"])
		msg := fmt.Sprintf("loss %.4f tag accuracy %.3f", st.Loss, st.Metrics["tag_accuracy"])
		if validates && (step%cfg.EvalEvery == 0 || step == cfg.Steps) {
			v, err := hooks.Validate(p)
			if err != nil {
				return TrainResult{}, fmt.Errorf("prm: validation at step %d: %w", step, err)
			}
			if !math.IsNaN(v) { // an unmeasurable evaluation leaves no point
				res.Curves.Add("validation", float64(step), v)
			}
			if v > res.Best {
				if best, err = p.LM.Weights(); err != nil {
					return TrainResult{}, err
				}
				res.Best, res.BestStep, stale = v, step, 0
			} else {
				stale++
			}
			msg += fmt.Sprintf(" validation %.3f (best %.3f at %d)", v, res.Best, res.BestStep)
		}
		if hooks.Progress != nil {
			hooks.Progress.Update(step, msg)
		}
		if validates && cfg.Patience > 0 && stale >= cfg.Patience {
			break
		}
	}
	if best == nil { // no validation, or none scored (NaN: an undefined score never counts as best)
		res.BestStep, res.Best = res.Ran, math.NaN()
		return res, nil
	}
	if res.BestStep != res.Ran {
		if err := p.LM.SetWeights(best); err != nil {
			return TrainResult{}, err
		}
	}
	return res, nil
}

// scoreFunc is the graph of p(good) at every position.
func (p *PRM) scoreFunc() nn.Func {
	c := p.LM.Config
	return nn.Func{Name: "prm-score", Inputs: p.scoreInputs(), Fn: func(w *nn.Views, in nn.In) []*Node {
		logGood, _ := logProbs(c, w, in)
		return []*Node{Exp(logGood)}
	}}
}

// scoreInputs are the batch inputs the scoring graph reads, in order.
func (p *PRM) scoreInputs() []string {
	names := slices.Clone(Inputs[:3])
	if p.ReadsPolicy() {
		names = append(names, FeatureInputs...)
	}
	return append(names, p.LM.Config.EmbedInputs()...)
}

// Score returns p(good) at every tag of each (prompt, completion), in order. A completion may be a
// prefix (scored up to its last tag).
func (p *PRM) Score(prompts, completions [][]int32) ([][]float64, error) {
	if len(prompts) != len(completions) {
		return nil, fmt.Errorf("prm: %d prompts, %d completions", len(prompts), len(completions))
	}
	m, tag := p.LM, p.Tag
	out := make([][]float64, 0, len(prompts))
	const chunk = 256
	for lo := 0; lo < len(prompts); lo += chunk {
		hi := min(lo+chunk, len(prompts))
		exs := make([]Example, 0, hi-lo)
		for i := lo; i < hi; i++ {
			exs = append(exs, Example{Prompt: prompts[i], Completion: completions[i], Labels: make([]float64, count(completions[i], tag))})
		}
		for len(exs)%8 != 0 { // few compiled shapes: pad to a multiple of 8 rows
			exs = append(exs, Example{Prompt: prompts[lo]})
		}
		ps, cs := make([][]int32, len(exs)), make([][]int32, len(exs))
		for i, e := range exs {
			ps[i], cs[i] = e.Prompt, e.Completion
		}
		feats, err := p.features(ps, cs)
		if err != nil {
			return nil, err
		}
		in, err := pack(exs, tag, m.Config.Context, feats)
		if err != nil {
			return nil, err
		}
		if err := m.AddEmbedInputs(&in); err != nil {
			return nil, err
		}
		res, err := m.Call(p.scoreFunc(), in)
		if err != nil {
			return nil, fmt.Errorf("prm: %w", err)
		}
		pg, err := tensors.CopyFlatData[float32](res[0])
		res[0].FinalizeAll()
		if err != nil {
			return nil, err
		}
		maskT := in.Value("tag_mask").(*tensors.Tensor)
		mask := tensors.MustCopyFlatData[float32](maskT)
		width := maskT.Shape().Dimensions[1]
		for i := 0; i < hi-lo; i++ {
			var s []float64
			for j := 0; j < width; j++ {
				if mask[i*width+j] == 1 {
					v := float64(pg[i*width+j])
					if math.IsNaN(v) {
						return nil, fmt.Errorf("prm: score of sequence %d is NaN", lo+i)
					}
					s = append(s, v)
				}
			}
			out = append(out, s)
		}
	}
	return out, nil
}

func count(s []int32, t int32) int {
	n := 0
	for _, v := range s {
		if v == t {
			n++
		}
	}
	return n
}

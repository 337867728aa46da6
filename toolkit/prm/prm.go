// Package prm is a process reward model for the tiny LM (CoS, shared/papers §3): the transformer
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

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// HeadName is the PRM head's name in the model configuration.
const HeadName = "prm"

// New returns a PRM that starts from a policy: its weights, plus a 2-way head drawn from seed.
func New(policy *lm.Model, seed uint64) (*lm.Model, error) {
	return policy.WithHeads(seed, lm.HeadSpec{Name: HeadName, Out: 2})
}

// Example is one labelled trace: a prompt, a completion whose steps end with the tag token, and one
// label in [0, 1] per tag (1 good, 0 bad; fractions are soft labels).
type Example struct {
	Prompt, Completion []int32
	Labels             []float64
}

// Inputs are the names of the PRM loss's batch inputs, all [B,T]: the packed sequences, tag_mask (1
// at inputs that are a tag) and labels (the tag's label, 0 elsewhere).
var Inputs = []string{"tokens", "positions", "key_mask", "tag_mask", "labels"}

// Loss is binary cross entropy over tags: −Σ_tags [y·log p + (1−y)·log(1−p)] / #tags, with
// p = softmax(head)[good] at each tag. Metrics: "tag_accuracy" (p > ½ agrees with y > ½) and
// "p_good" (mean p).
var Loss = lm.Loss{Inputs: Inputs, Fn: func(c lm.Config, w *lm.Views, in lm.In) (*Node, []*Node) {
	logGood, logBad := logProbs(c, w, in.Get("tokens"), in.Get("positions"), in.Get("key_mask"))
	n := logGood.Shape().Dimensions[0]
	mask, y := Reshape(in.Get("tag_mask"), n), Reshape(in.Get("labels"), n)
	bce := Neg(Add(Mul(y, logGood), Mul(OneMinus(y), logBad)))
	loss := lm.MaskedMean(bce, mask)
	p := Exp(logGood)
	agree := Equal(GreaterThan(p, nn.ScalarLike(p, 0.5)), GreaterThan(y, nn.ScalarLike(y, 0.5)))
	return loss, []*Node{lm.MaskedMean(ConvertDType(agree, p.DType()), mask), lm.MaskedMean(p, mask)}
}}

// Metrics are the names of Loss's metrics.
var Metrics = []string{"tag_accuracy", "p_good"}

// logProbs returns log p(good) and log p(bad) [B·T] at every position. The two columns of the head's
// log-softmax are read with matmuls by constant vectors, since a Slice's gradient (Pad) is missing on
// ONNX Runtime.
func logProbs(c lm.Config, w *lm.Views, tokens, pos, keyMask *Node) (logGood, logBad *Node) {
	h, _, _ := lm.Hidden(c, w, lm.TokenEmbed(c, w, tokens, pos), pos, keyMask)
	lsm := LogSoftmax(lm.Head(c, w, HeadName, h), -1) // [N, 2]
	n := lsm.Shape().Dimensions[0]
	g := lsm.Graph()
	col := func(v []float32) *Node { return Reshape(MatMul(lsm, Const(g, [][]float32{{v[0]}, {v[1]}})), n) }
	return col([]float32{1, 0}), col([]float32{0, 1})
}

// pack builds the loss inputs of examples (EOS appended, so a completion's last tag is an input).
func pack(examples []Example, tag int32, context int) (lm.Inputs, error) {
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
			k++
		}
		if k != len(e.Labels) {
			return lm.Inputs{}, fmt.Errorf("prm: example %d has %d tags for %d labels", i, k, len(e.Labels))
		}
	}
	in := lm.Inputs{Names: []string{"tokens", "positions", "key_mask"}, Values: b.Tensors()[:3]}
	in.Add("tag_mask", tensors.FromFlatDataAndDimensions(tagMask, b.B, b.T))
	in.Add("labels", tensors.FromFlatDataAndDimensions(labels, b.B, b.T))
	return in, nil
}

// TrainConfig configures PRM training: Steps of Adam on batches of BatchSize examples drawn with
// replacement (a function of Seed and the step, lm.BatchIndices).
type TrainConfig struct {
	Steps     int          `json:"steps"`
	BatchSize int          `json:"batch_size"`
	Seed      uint64       `json:"seed"`
	Opt       lm.OptConfig `json:"opt"`
}

// Train fits the PRM head (and trunk) on labelled traces and returns the curves of the loss and tag
// accuracy per step.
func Train(m *lm.Model, tag int32, examples []Example, cfg TrainConfig, progress track.Progress) (track.Curves, error) {
	if len(examples) == 0 || cfg.Steps < 1 || cfg.BatchSize < 1 {
		return nil, errors.New("prm: training needs examples, steps ≥ 1 and batch_size ≥ 1")
	}
	tr, err := lm.NewTrainer(m, cfg.Opt, "prm", Metrics, Loss)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	curves := track.Curves{}
	for step := 1; step <= cfg.Steps; step++ {
		idx := lm.BatchIndices(len(examples), cfg.BatchSize, cfg.Seed, step)
		batch := make([]Example, len(idx))
		for i, k := range idx {
			batch[i] = examples[k]
		}
		in, err := pack(batch, tag, m.Config.Context)
		if err != nil {
			return nil, err
		}
		st, err := tr.Update(in)
		if err != nil {
			return nil, err
		}
		curves.Add("loss", float64(step), st.Loss)
		curves.Add("tag_accuracy", float64(step), st.Metrics["tag_accuracy"])
		if progress != nil {
			progress.Update(step, fmt.Sprintf("loss %.4f tag accuracy %.3f", st.Loss, st.Metrics["tag_accuracy"]))
		}
	}
	return curves, nil
}

func scoreExec(m *lm.Model) *Exec {
	c, l := m.Config, m.Layout
	return m.Exec("prm-score", func(b compute.Backend) *Exec {
		return MustNewExec(b, func(g *Graph, in []*Node) []*Node {
			w := lm.NewViews(l, in[0])
			logGood, _ := logProbs(c, w, in[1], in[2], in[3])
			return []*Node{Exp(logGood)}
		}).WithName("prm-score")
	})
}

// Score returns p(good) at every tag of each (prompt, completion), in order. A completion may be a
// prefix (scored up to its last tag).
func Score(m *lm.Model, tag int32, prompts, completions [][]int32) ([][]float64, error) {
	if len(prompts) != len(completions) {
		return nil, fmt.Errorf("prm: %d prompts, %d completions", len(prompts), len(completions))
	}
	out := make([][]float64, 0, len(prompts))
	const chunk = 256
	for lo := 0; lo < len(prompts); lo += chunk {
		hi := min(lo+chunk, len(prompts))
		exs := make([]lm.Example, 0, hi-lo)
		for i := lo; i < hi; i++ {
			exs = append(exs, lm.Example{Prompt: prompts[i], Completion: completions[i]})
		}
		for len(exs)%8 != 0 { // few compiled shapes: pad to a multiple of 8 rows
			exs = append(exs, lm.Example{Prompt: prompts[lo]})
		}
		b, err := lm.Pack(exs, lm.FitWidth(exs, m.Config.Context, true), true)
		if err != nil {
			return nil, err
		}
		res, err := m.Call(scoreExec(m), m.Params, b.Tensors()[0], b.Tensors()[1], b.Tensors()[2])
		if err != nil {
			return nil, fmt.Errorf("prm: %w", err)
		}
		p, err := tensors.CopyFlatData[float32](res[0])
		res[0].FinalizeAll()
		if err != nil {
			return nil, err
		}
		for i := 0; i < hi-lo; i++ {
			var s []float64
			for j := b.CompletionStart[i]; j < b.T && b.KeyMask[i*b.T+j] == 1; j++ {
				if b.Tokens[i*b.T+j] == tag {
					v := float64(p[i*b.T+j])
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

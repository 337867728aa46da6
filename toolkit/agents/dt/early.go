package dt

import (
	"fmt"
	"math"
	"math/rand/v2"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// scoreFunc is ActionLoss's loss and accuracy on a packed batch without an update.
func (a *Agent) scoreFunc() nn.Func {
	c := a.Model.Config
	return nn.Func{Name: "dt-action-score", Inputs: append([]string{"tokens", "positions", "key_mask", "targets", "target_mask"}, c.EmbedInputs()...),
		Fn: func(w *nn.Views, in nn.In) []*Node {
			loss, acc := actionMeasures(c, w, in)
			return []*Node{loss, acc}
		}}
}

// Score is the behaviour-cloning loss and action accuracy of the agent on seqs (ActionLoss's
// measures, every action counted once), in batches of Cfg.Batch, without training: a validation
// split's measure.
func (a *Agent) Score(seqs []Seq) (loss, accuracy float64, err error) {
	var n float64
	for lo := 0; lo < len(seqs); lo += a.Cfg.Batch {
		b, err := a.Cfg.Vocab().Pack(seqs[lo:min(lo+a.Cfg.Batch, len(seqs))], a.Cfg.Context, a.Cfg.Pixels)
		if err != nil {
			return 0, 0, err
		}
		var k float64
		for _, m := range b.TargetMask {
			k += float64(m)
		}
		out, err := a.Model.Call(a.scoreFunc(), b.Inputs())
		if err != nil {
			return 0, 0, err
		}
		var v [2]float32
		for i := range v {
			x, err := tensors.CopyFlatData[float32](out[i])
			out[i].FinalizeAll()
			if err != nil {
				return 0, 0, err
			}
			v[i] = x[0]
		}
		loss, accuracy, n = loss+k*float64(v[0]), accuracy+k*float64(v[1]), n+k
	}
	if n == 0 {
		return 0, 0, fmt.Errorf("dt: no actions to score")
	}
	return loss / n, accuracy / n, nil
}

// StopConfig is training with a validation split and early stopping: at most MaxSteps optimizer
// steps, the validation loss measured every EvalEvery steps, stopping after Patience measurements
// without a new best (0: never early), and the weights of the best measurement kept. With
// ScoreStart the weights before the first step are measured too (step 0), so fine-tuning that only
// hurts the validation loss keeps the model it started from.
type StopConfig struct {
	MaxSteps   int  `json:"max_steps"`
	EvalEvery  int  `json:"eval_every"`
	Patience   int  `json:"patience"`
	ScoreStart bool `json:"score_start,omitempty"`
}

// TrainToBest trains on train (as Train) with early stopping on the validation sequences val: it
// returns the curves of Train plus val_action_loss and val_action_accuracy against steps, the step
// whose weights it kept (the lowest validation loss; 0: the starting weights, with ScoreStart) and
// that measurement's loss and accuracy.
func (a *Agent) TrainToBest(train, val []Seq, cfg StopConfig, r *rand.Rand, progress track.Progress) (curves track.Curves, best int, bestLoss, bestAcc float64, err error) {
	if cfg.MaxSteps < 1 || cfg.EvalEvery < 1 || cfg.Patience < 0 || len(val) == 0 {
		return nil, 0, 0, 0, fmt.Errorf("dt: early stopping needs max_steps ≥ 1, eval_every ≥ 1, patience ≥ 0 and a validation split (got %+v, %d sequences)", cfg, len(val))
	}
	if progress == nil {
		progress = track.NoProgress{}
	}
	curves = track.Curves{}
	bestLoss = math.Inf(1)
	var bestW []float32
	// measure scores the validation split after step optimizer steps, adds it to the curves and
	// keeps the weights when its loss is the lowest so far (improved).
	measure := func(step int) (improved bool, loss, acc float64, err error) {
		if loss, acc, err = a.Score(val); err != nil {
			return false, loss, acc, err
		}
		curves.Add("val_action_loss", float64(step), loss)
		curves.Add("val_action_accuracy", float64(step), acc)
		if !(loss < bestLoss) {
			return false, loss, acc, nil
		}
		bestLoss, bestAcc, best = loss, acc, step
		bestW, err = a.Model.Weights()
		return true, loss, acc, err
	}
	if cfg.ScoreStart {
		if _, _, _, err := measure(0); err != nil {
			return curves, best, bestLoss, bestAcc, err
		}
	}
	since := 0
	for done := 0; done < cfg.MaxSteps; {
		n := min(cfg.EvalEvery, cfg.MaxSteps-done)
		part, err := a.Train(train, n, r, nil)
		if err != nil {
			return curves, best, bestLoss, bestAcc, err
		}
		for k, cv := range part {
			for i := range cv.X {
				curves.Add(k, cv.X[i]+float64(done), cv.Y[i])
			}
		}
		done += n
		improved, loss, acc, err := measure(done)
		if err != nil {
			return curves, best, bestLoss, bestAcc, err
		}
		progress.Update(done, fmt.Sprintf("validation loss %.3f accuracy %.3f (best %.3f at %d)", loss, acc, bestLoss, best))
		if improved {
			since = 0
			continue
		}
		if since++; cfg.Patience > 0 && since >= cfg.Patience {
			break
		}
	}
	return curves, best, bestLoss, bestAcc, a.Model.SetWeights(bestW)
}

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
		b, err := a.Cfg.Vocab().Pack(seqs[lo:min(lo+a.Cfg.Batch, len(seqs))], a.Cfg.Context, a.Cfg.patchWidth())
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
// hurts the validation loss keeps the model it started from. DenseEvery > 0 measures every
// DenseEvery steps before step DenseUntil (adaptation's first steps, where a few demonstrations
// can be over-fitted within one EvalEvery); those measurements can keep weights but never stop the
// run (Patience counts the measurements from DenseUntil on).
type StopConfig struct {
	MaxSteps   int  `json:"max_steps"`
	EvalEvery  int  `json:"eval_every"`
	Patience   int  `json:"patience"`
	ScoreStart bool `json:"score_start,omitempty"`
	DenseEvery int  `json:"dense_every,omitempty"`
	DenseUntil int  `json:"dense_until,omitempty"`
}

// TrainToBest trains on train (as Train) with early stopping on the validation sequences val: it
// returns the curves of Train plus val_action_loss and val_action_accuracy against steps, the step
// whose weights it kept (the lowest validation loss; 0: the starting weights, with ScoreStart) and
// that measurement's loss and accuracy.
func (a *Agent) TrainToBest(train, val []Seq, cfg StopConfig, r *rand.Rand, progress track.Progress) (curves track.Curves, best int, bestLoss, bestAcc float64, err error) {
	curves, best, bestLoss, bestAcc, _, err = a.trainToBest(train, val, cfg, r, progress)
	return curves, best, bestLoss, bestAcc, err
}

// trainToBest is TrainToBest that also says whether the patience rule stopped it (stopped) rather
// than MaxSteps.
func (a *Agent) trainToBest(train, val []Seq, cfg StopConfig, r *rand.Rand, progress track.Progress) (curves track.Curves, best int, bestLoss, bestAcc float64, stopped bool, err error) {
	if cfg.MaxSteps < 1 || cfg.EvalEvery < 1 || cfg.Patience < 0 || len(val) == 0 || cfg.DenseEvery < 0 || cfg.DenseUntil < 0 {
		return nil, 0, 0, 0, false, fmt.Errorf("dt: early stopping needs max_steps ≥ 1, eval_every ≥ 1, patience ≥ 0 and a validation split (got %+v, %d sequences)", cfg, len(val))
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
			return curves, best, bestLoss, bestAcc, false, err
		}
	}
	since := 0
	for done := 0; done < cfg.MaxSteps; {
		every := cfg.EvalEvery
		dense := cfg.DenseEvery > 0 && done < cfg.DenseUntil
		if dense {
			every = min(cfg.DenseEvery, cfg.DenseUntil-done)
		}
		n := min(every, cfg.MaxSteps-done)
		part, err := a.Train(train, n, r, nil)
		if err != nil {
			return curves, best, bestLoss, bestAcc, false, err
		}
		for k, cv := range part {
			for i := range cv.X {
				curves.Add(k, cv.X[i]+float64(done), cv.Y[i])
			}
		}
		done += n
		improved, loss, acc, err := measure(done)
		if err != nil {
			return curves, best, bestLoss, bestAcc, false, err
		}
		progress.Update(done, fmt.Sprintf("validation loss %.3f accuracy %.3f (best %.3f at %d)", loss, acc, bestLoss, best))
		if improved || dense {
			since = 0
			continue
		}
		if since++; cfg.Patience > 0 && since >= cfg.Patience {
			stopped = true
			break
		}
	}
	return curves, best, bestLoss, bestAcc, stopped, a.Model.SetWeights(bestW)
}

// ConvergeConfig is training to convergence (warmup–stable–decay): at a constant rate, with the
// validation loss measured every EvalEvery steps, until Patience measurements bring no new best —
// the plateau — or StableCap steps (the cap: a run that reaches it has not shown a plateau); then,
// from the best weights of that phase and the same optimizer, the rate decays along a cosine to 0
// over DecayFrac of the stable phase's steps (at least EvalEvery), measured as often; the best
// weights of either phase are kept.
type ConvergeConfig struct {
	StableCap int     `json:"stable_cap"`
	EvalEvery int     `json:"eval_every"`
	Patience  int     `json:"patience"`
	DecayFrac float64 `json:"decay_frac"`
}

// Converged is what TrainToConverge did: the curves of both phases (steps counted from the start),
// the step of the weights kept and their validation loss and accuracy, the stable phase's length
// (Plateau) and whether it ran to the cap (HitCap: the patience rule never fired), and all steps.
type Converged struct {
	Curves         track.Curves
	Best           int
	Loss, Accuracy float64
	Plateau, Steps int
	HitCap         bool
}

// TrainToConverge trains on train with validation split val to convergence (ConvergeConfig). The
// agent's rate (Cfg.LR) is the stable phase's; Cfg.DecaySteps is ignored.
func (a *Agent) TrainToConverge(train, val []Seq, cfg ConvergeConfig, r *rand.Rand, progress track.Progress) (Converged, error) {
	if cfg.StableCap < 1 || cfg.EvalEvery < 1 || cfg.Patience < 1 || !(cfg.DecayFrac > 0) {
		return Converged{}, fmt.Errorf("dt: training to convergence needs stable_cap, eval_every, patience ≥ 1 and decay_frac > 0 (got %+v)", cfg)
	}
	if progress == nil {
		progress = track.NoProgress{}
	}
	a.Cfg.DecaySteps = 0
	stable := StopConfig{MaxSteps: cfg.StableCap, EvalEvery: cfg.EvalEvery, Patience: cfg.Patience}
	curves, best, loss, acc, stopped, err := a.trainToBest(train, val, stable, r, progress)
	if err != nil {
		return Converged{}, err
	}
	out := Converged{Curves: curves, Best: best, Loss: loss, Accuracy: acc, HitCap: !stopped}
	out.Plateau = a.tr.Step
	stableBest, err := a.Model.Weights()
	if err != nil {
		return Converged{}, err
	}
	decay := max(cfg.EvalEvery, int(math.Round(cfg.DecayFrac*float64(out.Plateau))))
	// The stable phase left the best weights in place; the same optimizer now anneals from them.
	a.tr.Opt.DecayStart, a.tr.Opt.TotalSteps = out.Plateau, out.Plateau+decay
	dc, dbest, dloss, dacc, _, err := a.trainToBest(train, val, StopConfig{MaxSteps: decay, EvalEvery: cfg.EvalEvery}, r, offsetProgress{progress, out.Plateau, "decay: "})
	a.tr.Opt.DecayStart, a.tr.Opt.TotalSteps = 0, 0
	if err != nil {
		return Converged{}, err
	}
	for k, cv := range dc {
		for i := range cv.X {
			out.Curves.Add(k, cv.X[i]+float64(out.Plateau), cv.Y[i])
		}
	}
	out.Steps = out.Plateau + decay
	if dloss < out.Loss {
		out.Best, out.Loss, out.Accuracy = out.Plateau+dbest, dloss, dacc
	} else if err := a.Model.SetWeights(stableBest); err != nil {
		return Converged{}, err
	}
	return out, nil
}

// offsetProgress reports a later phase's steps counted from the start of training.
type offsetProgress struct {
	track.Progress
	offset int
	label  string
}

func (p offsetProgress) Update(done int, status string) {
	p.Progress.Update(p.offset+done, p.label+status)
}

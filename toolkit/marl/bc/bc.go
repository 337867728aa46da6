// Package bc is behaviour cloning: an MLP policy fitted by cross-entropy to (observation, action)
// examples, e.g. real human play, so that it can stand in for a human partner (the "human proxy" of
// Carroll et al. 2019 that E3T and FCP are judged with). Examples are split by time, not at random —
// the last HeldOutFrac of each game is held out — because consecutive steps of one player are
// nearly copies of each other and a random split would overstate how well the policy generalises.
// The whole loop is Train, in this file.
package bc

import (
	"fmt"
	"github.com/paperlab/paperlab/toolkit/dist"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Example is one decision: what a player observed and the action it took.
type Example struct {
	Obs    []float32
	Action int
}

// Game is the examples of one recorded game in time order, both players' decisions of a step
// next to each other (the split keeps the last steps of the slice, so it must follow time).
type Game []Example

// Config is a flat, documented configuration.
type Config struct {
	// Hidden units of the two-layer tanh MLP (the agents' own size, so that a BC partner is no
	// bigger or smaller a network than the policies it is paired with).
	Hidden int `json:"hidden"`
	// Actions is the number of discrete actions (6 in Overcooked).
	Actions int `json:"actions"`
	// Epochs over the training examples in mini-batches of BatchSize, Adam at LR.
	Epochs    int     `json:"epochs"`
	BatchSize int     `json:"batch_size"`
	LR        float64 `json:"lr"`
	// HeldOutFrac of each game, its last steps, is kept out of training to measure accuracy.
	HeldOutFrac float64 `json:"held_out_frac"`
	// EvalEvery epochs the held-out accuracy is recorded (curve "heldout_accuracy").
	EvalEvery int `json:"eval_every"`
}

// Default is a small configuration that fits ~2,000 examples per layout in seconds on a CPU.
// [UNVERIFIED] The 2019 human-proxy BC models used a 2×64 MLP on the 96-value features and early
// stopping on a validation split; we fix the epochs instead and report held-out accuracy.
func Default(actions int) Config {
	return Config{Hidden: 64, Actions: actions, Epochs: 60, BatchSize: 64, LR: 1e-3, HeldOutFrac: 0.2, EvalEvery: 5}
}

// Validate names an invalid field.
func (c Config) Validate() error {
	switch {
	case c.Hidden < 1 || c.Actions < 2 || c.Epochs < 1 || c.BatchSize < 1 || c.EvalEvery < 1:
		return fmt.Errorf("bc: hidden, epochs, batch_size, eval_every must be ≥ 1 and actions ≥ 2 (got %+v)", c)
	case c.LR <= 0 || c.HeldOutFrac < 0 || c.HeldOutFrac >= 1:
		return fmt.Errorf("bc: lr %v must be > 0 and held_out_frac %v in [0, 1)", c.LR, c.HeldOutFrac)
	}
	return nil
}

// Result is the fitted policy network (logits over actions; the caller closes it) and its metrics.
type Result struct {
	Net *ac.Net
	// Final: train_accuracy, heldout_accuracy, heldout_loss, majority_accuracy (always predicting
	// the most common training action, the floor to beat), train_examples, heldout_examples.
	Final  map[string]float64
	Curves track.Curves
}

// Split returns the training and held-out examples: the last frac of each game is held out.
func Split(games []Game, frac float64) (train, held []Example) {
	for _, g := range games {
		cut := len(g) - int(frac*float64(len(g))+0.5)
		train = append(train, g[:cut]...)
		held = append(held, g[cut:]...)
	}
	return train, held
}

// Train fits a policy to games with seed.
func Train(cfg Config, games []Game, seed uint64) (_ *Result, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	train, held := Split(games, cfg.HeldOutFrac)
	if len(train) == 0 {
		return nil, fmt.Errorf("bc: no training examples")
	}
	dim := len(train[0].Obs)
	for gi, g := range games {
		for i, e := range g {
			if len(e.Obs) != dim || e.Action < 0 || e.Action >= cfg.Actions {
				return nil, fmt.Errorf("bc: game %d example %d has %d features (want %d) and action %d (want 0..%d)", gi, i, len(e.Obs), dim, e.Action, cfg.Actions-1)
			}
		}
	}
	be, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	net, err := ac.NewNet(be, []int{dim, cfg.Hidden, cfg.Hidden, cfg.Actions}, 0.01, seed)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			net.Close()
		}
	}()
	tr, err := ac.NewTrainer(&net.Model, cfg.LR, 1, []string{"accuracy"}, ac.ClassifierLoss(net.Layers()))
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	x, y := stack(train, dim)
	rng := rand.New(rand.NewPCG(seed, 0x6263))
	res := &Result{Net: net, Curves: track.Curves{}}
	mb := max(1, len(train)/cfg.BatchSize)
	for ep := 1; ep <= cfg.Epochs; ep++ {
		m, err := ac.Minibatches(len(train), 1, mb, rng, func(idx []int) (nn.StepStats, error) {
			ys := make([]int32, len(idx))
			for k, i := range idx {
				ys[k] = y[i]
			}
			return tr.Update(ac.ClassifierBatch(ac.Rows(x, dim, idx), ys))
		})
		if err != nil {
			return nil, fmt.Errorf("bc epoch %d: %w", ep, err)
		}
		res.Curves.Add("loss", float64(ep), m["loss"])
		res.Curves.Add("train_accuracy", float64(ep), m["accuracy"])
		if len(held) > 0 && (ep%cfg.EvalEvery == 0 || ep == cfg.Epochs) {
			acc, _, err := Accuracy(net, held, cfg.Actions)
			if err != nil {
				return nil, err
			}
			res.Curves.Add("heldout_accuracy", float64(ep), acc)
		}
	}
	res.Final = map[string]float64{"train_examples": float64(len(train)), "heldout_examples": float64(len(held)),
		"majority_accuracy": majority(train, held, cfg.Actions)}
	if res.Final["train_accuracy"], _, err = Accuracy(net, train, cfg.Actions); err != nil {
		return nil, err
	}
	if len(held) > 0 {
		if res.Final["heldout_accuracy"], res.Final["heldout_loss"], err = Accuracy(net, held, cfg.Actions); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Accuracy is the fraction of examples whose action is the policy's most likely one, and the mean
// cross-entropy of the examples' actions under the policy.
func Accuracy(net *ac.Net, ex []Example, actions int) (acc, loss float64, err error) {
	if len(ex) == 0 {
		return 0, 0, fmt.Errorf("bc: no examples to score")
	}
	x, _ := stack(ex, len(ex[0].Obs))
	logits, err := net.Apply(x, len(ex))
	if err != nil {
		return 0, 0, err
	}
	hits := 0
	for i, e := range ex {
		row := logits[i*actions : (i+1)*actions]
		best := 0
		for a := range row {
			if row[a] > row[best] {
				best = a
			}
		}
		if best == e.Action {
			hits++
		}
		loss -= dist.LogProb(row, nil, e.Action)
	}
	return float64(hits) / float64(len(ex)), loss / float64(len(ex)), nil
}

// majority is the held-out accuracy of always answering the most common training action.
func majority(train, held []Example, actions int) float64 {
	if len(held) == 0 {
		return 0
	}
	counts := make([]int, actions)
	for _, e := range train {
		counts[e.Action]++
	}
	best := 0
	for a := range counts {
		if counts[a] > counts[best] {
			best = a
		}
	}
	hits := 0
	for _, e := range held {
		if e.Action == best {
			hits++
		}
	}
	return float64(hits) / float64(len(held))
}

func stack(ex []Example, dim int) ([]float32, []int32) {
	x := make([]float32, 0, len(ex)*dim)
	y := make([]int32, len(ex))
	for i, e := range ex {
		x = append(x, e.Obs...)
		y[i] = int32(e.Action)
	}
	return x, y
}

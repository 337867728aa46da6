package lm

import (
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// LossFn builds a scalar loss (and named scalar metrics) from the model configuration, the weights'
// views and a batch of input nodes. SFT, PPO/GRPO and DPO are LossFns over the same model and
// optimizer.
type LossFn func(c Config, w *Views, batch []*Node) (loss *Node, metrics []*Node)

// Trainer is toolkit/nn's optimizer state and update step bound to an LM.
type Trainer struct {
	*nn.Trainer
	Model *Model
}

// NewTrainer prepares Adam(W) for m with the given loss; name identifies the compiled graph (one per
// loss kind), metricNames name the LossFn's metrics in order.
func NewTrainer(m *Model, opt OptConfig, name string, metricNames []string, lossFn LossFn) (*Trainer, error) {
	c := m.Config
	t, err := nn.NewTrainer(&m.Model, opt, "lm-"+name, metricNames, func(w *nn.Views, batch []*Node) (*Node, []*Node) {
		return lossFn(c, w, batch)
	})
	if err != nil {
		return nil, err
	}
	return &Trainer{Trainer: t, Model: m}, nil
}

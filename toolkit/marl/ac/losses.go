package ac

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// ActorMetrics are the names ActorLoss reports (cleanrl's).
var ActorMetrics = []string{"clip_ratio", "approx_kl", "entropy"}

// ActorLoss is the PPO-clip policy loss with an entropy bonus for an MLP actor of the given number of
// layers. Batch inputs: obs [B, D], avail [B, A], actions [B] (int32), old log-probs [B],
// advantages [B]. With one epoch (ratio 1) it is the plain policy gradient −A·log π.
func ActorLoss(layers int, clip, entCoef float64) nn.LossFn {
	return func(w *nn.Views, in []*Node) (*Node, []*Node) {
		logits := MaskLogits(Forward(w, "mlp", layers, in[0]), in[1])
		lp := LogSoftmax(logits, -1)
		na := logits.Shape().Dimensions[1]
		logp := ReduceSum(Mul(lp, OneHot(in[2], na, dtypes.Float32)), -1)
		logRatio := Sub(logp, in[3])
		ratio := Exp(logRatio)
		adv := in[4]
		pg1 := Neg(Mul(adv, ratio))
		pg2 := Neg(Mul(adv, Min(Max(ratio, nn.ScalarLike(ratio, 1-clip)), nn.ScalarLike(ratio, 1+clip))))
		probs := Exp(lp)
		ent := Neg(ReduceSum(Mul(probs, Mul(lp, in[1])), -1)) // unavailable actions carry no mass
		loss := Sub(ReduceAllMean(Max(pg1, pg2)), MulScalar(ReduceAllMean(ent), entCoef))
		return loss, []*Node{
			ReduceAllMean(ConvertDType(GreaterThan(pg2, pg1), dtypes.Float32)),
			ReduceAllMean(Sub(Sub(ratio, OnesLike(ratio)), logRatio)),
			ReduceAllMean(ent),
		}
	}
}

// ValueLoss is the mean squared error of an MLP value head (output 1) to targets: inputs x [B, D],
// targets [B].
func ValueLoss(layers int) nn.LossFn {
	return func(w *nn.Views, in []*Node) (*Node, []*Node) {
		v := Reshape(Forward(w, "mlp", layers, in[0]), in[1].Shape().Dimensions[0])
		return ReduceAllMean(Square(Sub(v, in[1]))), nil
	}
}

// ClassifierLoss is the cross-entropy of an MLP's logits against integer labels: inputs x [B, D],
// labels [B] (int32). Metric: accuracy.
func ClassifierLoss(layers int) nn.LossFn {
	return func(w *nn.Views, in []*Node) (*Node, []*Node) {
		logits := Forward(w, "mlp", layers, in[0])
		na := logits.Shape().Dimensions[1]
		oh := OneHot(in[1], na, dtypes.Float32)
		lp := ReduceSum(Mul(LogSoftmax(logits, -1), oh), -1)
		hit := ReduceSum(Mul(ConvertDType(Equal(logits, ReduceAndKeep(logits, ReduceMax, -1)), dtypes.Float32), oh), -1)
		return Neg(ReduceAllMean(lp)), []*Node{ReduceAllMean(hit)}
	}
}

// NewTrainer is Adam at lr (nn.DefaultOpt) on model m with the given loss, gradients clipped to
// maxGradNorm (0: no clipping).
func NewTrainer(m *nn.Model, lr, maxGradNorm float64, name string, metrics []string, loss nn.LossFn) (*nn.Trainer, error) {
	o := nn.DefaultOpt(lr)
	o.ClipNorm = maxGradNorm
	return nn.NewTrainer(m, o, name, metrics, loss)
}

// NewActorTrainer is NewTrainer on an MLP actor with the PPO-clip loss (ActorLoss).
func NewActorTrainer(actor *Net, lr, clip, entCoef, maxGradNorm float64) (*nn.Trainer, error) {
	return NewTrainer(&actor.Model, lr, maxGradNorm, fmt.Sprintf("actor-%g-%g", clip, entCoef), ActorMetrics, ActorLoss(actor.Layers(), clip, entCoef))
}

// NewValueTrainer is NewTrainer on an MLP critic with the squared-error ValueLoss.
func NewValueTrainer(critic *Net, lr, maxGradNorm float64) (*nn.Trainer, error) {
	return NewTrainer(&critic.Model, lr, maxGradNorm, "value", nil, ValueLoss(critic.Layers()))
}

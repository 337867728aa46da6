package ac

import (
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// ActorMetrics are the names ActorLoss reports (cleanrl's).
var ActorMetrics = []string{"clip_ratio", "approx_kl", "entropy"}

// ActorInputs are the names of ActorLoss's batch inputs (ActorBatch packs them): obs [B, D],
// avail [B, A], actions [B] (int32), old_logp [B], advantages [B].
var ActorInputs = []string{"obs", "avail", "actions", "old_logp", "advantages"}

// ValueInputs are the names of ValueLoss's batch inputs (ValueBatch packs them): x [B, D],
// targets [B].
var ValueInputs = []string{"x", "targets"}

// ClassifierInputs are the names of ClassifierLoss's batch inputs (ClassifierBatch packs them):
// x [B, D], labels [B] (int32).
var ClassifierInputs = []string{"x", "labels"}

// ActorLoss is the PPO-clip policy loss with an entropy bonus for an MLP actor of the given number of
// layers, over ActorInputs. With one epoch (ratio 1) it is the plain policy gradient −A·log π.
func ActorLoss(layers int, clip, entCoef float64) nn.Loss {
	params := struct {
		Layers  int     `json:"layers"`
		Clip    float64 `json:"clip"`
		EntCoef float64 `json:"ent_coef"`
	}{layers, clip, entCoef}
	return nn.Loss{Name: "actor", Params: params, Inputs: ActorInputs, Fn: func(w *nn.Views, in nn.In) (*Node, []*Node) {
		avail := in.Get("avail")
		logits := MaskLogits(Forward(w, "mlp", layers, in.Get("obs")), avail)
		lp := LogSoftmax(logits, -1)
		na := logits.Shape().Dimensions[1]
		logp := ReduceSum(Mul(lp, OneHot(in.Get("actions"), na, dtypes.Float32)), -1)
		logRatio := Sub(logp, in.Get("old_logp"))
		ratio := Exp(logRatio)
		adv := in.Get("advantages")
		pg1 := Neg(Mul(adv, ratio))
		pg2 := Neg(Mul(adv, Min(Max(ratio, nn.ScalarLike(ratio, 1-clip)), nn.ScalarLike(ratio, 1+clip))))
		probs := Exp(lp)
		ent := Neg(ReduceSum(Mul(probs, Mul(lp, avail)), -1)) // unavailable actions carry no mass
		loss := Sub(ReduceAllMean(Max(pg1, pg2)), MulScalar(ReduceAllMean(ent), entCoef))
		return loss, []*Node{
			ReduceAllMean(ConvertDType(GreaterThan(pg2, pg1), dtypes.Float32)),
			ReduceAllMean(Sub(Sub(ratio, OnesLike(ratio)), logRatio)),
			ReduceAllMean(ent),
		}
	}}
}

// ValueLoss is the mean squared error of an MLP value head (output 1) to targets, over ValueInputs.
func ValueLoss(layers int) nn.Loss {
	return nn.Loss{Name: "value", Params: map[string]int{"layers": layers}, Inputs: ValueInputs, Fn: func(w *nn.Views, in nn.In) (*Node, []*Node) {
		y := in.Get("targets")
		v := Reshape(Forward(w, "mlp", layers, in.Get("x")), y.Shape().Dimensions[0])
		return ReduceAllMean(Square(Sub(v, y))), nil
	}}
}

// ClassifierLoss is the cross-entropy of an MLP's logits against integer labels, over
// ClassifierInputs. Metric: accuracy.
func ClassifierLoss(layers int) nn.Loss {
	return nn.Loss{Name: "classifier", Params: map[string]int{"layers": layers}, Inputs: ClassifierInputs, Fn: func(w *nn.Views, in nn.In) (*Node, []*Node) {
		logits := Forward(w, "mlp", layers, in.Get("x"))
		na := logits.Shape().Dimensions[1]
		oh := OneHot(in.Get("labels"), na, dtypes.Float32)
		lp := ReduceSum(Mul(LogSoftmax(logits, -1), oh), -1)
		hit := ReduceSum(Mul(ConvertDType(Equal(logits, ReduceAndKeep(logits, ReduceMax, -1)), dtypes.Float32), oh), -1)
		return Neg(ReduceAllMean(lp)), []*Node{ReduceAllMean(hit)}
	}}
}

// NewTrainer is Adam at lr (nn.DefaultOpt) on model m with the given loss, gradients clipped to
// maxGradNorm (0: no clipping).
func NewTrainer(m *nn.Model, lr, maxGradNorm float64, metrics []string, loss nn.Loss) (*nn.Trainer, error) {
	o := nn.DefaultOpt(lr)
	o.ClipNorm = maxGradNorm
	return nn.NewTrainer(m, o, metrics, loss)
}

// NewActorTrainer is NewTrainer on an MLP actor with the PPO-clip loss (ActorLoss).
func NewActorTrainer(actor *Net, lr, clip, entCoef, maxGradNorm float64) (*nn.Trainer, error) {
	return NewTrainer(&actor.Model, lr, maxGradNorm, ActorMetrics, ActorLoss(actor.Layers(), clip, entCoef))
}

// NewValueTrainer is NewTrainer on an MLP critic with the squared-error ValueLoss.
func NewValueTrainer(critic *Net, lr, maxGradNorm float64) (*nn.Trainer, error) {
	return NewTrainer(&critic.Model, lr, maxGradNorm, nil, ValueLoss(critic.Layers()))
}

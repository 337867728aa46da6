package rl

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// LossConfig configures the PPO-clip policy loss.
type LossConfig struct {
	// ClipEps is ε of the ratio clip [1−ε, 1+ε]; ClipEpsHigh > 0 sets a different upper bound
	// (DAPO's clip-higher), else 1+ε.
	ClipEps     float64 `json:"clip_eps"`
	ClipEpsHigh float64 `json:"clip_eps_high,omitempty"`
	// KLCoef β > 0 adds β·KL(π‖π_ref) per token, estimated by KLType "k1" (log-ratio) or "k3"
	// (exp(r)−r−1 with r = log π_ref − log π, always ≥ 0).
	KLCoef float64 `json:"kl_coef"`
	KLType string  `json:"kl_type"`
	// EntCoef > 0 subtracts EntCoef·entropy (an exploration bonus).
	EntCoef float64 `json:"ent_coef"`
	// Agg is the loss aggregation: "token-mean" (every completion token of the batch weighs the same,
	// DAPO/TRL's default) or "seq-mean-token-mean" (mean per sequence, then over sequences).
	Agg string `json:"agg"`
}

// DefaultLoss is PPO-clip ε = 0.2, no KL, no entropy bonus, token-mean, as CAPO's experiments.
func DefaultLoss() LossConfig { return LossConfig{ClipEps: 0.2, KLType: "k3", Agg: "token-mean"} }

// Validate names an invalid field.
func (c LossConfig) Validate() error {
	switch {
	case !(c.ClipEps > 0):
		return fmt.Errorf("rl loss: clip_eps = %v, need > 0", c.ClipEps)
	case c.ClipEpsHigh < 0 || c.KLCoef < 0 || c.EntCoef < 0:
		return fmt.Errorf("rl loss: clip_eps_high, kl_coef and ent_coef must be ≥ 0")
	case c.KLType != "k1" && c.KLType != "k3":
		return fmt.Errorf("rl loss: kl_type = %q, want k1 or k3", c.KLType)
	case c.Agg != "token-mean" && c.Agg != "seq-mean-token-mean":
		return fmt.Errorf("rl loss: agg = %q, want token-mean or seq-mean-token-mean", c.Agg)
	}
	return nil
}

// PPOMetrics are the names of the metrics PPOLoss returns, in order (TRL's names).
var PPOMetrics = []string{"clip_ratio", "approx_kl", "entropy", "kl"}

// PPOInputs are the names of PPOLoss's batch inputs, all [B,T]: a packed batch (lm.BatchInputs; the
// loss mask is 1 on completion tokens), the sampling policy's log-probs, per-token advantages and
// the reference model's log-probs.
var PPOInputs = append(append([]string(nil), lm.BatchInputs...), "old_logprobs", "advantages", "ref_logprobs")

// PPOLoss is the PPO-clip policy loss over PPOInputs:
//
//	loss = agg( max(−A·r, −A·clip(r, 1−ε, 1+ε_high)) + β·KL − c·H ),  r = exp(log π − log π_old)
func PPOLoss(c LossConfig) lm.Loss {
	return lm.Loss{Name: "ppo-clip", Params: c, Inputs: PPOInputs, Fn: func(mc lm.Config, w *lm.Views, in lm.In) (*Node, []*Node) {
		logits, _, _ := lm.Forward(mc, w, in)
		mask, old, adv, ref := in.Get("loss_mask"), in.Get("old_logprobs"), in.Get("advantages"), in.Get("ref_logprobs")
		lp := lm.TokenLogProbs(logits, in.Get("targets"))
		// Differences are zeroed outside the completion: there old and ref are 0 while lp can be
		// −1e9 (padding targets), and exp of that would overflow into NaN even under a zero mask.
		logRatio := Mul(Sub(lp, old), mask)
		ratio := Exp(logRatio)
		hi := c.ClipEpsHigh
		if hi == 0 {
			hi = c.ClipEps
		}
		clipped := Min(Max(ratio, nn.ScalarLike(ratio, 1-c.ClipEps)), nn.ScalarLike(ratio, 1+hi))
		pg1 := Neg(Mul(adv, ratio))
		pg2 := Neg(Mul(adv, clipped))
		perTok := Max(pg1, pg2)
		ent := lm.TokenEntropy(logits)
		d := Mul(Sub(ref, lp), mask) // log π_ref − log π
		var kl *Node
		if c.KLType == "k1" {
			kl = Neg(d)
		} else {
			kl = Sub(Sub(Exp(d), d), OnesLike(d))
		}
		if c.KLCoef > 0 {
			perTok = Add(perTok, MulScalar(kl, c.KLCoef))
		}
		if c.EntCoef > 0 {
			perTok = Sub(perTok, MulScalar(ent, c.EntCoef))
		}
		loss := aggregate(c.Agg, perTok, mask)
		isClipped := ConvertDType(GreaterThan(pg2, pg1), dtypes.Float32)
		approxKL := Sub(Sub(ratio, OnesLike(ratio)), logRatio)
		return loss, []*Node{
			lm.MaskedMean(isClipped, mask),
			lm.MaskedMean(approxKL, mask),
			lm.MaskedMean(ent, mask),
			lm.MaskedMean(kl, mask),
		}
	}}
}

// aggregate reduces per-token losses [B,T] under mask [B,T].
func aggregate(agg string, x, mask *Node) *Node {
	if agg == "seq-mean-token-mean" {
		num := ReduceSum(Mul(x, mask), 1)
		den := Max(ReduceSum(mask, 1), OnesLike(ReduceSum(mask, 1)))
		return ReduceAllMean(Div(num, den))
	}
	return lm.MaskedMean(x, mask)
}

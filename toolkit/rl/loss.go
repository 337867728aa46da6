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
	// Ratio is the importance ratio PPO-clip weighs the advantage with: "" or "token" (PPO's
	// per-token ratio π/π_old) or "sequence" (GSPO's: one ratio per response, the geometric mean of
	// its token ratios, s = exp(mean_t log(π/π_old)), clipped as a whole; see GSPOLoss).
	Ratio string `json:"ratio,omitempty"`
}

// GSPOLoss is GSPO's policy loss (Zheng et al. 2025, "Group Sequence Policy Optimization",
// arXiv 2507.18071), as verl implements it (compute_policy_loss_gspo in
// verl/trainer/ppo/core_algos.py; toolkit/exp/capo/README.md, source [V4]): a sequence-level,
// length-normalised importance ratio s_i = exp(mean_t (log π − log π_old)) entering every token of
// response i as sg[s_i]·π_t/sg[π_t] (GSPO-token: the value is s_i, the gradient s_i·∇log π_t),
// clipped to [1 − 3e-4, 1 + 4e-4] (the GSPO paper's ranges, also verl's GSPO recipe:
// clip_ratio_low 0.0003, clip_ratio_high 0.0004), the log ratio capped at 10 as verl does, and
// aggregated per sequence, then over sequences (seq-mean-token-mean). With one PPO epoch every
// response's ratio is 1 in the first mini-batch of a rollout, so GSPO differs from GRPO only from
// the second mini-batch on.
func GSPOLoss() LossConfig {
	return LossConfig{ClipEps: 3e-4, ClipEpsHigh: 4e-4, KLType: "k3", Agg: "seq-mean-token-mean", Ratio: "sequence"}
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
	case c.Ratio != "" && c.Ratio != "token" && c.Ratio != "sequence":
		return fmt.Errorf("rl loss: ratio = %q, want token or sequence", c.Ratio)
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
//
// per token, or with Ratio "sequence" r = sg[s]·π/sg[π] for GSPO's sequence ratio s (GSPOLoss).
func PPOLoss(c LossConfig) lm.Loss {
	return lm.Loss{Name: "ppo-clip", Params: c, Inputs: PPOInputs, Fn: func(mc lm.Config, w *lm.Views, in lm.In) (*Node, []*Node) {
		logits, _, _ := lm.Forward(mc, w, in)
		mask, old, adv, ref := in.Get("loss_mask"), in.Get("old_logprobs"), in.Get("advantages"), in.Get("ref_logprobs")
		lp := lm.TokenLogProbs(logits, in.Get("targets"))
		// Differences are zeroed outside the completion: there old and ref are 0 while lp can be
		// −1e9 (padding targets), and exp of that would overflow into NaN even under a zero mask.
		logRatio := Mul(Sub(lp, old), mask)
		ratio := Exp(logRatio)
		if c.Ratio == "sequence" {
			ratio = Exp(seqLogRatio(lp, logRatio, mask))
		}
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
		approxKL := Sub(Sub(Exp(logRatio), OnesLike(logRatio)), logRatio)
		return loss, []*Node{
			lm.MaskedMean(isClipped, mask),
			lm.MaskedMean(approxKL, mask),
			lm.MaskedMean(ent, mask),
			lm.MaskedMean(kl, mask),
		}
	}}
}

// seqLogRatio is GSPO-token's log ratio per token, [B,T]: sg[mean over the sequence's tokens of
// logRatio] + log π − sg[log π] (value: the sequence's mean log ratio; gradient: that of log π),
// capped at 10 as verl caps it, zero outside the mask.
func seqLogRatio(lp, logRatio, mask *Node) *Node {
	n := ReduceSum(mask, 1)
	mean := Div(ReduceSum(logRatio, 1), Max(n, OnesLike(n))) // [B]
	seq := StopGradient(ExpandDims(mean, -1))                // [B,1]
	tok := Sub(lp, StopGradient(lp))
	return Mul(Min(Add(tok, seq), nn.ScalarLike(lp, 10)), mask)
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

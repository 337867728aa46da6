package nn

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/core/graph"
)

// OptConfig configures Adam/AdamW on the flat parameter vector, global-norm gradient clipping and
// the learning-rate schedule (linear warmup, then cosine decay to MinLRFrac·LR).
type OptConfig struct {
	// LR is the peak learning rate.
	LR float64 `json:"lr"`
	// Beta1, Beta2, Eps: Adam's moment decay rates and denominator epsilon (PyTorch's defaults:
	// 0.9, 0.999, 1e-8).
	Beta1 float64 `json:"beta1"`
	Beta2 float64 `json:"beta2"`
	Eps   float64 `json:"eps"`
	// WeightDecay > 0 makes it AdamW (decoupled decay, applied to matrices only).
	WeightDecay float64 `json:"weight_decay"`
	// ClipNorm > 0 rescales the gradient so its global L2 norm is at most ClipNorm.
	ClipNorm float64 `json:"clip_norm"`
	// WarmupSteps of linear warmup from 0; then cosine decay over the remaining steps up to
	// TotalSteps. TotalSteps = 0 keeps the rate constant after warmup. DecayStart > WarmupSteps
	// holds the rate constant until that step and decays over the steps from it to TotalSteps
	// (warmup–stable–decay: a training that finds its plateau at a constant rate, then anneals).
	WarmupSteps int     `json:"warmup_steps"`
	TotalSteps  int     `json:"total_steps"`
	MinLRFrac   float64 `json:"min_lr_frac"`
	DecayStart  int     `json:"decay_start,omitempty"`
}

// schedule are the fields that set the learning rate of a step (fed to the update step as an
// input), zeroed: what is left shapes the compiled graph.
func (o OptConfig) graphKey() OptConfig {
	o.LR, o.WarmupSteps, o.TotalSteps, o.MinLRFrac, o.DecayStart = 0, 0, 0, 0, 0
	return o
}

// DefaultOpt is Adam with PyTorch's defaults at learning rate lr, no clipping, constant rate.
func DefaultOpt(lr float64) OptConfig {
	return OptConfig{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// Validate names the first invalid field.
func (o OptConfig) Validate() error {
	switch {
	case !(o.LR > 0):
		return fmt.Errorf("optimizer: lr = %v, need > 0", o.LR)
	case o.Beta1 < 0 || o.Beta1 >= 1 || o.Beta2 < 0 || o.Beta2 >= 1:
		return fmt.Errorf("optimizer: betas (%v, %v) must lie in [0,1)", o.Beta1, o.Beta2)
	case !(o.Eps > 0):
		return fmt.Errorf("optimizer: eps = %v, need > 0", o.Eps)
	case o.WeightDecay < 0 || o.ClipNorm < 0 || o.WarmupSteps < 0 || o.TotalSteps < 0 || o.DecayStart < 0:
		return fmt.Errorf("optimizer: weight_decay, clip_norm, warmup_steps, total_steps and decay_start must be ≥ 0")
	case o.MinLRFrac < 0 || o.MinLRFrac > 1:
		return fmt.Errorf("optimizer: min_lr_frac = %v, need [0,1]", o.MinLRFrac)
	}
	return nil
}

// LRAt is the learning rate of step (1-based).
func (o OptConfig) LRAt(step int) float64 {
	if o.WarmupSteps > 0 && step <= o.WarmupSteps {
		return o.LR * float64(step) / float64(o.WarmupSteps)
	}
	from := max(o.WarmupSteps, o.DecayStart)
	if o.TotalSteps <= from {
		return o.LR
	}
	frac := float64(step-from) / float64(o.TotalSteps-from)
	frac = math.Min(1, math.Max(0, frac))
	cos := 0.5 * (1 + math.Cos(math.Pi*frac))
	return o.LR * (o.MinLRFrac + (1-o.MinLRFrac)*cos)
}

// AdamUpdate applies one Adam(W) step on the flat vector, PyTorch's formulation:
//
//	g ← g·min(1, clip/(‖g‖+1e-6));  p ← p·(1 − lr·wd·decayMask)
//	m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²;  p ← p − lr·(m/bc1)/(√(v/bc2) + ε)
//
// with bc1 = 1−β1ᵗ and bc2 = 1−β2ᵗ computed on the host. It returns the new p, m, v and the
// gradient norm before clipping.
func AdamUpdate(o OptConfig, p, m, v, grad, lr, bc1, bc2, decayMask *Node) (np, nm, nv, gradNorm *Node) {
	gradNorm = Sqrt(ReduceAllSum(Square(grad)))
	if o.ClipNorm > 0 {
		scale := Min(OnesLike(gradNorm), Div(Scalar(grad.Graph(), grad.DType(), o.ClipNorm), AddScalar(gradNorm, 1e-6)))
		grad = Mul(grad, scale)
	}
	if o.WeightDecay > 0 {
		p = Sub(p, Mul(MulScalar(Mul(lr, decayMask), o.WeightDecay), p))
	}
	nm = Add(MulScalar(m, o.Beta1), MulScalar(grad, 1-o.Beta1))
	nv = Add(MulScalar(v, o.Beta2), MulScalar(Square(grad), 1-o.Beta2))
	denom := AddScalar(Sqrt(Div(nv, bc2)), o.Eps)
	np = Sub(p, Mul(lr, Div(Div(nm, bc1), denom)))
	return
}

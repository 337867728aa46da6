package tape

import "math"

// Adam is PyTorch's Adam (torch.optim.Adam: no weight decay, no AMSGrad) on host float64 parameters
// held as rows, for the tabular learners: TAPE's code trains its policies with Adam (the deterministic
// tree's max_q_learner.py: policy_optimiser = Adam(mac_params, lr)). For step t ≥ 1:
//
//	m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²;  θ ← θ − lr·(m/(1−β1ᵗ)) / (√(v/(1−β2ᵗ)) + ε)
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	m, v                  [][]float64
	t                     int
}

// NewAdam is Adam at rate lr with PyTorch's defaults (β1 0.9, β2 0.999, ε 1e-8) for parameters of
// the shape of like.
func NewAdam(lr float64, like [][]float64) *Adam {
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: make([][]float64, len(like)), v: make([][]float64, len(like))}
	for i, row := range like {
		a.m[i], a.v[i] = make([]float64, len(row)), make([]float64, len(row))
	}
	return a
}

// Descend takes one step of θ against the gradient g (the shape given to NewAdam).
func (a *Adam) Descend(theta, g [][]float64) {
	a.t++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.t))
	for i := range theta {
		for k, gk := range g[i] {
			a.m[i][k] = a.Beta1*a.m[i][k] + (1-a.Beta1)*gk
			a.v[i][k] = a.Beta2*a.v[i][k] + (1-a.Beta2)*gk*gk
			theta[i][k] -= a.LR * (a.m[i][k] / bc1) / (math.Sqrt(a.v[i][k]/bc2) + a.Eps)
		}
	}
}

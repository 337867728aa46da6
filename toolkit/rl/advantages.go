// Package rl is policy-gradient RL for the tiny LM with verifiable rewards: group rollouts,
// advantage estimators as small pure functions registered by name (verl's core_algos style), the
// CAPO noise mask, the PPO-clip policy loss with token-level aggregation, and the GRPO-family
// training loop (grpo.go holds the whole loop).
package rl

import (
	"fmt"
	"math"
	"sort"

	"github.com/paperlab/paperlab/toolkit/stats"
)

// Group is one prompt's G sampled responses as the advantage estimators see them.
type Group struct {
	// Rewards are the verifiable rewards (binary for the arithmetic task).
	Rewards []float64
	// LPM are the responses' length-normalised log-likelihoods under the current policy.
	LPM []float64
}

// AdvParams are the estimators' hyperparameters.
type AdvParams struct {
	// Eps is added to the group standard deviation (GRPO), as in verl (1e-6).
	Eps float64 `json:"eps"`
	// Tau is CAPO's logistic temperature τ (paper: 0.6 for 1.5B, 0.5 for 7B).
	Tau float64 `json:"tau"`
	// CAPONorm scales CAPO's pairwise sums: "none", "group" (÷G), "pairs" (÷|P|·|N|) or "grpo"
	// (rescaled so the group's total |advantage| equals GRPO's on the same rewards: CAPO then only
	// redistributes GRPO's step within the group by the pair ranking, which isolates the shape of the
	// surrogate but inherits GRPO's per-group std amplification of rare outcomes). [UNVERIFIED]
	// which normalisation the paper uses (toolkit/exp/capo/README.md). The default is "group": a constant
	// factor, which Adam's scale invariance makes equivalent to the paper's plain sums.
	CAPONorm string `json:"capo_norm"`
}

// DefaultAdvParams are the defaults used by the experiments.
func DefaultAdvParams() AdvParams { return AdvParams{Eps: 1e-6, Tau: 0.5, CAPONorm: "group"} }

// Estimator maps a group to one advantage per response.
type Estimator func(g Group, p AdvParams) []float64

// EstimatorSpec is a registered estimator with the properties the training loop's diagnostics need.
type EstimatorSpec struct {
	// Advantages computes one advantage per response of a group.
	Advantages Estimator
	// PairTau marks a pairwise estimator: its advantage sums a logistic weight σ((lpm_j − lpm_i)/τ)
	// over the group's (right i, wrong j) pairs, and PairTau gives that τ from the parameters, so
	// Diagnose measures the share of pair weight on misranked pairs by the estimator's own shape.
	// Nil: a linear estimator, every pair weighted alike (Diagnose's τ = 0).
	PairTau func(p AdvParams) float64
}

// pairTau is the τ of Diagnose's pair shape: the estimator's own, 0 (linear) when it has none.
func (s EstimatorSpec) pairTau(p AdvParams) float64 {
	if s.PairTau == nil {
		return 0
	}
	return s.PairTau(p)
}

var estimators = map[string]EstimatorSpec{
	"grpo":    {Advantages: GRPO},
	"dr_grpo": {Advantages: DrGRPO},
	"rloo":    {Advantages: RLOO},
	"capo":    {Advantages: CAPO, PairTau: func(p AdvParams) float64 { return p.Tau }},
}

// RegisterEstimator adds an estimator under a name, usable as Config.Estimator by Train. It panics on
// a duplicate name or a nil Advantages (programming errors). See the example for a toy estimator
// registered and trained in a few lines, as in a notebook cell.
func RegisterEstimator(name string, s EstimatorSpec) {
	if _, dup := estimators[name]; dup {
		panic("rl: duplicate estimator " + name)
	}
	if s.Advantages == nil {
		panic("rl: estimator " + name + " has no Advantages function")
	}
	estimators[name] = s
}

// EstimatorByName returns a registered estimator's advantage function or an error listing the known
// names.
func EstimatorByName(name string) (Estimator, error) {
	s, err := EstimatorSpecByName(name)
	return s.Advantages, err
}

// EstimatorSpecByName returns a registered estimator with its properties, or an error listing the
// known names.
func EstimatorSpecByName(name string) (EstimatorSpec, error) {
	if s, ok := estimators[name]; ok {
		return s, nil
	}
	var names []string
	for n := range estimators {
		names = append(names, n)
	}
	sort.Strings(names)
	return EstimatorSpec{}, fmt.Errorf("rl: unknown advantage estimator %q (known: %v)", name, names)
}

// mean is the mean of x (stats.Mean).
func mean(x []float64) float64 { return stats.Mean(x) }

// meanStdUnbiased is the mean and the (n−1) standard deviation of x (stats.MeanStd), with a
// deviation of 0 rather than NaN for fewer than 2 values (a lone response is not scaled).
func meanStdUnbiased(x []float64) (m, std float64) {
	if len(x) < 2 {
		return stats.Mean(x), 0
	}
	return stats.MeanStd(x)
}

// GRPO is (R_i − mean R)/(std R + eps), with the unbiased (G−1) standard deviation as TRL and verl
// compute it. A group whose rewards are all equal gets zero advantages.
func GRPO(g Group, p AdvParams) []float64 {
	m, std := meanStdUnbiased(g.Rewards)
	out := make([]float64, len(g.Rewards))
	for i, r := range g.Rewards {
		out[i] = (r - m) / (std + p.Eps)
	}
	return out
}

// DrGRPO is R_i − mean R (no standard-deviation scaling). For binary rewards it equals the pairwise
// linear form in CAPO's diagnosis: (1/G)·Σ_j (R_i − R_j).
func DrGRPO(g Group, _ AdvParams) []float64 {
	m := mean(g.Rewards)
	out := make([]float64, len(g.Rewards))
	for i, r := range g.Rewards {
		out[i] = r - m
	}
	return out
}

// RLOO is R_i minus the mean reward of the other responses (leave-one-out baseline).
func RLOO(g Group, _ AdvParams) []float64 {
	n := len(g.Rewards)
	out := make([]float64, n)
	if n < 2 {
		return out
	}
	total := 0.0
	for _, r := range g.Rewards {
		total += r
	}
	for i, r := range g.Rewards {
		out[i] = r - (total-r)/float64(n-1)
	}
	return out
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// CAPO is the calibration-aware advantage of CAPO (toolkit/exp/capo/README.md): the gradient of the pairwise logistic AUC
// surrogate Σ_{i∈P, j∈N} log(1 + exp(−(lpm_i − lpm_j)/τ)) over correct (P, reward > 0.5) and
// incorrect (N) responses:
//
//	correct i:   Ã_i = (1/τ)·Σ_{j∈N} σ((lpm_j − lpm_i)/τ)
//	incorrect j: Ã_j = −(1/τ)·Σ_{i∈P} σ((lpm_j − lpm_i)/τ)
//
// so misranked pairs (a correct answer less likely than a wrong one) weigh most, and pairs already
// well separated weigh ≈ 0. All-correct and all-wrong groups get zero, as in GRPO. The sums are
// scaled by p.CAPONorm.
func CAPO(g Group, p AdvParams) []float64 {
	n := len(g.Rewards)
	out := make([]float64, n)
	var pos, neg []int
	for i, r := range g.Rewards {
		if r > 0.5 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		return out
	}
	tau := p.Tau
	for _, i := range pos {
		for _, j := range neg {
			w := sigmoid((g.LPM[j]-g.LPM[i])/tau) / tau
			out[i] += w
			out[j] -= w
		}
	}
	scale := 1.0
	switch p.CAPONorm {
	case "group":
		scale = 1 / float64(n)
	case "pairs":
		scale = 1 / float64(len(pos)*len(neg))
	case "grpo":
		var mass, ref float64
		for i, a := range GRPO(g, p) {
			ref += math.Abs(a)
			mass += math.Abs(out[i])
		}
		if mass > 0 {
			scale = ref / mass
		}
	}
	for i := range out {
		out[i] *= scale
	}
	return out
}

// Validate names an invalid parameter.
func (p AdvParams) Validate() error {
	if !(p.Tau > 0) {
		return fmt.Errorf("rl: tau = %v, need > 0", p.Tau)
	}
	if p.Eps < 0 {
		return fmt.Errorf("rl: eps = %v, need ≥ 0", p.Eps)
	}
	switch p.CAPONorm {
	case "none", "group", "pairs", "grpo":
		return nil
	}
	return fmt.Errorf("rl: capo_norm = %q, want none, group, pairs or grpo", p.CAPONorm)
}

package ac

import "github.com/paperlab/paperlab/toolkit/stats"

// GAE computes generalized advantage estimates for one trajectory stream: rewards[t], values[t]
// (V(s_t)), dones[t] (episode ended after step t, so no bootstrap across it), and lastValue (V of the
// state after the last step). It returns advantages and returns (advantage + value):
//
//	δ_t = r_t + γ·V_{t+1}·(1−done_t) − V_t;   A_t = δ_t + γλ·(1−done_t)·A_{t+1}
func GAE(rewards, values []float64, dones []bool, lastValue, gamma, lambda float64) (adv, ret []float64) {
	n := len(rewards)
	adv = make([]float64, n)
	ret = make([]float64, n)
	next, nextAdv := lastValue, 0.0
	for t := n - 1; t >= 0; t-- {
		notDone := 1.0
		if dones[t] {
			notDone = 0
		}
		delta := rewards[t] + gamma*next*notDone - values[t]
		nextAdv = delta + gamma*lambda*notDone*nextAdv
		adv[t] = nextAdv
		ret[t] = adv[t] + values[t]
		next = values[t]
	}
	return adv, ret
}

// TDLambda computes λ-returns for one stream with bootstrap values q[t] = Q(s_t, a_t) of the taken
// actions (SARSA(λ), on-policy): G_t = r_t + γ·(1−done_t)·[(1−λ)·q_{t+1} + λ·G_{t+1}], where
// q_{n} = lastQ bootstraps the last step.
func TDLambda(rewards, q []float64, dones []bool, lastQ, gamma, lambda float64) []float64 {
	n := len(rewards)
	g := make([]float64, n)
	nextG, nextQ := lastQ, lastQ
	for t := n - 1; t >= 0; t-- {
		if dones[t] {
			g[t] = rewards[t]
		} else {
			g[t] = rewards[t] + gamma*((1-lambda)*nextQ+lambda*nextG)
		}
		nextG, nextQ = g[t], q[t]
	}
	return g
}

// Normalize returns (x − mean)/(std + 1e-8).
func Normalize(x []float64) []float64 {
	if len(x) == 0 {
		return nil
	}
	m, std := stats.MeanStdPop(x)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v - m) / (std + 1e-8)
	}
	return out
}

// HorizonGAE is GAE over S interleaved streams of H steps (sample t*S+s is stream s at step t)
// whose episodes all end at the horizon H, with no bootstrap — one full Overcooked episode per
// game. It returns advantages and returns in the same layout.
func HorizonGAE(rew []float64, vals []float32, H, S int, gamma, lambda float64) (adv, ret []float64) {
	adv, ret = make([]float64, H*S), make([]float64, H*S)
	r, v, d := make([]float64, H), make([]float64, H), make([]bool, H)
	d[H-1] = true
	for s := 0; s < S; s++ {
		for t := 0; t < H; t++ {
			r[t], v[t] = rew[t*S+s], float64(vals[t*S+s])
		}
		a, rt := GAE(r, v, d, 0, gamma, lambda)
		for t := 0; t < H; t++ {
			adv[t*S+s], ret[t*S+s] = a[t], rt[t]
		}
	}
	return adv, ret
}

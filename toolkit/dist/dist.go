// Package dist is the one host-side categorical distribution over logits that every sampler in
// PaperLab uses (MARL actors, the E3T partner model, behaviour cloning, the decision transformer,
// the tiny LM's decoder): a masked softmax, log-probabilities, greedy choice and sampling, each
// written once. A mask marks the available entries (nil: all); masked entries get probability 0.
//
// Arithmetic is fixed, because same seed ⇒ same bits: the maximum is taken over the available
// logits in float64, z = Σ exp(v − max) over them in index order, log p(a) = (v_a − max) − log z,
// and sampling draws u = rand·z and walks the available entries subtracting exp(v − max) until u
// falls below zero (the last available entry when rounding leaves u ≥ 0).
package dist

import (
	"math"
	"math/rand/v2"
)

// Float is a logit type.
type Float interface{ ~float32 | ~float64 }

func on(mask []bool, i int) bool { return mask == nil || mask[i] }

// Max is the largest available logit (−Inf when none is available).
func Max[F Float](logits []F, mask []bool) float64 {
	mx := math.Inf(-1)
	for i, v := range logits {
		if on(mask, i) {
			mx = math.Max(mx, float64(v))
		}
	}
	return mx
}

// norm is the maximum and the normaliser z = Σ exp(v − max) over the available logits.
func norm[F Float](logits []F, mask []bool) (mx, z float64) {
	mx = Max(logits, mask)
	for i, v := range logits {
		if on(mask, i) {
			z += math.Exp(float64(v) - mx)
		}
	}
	return mx, z
}

// Softmax is the probability of every entry (0 where masked).
func Softmax[F Float](logits []F, mask []bool) []float64 {
	mx := Max(logits, mask)
	out := make([]float64, len(logits))
	var z float64
	for i, v := range logits {
		if on(mask, i) {
			out[i] = math.Exp(float64(v) - mx)
			z += out[i]
		}
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

// LogProb is log p(a).
func LogProb[F Float](logits []F, mask []bool, a int) float64 {
	mx, z := norm(logits, mask)
	return float64(logits[a]) - mx - math.Log(z)
}

// LogSoftmax is log p of every entry (−Inf where masked).
func LogSoftmax[F Float](logits []F, mask []bool) []float64 {
	mx, z := norm(logits, mask)
	lz := math.Log(z)
	out := make([]float64, len(logits))
	for i, v := range logits {
		if on(mask, i) {
			out[i] = float64(v) - mx - lz
		} else {
			out[i] = math.Inf(-1)
		}
	}
	return out
}

// Greedy is the first available entry with the largest logit (−1 when none is available).
func Greedy[F Float](logits []F, mask []bool) int {
	pick := -1
	for i, v := range logits {
		if on(mask, i) && (pick < 0 || v > logits[pick]) {
			pick = i
		}
	}
	return pick
}

// Sample draws an entry with probability softmax(logits) among the available ones and returns it
// with its log-probability (one uniform draw from r).
func Sample[F Float](r *rand.Rand, logits []F, mask []bool) (int, float64) {
	mx, z := norm(logits, mask)
	u := r.Float64() * z
	pick := -1
	for i, v := range logits {
		if !on(mask, i) {
			continue
		}
		pick = i
		u -= math.Exp(float64(v) - mx)
		if u < 0 {
			break
		}
	}
	return pick, float64(logits[pick]) - mx - math.Log(z)
}

// Choose is Greedy (with its log-probability) or Sample.
func Choose[F Float](r *rand.Rand, logits []F, mask []bool, greedy bool) (int, float64) {
	if greedy {
		a := Greedy(logits, mask)
		return a, LogProb(logits, mask, a)
	}
	return Sample(r, logits, mask)
}

// SampleProbs draws an index with the given probabilities (summing to 1): u = rand, minus each
// probability until below zero (the last index when rounding leaves u ≥ 0).
func SampleProbs(r *rand.Rand, p []float64) int {
	u := r.Float64()
	for i, v := range p {
		u -= v
		if u < 0 {
			return i
		}
	}
	return len(p) - 1
}

// Rows applies Choose to every row of a [rows·n] logit matrix with per-row masks (masks nil: every
// entry available), returning the actions and their log-probabilities as float32.
func Rows(logits []float32, rows int, masks [][]bool, r *rand.Rand, greedy bool) (acts []int, logp []float32) {
	n := len(logits) / rows
	acts, logp = make([]int, rows), make([]float32, rows)
	for i := range rows {
		var m []bool
		if masks != nil {
			m = masks[i]
		}
		a, lp := Choose(r, logits[i*n:(i+1)*n], m, greedy)
		acts[i], logp[i] = a, float32(lp)
	}
	return acts, logp
}

package m3apg

import (
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// PushEffects is the effect class of every joint action of n push agents (env.JointIndex's order):
// the net push clipped to ±maxMove per axis — what the object's move depends on away from the walls.
// Joint actions of one class are equivalent in effect; classes counts them.
func PushEffects(n, maxMove int) (class []int, classes int) {
	side := 2*maxMove + 1
	joints := int(math.Pow(4, float64(n)))
	class = make([]int, joints)
	for k := range class {
		dx, dy := env.NetPush(env.JointAction(k, n))
		class[k] = PushEffect(dx, dy, maxMove)
	}
	return class, side * side
}

// PushEffect is the effect class of a net push (dx, dy) clipped to ±maxMove per axis (PushEffects'
// numbering; PushEffect(0, 0, m) is "no move").
func PushEffect(dx, dy, maxMove int) int {
	dx, dy = max(-maxMove, min(maxMove, dx)), max(-maxMove, min(maxMove, dy))
	return (dx+maxMove)*(2*maxMove+1) + dy + maxMove
}

// EffectShare is the share of an embedding's variance explained by the effect classes (the
// correlation ratio η² = Σ_g n_g‖μ_g − μ‖² / Σ_i ‖e_i − μ‖²): 1 when equivalent joint actions share
// one point, near 0 when the embedding ignores what they do. NaN for a constant embedding.
func EffectShare(emb [][]float32, class []int, classes int) (float64, error) {
	if len(emb) == 0 || len(emb) != len(class) {
		return 0, fmt.Errorf("m3apg: %d embeddings for %d classes labels", len(emb), len(class))
	}
	d := len(emb[0])
	mean := make([]float64, d)
	sums := make([][]float64, classes)
	counts := make([]float64, classes)
	for i, e := range emb {
		g := class[i]
		if g < 0 || g >= classes || len(e) != d {
			return 0, fmt.Errorf("m3apg: row %d: class %d of %d, %d values for %d", i, g, classes, len(e), d)
		}
		if sums[g] == nil {
			sums[g] = make([]float64, d)
		}
		for j, v := range e {
			mean[j] += float64(v) / float64(len(emb))
			sums[g][j] += float64(v)
		}
		counts[g]++
	}
	var total, between float64
	for _, e := range emb {
		for j, v := range e {
			total += (float64(v) - mean[j]) * (float64(v) - mean[j])
		}
	}
	for g, s := range sums {
		for j := range s {
			m := s[j]/counts[g] - mean[j]
			between += counts[g] * m * m
		}
	}
	if total == 0 {
		return math.NaN(), nil
	}
	return between / total, nil
}

// UniformQ is a push game's exact Q under the uniform policy (every agent's 4 actions equally
// likely), the reference QSpread and the room checks measure against.
func UniformQ(p *env.Push, gamma float64) (*env.PushQ, error) {
	n := p.Spec().Agents
	uniform := func(int, int) [][]float64 {
		out := make([][]float64, n)
		for i := range out {
			out[i] = []float64{.25, .25, .25, .25}
		}
		return out
	}
	return p.ExactQ(uniform, gamma)
}

// QSpread measures how much a push game's exact Q depends on the joint action under the uniform
// policy: joint is the RMS of Q(s, a) − V(s) over (step, cell ≠ goal, joint action) — the error of a
// critic that knows V(s) exactly but ignores the joint action — and total the RMS of Q about its
// mean — the error of a constant.
func QSpread(p *env.Push, gamma float64) (joint, total float64, err error) {
	q, err := UniformQ(p, gamma)
	if err != nil {
		return 0, 0, err
	}
	var sum, sq, within, cnt float64
	for t := range q.Q {
		for c, row := range q.Q[t] {
			if c == p.Goal() {
				continue
			}
			var m float64
			for _, v := range row {
				m += v / float64(len(row))
			}
			for _, v := range row {
				within += (v - m) * (v - m)
				sum, sq, cnt = sum+v, sq+v*v, cnt+1
			}
		}
	}
	mean := sum / cnt
	return math.Sqrt(within / cnt), math.Sqrt(max(0, sq/cnt-mean*mean)), nil
}

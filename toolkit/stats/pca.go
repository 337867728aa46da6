package stats

import "math"

// PCA2 projects rows onto their first two principal components (power iteration with deflation on
// the covariance, from a fixed start: deterministic), each component's sign fixed so that its
// largest loading is positive; explained is the share of variance the two carry.
func PCA2(emb [][]float32) (x, y []float64, explained float64) {
	n, d := len(emb), 0
	if n > 0 {
		d = len(emb[0])
	}
	mean := make([]float64, d)
	for _, e := range emb {
		for j, v := range e {
			mean[j] += float64(v) / float64(n)
		}
	}
	cov := make([][]float64, d)
	for i := range cov {
		cov[i] = make([]float64, d)
	}
	var total float64
	for _, e := range emb {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				cov[i][j] += (float64(e[i]) - mean[i]) * (float64(e[j]) - mean[j])
			}
		}
	}
	for i := 0; i < d; i++ {
		total += cov[i][i]
	}
	var comps [][]float64
	var captured float64
	for c := 0; c < 2 && c < d; c++ {
		v := make([]float64, d)
		for j := range v {
			v[j] = 1 / math.Sqrt(float64(d)+float64(j)) // fixed, not orthogonal to any axis
		}
		var lambda float64
		for it := 0; it < 500; it++ {
			w := make([]float64, d)
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					w[i] += cov[i][j] * v[j]
				}
			}
			norm := 0.0
			for _, u := range w {
				norm += u * u
			}
			norm = math.Sqrt(norm)
			if norm == 0 {
				break
			}
			for i := range w {
				w[i] /= norm
			}
			v, lambda = w, norm
		}
		big := 0
		for j := range v {
			if math.Abs(v[j]) > math.Abs(v[big]) {
				big = j
			}
		}
		if v[big] < 0 {
			for j := range v {
				v[j] = -v[j]
			}
		}
		for i := 0; i < d; i++ { // deflate
			for j := 0; j < d; j++ {
				cov[i][j] -= lambda * v[i] * v[j]
			}
		}
		comps, captured = append(comps, v), captured+lambda
	}
	x, y = make([]float64, n), make([]float64, n)
	for r, e := range emb {
		for j, v := range e {
			c := float64(v) - mean[j]
			if len(comps) > 0 {
				x[r] += c * comps[0][j]
			}
			if len(comps) > 1 {
				y[r] += c * comps[1][j]
			}
		}
	}
	if total > 0 {
		explained = captured / total
	}
	return x, y, explained
}

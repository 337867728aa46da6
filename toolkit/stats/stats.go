// Package stats holds the small statistics PaperLab reports over seeds: the sample mean and
// standard deviation (n − 1), the standard error, Student-t 95 % intervals of a mean (also of a
// paired difference), Wilson intervals for a fraction, and curve smoothing. Pure functions, no
// dependencies beyond the standard library, so the figures, the summaries and the claims share them.
package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// Summary is a sample's mean, sample standard deviation (n − 1 in the denominator), standard error
// of the mean and the two-sided 95 % Student-t interval of the mean. With one value the spread
// statistics are NaN (undefined, not zero); with none, every field but N is NaN.
type Summary struct {
	Mean float64    `json:"mean"`
	Std  float64    `json:"std"`
	N    int        `json:"n"`
	SE   float64    `json:"se"`
	CI95 [2]float64 `json:"ci95"`
}

// Summarize computes the Summary of xs.
func Summarize(xs []float64) Summary {
	n := len(xs)
	nan := math.NaN()
	s := Summary{Mean: nan, Std: nan, N: n, SE: nan, CI95: [2]float64{nan, nan}}
	if n == 0 {
		return s
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(n)
	if n < 2 {
		return s
	}
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.Std = math.Sqrt(ss / float64(n-1))
	s.SE = s.Std / math.Sqrt(float64(n))
	h := TQuantile(0.975, n-1) * s.SE
	s.CI95 = [2]float64{s.Mean - h, s.Mean + h}
	return s
}

// String is "mean ± half-width of the 95 % interval (n=…)", or "mean (n=1)" where no interval exists.
func (s Summary) String() string {
	if h := s.HalfWidth(); !math.IsNaN(h) {
		return fmt.Sprintf("%.3f ± %.3f (n=%d)", s.Mean, h, s.N)
	}
	return fmt.Sprintf("%.3f (n=%d)", s.Mean, s.N)
}

// HalfWidth is half the width of the 95 % interval (NaN when it is undefined).
func (s Summary) HalfWidth() float64 { return (s.CI95[1] - s.CI95[0]) / 2 }

// TQuantile returns the p-quantile of Student's t distribution with df degrees of freedom
// (df ≥ 1, 0 < p < 1), by bisection on the CDF; accurate to about 1e-10.
func TQuantile(p float64, df int) float64 { return TQuantileF(p, float64(df)) }

// TQuantileF is TQuantile for real degrees of freedom (df ≥ 1; Welch's interval has fractional ones).
func TQuantileF(p, df float64) float64 {
	if !(df >= 1) || p <= 0 || p >= 1 {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -TQuantileF(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for TCDFF(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-12*math.Max(1, hi); i++ {
		mid := (lo + hi) / 2
		if TCDFF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TCDF is the cumulative distribution function of Student's t with df degrees of freedom.
func TCDF(t float64, df int) float64 { return TCDFF(t, float64(df)) }

// TCDFF is TCDF for real degrees of freedom.
func TCDFF(t, v float64) float64 {
	x := v / (v + t*t)
	tail := 0.5 * regIncBeta(v/2, 0.5, x) // P(T > |t|)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// regIncBeta is the regularized incomplete beta function I_x(a, b) (continued fraction, Lentz).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBeta(b, a, 1-x)
	}
	const tiny = 1e-300
	f, c, d := 1.0, 1.0, 0.0
	for i := 0; i <= 400; i++ {
		m := float64(i / 2)
		var num float64
		switch {
		case i == 0:
			num = 1
		case i%2 == 0:
			num = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		default:
			num = -((a + m) * (a + b + m) * x) / ((a + 2*m) * (a + 2*m + 1))
		}
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		d = 1 / d
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		f *= c * d
		if math.Abs(1-c*d) < 1e-15 {
			break
		}
	}
	return front * (f - 1) / a
}

// Welch is the 95 % Welch t-interval of mean(b) − mean(a) for two independent samples: the
// difference, its interval and the Welch–Satterthwaite degrees of freedom. With fewer than two
// values on either side the interval and df are NaN; with no spread on either side (identical
// values), the interval is the point itself.
func Welch(a, b []float64) (diff float64, ci [2]float64, df float64) {
	sa, sb := Summarize(a), Summarize(b)
	diff = sb.Mean - sa.Mean
	nan := math.NaN()
	if sa.N < 2 || sb.N < 2 {
		return diff, [2]float64{nan, nan}, nan
	}
	va, vb := sa.Std*sa.Std/float64(sa.N), sb.Std*sb.Std/float64(sb.N)
	if va+vb == 0 {
		return diff, [2]float64{diff, diff}, math.Inf(1)
	}
	df = (va + vb) * (va + vb) / (va*va/float64(sa.N-1) + vb*vb/float64(sb.N-1))
	h := TQuantileF(0.975, df) * math.Sqrt(va+vb)
	return diff, [2]float64{diff - h, diff + h}, df
}

// Wilson returns the 95 % Wilson score interval of a fraction k/n (n ≥ 1); it stays in [0, 1]
// and is sensible at k = 0 and k = n, where the normal interval collapses.
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	const z = 1.959963984540054
	p := float64(k) / float64(n)
	nn := float64(n)
	den := 1 + z*z/nn
	centre := (p + z*z/(2*nn)) / den
	half := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// EMA smooths ys with an exponential moving average of weight alpha on the newest point
// (0 < alpha ≤ 1; 1 returns a copy), debiased at the start as TensorBoard does, so the first
// points are not pulled towards zero. NaN points are carried through without updating the average.
func EMA(ys []float64, alpha float64) []float64 {
	out := make([]float64, len(ys))
	var avg, w float64
	for i, y := range ys {
		if math.IsNaN(y) {
			out[i] = math.NaN()
			continue
		}
		avg = (1-alpha)*avg + alpha*y
		w = (1-alpha)*w + alpha
		out[i] = avg / w
	}
	return out
}

// summaryJSON is Summary on the wire: undefined statistics (NaN) are null, since JSON has no NaN.
type summaryJSON struct {
	Mean *float64    `json:"mean"`
	Std  *float64    `json:"std"`
	N    int         `json:"n"`
	SE   *float64    `json:"se"`
	CI95 *[2]float64 `json:"ci95"`
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes undefined statistics as null.
func (s Summary) MarshalJSON() ([]byte, error) {
	j := summaryJSON{Mean: finite(s.Mean), Std: finite(s.Std), N: s.N, SE: finite(s.SE)}
	if finite(s.CI95[0]) != nil && finite(s.CI95[1]) != nil {
		j.CI95 = &s.CI95
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads null statistics as NaN.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{Mean: orNaN(j.Mean), Std: orNaN(j.Std), N: j.N, SE: orNaN(j.SE), CI95: [2]float64{math.NaN(), math.NaN()}}
	if j.CI95 != nil {
		s.CI95 = *j.CI95
	}
	return nil
}

// Percentile is the p-quantile (p in [0,1]) of xs by linear interpolation between order statistics
// (NumPy's default, "linear"); NaN for an empty sample. xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 || p < 0 || p > 1 || math.IsNaN(p) {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	h := p * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

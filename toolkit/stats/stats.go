// Package stats holds the small statistics PaperLab reports over seeds: the sample mean and
// standard deviation (n − 1), the standard error, Student-t 95 % intervals of a mean (also of a
// paired difference), Wilson intervals for a fraction, and curve smoothing. Pure functions, with no
// dependency beyond the standard library but gonum's Student-t distribution, so the figures, the
// summaries, the claims and the training code share them.
package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
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
	s := Summary{N: n, SE: nan, CI95: [2]float64{nan, nan}}
	s.Mean, s.Std = MeanStd(xs)
	if n < 2 {
		return s
	}
	s.SE = s.Std / math.Sqrt(float64(n))
	h := TQuantile(0.975, n-1) * s.SE
	s.CI95 = [2]float64{s.Mean - h, s.Mean + h}
	return s
}

// Mean is the arithmetic mean of xs, summed in order and divided once (NaN for no values).
func Mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// MeanTermwise is the mean of xs as Σ x/n, each value divided by n before it is added (0 for no
// values). It equals Mean up to rounding only; the TAPE experiment's curve means (AUCs) are
// computed this way.
func MeanTermwise(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x / float64(len(xs))
	}
	return s
}

// MeanStd is the mean and the sample standard deviation (n − 1 in the denominator) of xs, as
// Summarize reports them: the deviation is NaN for fewer than two values (the mean too for none).
func MeanStd(xs []float64) (mean, std float64) {
	mean = Mean(xs)
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	return mean, math.Sqrt(sumSquares(xs, mean) / float64(len(xs)-1))
}

// MeanStdPop is the mean and the population standard deviation (n in the denominator) of xs, as
// advantage normalisation uses them: 0 for one value, NaN for none.
func MeanStdPop(xs []float64) (mean, std float64) {
	mean = Mean(xs)
	return mean, math.Sqrt(sumSquares(xs, mean) / float64(len(xs)))
}

// sumSquares is Σ (x − mean)², summed in order.
func sumSquares(xs []float64, mean float64) float64 {
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return ss
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
// (df ≥ 1, 0 < p < 1; NaN outside), from gonum's inverse regularized incomplete beta function.
func TQuantile(p float64, df int) float64 { return TQuantileF(p, float64(df)) }

// TQuantileF is TQuantile for real degrees of freedom (df ≥ 1; Welch's interval has fractional ones).
func TQuantileF(p, df float64) float64 {
	if !(df >= 1) || !(p > 0 && p < 1) {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// TCDF is the cumulative distribution function of Student's t with df degrees of freedom.
func TCDF(t float64, df int) float64 { return TCDFF(t, float64(df)) }

// TCDFF is TCDF for real degrees of freedom.
func TCDFF(t, df float64) float64 { return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(t) }

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
// (NumPy's default, "linear": position p·(n−1) in the sorted sample); NaN for an empty sample or
// a p outside [0,1]. xs is not modified.
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

// Slope is the least-squares slope of ys on xs (means by Mean, then the centred cross- and
// square-sums), and false when the xs do not vary.
func Slope(xs, ys []float64) (float64, bool) {
	mx, my := Mean(xs), Mean(ys)
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0, false
	}
	return sxy / sxx, true
}

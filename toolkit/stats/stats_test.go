package stats

import (
	"encoding/json"
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Critical values from any t table (two-sided 95 %: the 0.975 quantile).
func TestTQuantileMatchesTables(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.7062}, {2, 4.3027}, {4, 2.7764}, {9, 2.2622}, {19, 2.0930}, {29, 2.0452}, {1000, 1.9623}} {
		if got := TQuantile(0.975, c.df); !near(got, c.want, 1e-4) {
			t.Errorf("t(0.975, df=%d) = %.5f, want %.4f", c.df, got, c.want)
		}
	}
	if got := TQuantile(0.025, 4); !near(got, -2.7764, 1e-4) {
		t.Errorf("lower tail: %v", got)
	}
	if got := TCDF(0, 3); got != 0.5 {
		t.Errorf("TCDF(0) = %v", got)
	}
}

func TestSummarizeUsesSampleStd(t *testing.T) {
	s := Summarize([]float64{1, 2, 3, 4})
	// sample variance = (2.25+0.25+0.25+2.25)/3 = 5/3
	if s.Mean != 2.5 || !near(s.Std, math.Sqrt(5.0/3), 1e-12) || s.N != 4 {
		t.Fatalf("summary %+v", s)
	}
	if !near(s.SE, s.Std/2, 1e-12) {
		t.Errorf("se %v", s.SE)
	}
	h := 3.1824 * s.SE // t(0.975, 3)
	if !near(s.CI95[0], 2.5-h, 1e-3) || !near(s.CI95[1], 2.5+h, 1e-3) {
		t.Errorf("ci95 %v, want 2.5 ± %.4f", s.CI95, h)
	}
	one := Summarize([]float64{7})
	if one.Mean != 7 || !math.IsNaN(one.Std) || !math.IsNaN(one.CI95[0]) {
		t.Errorf("one value: %+v (spread must be undefined, not 0)", one)
	}
	if none := Summarize(nil); !math.IsNaN(none.Mean) || none.N != 0 {
		t.Errorf("no values: %+v", none)
	}
}

func TestSummaryJSONRoundTripWithUndefinedFields(t *testing.T) {
	for _, s := range []Summary{Summarize([]float64{1, 2, 4}), Summarize([]float64{3}), Summarize(nil)} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
		if !same(back.Mean, s.Mean) || !same(back.Std, s.Std) || back.N != s.N || !same(back.SE, s.SE) ||
			!same(back.CI95[0], s.CI95[0]) || !same(back.CI95[1], s.CI95[1]) {
			t.Errorf("%s: round trip %+v → %+v", b, s, back)
		}
	}
}

func TestWilsonStaysInUnitIntervalAndMatchesReference(t *testing.T) {
	lo, hi := Wilson(0, 5)
	if lo != 0 || !near(hi, 0.4345, 1e-4) {
		t.Errorf("0/5: [%v, %v]", lo, hi)
	}
	lo, hi = Wilson(5, 5)
	if !near(lo, 0.5655, 1e-4) || hi != 1 {
		t.Errorf("5/5: [%v, %v]", lo, hi)
	}
	lo, hi = Wilson(15, 20) // reference: [0.5313, 0.8881]
	if !near(lo, 0.5313, 1e-4) || !near(hi, 0.8881, 1e-4) {
		t.Errorf("15/20: [%v, %v]", lo, hi)
	}
}

func TestEMA(t *testing.T) {
	got := EMA([]float64{1, 1, 1, math.NaN(), 1}, 0.3)
	for i, v := range got {
		if i == 3 {
			if !math.IsNaN(v) {
				t.Errorf("NaN not carried: %v", got)
			}
			continue
		}
		if !near(v, 1, 1e-12) {
			t.Errorf("debiased EMA of a constant must be the constant: %v", got)
		}
	}
	got = EMA([]float64{0, 10}, 0.5) // avg 0 → 5; weight .5 → .75
	if !near(got[1], 5/0.75, 1e-12) {
		t.Errorf("EMA %v", got)
	}
}

// Reference values of numpy.percentile(xs, 100·p) (its default linear interpolation), worked by hand on
// the sorted sample 1, 3, 4, 7, 10 (h = p·4; e.g. p = 0.9: 7 + 0.6·3).
func TestPercentileMatchesNumPy(t *testing.T) {
	xs := []float64{7, 1, 3, 10, 4}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.025, 1.2}, {0.5, 4}, {0.9, 8.8}, {0.975, 9.7}, {1, 10}} {
		if got := Percentile(xs, c.p); !near(got, c.want, 1e-12) {
			t.Errorf("Percentile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if xs[0] != 7 {
		t.Error("Percentile sorted its input in place")
	}
	if !math.IsNaN(Percentile(nil, 0.5)) || !math.IsNaN(Percentile(xs, 1.5)) {
		t.Error("empty sample or p outside [0,1] must give NaN")
	}
}

// Welch against a hand computation: a = 1,2,3,4 (var 5/3), b = 2,4,6,8,10 (var 10) give
// df = (va+vb)² / (va²/3 + vb²/4) = 5.52 with va = var/n; t₀.₉₇₅ then lies between the table's
// 2.571 (df 5) and 2.447 (df 6).
func TestWelch(t *testing.T) {
	d, ci, df := Welch([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8, 10})
	va, vb := (5.0/3)/4, 10.0/5
	wantDF := (va + vb) * (va + vb) / (va*va/3 + vb*vb/4)
	if d != 3.5 || math.Abs(df-wantDF) > 1e-12 || math.Abs(df-5.5208) > 1e-4 {
		t.Fatalf("diff %v df %v (want 3.5, %v)", d, df, wantDF)
	}
	h := (ci[1] - ci[0]) / 2
	if q := TQuantileF(0.975, df); math.Abs(h/math.Sqrt(va+vb)-q) > 1e-9 || !(q > 2.447 && q < 2.571) {
		t.Fatalf("half-width %v, t %v", h, TQuantileF(0.975, df))
	}
	if TQuantileF(0.975, 4) != TQuantile(0.975, 4) {
		t.Fatal("real and integer df disagree")
	}
	if _, ci, _ := Welch([]float64{1}, []float64{1, 2}); !math.IsNaN(ci[0]) {
		t.Fatal("one value: an interval")
	}
	if d, ci, _ := Welch([]float64{2, 2}, []float64{2, 2, 2}); d != 0 || ci != [2]float64{0, 0} {
		t.Fatalf("identical values: %v %v", d, ci)
	}
}

// refTQuantileF, refTCDFF and refRegIncBeta are the t quantile and CDF stats computed before it
// used gonum (bisection on a continued-fraction incomplete beta), kept as the reference the gonum
// ones must match.
func refTQuantileF(p, df float64) float64 {
	if !(df >= 1) || p <= 0 || p >= 1 {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -refTQuantileF(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for refTCDFF(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-12*math.Max(1, hi); i++ {
		mid := (lo + hi) / 2
		if refTCDFF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func refTCDFF(t, v float64) float64 {
	x := v / (v + t*t)
	tail := 0.5 * refRegIncBeta(v/2, 0.5, x) // P(T > |t|)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

func refRegIncBeta(a, b, x float64) float64 {
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
		return 1 - refRegIncBeta(b, a, 1-x)
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

// TestTMatchesReference: the gonum t quantiles and CDFs agree with the former implementation to
// 1e-10 (relative to the quantile's size beyond 1) at the claims' p (0.975 for intervals, 0.8 for
// power) and a spread of others, for every integer df 1…200 and real-valued (Welch) df.
func TestTMatchesReference(t *testing.T) {
	ps := []float64{0.975, 0.8, 0.025, 0.2, 0.5001, 0.51, 0.6, 0.7, 0.9, 0.95, 0.99, 0.995, 0.999}
	var dfs []float64
	for df := 1; df <= 200; df++ {
		dfs = append(dfs, float64(df))
	}
	for df := 1.0; df < 40; df += 0.37 { // Welch's df lie between min(n)−1 and n_a+n_b−2
		dfs = append(dfs, df)
	}
	dfs = append(dfs, 1.0001, 5.5208, 9.87, 57.3, 123.456, 199.99)
	worst := 0.0
	for _, df := range dfs {
		for _, p := range ps {
			got, want := TQuantileF(p, df), refTQuantileF(p, df)
			d := math.Abs(got-want) / math.Max(1, math.Abs(want))
			worst = math.Max(worst, d)
			if !(d <= 1e-10) {
				t.Errorf("t quantile p=%v df=%v: %.15g, reference %.15g", p, df, got, want)
			}
		}
		for _, x := range []float64{-30, -4, -2, -1, -0.3, 0, 0.01, 0.5, 1, 1.96, 2.5, 5, 12.7, 100} {
			got, want := TCDFF(x, df), refTCDFF(x, df)
			if !(math.Abs(got-want) <= 1e-10) {
				t.Errorf("t CDF t=%v df=%v: %.15g, reference %.15g", x, df, got, want)
			}
		}
	}
	t.Logf("largest relative difference of the quantiles: %.2g", worst)
	for _, c := range [][2]float64{{0, 4}, {1, 4}, {0.5, 0.5}, {0.975, 0.9}, {math.NaN(), 3}} {
		if !math.IsNaN(TQuantileF(c[0], c[1])) {
			t.Errorf("TQuantileF(%v, %v) = %v, want NaN", c[0], c[1], TQuantileF(c[0], c[1]))
		}
	}
	if TQuantileF(0.5, 3) != 0 {
		t.Error("median not 0")
	}
}

func TestMeans(t *testing.T) {
	xs := []float64{0.1, 0.7, 0.2, 1e-3, 3}
	m, sd := MeanStd(xs)
	s := Summarize(xs)
	if m != s.Mean || sd != s.Std {
		t.Fatalf("MeanStd %v %v, Summarize %v %v", m, sd, s.Mean, s.Std)
	}
	mp, sp := MeanStdPop(xs)
	if mp != m || !near(sp, sd*math.Sqrt(4.0/5), 1e-15) {
		t.Fatalf("population: %v %v", mp, sp)
	}
	if !near(MeanTermwise(xs), m, 1e-15) || MeanTermwise(nil) != 0 {
		t.Fatalf("termwise %v", MeanTermwise(xs))
	}
	if _, sd := MeanStd([]float64{2}); !math.IsNaN(sd) {
		t.Error("one value: a sample deviation")
	}
	if m, sd := MeanStdPop([]float64{2}); m != 2 || sd != 0 {
		t.Errorf("one value: population %v %v", m, sd)
	}
	if !math.IsNaN(Mean(nil)) {
		t.Error("mean of nothing")
	}
}

// Slope fits a line exactly and refuses xs that do not vary.
func TestSlope(t *testing.T) {
	if b, ok := Slope([]float64{1, 2, 4}, []float64{3, 5, 9}); !ok || b != 2 {
		t.Errorf("y = 2x + 1: slope %v (%v)", b, ok)
	}
	if _, ok := Slope([]float64{2, 2}, []float64{1, 3}); ok {
		t.Error("constant xs gave a slope")
	}
}

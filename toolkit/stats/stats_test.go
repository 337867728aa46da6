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

package exp

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummarizeAndWrite(t *testing.T) {
	r := &Result{Experiment: "x", Scale: Smoke, Timing: map[string]float64{}}
	r.Runs = []Run{
		{Method: "a", Seed: 1, Final: map[string]float64{"m": 1}},
		{Method: "a", Seed: 2, Final: map[string]float64{"m": 3}},
		{Method: "b", Seed: 1, Final: map[string]float64{"m": 5}},
	}
	r.Summarize()
	// Sample std of {1, 3} is √2 (the population one would be 1); se = 1; t(0.975, 1) = 12.706.
	if s := r.Summary["a"]["m"]; s.Mean != 2 || math.Abs(s.Std-math.Sqrt2) > 1e-12 || s.N != 2 ||
		math.Abs(s.SE-1) > 1e-12 || math.Abs(s.CI95[1]-(2+12.7062)) > 1e-3 {
		t.Fatalf("summary a/m = %+v", s)
	}
	if s := r.Summary["b"]["m"]; s.Mean != 5 || !math.IsNaN(s.Std) || s.N != 1 {
		t.Fatalf("summary b/m = %+v (one seed has no spread)", s)
	}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Load(dir)
	if err != nil || back.Summary["a"]["m"].Mean != 2 || back.Summary["a"]["m"].CI95 != r.Summary["a"]["m"].CI95 ||
		!math.IsNaN(back.Summary["b"]["m"].Std) {
		t.Fatalf("Load: %v %+v", err, back)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, MetricsFile)); !bytes.Contains(b, []byte(`"se"`)) || !bytes.Contains(b, []byte(`"ci95"`)) {
		t.Fatalf("metrics.json lacks se/ci95:\n%s", b)
	}
	r.Runs[1].Final["m"] = math.NaN()
	err = r.Write(dir)
	if err == nil || !strings.Contains(err.Error(), "method a seed 2: metric m is NaN") {
		t.Fatalf("writing a NaN metric: err = %v", err)
	}
}

func TestScale(t *testing.T) {
	if _, err := ParseScale("huge"); err == nil {
		t.Fatal("unknown scale accepted")
	}
	t.Setenv(EnvScale, "smoke")
	if s, _ := ScaleFromEnv(); s != Smoke {
		t.Fatalf("scale %q", s)
	}
}

func TestRegistryAndRunOrLoad(t *testing.T) {
	calls := 0
	cfg := map[string]int{"k": 1}
	Register(Experiment{
		Name: "testexp", Seeds: map[Scale]int{Smoke: 2},
		Config: func(Scale) any { return cfg },
		Run: func(opt Options) (*Result, error) {
			calls++
			r, err := NewResult("testexp", opt, SeedList(opt.Seeds), cfg)
			if err != nil {
				return nil, err
			}
			for _, s := range r.Seeds {
				r.Runs = append(r.Runs, Run{Method: "m", Seed: s, Final: map[string]float64{"v": float64(s)}})
			}
			return r, nil
		},
		Figures: func(*Result, string) ([]string, error) { return nil, nil },
	})
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "testexp") {
		t.Fatalf("Lookup of an unknown name: %v", err)
	}
	dir := t.TempDir()
	var log bytes.Buffer
	opt := Options{Scale: Smoke, Out: dir, Log: &log}
	if _, err := RunOrLoad("testexp", opt); err != nil {
		t.Fatal(err)
	}
	if _, err := RunOrLoad("testexp", opt); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("the second RunOrLoad ran again (%d runs); want a reload", calls)
	}
	cfg["k"] = 2 // a changed configuration invalidates the stored result
	res, err := RunOrLoad("testexp", opt)
	if err != nil || calls != 2 {
		t.Fatalf("after a config change: calls=%d err=%v", calls, err)
	}
	if res.Summary["m"]["v"].Mean != 1.5 {
		t.Fatalf("summary %+v", res.Summary)
	}
	if _, err := os.Stat(filepath.Join(dir, MetricsFile)); err != nil {
		t.Fatal(err)
	}
}

package exptest

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// canonical is a result's runs keyed by (seed, method) as JSON, its summary and its claims as JSON.
func canonical(t *testing.T, e exp.Experiment, r *exp.Result) (runs map[string]string, summary, claims string) {
	t.Helper()
	runs = map[string]string{}
	for _, run := range r.Runs {
		run.Seconds = 0 // wall time differs between processes, and so do the wall-time curves
		curves := map[string]exp.Curve{}
		for k, c := range run.Curves {
			if base := k[strings.LastIndex(k, "/")+1:]; base != "SPS" && base != "seconds" {
				curves[k] = c
			}
		}
		run.Curves = curves
		b, err := json.Marshal(run)
		if err != nil {
			t.Fatal(err)
		}
		runs[fmt.Sprintf("%s/%d", run.Method, run.Seed)] = string(b)
	}
	s, _ := json.Marshal(r.Summary)
	if e.Claims != nil {
		c, _ := json.Marshal(e.Claims(r))
		claims = string(c)
	}
	return runs, string(s), claims
}

// SameResult fails t unless got has want's runs (every final metric and curve, bit for bit, but
// wall time: Seconds and the SPS/seconds curves), summary and claims — e.g. a merged sweep against a
// one-process run of the same seeds on the same engine and machine.
func SameResult(t *testing.T, e exp.Experiment, want, got *exp.Result) {
	t.Helper()
	r1, s1, c1 := canonical(t, e, want)
	r2, s2, c2 := canonical(t, e, got)
	if len(r1) != len(r2) {
		t.Fatalf("%s: %d runs, want %d", e.Name, len(r2), len(r1))
	}
	for k, v := range r1 {
		if r2[k] != v {
			var a, b exp.Run
			_ = json.Unmarshal([]byte(v), &a)
			_ = json.Unmarshal([]byte(r2[k]), &b)
			what := "missing"
			for m, x := range a.Final {
				if b.Final[m] != x {
					what = fmt.Sprintf("final %s: %v vs %v", m, x, b.Final[m])
				}
			}
			for m, c := range a.Curves {
				if !slices.Equal(c.Y, b.Curves[m].Y) {
					what = fmt.Sprintf("curve %s", m)
				}
			}
			t.Fatalf("%s: run %s differs (%s)", e.Name, k, what)
		}
	}
	if s1 != s2 || c1 != c2 {
		t.Fatalf("%s: summary or claims differ:\n%s\n%s", e.Name, s1, s2)
	}
}

// CheckMerge runs experiment name at smoke scale as two shards (seed 1, seed 2) and as one process
// (seeds 1–2) and checks that the merged shards equal the one-process run: every run, the summary
// and the claims, bit for bit; a seed in two shards or a changed configuration is an error naming
// the shards.
func CheckMerge(t *testing.T, name string) {
	t.Helper()
	e, err := exp.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(name string, seeds ...uint64) string {
		out := filepath.Join(dir, name)
		if _, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, SeedSet: seeds, Out: out, Log: io.Discard}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	whole := run("whole", 1, 2)
	a, b := run("shard-1", 1), run("shard-2", 2)
	merged, err := exp.MergeDirs([]string{b, a}, filepath.Join(dir, "merged"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	one, err := exp.Load(whole)
	if err != nil {
		t.Fatal(err)
	}
	back, err := exp.Load(filepath.Join(dir, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Seeds, []uint64{1, 2}) || len(back.Figures) == 0 || len(back.Runs) != len(one.Runs) {
		t.Fatalf("merged seeds %v, %d figures, %d runs (one process %d)", back.Seeds, len(back.Figures), len(back.Runs), len(one.Runs))
	}
	SameResult(t, e, one, back)
	if merged.Timing["total"] <= 0 {
		t.Fatal("timings not summed")
	}
	// Errors name the shards.
	if _, err := exp.MergeDirs([]string{a, whole}, filepath.Join(dir, "bad"), io.Discard); err == nil || !strings.Contains(err.Error(), "seed 1") || !strings.Contains(err.Error(), "shard-1") {
		t.Fatalf("duplicate seed: %v", err)
	}
	ra, _ := exp.Load(a)
	rb, _ := exp.Load(b)
	rb.Config = json.RawMessage(`{"changed":true}`)
	if _, err := exp.Merge([]*exp.Result{ra, rb}, []string{"A", "B"}); err == nil || !strings.Contains(err.Error(), "configurations") {
		t.Fatalf("changed configuration: %v", err)
	}
	// Shards recorded at different commits merge only when both are declared the same code.
	rb, _ = exp.Load(b)
	ra.Commit, rb.Commit = "aaaa", "bbbb"
	if _, err := exp.Merge([]*exp.Result{ra, rb}, []string{"A", "B"}); err == nil || !strings.Contains(err.Error(), "commit") {
		t.Fatalf("different commits: %v", err)
	}
	if _, err := exp.MergeWith([]*exp.Result{ra, rb}, []string{"A", "B"}, exp.MergeOptions{Commits: []string{"bbbb"}}); err == nil {
		t.Fatal("a commit not declared merged")
	}
	if m, err := exp.MergeWith([]*exp.Result{ra, rb}, []string{"A", "B"}, exp.MergeOptions{Commits: []string{"aaaa", "bbbb"}}); err != nil || m.Commit != "aaaa" {
		t.Fatalf("declared commits: %v", err)
	}
	for _, bad := range []string{"-1", "3-2", "0-2", "1,1", "x"} {
		if _, _, err := exp.ParseSeeds(bad); err == nil {
			t.Errorf("-seeds %q accepted", bad)
		}
	}
	if n, set, err := exp.ParseSeeds("3-5"); err != nil || n != 3 || !slices.Equal(set, []uint64{3, 4, 5}) {
		t.Fatalf("3-5: %d %v %v", n, set, err)
	}
}

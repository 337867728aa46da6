package cos

import (
	"fmt"
	"io"
	"math"
	"slices"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/prm"
)

// tagAUCs on a hand-computed batch of three traces (steps, then the answer tag). The answer scores
// alone misrank trace 2's wrong answer above trace 1's right one; the trace score 0.2·mean(steps) +
// 0.8·answer (0.73, 0.68, 0.35) ranks them right.
func TestTagAUCs(t *testing.T) {
	scores := [][]float64{{0.9, 0.8, 0.7}, {0.2, 0.8}, {0.7, 0.4, 0.3}}
	gold := [][]bool{{true, true, true}, {false, false}, {true, false, false}}
	self := [][]float64{{-1, -1, -2}, {-3, -4}, {-3.5, -2.5, -1.5}}
	got, err := tagAUCs(scores, gold, self, 0.2, "mean")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"step_auc":        1,       // right steps 0.9, 0.8, 0.7 above wrong 0.2, 0.4
		"self_step_auc":   4.0 / 6, // right −1, −1, −3.5 against wrong −3, −2.5: 4 of 6 pairs
		"answer_auc":      0.5,     // right 0.7 against wrong 0.8 and 0.3
		"trace_auc":       1,
		"self_trace_auc":  0.5,     // right −2 against wrong −4 and −1.5
		"step_accuracy":   1,       // every step score on the right side of ½
		"answer_accuracy": 2.0 / 3, // 0.8 for a wrong answer is not
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("measures %v, want exactly %v", got, want)
	}
	// One class only: no step AUC; without the policy's scores, no self measures.
	got, err = tagAUCs([][]float64{{0.9, 0.7}, {0.8, 0.2}}, [][]bool{{true, true}, {true, false}}, nil, 0.2, "mean")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["step_auc"]; ok || got["answer_auc"] != 1 || got["step_accuracy"] != 1 || len(got) != 4 {
		t.Errorf("one-class steps, no self scores: %v, want answer_auc, trace_auc and the two accuracies only", got)
	}
	if _, err := tagAUCs([][]float64{{0.9}}, [][]bool{{true, true}}, nil, 0.2, "mean"); err == nil {
		t.Error("a trace with fewer scores than tags was accepted")
	}
}

// heldOutSplit holds out the rounded share of the distinct prompts outside exclude, every trace of
// a held-out prompt with it, half the prompts (rounded down) to select by and the rest to check with,
// as a function of the seed.
func TestHeldOutSplit(t *testing.T) {
	keys := make([]string, 0, 130)
	for i := range 100 {
		keys = append(keys, fmt.Sprint("p", i))
	}
	for i := range 30 { // prompts 0–29 twice
		keys = append(keys, fmt.Sprint("p", i))
	}
	exclude := map[string]bool{"p0": true, "p1": true, "p2": true, "p3": true, "p4": true, "p5": true, "p6": true, "p7": true, "p8": true, "p9": true}
	a := heldOutSplit(1, keys, 0.1, exclude)
	roleOf := map[string]int{}
	prompts := [3]map[string]bool{{}, {}, {}}
	for i, k := range keys {
		if r, ok := roleOf[k]; ok && r != a[i] {
			t.Fatalf("prompt %s has traces in roles %d and %d", k, r, a[i])
		}
		roleOf[k] = a[i]
		prompts[a[i]][k] = true
		if exclude[k] && a[i] != trainTrace {
			t.Fatalf("excluded prompt %s held out", k)
		}
	}
	// 90 distinct prompts outside exclude: 9 held out, 4 to select by, 5 to check with.
	if len(prompts[selectTrace]) != 4 || len(prompts[checkTrace]) != 5 {
		t.Fatalf("held out %d select and %d check prompts, want 4 and 5", len(prompts[selectTrace]), len(prompts[checkTrace]))
	}
	b, c := heldOutSplit(1, keys, 0.1, exclude), heldOutSplit(2, keys, 0.1, exclude)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatal("the split is not a function of the seed alone")
	}
	for _, r := range heldOutSplit(1, keys, 0, nil) {
		if r != trainTrace {
			t.Fatal("share 0 held a trace out")
		}
	}
}

// WithinAUC counts only pairs of the same group: here group 0 orders its one pair right, group 1
// ties its pair and misorders the other; a cross-group pair (trace 0 against trace 4) is not read.
func TestWithinAUC(t *testing.T) {
	scores := []float64{0.9, 0.1, 0.5, 0.5, 0.8, 0.2}
	right := []bool{true, false, true, false, false, true}
	group := []int{0, 0, 1, 1, 1, 1}
	// Group 1: right 2 (0.5) vs wrong 3 (0.5): tie ½; vs wrong 4 (0.8): 0; right 5 (0.2) vs 3: 0,
	// vs 4: 0. Group 0: 1. In all 1.5 of 5.
	if a, ok := WithinAUC(scores, right, group); !ok || math.Abs(a-1.5/5) > 1e-12 {
		t.Fatalf("WithinAUC = %v, %v; want 0.3", a, ok)
	}
	if _, ok := WithinAUC([]float64{1, 0}, []bool{true, false}, []int{0, 1}); ok {
		t.Fatal("no within-group pair, yet a value")
	}
}

// A PRM is trained again when its best selection-half step AUC does not beat the policy's own there
// (ties included) or was never measured; with no policy score to compare (NaN) it is not.
func TestRestartNeeded(t *testing.T) {
	for _, c := range []struct {
		sel, self float64
		want      bool
	}{{0.76, 0.86, true}, {0.86, 0.86, true}, {0.94, 0.86, false}, {math.NaN(), 0.86, true}, {0.5, math.NaN(), false}} {
		if got := restartNeeded(c.sel, c.self); got != c.want {
			t.Errorf("restartNeeded(%v, %v) = %v, want %v", c.sel, c.self, got, c.want)
		}
	}
}

// With every attempt judged stalled, the main PRM and the narrow width restart PRMRestarts times
// from fresh trunks, record every attempt's selection AUC and keep the best attempt's.
func TestRestartsForced(t *testing.T) {
	restartRule = func(float64, float64) bool { return true }
	defer func() { restartRule = restartNeeded }()
	cfg := ConfigFor(exp.Smoke)
	res, err := Run(exp.Options{Scale: exp.Smoke, Seeds: 1, Out: t.TempDir(), Log: io.Discard, Save: exp.SaveNone, Part: PartPRMSize, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"prm-d32", "prm-d64"} { // prm-d64 is the main PRM
		r := res.RunsOf(m)[0]
		if r.Final["restarts"] != float64(cfg.PRMRestarts) {
			t.Fatalf("%s: %v restarts, want %d", m, r.Final["restarts"], cfg.PRMRestarts)
		}
		var aucs []float64
		for k := 0; k <= cfg.PRMRestarts; k++ {
			if a, ok := r.Final[fmt.Sprintf("attempt%d_select_step_auc", k)]; ok {
				aucs = append(aucs, a)
			}
		}
		if len(aucs) > 0 && r.Final["select_step_auc"] != slices.Max(aucs) {
			t.Fatalf("%s keeps selection AUC %v of attempts %v", m, r.Final["select_step_auc"], aucs)
		}
	}
}

// at_cap: cut off by the step cap with the best evaluation inside the patience window; stopped by
// patience exactly at the cap, stopped early, or never validated is not.
func TestAtCap(t *testing.T) {
	tc := prm.TrainConfig{Steps: 8000, EvalEvery: 100, Patience: 10}
	for _, c := range []struct {
		ran, best int
		want      bool
	}{{8000, 7000, false}, {8000, 7100, true}, {8000, 8000, true}, {5200, 4200, false}} {
		if got := atCap(tc, c.ran, c.best); got != c.want {
			t.Errorf("ran %d, best %d: at cap %v, want %v", c.ran, c.best, got, c.want)
		}
	}
	if atCap(prm.TrainConfig{Steps: 800}, 800, 800) {
		t.Error("a training without validation is at the cap")
	}
}

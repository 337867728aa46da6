package cos

import (
	"math"
	"testing"
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

// heldOutSplit holds the rounded share out, half (rounded down) to select by and the rest to check
// with, as a function of the seed.
func TestHeldOutSplit(t *testing.T) {
	count := func(role []int) [3]int {
		var c [3]int
		for _, r := range role {
			c[r]++
		}
		return c
	}
	a := heldOutSplit(1, 101, 0.1)
	if c := count(a); c != [3]int{91, 5, 5} {
		t.Fatalf("roles %v, want 91 train, 5 select, 5 check", c)
	}
	if c := count(heldOutSplit(1, 30, 0.3)); c != [3]int{21, 4, 5} {
		t.Fatalf("roles %v, want 21 train, 4 select, 5 check", c)
	}
	b, c := heldOutSplit(1, 101, 0.1), heldOutSplit(2, 101, 0.1)
	same, other := true, true
	for i := range a {
		same = same && a[i] == b[i]
		other = other && a[i] == c[i]
	}
	if !same || other {
		t.Fatalf("same seed identical: %v; another seed identical: %v", same, other)
	}
	if c := count(heldOutSplit(1, 10, 0)); c != [3]int{10, 0, 0} {
		t.Fatalf("share 0: roles %v", c)
	}
}

package cos

import (
	"slices"
	"testing"
)

// scripted is one question's candidate traces, written so that every rule picks a different answer
// (gold "0"): "1" is the most frequent answer (3 traces, scores summing to 0.5), "2" holds the best
// single score (0.9), "3" the largest score sum (1.1), only one trace reaches "0" (score 0.05), and a
// trace without an answer holds the highest score of all (0.95) and must be ignored by every rule.
var scripted = []trace{
	{answer: "1", score: 0.2},
	{answer: "", score: 0.95},
	{answer: "3", score: 0.6},
	{answer: "1", score: 0.2},
	{answer: "2", score: 0.9},
	{answer: "0", correct: true, score: 0.05},
	{answer: "3", score: 0.5},
	{answer: "1", score: 0.1},
}

// TestSearchRules checks every rule of searchRules on the scripted traces, on a set without answers,
// and on ties.
func TestSearchRules(t *testing.T) {
	want := map[string]string{
		"majority":      "1", // 3 votes against 2, 1 and 1
		"bon":           "2", // the best score with an answer
		"weighted":      "3", // 0.6 + 0.5 against 0.2 + 0.2 + 0.1 and 0.9
		"beam":          "3", // a PRM-weighted vote among the finished beams
		"beam-best":     "2", // the best-scored finished beam
		"step-search":   "3",
		"bon-selfconf":  "2", // best-of-N under the ablation's scores
		"bon-self":      "2", // best-of-N under the policy's self-confidence
		"weighted-self": "3",
		"pass":          "0", // the oracle: some trace reaches the gold answer
	}
	if !slices.Equal(SearchMethods, searchNames(searchRules)) || len(SearchMethods) != len(want) {
		t.Fatalf("SearchMethods %v, want the %d names of searchRules", SearchMethods, len(want))
	}
	unanswered := []trace{{score: 0.9}, {score: 0.1}}
	// Ties: "5" and "6" both have 2 votes, the same best score and the same score sum; "5" comes first.
	ties := []trace{{answer: "5", score: 0.5}, {answer: "6", score: 0.25}, {answer: "6", score: 0.5}, {answer: "5", score: 0.25}}
	for _, r := range searchRules {
		w, ok := want[r.name]
		if !ok {
			t.Fatalf("rule %q has no expected pick", r.name)
		}
		if got := r.pick(scripted); got != w {
			t.Errorf("%s picks %q, want %q", r.name, got, w)
		}
		if got := r.pick(unanswered); got != "" {
			t.Errorf("%s picks %q among traces without an answer", r.name, got)
		}
		if got := r.pick(nil); got != "" {
			t.Errorf("%s picks %q among no traces", r.name, got)
		}
		if r.name != "pass" {
			if got := r.pick(ties); got != "5" {
				t.Errorf("%s breaks a tie to %q, want the first answer 5", r.name, got)
			}
		}
	}
}

// TestFirstNHitRate checks the grouping of sampled traces by question (sample r of question q at
// r·n + q) and the hit rate of a rule over questions.
func TestFirstNHitRate(t *testing.T) {
	// Two questions, three rounds of samples: round r holds question 0's then question 1's sample.
	ts := []trace{
		{answer: "1", score: 0.1}, {answer: "2", score: 0.3}, // round 0
		{answer: "3", score: 0.8}, {answer: "2", score: 0.1}, // round 1
		{answer: "3", score: 0.2}, {answer: "0", score: 0.5}, // round 2
	}
	qs := firstN(ts, 2, 2)
	if len(qs) != 2 || !slices.Equal(qs[0], []trace{ts[0], ts[2]}) || !slices.Equal(qs[1], []trace{ts[1], ts[3]}) {
		t.Fatalf("firstN(ts, 2, 2) = %v", qs)
	}
	gold := []string{"3", "2"}
	for _, c := range []struct {
		N    int
		pick func([]trace) string
		want float64
	}{
		{1, bestPick, 0.5},     // "1" misses, "2" hits
		{2, bestPick, 1},       // "3" (0.8) and "2" (0.3)
		{3, majorityPick, 1},   // "3" twice; "2" twice
		{3, weightedPick, 0.5}, // "3" (1.0) hits; "0" (0.5) beats "2" (0.3 + 0.1) and misses
		{3, bestPick, 0.5},     // "3" (0.8) hits; "0" (0.5) misses
		{3, passPick, 0},       // no trace is marked correct
	} {
		if got := hitRate(firstN(ts, 2, c.N), gold, c.pick); got != c.want {
			t.Errorf("hit rate at N = %d: %v, want %v", c.N, got, c.want)
		}
	}
	// An empty pick misses even when the gold answer is empty.
	if got := hitRate([][]trace{{{score: 1}}}, []string{""}, bestPick); got != 0 {
		t.Errorf("an empty pick hit: %v", got)
	}
}

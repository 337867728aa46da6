package calib

import (
	"errors"
	"fmt"
	"math"
)

// Sample is one sampled answer to a question, for voting.
type Sample struct {
	Answer string  // the final answer extracted from the sample
	Path   string  // the whole sampled text; used to count a repeated path once (PC voting)
	LPM    float64 // mean token log-probability of the sample (−log perplexity)
}

// MajorityVote returns the most frequent answer. A tie goes to the tied answer sampled first, which,
// since samples come in random order, is a random tie-break that is deterministic for a given list.
func MajorityVote(samples []Sample) (string, error) {
	if len(samples) == 0 {
		return "", errors.New("calib: MajorityVote of no samples")
	}
	count := map[string]int{}
	first := map[string]int{}
	for i, s := range samples {
		if _, ok := first[s.Answer]; !ok {
			first[s.Answer] = i
		}
		count[s.Answer]++
	}
	best := samples[0].Answer
	for a, c := range count {
		if c > count[best] || (c == count[best] && first[a] < first[best]) {
			best = a
		}
	}
	return best, nil
}

// PerplexityConsistencyVote scores each distinct answer ŷ by Σ exp(lpm) over its samples and returns
// the best, following the perplexity-consistency (PC) rule of the RPC paper as CAPO uses it: exp(lpm)
// = 1/PPL is the path weight, so long chains do not underflow. With dedupPaths, a path sampled more
// than once counts once ("unique sampled paths" in the paper; [UNVERIFIED] which CAPO's evaluation
// used). Ties go to the answer sampled first.
func PerplexityConsistencyVote(samples []Sample, dedupPaths bool) (string, error) {
	if len(samples) == 0 {
		return "", errors.New("calib: PerplexityConsistencyVote of no samples")
	}
	score := map[string]float64{}
	first := map[string]int{}
	seen := map[string]bool{}
	for i, s := range samples {
		if math.IsNaN(s.LPM) || math.IsInf(s.LPM, 0) || s.LPM > 1e-9 {
			return "", fmt.Errorf("calib: sample %d has mean log-prob %v (must be finite and ≤ 0)", i, s.LPM)
		}
		if _, ok := first[s.Answer]; !ok {
			first[s.Answer] = i
		}
		if dedupPaths {
			if seen[s.Path] {
				continue
			}
			seen[s.Path] = true
		}
		score[s.Answer] += math.Exp(s.LPM)
	}
	best := samples[0].Answer
	for a, sc := range score {
		if sc > score[best] || (sc == score[best] && first[a] < first[best]) {
			best = a
		}
	}
	return best, nil
}

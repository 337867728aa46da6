package calib

import (
	"errors"
	"fmt"
	"math"
)

// Sample is one sampled answer to a question, for voting.
type Sample struct {
	Answer string // the final answer extracted from the sample
	Path   string // the whole sampled text; a repeated path counts once (RPC voting)
	// LogProb is the sample's sequence log-probability Σ log p (RPC's path weight is its exp).
	LogProb float64
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

// RPCVote is the perplexity-consistency vote of RPC (Zhou et al., "Bridging internal probability
// and self-consistency", the voting CAPO evaluates with): each distinct sampled path counts once,
// weighted by its sequence probability exp(Σ log p), and an answer's score is the sum over its
// distinct paths — an estimate of the model's total probability of that answer. A path sampled
// again adds nothing (it is already counted with its full probability). Sequence probabilities of
// the short completions here cannot underflow. Ties go to the answer sampled first.
func RPCVote(samples []Sample) (string, error) {
	if len(samples) == 0 {
		return "", errors.New("calib: RPCVote of no samples")
	}
	score := map[string]float64{}
	first := map[string]int{}
	seen := map[string]bool{}
	for i, s := range samples {
		if math.IsNaN(s.LogProb) || math.IsInf(s.LogProb, 0) || s.LogProb > 1e-9 {
			return "", fmt.Errorf("calib: sample %d has sequence log-prob %v (must be finite and ≤ 0)", i, s.LogProb)
		}
		if _, ok := first[s.Answer]; !ok {
			first[s.Answer] = i
		}
		if seen[s.Path] {
			continue
		}
		seen[s.Path] = true
		score[s.Answer] += math.Exp(s.LogProb)
	}
	best := samples[0].Answer
	for a, sc := range score {
		if sc > score[best] || (sc == score[best] && first[a] < first[best]) {
			best = a
		}
	}
	return best, nil
}

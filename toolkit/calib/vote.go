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
// and self-consistency", the voting CAPO evaluates with): the answer with the largest RPCMass. Ties
// go to the answer sampled first.
func RPCVote(samples []Sample) (string, error) {
	mass, err := RPCMass(samples)
	if err != nil {
		return "", err
	}
	first := map[string]int{}
	for i, s := range samples {
		if _, ok := first[s.Answer]; !ok {
			first[s.Answer] = i
		}
	}
	best := samples[0].Answer
	for a, sc := range mass {
		if sc > mass[best] || (sc == mass[best] && first[a] < first[best]) {
			best = a
		}
	}
	return best, nil
}

// RPCMass is RPC's score of each sampled answer: each distinct sampled path counts once, weighted by
// its sequence probability exp(Σ log p), and an answer's mass is the sum over its distinct paths — an
// estimate (from below) of the model's total probability of that answer, so it lies in [0, 1] and
// serves as a confidence. A path sampled again adds nothing (it is already counted with its full
// probability). Sequence probabilities of the short completions here cannot underflow.
func RPCMass(samples []Sample) (map[string]float64, error) {
	if len(samples) == 0 {
		return nil, errors.New("calib: RPC vote of no samples")
	}
	mass := map[string]float64{}
	seen := map[string]bool{}
	for i, s := range samples {
		if math.IsNaN(s.LogProb) || math.IsInf(s.LogProb, 0) || s.LogProb > 1e-9 {
			return nil, fmt.Errorf("calib: sample %d has sequence log-prob %v (must be finite and ≤ 0)", i, s.LogProb)
		}
		if _, ok := mass[s.Answer]; !ok {
			mass[s.Answer] = 0
		}
		if seen[s.Path] {
			continue
		}
		seen[s.Path] = true
		mass[s.Answer] += math.Exp(s.LogProb)
	}
	return mass, nil
}

// VoteShare is the fraction of samples whose answer is a (the majority vote's confidence when a is
// the majority answer).
func VoteShare(samples []Sample, a string) float64 {
	if len(samples) == 0 {
		return 0
	}
	n := 0
	for _, s := range samples {
		if s.Answer == a {
			n++
		}
	}
	return float64(n) / float64(len(samples))
}

package prm

import (
	"errors"
	"slices"

	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// Majority returns the most frequent non-empty answer ("" when none parses; ties to the first).
func Majority(answers []string) string {
	var votes []calib.Sample
	for _, a := range answers {
		if a != "" {
			votes = append(votes, calib.Sample{Answer: a})
		}
	}
	if len(votes) == 0 {
		return ""
	}
	a, _ := calib.MajorityVote(votes)
	return a
}

// BestOfN returns the answer of the highest-scoring trace with an answer ("" when none parses; ties
// to the first).
func BestOfN(answers []string, scores []float64) string {
	best, bi := 0.0, -1
	for i, a := range answers {
		if a != "" && (bi < 0 || scores[i] > best) {
			best, bi = scores[i], i
		}
	}
	if bi < 0 {
		return ""
	}
	return answers[bi]
}

// WeightedVote returns the answer with the largest sum of trace scores (ties to the first seen).
func WeightedVote(answers []string, scores []float64) string {
	sum := map[string]float64{}
	var order []string
	for i, a := range answers {
		if a == "" {
			continue
		}
		if _, ok := sum[a]; !ok {
			order = append(order, a)
		}
		sum[a] += scores[i]
	}
	best := ""
	for _, a := range order {
		if best == "" || sum[a] > sum[best] {
			best = a
		}
	}
	return best
}

// BeamConfig configures step-level beam search.
type BeamConfig struct {
	// N candidate next steps are sampled per question at every step; the best by PRM score is kept
	// (a beam of width 1: the same number of sampled steps as best-of-N's N full traces).
	N int `json:"n"`
	// MaxSteps bounds the steps of a trace (the answer step included); MaxStepTokens the tokens of
	// one step (its tag included).
	MaxSteps      int     `json:"max_steps"`
	MaxStepTokens int     `json:"max_step_tokens"`
	Temperature   float64 `json:"temperature"`
	Seed          uint64  `json:"seed"`
}

// StepScorer scores the newest tag of each (prompt, prefix); Beam calls it on every candidate.
type StepScorer func(prompts, prefixes [][]int32) ([]float64, error)

// PRMScorer scores a candidate by the PRM's p(good) at its last tag.
func PRMScorer(p *PRM) StepScorer {
	return func(prompts, prefixes [][]int32) ([]float64, error) {
		s, err := p.Score(prompts, prefixes)
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(s))
		for i, v := range s {
			if len(v) > 0 {
				out[i] = v[len(v)-1]
			}
		}
		return out, nil
	}
}

// Beam runs step-level beam search for every prompt: from the current prefix the policy samples N
// candidates, each up to and including the next tag (lm.SampleConfig.Stop), the scorer judges each,
// and the best is appended; a question is done when the kept step contains the answer marker (the
// answer's step) or the policy ended with EOS, or after MaxSteps. It returns each question's
// completion and the number of tokens the policy generated in all.
func Beam(policy *lm.Model, tag, answerMarker int32, prompts [][]int32, score StepScorer, cfg BeamConfig) ([][]int32, int, error) {
	if cfg.N < 1 || cfg.MaxSteps < 1 || cfg.MaxStepTokens < 1 {
		return nil, 0, errors.New("prm: beam needs n, max_steps and max_step_tokens ≥ 1")
	}
	out := make([][]int32, len(prompts))
	done := make([]bool, len(prompts))
	tokens := 0
	for depth := 0; depth < cfg.MaxSteps; depth++ {
		var active []int
		var inputs [][]int32
		for i := range prompts {
			if done[i] {
				continue
			}
			active = append(active, i)
			in := append(slices.Clone(prompts[i]), out[i]...)
			for r := 0; r < cfg.N; r++ {
				inputs = append(inputs, in)
			}
		}
		if len(active) == 0 {
			break
		}
		gens, err := policy.Sample(inputs, lm.SampleConfig{MaxNew: cfg.MaxStepTokens, Temperature: cfg.Temperature,
			Seed: cfg.Seed*1_000_003 + uint64(depth), Stop: []int32{tag}})
		if err != nil {
			return nil, 0, err
		}
		var sp, sc [][]int32
		var si []int
		for n, g := range gens {
			tokens += len(g.Tokens)
			if g.Stopped { // a step that ends with its tag: the PRM can judge it
				i := active[n/cfg.N]
				sp = append(sp, prompts[i])
				sc = append(sc, append(slices.Clone(out[i]), g.Tokens...))
				si = append(si, n)
			}
		}
		scores := make([]float64, len(gens))
		for n := range scores {
			scores[n] = -1 // untagged candidates (EOS or cut off) lose to any judged step
		}
		if len(sp) > 0 {
			s, err := score(sp, sc)
			if err != nil {
				return nil, 0, err
			}
			for k, n := range si {
				scores[n] = s[k]
			}
		}
		for a, i := range active {
			best := a * cfg.N
			for n := a * cfg.N; n < (a+1)*cfg.N; n++ {
				if scores[n] > scores[best] {
					best = n
				}
			}
			g := gens[best]
			out[i] = append(out[i], g.Tokens...)
			if g.Finished || slices.Contains(g.Tokens, answerMarker) || !g.Stopped {
				done[i] = true
			}
		}
	}
	return out, tokens, nil
}

// SearchMethods are the inference-time search methods, in table order.
var SearchMethods = []string{"majority", "bon", "weighted", "beam"}

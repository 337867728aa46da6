package prm

import (
	"cmp"
	"errors"
	"fmt"
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

// Beam runs step-level beam search of width 1 for every prompt (WideBeam with M = N): from the
// current prefix the policy samples N candidates, each up to and including the next tag
// (lm.SampleConfig.Stop), the scorer judges each, and the best is appended; a question is done when
// the kept step contains the answer marker (the answer's step) or the policy ended with EOS, or
// after MaxSteps. It returns each question's completion and the number of tokens the policy
// generated in all.
func Beam(policy *lm.Model, tag, answerMarker int32, prompts [][]int32, score StepScorer, cfg BeamConfig) ([][]int32, int, error) {
	if cfg.N < 1 || cfg.MaxSteps < 1 || cfg.MaxStepTokens < 1 {
		return nil, 0, errors.New("prm: beam needs n, max_steps and max_step_tokens ≥ 1")
	}
	finished, tokens, err := WideBeam(policy, tag, answerMarker, prompts, score, WideBeamConfig{
		N: cfg.N, M: cfg.N, MaxSteps: cfg.MaxSteps, MaxStepTokens: cfg.MaxStepTokens, Temperature: cfg.Temperature, Seed: cfg.Seed})
	if err != nil {
		return nil, 0, err
	}
	out := make([][]int32, len(prompts))
	for i, f := range finished {
		out[i] = f[0].Completion // width 1: the one beam each question keeps
	}
	return out, tokens, nil
}

// WideBeamConfig configures width-k step-level beam search (search-and-learn's beam search for
// test-time compute): per question N candidate steps are sampled at every step, from N/M kept
// beams expanded M ways each; the N/M best-scored candidates survive. M = N is a beam of width 1
// (Beam's search); the first step expands the empty prefix N ways.
type WideBeamConfig struct {
	// N is the number of candidate steps sampled per question at every step (the budget, as
	// BeamConfig.N); M the expansions of each kept beam, so that N/M beams are kept (the width).
	N int `json:"n"`
	M int `json:"m"`
	// MaxSteps bounds the steps of a trace (the answer step included); MaxStepTokens the tokens of
	// one step (its tag included).
	MaxSteps      int     `json:"max_steps"`
	MaxStepTokens int     `json:"max_step_tokens"`
	Temperature   float64 `json:"temperature"`
	Seed          uint64  `json:"seed"`
	// Branches (optional) sees, at every step, each kept beam's scored expansions: question q, the
	// beam's completion so far (prefix) and the candidates (each prefix + one sampled step, with its
	// score; −1 for an untagged one), in sampling order — what step-wise DPO builds its pairs from.
	Branches func(q int, prefix []int32, steps []Candidate) `json:"-"`
}

// Width is the number of beams kept per question.
func (c WideBeamConfig) Width() int { return c.N / max(c.M, 1) }

// Validate names an invalid field.
func (c WideBeamConfig) Validate() error {
	if c.N < 1 || c.M < 1 || c.N%c.M != 0 || c.MaxSteps < 1 || c.MaxStepTokens < 1 {
		return fmt.Errorf("prm: wide beam n = %d, m = %d, max_steps = %d, max_step_tokens = %d: need n a multiple of m ≥ 1 and the rest ≥ 1",
			c.N, c.M, c.MaxSteps, c.MaxStepTokens)
	}
	return nil
}

// Candidate is a finished beam: its completion and the scorer's value of its last judged step
// (−1 when its last step carried no tag to judge).
type Candidate struct {
	Completion []int32
	Score      float64
}

// sampleFunc samples one step for every input (lm.Model.Sample with Stop = the step tag).
type sampleFunc func(inputs [][]int32, seed uint64) ([]lm.Generation, error)

// WideBeam runs width-k step-level beam search for every prompt. At every step each kept beam is
// expanded M ways (the empty prefix N ways at the first step), each candidate up to and including
// the next tag; the scorer judges the tagged candidates (untagged ones, cut off or ended by EOS,
// score −1); the N/M best candidates of the question survive (ties: sampling order). A surviving
// candidate that holds the answer marker, ended with EOS or carries no tag is finished; the others
// are the next step's beams. Beams still open after MaxSteps are finished as they are. It returns
// each question's finished beams, best first, and the number of tokens the policy generated; the
// caller picks the answer (the best, or a PRM-weighted vote among them: WeightedVote). With M = N
// it is Beam.
func WideBeam(policy *lm.Model, tag, answerMarker int32, prompts [][]int32, score StepScorer, cfg WideBeamConfig) ([][]Candidate, int, error) {
	return wideBeam(func(inputs [][]int32, seed uint64) ([]lm.Generation, error) {
		return policy.Sample(inputs, lm.SampleConfig{MaxNew: cfg.MaxStepTokens, Temperature: cfg.Temperature, Seed: seed, Stop: []int32{tag}})
	}, tag, answerMarker, prompts, score, cfg)
}

func wideBeam(sample sampleFunc, tag, answerMarker int32, prompts [][]int32, score StepScorer, cfg WideBeamConfig) ([][]Candidate, int, error) {
	if err := cfg.Validate(); err != nil {
		return nil, 0, err
	}
	width := cfg.Width()
	active := make([][]Candidate, len(prompts)) // open beams per question
	for i := range active {
		active[i] = []Candidate{{}}
	}
	finished := make([][]Candidate, len(prompts))
	tokens := 0
	for depth := 0; depth < cfg.MaxSteps; depth++ {
		type origin struct{ q, b int }
		var inputs [][]int32
		var from []origin
		for i, beams := range active {
			per := cfg.M
			if depth == 0 {
				per = cfg.N
			}
			for b, bm := range beams {
				in := append(slices.Clone(prompts[i]), bm.Completion...)
				for r := 0; r < per; r++ {
					inputs = append(inputs, in)
					from = append(from, origin{i, b})
				}
			}
		}
		if len(inputs) == 0 {
			break
		}
		gens, err := sample(inputs, cfg.Seed*1_000_003+uint64(depth))
		if err != nil {
			return nil, 0, err
		}
		cands := make([]Candidate, len(gens))
		var sp, sc [][]int32
		var si []int
		for n, g := range gens {
			tokens += len(g.Tokens)
			o := from[n]
			cands[n] = Candidate{Completion: append(slices.Clone(active[o.q][o.b].Completion), g.Tokens...), Score: -1}
			if g.Stopped {
				sp, sc, si = append(sp, prompts[o.q]), append(sc, cands[n].Completion), append(si, n)
			}
		}
		if len(sp) > 0 {
			s, err := score(sp, sc)
			if err != nil {
				return nil, 0, err
			}
			for k, n := range si {
				cands[n].Score = s[k]
			}
		}
		if cfg.Branches != nil {
			for i, beams := range active {
				for b, bm := range beams {
					var steps []Candidate
					for n, o := range from {
						if o.q == i && o.b == b {
							steps = append(steps, cands[n])
						}
					}
					cfg.Branches(i, bm.Completion, steps)
				}
			}
		}
		next := make([][]Candidate, len(prompts))
		for i := range prompts {
			var idx []int
			for n, o := range from {
				if o.q == i {
					idx = append(idx, n)
				}
			}
			slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(cands[b].Score, cands[a].Score) })
			for _, n := range idx[:min(width, len(idx))] {
				g := gens[n]
				if g.Finished || !g.Stopped || slices.Contains(g.Tokens, answerMarker) {
					finished[i] = append(finished[i], cands[n])
				} else {
					next[i] = append(next[i], cands[n])
				}
			}
		}
		active = next
	}
	for i := range finished {
		finished[i] = append(finished[i], active[i]...)
		slices.SortStableFunc(finished[i], func(a, b Candidate) int { return cmp.Compare(b.Score, a.Score) })
	}
	return finished, tokens, nil
}

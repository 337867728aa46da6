package cos

import (
	"fmt"
	"math"
	"slices"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/prm"
	"github.com/paperlab/paperlab/toolkit/track"
)

// trace is one candidate trace of a question as a selection rule sees it: its parsed answer ("" when
// it has none), whether that answer is the question's gold answer, and its selection score.
type trace struct {
	answer  string
	correct bool
	score   float64
}

// traceSource is where a search rule's candidate traces come from.
type traceSource int

const (
	// fromSamples: the first N of the maxN traces sampled per question, scored by the independent PRM.
	fromSamples traceSource = iota
	// fromSelfConf: the same traces scored by the prm-selfconf ablation (the rule is skipped without it).
	fromSelfConf
	// fromSelf: the same traces scored by the policy's own confidence, no PRM: exp of its lowest step
	// log-probability (0 for an incomplete trace), the control of every PRM-scored rule.
	fromSelf
	// fromBeam: the finished beams of the width-k beam search (N/BeamExpand beams expanded
	// BeamExpand ways; width 1 where N ≤ BeamExpand), scored by the PRM at their last tag.
	fromBeam
	// fromStepSearch: the finished beams of the width-1 step search (the best of N sampled steps kept).
	fromStepSearch
)

// searchRule is one inference-time search method: its run's name, where its candidates come from,
// and the pure rule that picks a question's answer among them ("" for none).
type searchRule struct {
	name   string
	source traceSource
	pick   func([]trace) string
}

// searchRules are the search methods in figure order: majority vote, PRM best-of-N, PRM-weighted
// vote, width-k beam and width-1 step search (each a PRM-weighted vote among its finished beams, as
// search-and-learn), the width-k beam's best-scored finished beam (the paper's pick), the prm-selfconf ablation's best-of-N, best-of-N and the weighted vote by the
// policy's self-confidence (the controls of the PRM's), and pass@N (any right answer: the oracle).
var searchRules = []searchRule{
	{"majority", fromSamples, majorityPick},
	{"bon", fromSamples, bestPick},
	{"weighted", fromSamples, weightedPick},
	{"beam", fromBeam, weightedPick},
	{"beam-best", fromBeam, bestPick},
	{"step-search", fromStepSearch, weightedPick},
	{"bon-selfconf", fromSelfConf, bestPick},
	{"bon-self", fromSelf, bestPick},
	{"weighted-self", fromSelf, weightedPick},
	{"pass", fromSamples, passPick},
}

// SearchMethods are the search runs' method names, in figure order (searchRules).
var SearchMethods = searchNames(searchRules)

func searchNames(rules []searchRule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.name
	}
	return out
}

// majorityPick is the most frequent answer (prm.Majority: ties to the first sampled; scores unread).
func majorityPick(ts []trace) string {
	as, _ := answersScores(ts)
	return prm.Majority(as)
}

// bestPick is the answer of the highest-scoring trace with an answer (prm.BestOfN: ties to the first).
func bestPick(ts []trace) string { return prm.BestOfN(answersScores(ts)) }

// weightedPick is the answer with the largest sum of scores (prm.WeightedVote: ties to the first seen).
func weightedPick(ts []trace) string { return prm.WeightedVote(answersScores(ts)) }

// passPick is the gold answer when any trace reaches it (pass@N, the oracle), else "".
func passPick(ts []trace) string {
	for _, t := range ts {
		if t.correct {
			return t.answer
		}
	}
	return ""
}

func answersScores(ts []trace) ([]string, []float64) {
	as, sc := make([]string, len(ts)), make([]float64, len(ts))
	for i, t := range ts {
		as[i], sc[i] = t.answer, t.score
	}
	return as, sc
}

// firstN groups sampled traces by question: question q's sample r is ts[r*n+q] (lmtask.Set.Repeat's
// order), and each question keeps its first N samples.
func firstN(ts []trace, n, N int) [][]trace {
	out := make([][]trace, n)
	for q := range out {
		out[q] = make([]trace, N)
		for r := range N {
			out[q][r] = ts[r*n+q]
		}
	}
	return out
}

// hitRate is the share of questions whose picked answer is their gold answer (an empty pick misses).
func hitRate(questions [][]trace, gold []string, pick func([]trace) string) float64 {
	var hits float64
	for q, ts := range questions {
		if a := pick(ts); a != "" && a == gold[q] {
			hits++
		}
	}
	return hits / float64(len(gold))
}

// sampledTraces are the sampled traces with their verdicts' answers, each scored by score(i).
func sampledTraces(vs []arith.TaggedVerdict, gold []string, score func(i int) float64) []trace {
	n := len(gold)
	ts := make([]trace, len(vs))
	for i, v := range vs {
		ts[i] = trace{answer: v.Answer, correct: v.Answer == gold[i%n], score: score(i)}
	}
	return ts
}

// prmScore is a sampled trace's PRM trace score from its tag scores (0 for an incomplete trace).
func prmScore(tagScores [][]float64, w float64, how string) func(int) float64 {
	return func(i int) float64 { v, _ := prm.TraceScore(tagScores[i], w, how); return v }
}

// search evaluates inference-time search with the SFT policy on the first SearchPrompts held-out
// prompts at every N, one run per rule of searchRules: the rules over samples all read the same maxN
// samples (the first N of them at each N), the step searches run afresh at each N. Beside them it
// measures best-of-16 against the step weight, the oracle best-of-16 that picks a trace whose steps
// and answer the verifier accepts, and best-of-16 by the policy's own lowest step log-probability.
func (s *setup) search() error {
	c := s.cfg
	set := &lmtask.Set{Tok: s.tok, Problems: s.eval.Problems[:c.SearchPrompts], Prompts: s.eval.Prompts[:c.SearchPrompts], Gold: s.eval.Gold[:c.SearchPrompts]}
	n := len(set.Problems)
	maxN := slices.Max(c.SearchN)
	gens, vs, err := s.traces(s.sft, set, maxN, s.seed+900)
	if err != nil {
		return err
	}
	tagScores, err := s.traceScores(s.prm, set.Repeat(maxN), gens)
	if err != nil {
		return err
	}
	var selfTagScores [][]float64
	if s.selfconf != nil {
		if selfTagScores, err = s.traceScores(s.selfconf, set.Repeat(maxN), gens); err != nil {
			return err
		}
	}
	gold := make([]string, n)
	for q, p := range set.Problems {
		gold[q] = p.FormatAnswer(p.Answer)
	}
	sampled := sampledTraces(vs, gold, prmScore(tagScores, c.StepWeight, c.Aggregation))
	var selfConfSampled []trace // the prm-selfconf ablation's scores (nil without it)
	if selfTagScores != nil {
		selfConfSampled = sampledTraces(vs, gold, prmScore(selfTagScores, c.StepWeight, c.Aggregation))
	}
	self, err := s.selfScores(set.Repeat(maxN), gens)
	if err != nil {
		return err
	}
	selfSampled := sampledTraces(vs, gold, func(i int) float64 { return math.Exp(self[i]) })
	runs := map[string]*exp.Run{}
	for _, m := range SearchMethods {
		runs[m] = &exp.Run{Method: m, Seed: s.seed, Final: map[string]float64{}, Curves: map[string]exp.Curve{}}
	}
	for _, N := range c.SearchN {
		tokens := sampledTokens(gens, n, N)
		type searched struct {
			questions [][]trace
			tokens    int
		}
		beams := map[traceSource]searched{} // one search per source and N, read by every rule on it
		for _, r := range searchRules {
			var questions [][]trace
			var tok int
			switch r.source {
			case fromSamples:
				questions, tok = firstN(sampled, n, N), tokens
			case fromSelfConf:
				if selfConfSampled == nil {
					continue
				}
				questions, tok = firstN(selfConfSampled, n, N), tokens
			case fromSelf:
				questions, tok = firstN(selfSampled, n, N), tokens
			case fromBeam, fromStepSearch:
				b, ok := beams[r.source]
				if !ok {
					m := N
					if r.source == fromBeam {
						m = min(c.BeamExpand, N)
					}
					if b.questions, b.tokens, err = s.stepSearch(set, gold, N, m); err != nil {
						return err
					}
					beams[r.source] = b
				}
				questions, tok = b.questions, b.tokens
			}
			addSearchPoint(runs[r.name], N, hitRate(questions, gold, r.pick), float64(tok)/float64(n))
		}
	}
	// Best-of-16 against the step weight, per aggregation; the oracle (a trace whose steps and answer
	// the verifier accepts); the policy's own lowest step log-probability (no PRM training).
	sweepN := min(16, maxN)
	bon16 := func(score func(int) float64) float64 {
		return hitRate(firstN(sampledTraces(vs, gold, score), n, sweepN), gold, bestPick)
	}
	wr := &exp.Run{Method: "step-weight", Seed: s.seed, Final: map[string]float64{}, Curves: map[string]exp.Curve{}}
	for _, how := range prm.Aggregations {
		var cv exp.Curve
		for _, w := range c.WeightSweep {
			acc := bon16(prmScore(tagScores, w, how))
			cv.X, cv.Y = append(cv.X, w), append(cv.Y, acc)
			if how == c.Aggregation {
				wr.Final[fmt.Sprintf("bon_w%g", w)] = acc
			}
		}
		wr.Curves["bon_vs_w/"+how] = cv
	}
	wr.Final["oracle_bon"] = bon16(func(i int) float64 { return float64(boolInt(vs[i].ChainCorrect)) })
	wr.Final["self_bon"] = bon16(func(i int) float64 { return self[i] })
	for _, m := range SearchMethods {
		if len(runs[m].Final) > 0 {
			s.res.Runs = append(s.res.Runs, *runs[m])
		}
	}
	s.res.Runs = append(s.res.Runs, *wr)
	at := fmt.Sprintf("acc_n%d", maxN)
	fmt.Fprintf(s.opt.Log, "seed %d search at N=%d: majority %.3f, best-of-N %.3f, weighted %.3f, beam %.3f, step search %.3f, pass %.3f; best-of-%d by step weight %v: %v, oracle %.3f, self %.3f\n",
		s.seed, maxN, runs["majority"].Final[at], runs["bon"].Final[at], runs["weighted"].Final[at], runs["beam"].Final[at], runs["step-search"].Final[at],
		runs["pass"].Final[at], sweepN, c.WeightSweep, roundAll(wr.Curves["bon_vs_w/"+c.Aggregation].Y), wr.Final["oracle_bon"], wr.Final["self_bon"])
	return nil
}

// sampledTokens is the number of tokens generated for the first N samples of every question.
func sampledTokens(gens []lm.Generation, n, N int) int {
	var tokens int
	for i := range N * n {
		tokens += len(gens[i].Tokens)
	}
	return tokens
}

// stepSearch runs the PRM-guided step search with N candidate steps per step, M expansions of each
// kept beam (N/M beams kept), and returns every question's finished beams as traces scored by the
// PRM at their last tag (clamped at 0: an untagged beam scores −1), with the tokens generated.
func (s *setup) stepSearch(set *lmtask.Set, gold []string, N, M int) ([][]trace, int, error) {
	c := s.cfg
	if N%M != 0 {
		return nil, 0, fmt.Errorf("N = %d is not a multiple of beam_expand %d", N, M)
	}
	outs, tokens, err := prm.WideBeam(s.sft, s.tag, s.marker, set.Prompts, prm.PRMScorer(s.prm), prm.WideBeamConfig{
		N: N, M: M, MaxSteps: c.Data.MaxSteps + 1, MaxStepTokens: 5, Temperature: 1, Seed: s.seed*10 + uint64(N)})
	if err != nil {
		return nil, 0, err
	}
	questions := make([][]trace, len(outs))
	for q, cands := range outs {
		questions[q] = make([]trace, len(cands))
		for k, cd := range cands {
			var a string
			if v := arith.VerifyTagged(set.Problems[q], s.tok.Decode(cd.Completion)); v.Parsed {
				a = v.Answer
			}
			questions[q][k] = trace{answer: a, correct: a == gold[q], score: max(cd.Score, 0)}
		}
	}
	return questions, tokens, nil
}

// addSearchPoint records a search run's accuracy and tokens per question at N.
func addSearchPoint(r *exp.Run, N int, acc, tokens float64) {
	r.Final[fmt.Sprintf("acc_n%d", N)] = acc
	r.Final[fmt.Sprintf("tokens_n%d", N)] = tokens
	track.Curves(r.Curves).Add("acc_vs_n", float64(N), acc)
	track.Curves(r.Curves).Add("tokens_vs_n", float64(N), tokens)
}

// roundAll rounds every value to 3 decimals (for the log).
func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1000) / 1000
	}
	return out
}

package capo

import (
	"math"

	"github.com/paperlab/paperlab/datasets/arith"
	"sort"

	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Coverage grid on which precision–coverage curves are stored, so seeds can be averaged.
var coverageGrid = func() []float64 {
	var g []float64
	for c := 0.05; c <= 1.0001; c += 0.05 {
		g = append(g, math.Round(c*100)/100)
	}
	return g
}()

// evalSpec says what an evaluation measures: K answers per held-out prompt sampled at temperature 1
// with Seed, reliability over Bins bins; Greedy adds greedy accuracy (temperature 0, one answer per
// prompt), Full also the curves (precision–coverage, reliability, accuracy against N for majority
// and RPC voting).
type evalSpec struct {
	K      int
	Seed   uint64
	Bins   int
	Greedy bool
	Full   bool
	// Hard, when set, marks the prompts the demonstrations' systematic errors hit (a shown
	// multiplication by a distractor operand): accuracy and greedy accuracy are also measured on
	// them ("accuracy_distracted", "greedy_accuracy_distracted").
	Hard func(arith.Problem) bool
}

// passK is the k of the room check's pass@k (SFT's chance that one of k samples is right where its
// greedy answer is wrong: GRPO's groups of G = 8 there hold a right answer).
const passK = 8

// evaluate samples K answers per held-out prompt at temperature 1 and measures accuracy (mean@K, the
// expected accuracy of one sample), AUC of lpm (per sampling round, averaged — "auc" — and pooled,
// and pooled within the solvable and the hidden-operand prompts: "auc_solvable", "auc_hidden"), ECE
// and Brier of exp(lpm), AURC and the precision of the 50 % most confident answers
// ("precision_at_50"), and the Monte-Carlo token entropy (mean −log p of sampled tokens). With
// spec.Greedy (or Full) it also measures greedy accuracy ("greedy_accuracy"); with spec.Full it
// returns the precision–coverage curve, reliability bins, and accuracy against N for majority and
// RPC voting ("majority_accuracy_n16", "rpc_accuracy_n16" at N = K).
func evaluate(m *lm.Model, set *lmtask.Set, spec evalSpec) (map[string]float64, map[string]exp.Curve, error) {
	k, seed, bins := spec.K, spec.Seed, spec.Bins
	n := len(set.Prompts)
	gens, err := m.Sample(set.Repeat(k), lm.SampleConfig{MaxNew: maxNew, Temperature: 1, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	correct := set.Correct(gens)
	lpm := make([]float64, len(gens))
	conf := make([]float64, len(gens))
	var nll float64
	tokens := 0
	for i, g := range gens {
		lpm[i], conf[i] = g.LPM, math.Exp(g.LPM)
		for _, lp := range g.LogProbs {
			nll -= float64(lp)
			tokens++
		}
	}
	final, curves, err := exp.CalibrationMetrics(conf, correct, bins)
	if err != nil {
		return nil, nil, err
	}
	final["entropy"] = nll / float64(tokens)
	// The two kinds of prompt: accuracy and AUC within solvable ones and within those with a hidden
	// operand, and the mean lpm of right and of wrong answers (how confident each kind is), and the
	// median |lpm gap| between a prompt's right and wrong samples ("lpm_gap_median", the scale τ
	// acts on).
	var solvLPM, hidLPM []float64
	var solvOK, hidOK []bool
	var lpR, lpW, nR, nW float64
	for i, g := range gens {
		if set.Problems[i%n].Underdetermined() {
			hidLPM, hidOK = append(hidLPM, g.LPM), append(hidOK, correct[i])
		} else {
			solvLPM, solvOK = append(solvLPM, g.LPM), append(solvOK, correct[i])
		}
		if correct[i] {
			lpR += g.LPM
			nR++
		} else {
			lpW += g.LPM
			nW++
		}
	}
	for _, sub := range []struct {
		name string
		lpm  []float64
		ok   []bool
	}{{"solvable", solvLPM, solvOK}, {"hidden", hidLPM, hidOK}} {
		if len(sub.ok) == 0 {
			continue
		}
		final["accuracy_"+sub.name], _ = calib.Accuracy(sub.ok)
		if a, err := calib.AUC(sub.lpm, sub.ok); err == nil { // undefined when all right or all wrong
			final["auc_"+sub.name] = a
		}
	}
	if nR > 0 {
		final["lpm_correct"] = lpR / nR
	}
	if nW > 0 {
		final["lpm_wrong"] = lpW / nW
	}
	if g, ok := lpmGapMedian(lpm, correct, n); ok {
		final["lpm_gap_median"] = g
	}
	if auc, ok := final["auc"]; ok {
		final["auc_pooled"] = auc
	}
	if a, ok := aucWithin(lpm, correct, n); ok {
		final["auc_within"] = a
	}
	if spec.Hard != nil {
		var ok []bool
		for i := range gens {
			if spec.Hard(set.Problems[i%n]) {
				ok = append(ok, correct[i])
			}
		}
		if len(ok) > 0 {
			final["accuracy_distracted"], _ = calib.Accuracy(ok)
		}
	}
	// AUC-mean: one AUC per sampling round (one answer per prompt), averaged over rounds.
	var aucs []float64
	for r := 0; r < k; r++ {
		if a, err := calib.AUC(lpm[r*n:(r+1)*n], correct[r*n:(r+1)*n]); err == nil {
			aucs = append(aucs, a)
		}
	}
	if len(aucs) > 0 {
		final["auc"] = stats.Summarize(aucs).Mean
	} else {
		delete(final, "auc")
	}
	cov, prec, err := calib.PrecisionCoverage(lpm, correct)
	if err != nil {
		return nil, nil, err
	}
	final["aurc"] = calib.AURCOf(cov, prec)
	if final["precision_at_50"], err = calib.PrecisionAt(cov, prec, 0.5); err != nil {
		return nil, nil, err
	}
	if spec.Greedy || spec.Full {
		greedy, err := m.Sample(set.Prompts, lm.SampleConfig{MaxNew: maxNew, Temperature: 0})
		if err != nil {
			return nil, nil, err
		}
		greedyOK := set.Correct(greedy)
		if final["greedy_accuracy"], err = calib.Accuracy(greedyOK); err != nil {
			return nil, nil, err
		}
		// Where the greedy answer is wrong: how often one of passK samples is right (the unbiased
		// pass@k estimate from the K samples, k = min(passK, K)), the room check's measure.
		var pass []float64
		var hardOK []bool
		for i := 0; i < n; i++ {
			if spec.Hard != nil && spec.Hard(set.Problems[i]) {
				hardOK = append(hardOK, greedyOK[i])
			}
			if greedyOK[i] {
				continue
			}
			c := 0
			for r := 0; r < k; r++ {
				if correct[r*n+i] {
					c++
				}
			}
			pass = append(pass, passAtK(k, c, min(passK, k)))
		}
		final["greedy_wrong_share"] = float64(len(pass)) / float64(n)
		if len(pass) > 0 {
			final["pass8_greedy_wrong"] = stats.Mean(pass)
		}
		if len(hardOK) > 0 {
			final["greedy_accuracy_distracted"], _ = calib.Accuracy(hardOK)
		}
	}
	if !spec.Full {
		return final, nil, nil
	}
	pc := exp.Curve{}
	for _, c := range coverageGrid {
		p, _ := calib.PrecisionAt(cov, prec, c)
		pc.X, pc.Y = append(pc.X, c), append(pc.Y, p)
	}
	curves["precision_coverage"] = pc
	// Voting with N = 1..k samples per prompt (one sampling round more per N; each generation is
	// judged and decoded once).
	maj, rpc := exp.Curve{}, exp.Curve{}
	votesOf := make([][]calib.Sample, n)
	for N := 1; N <= k; N++ {
		var hitM, hitR int
		for i := 0; i < n; i++ {
			g := gens[(N-1)*n+i]
			if a := set.Answer(i, g); a != "" {
				lp := 0.0
				for _, x := range g.LogProbs {
					lp += float64(x)
				}
				votesOf[i] = append(votesOf[i], calib.Sample{Answer: a, Path: set.Tok.Decode(g.Tokens), LogProb: lp})
			}
			votes := votesOf[i]
			if len(votes) == 0 {
				continue
			}
			gold := set.Problems[i].FormatAnswer(set.Problems[i].Answer)
			if a, _ := calib.MajorityVote(votes); a == gold {
				hitM++
			}
			if a, _ := calib.RPCVote(votes); a == gold {
				hitR++
			}
		}
		maj.X, maj.Y = append(maj.X, float64(N)), append(maj.Y, float64(hitM)/float64(n))
		rpc.X, rpc.Y = append(rpc.X, float64(N)), append(rpc.Y, float64(hitR)/float64(n))
	}
	curves["majority_vs_n"], curves["rpc_vs_n"] = maj, rpc
	final["majority_accuracy_n16"] = maj.Y[len(maj.Y)-1]
	final["rpc_accuracy_n16"] = rpc.Y[len(rpc.Y)-1]
	return final, curves, nil
}

// passAtK is the unbiased estimate of pass@k from n samples of which c are right (Chen et al.
// 2021): 1 − C(n−c, k)/C(n, k).
func passAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// aucWithin is the AUC of lpm within prompts: over every (right, wrong) pair of samples of the same
// prompt, the share where the right one has the higher lpm (ties ½) — the ranking CAPO's pairwise
// surrogate optimises, where the pooled AUC also compares answers across prompts. Sample r·n+i
// answers prompt i (set.Repeat order); ok is false when no prompt has both a right and a wrong
// sample.
func aucWithin(lpm []float64, correct []bool, n int) (float64, bool) {
	var wins, pairs float64
	for i := 0; i < n; i++ {
		for a := i; a < len(lpm); a += n {
			if !correct[a] {
				continue
			}
			for b := i; b < len(lpm); b += n {
				if correct[b] {
					continue
				}
				pairs++
				switch {
				case lpm[a] > lpm[b]:
					wins++
				case lpm[a] == lpm[b]:
					wins += 0.5
				}
			}
		}
	}
	if pairs == 0 {
		return 0, false
	}
	return wins / pairs, true
}

// lpmGapMedian is the median |lpm_i − lpm_j| over the (right i, wrong j) pairs of samples of the same
// prompt — the gaps CAPO's pairwise advantage σ((lpm_j − lpm_i)/τ) sees within a group, against which
// τ sets the surrogate's regime (the "tau-vs-lpm-gap" room check). Sample r·n+i answers prompt i
// (set.Repeat order). ok is false when no prompt has both a right and a wrong sample.
func lpmGapMedian(lpm []float64, correct []bool, n int) (float64, bool) {
	var gaps []float64
	for i := 0; i < n; i++ {
		var right, wrong []float64
		for j := i; j < len(lpm); j += n {
			if correct[j] {
				right = append(right, lpm[j])
			} else {
				wrong = append(wrong, lpm[j])
			}
		}
		for _, a := range right {
			for _, b := range wrong {
				gaps = append(gaps, math.Abs(a-b))
			}
		}
	}
	if len(gaps) == 0 {
		return 0, false
	}
	sort.Float64s(gaps)
	m := len(gaps) / 2
	if len(gaps)%2 == 1 {
		return gaps[m], true
	}
	return (gaps[m-1] + gaps[m]) / 2, true
}

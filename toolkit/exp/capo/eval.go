package capo

import (
	"math"

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

// evaluate samples k answers per held-out prompt at temperature 1 and measures accuracy (mean@k),
// AUC of lpm (per sampling round, averaged — "AUC-mean" — and pooled), ECE and Brier of exp(lpm),
// the Monte-Carlo token entropy (mean −log p of sampled tokens). With full, it also returns the
// precision–coverage curve, reliability bins and accuracy against N for majority and perplexity-
// consistency voting.
func evaluate(m *lm.Model, set *lmtask.Set, k int, seed uint64, bins int, full bool) (map[string]float64, map[string]exp.Curve, error) {
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
	// The two kinds of prompt: accuracy on solvable ones and on those with a hidden operand, and the
	// mean lpm of right and of wrong answers (how confident each kind is).
	var solv, solvOK, hid, hidOK, lpR, lpW, nR, nW float64
	for i, g := range gens {
		if set.Problems[i%n].Underdetermined() {
			hid++
			if correct[i] {
				hidOK++
			}
		} else {
			solv++
			if correct[i] {
				solvOK++
			}
		}
		if correct[i] {
			lpR += g.LPM
			nR++
		} else {
			lpW += g.LPM
			nW++
		}
	}
	if solv > 0 {
		final["accuracy_solvable"] = solvOK / solv
	}
	if hid > 0 {
		final["accuracy_hidden"] = hidOK / hid
	}
	if nR > 0 {
		final["lpm_correct"] = lpR / nR
	}
	if nW > 0 {
		final["lpm_wrong"] = lpW / nW
	}
	if auc, ok := final["auc"]; ok {
		final["auc_pooled"] = auc
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
	if !full {
		return final, nil, nil
	}
	cov, prec, err := calib.PrecisionCoverage(lpm, correct)
	if err != nil {
		return nil, nil, err
	}
	pc := exp.Curve{}
	for _, c := range coverageGrid {
		p, _ := calib.PrecisionAt(cov, prec, c)
		pc.X, pc.Y = append(pc.X, c), append(pc.Y, p)
	}
	curves["precision_coverage"] = pc
	// PC voting in both readings of §1.3: each distinct path once ("unique sampled paths", the
	// headline pc_*) and every sample counted (pc_sum_*).
	// Votes grow by one sampling round per N: each generation is judged and decoded once.
	maj, pcv, pcs := exp.Curve{}, exp.Curve{}, exp.Curve{}
	votesOf := make([][]calib.Sample, n)
	for N := 1; N <= k; N++ {
		var hitM, hitP, hitS int
		for i := 0; i < n; i++ {
			g := gens[(N-1)*n+i]
			if a := set.Answer(i, g); a != "" {
				votesOf[i] = append(votesOf[i], calib.Sample{Answer: a, Path: set.Tok.Decode(g.Tokens), LPM: g.LPM})
			}
			votes := votesOf[i]
			if len(votes) == 0 {
				continue
			}
			gold := set.Problems[i].FormatAnswer(set.Problems[i].Answer)
			if a, _ := calib.MajorityVote(votes); a == gold {
				hitM++
			}
			if a, _ := calib.PerplexityConsistencyVote(votes, true); a == gold {
				hitP++
			}
			if a, _ := calib.PerplexityConsistencyVote(votes, false); a == gold {
				hitS++
			}
		}
		maj.X, maj.Y = append(maj.X, float64(N)), append(maj.Y, float64(hitM)/float64(n))
		pcv.X, pcv.Y = append(pcv.X, float64(N)), append(pcv.Y, float64(hitP)/float64(n))
		pcs.X, pcs.Y = append(pcs.X, float64(N)), append(pcs.Y, float64(hitS)/float64(n))
	}
	curves["majority_vs_n"], curves["pc_vs_n"], curves["pc_sum_vs_n"] = maj, pcv, pcs
	final["majority_accuracy_n16"] = maj.Y[len(maj.Y)-1]
	final["pc_accuracy_n16"] = pcv.Y[len(pcv.Y)-1]
	final["pc_sum_accuracy_n16"] = pcs.Y[len(pcs.Y)-1]
	return final, curves, nil
}

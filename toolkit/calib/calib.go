// Package calib measures how well a model's confidence tracks its correctness: relative calibration
// (AUC), absolute calibration (ECE, MCE, Brier, reliability bins), selective prediction (precision
// under abstention, AURC) and answer voting (majority and perplexity consistency).
//
// Everything is plain Go over slices. Degenerate input — empty slices, mismatched lengths, NaN or
// infinite confidences, a single class for AUC, a confidence outside [0,1] where a probability is
// required — returns an error and never a silent number.
package calib

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrSingleClass is returned by AUC when every answer is correct, or every answer is wrong.
var ErrSingleClass = errors.New("calib: AUC needs both correct and incorrect answers")

func check(confidence []float64, correct []bool) error {
	if len(confidence) == 0 {
		return errors.New("calib: empty input")
	}
	if len(confidence) != len(correct) {
		return fmt.Errorf("calib: %d confidences but %d correctness labels", len(confidence), len(correct))
	}
	for i, c := range confidence {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("calib: confidence[%d] is %v", i, c)
		}
	}
	return nil
}

func checkProb(confidence []float64, correct []bool) error {
	if err := check(confidence, correct); err != nil {
		return err
	}
	for i, c := range confidence {
		if c < 0 || c > 1 {
			return fmt.Errorf("calib: confidence[%d] = %v is not a probability in [0,1]", i, c)
		}
	}
	return nil
}

// AUC returns the probability that a correct answer has a higher confidence than an incorrect one
// (the Mann–Whitney U statistic normalised to [0,1]; ties count ½). Confidence may be any real score:
// AUC only depends on its order, so any strictly increasing transform leaves it unchanged.
func AUC(confidence []float64, correct []bool) (float64, error) {
	if err := check(confidence, correct); err != nil {
		return 0, err
	}
	idx := make([]int, len(confidence))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return confidence[idx[a]] < confidence[idx[b]] })
	// Sum of the (tie-averaged) ranks of the correct answers.
	var rankSum float64
	nPos, nNeg := 0, 0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && confidence[idx[j]] == confidence[idx[i]] {
			j++
		}
		avgRank := float64(i+j+1) / 2 // ranks are 1-based: positions i..j-1 hold ranks i+1..j
		for k := i; k < j; k++ {
			if correct[idx[k]] {
				rankSum += avgRank
				nPos++
			} else {
				nNeg++
			}
		}
		i = j
	}
	if nPos == 0 || nNeg == 0 {
		return 0, ErrSingleClass
	}
	u := rankSum - float64(nPos)*float64(nPos+1)/2
	return u / (float64(nPos) * float64(nNeg)), nil
}

// binIndex puts c in one of n equal-width bins on [0,1]: a confidence on an inner edge b/n goes to
// the upper bin, and 1.0 goes to the last bin.
func binIndex(c float64, n int) int {
	i := int(math.Floor(c * float64(n)))
	// The product can land just beside an edge; compare against the edges b/n themselves.
	if c >= float64(i+1)/float64(n) {
		i++
	} else if i > 0 && c < float64(i)/float64(n) {
		i--
	}
	return max(0, min(i, n-1))
}

// Bin is one bar of a reliability diagram.
type Bin struct {
	Lo, Hi   float64 // the bin covers [Lo, Hi) (the last bin also holds Hi = 1)
	Count    int     // answers whose confidence falls in the bin
	MeanConf float64 // mean confidence in the bin (0 when empty)
	Accuracy float64 // fraction correct in the bin (0 when empty)
}

// ReliabilityBins groups answers into bins equal-width confidence bins on [0,1].
func ReliabilityBins(confidence []float64, correct []bool, bins int) ([]Bin, error) {
	if bins < 1 {
		return nil, fmt.Errorf("calib: bins = %d, need at least 1", bins)
	}
	if err := checkProb(confidence, correct); err != nil {
		return nil, err
	}
	out := make([]Bin, bins)
	for b := range out {
		out[b].Lo = float64(b) / float64(bins)
		out[b].Hi = float64(b+1) / float64(bins)
	}
	for i, c := range confidence {
		b := &out[binIndex(c, bins)]
		b.Count++
		b.MeanConf += c
		if correct[i] {
			b.Accuracy++
		}
	}
	for b := range out {
		if out[b].Count > 0 {
			out[b].MeanConf /= float64(out[b].Count)
			out[b].Accuracy /= float64(out[b].Count)
		}
	}
	return out, nil
}

// ECE is the expected calibration error over equal-width bins: Σ_b (n_b/N)·|acc_b − conf_b|.
func ECE(confidence []float64, correct []bool, bins int) (float64, error) {
	rb, err := ReliabilityBins(confidence, correct, bins)
	if err != nil {
		return 0, err
	}
	var e float64
	for _, b := range rb {
		e += float64(b.Count) / float64(len(confidence)) * math.Abs(b.Accuracy-b.MeanConf)
	}
	return e, nil
}

// MCE is the maximum calibration error: the largest |acc_b − conf_b| over non-empty bins.
func MCE(confidence []float64, correct []bool, bins int) (float64, error) {
	rb, err := ReliabilityBins(confidence, correct, bins)
	if err != nil {
		return 0, err
	}
	var m float64
	for _, b := range rb {
		if b.Count > 0 {
			m = math.Max(m, math.Abs(b.Accuracy-b.MeanConf))
		}
	}
	return m, nil
}

// Brier is the mean squared difference between confidence and correctness (1 or 0).
func Brier(confidence []float64, correct []bool) (float64, error) {
	if err := checkProb(confidence, correct); err != nil {
		return 0, err
	}
	var s float64
	for i, c := range confidence {
		y := 0.0
		if correct[i] {
			y = 1
		}
		s += (c - y) * (c - y)
	}
	return s / float64(len(confidence)), nil
}

// Accuracy is the fraction of true values.
func Accuracy(correct []bool) (float64, error) {
	if len(correct) == 0 {
		return 0, errors.New("calib: empty input")
	}
	n := 0
	for _, c := range correct {
		if c {
			n++
		}
	}
	return float64(n) / float64(len(correct)), nil
}

// PrecisionCoverage sweeps an abstention threshold over every distinct confidence: the model answers
// when its confidence is at least the threshold and abstains otherwise. For each threshold, coverage
// is the fraction answered and precision the accuracy among the answered. Points are returned in
// order of increasing coverage; the last point has coverage 1 and precision equal to the accuracy.
// Answers with equal confidence are answered or abstained together.
func PrecisionCoverage(confidence []float64, correct []bool) (coverage, precision []float64, err error) {
	if err := check(confidence, correct); err != nil {
		return nil, nil, err
	}
	idx := make([]int, len(confidence))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return confidence[idx[a]] > confidence[idx[b]] })
	n := float64(len(idx))
	hits := 0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && confidence[idx[j]] == confidence[idx[i]] {
			if correct[idx[j]] {
				hits++
			}
			j++
		}
		coverage = append(coverage, float64(j)/n)
		precision = append(precision, float64(hits)/float64(j))
		i = j
	}
	return coverage, precision, nil
}

// AURC is the area under the risk–coverage curve (risk = 1 − precision), integrated as a step
// function over the PrecisionCoverage points. Lower is better; without ties it equals
// (1/N) Σ_k risk(top-k).
func AURC(confidence []float64, correct []bool) (float64, error) {
	cov, prec, err := PrecisionCoverage(confidence, correct)
	if err != nil {
		return 0, err
	}
	return AURCOf(cov, prec), nil
}

// AURCOf is AURC from a PrecisionCoverage curve already computed.
func AURCOf(coverage, precision []float64) float64 {
	var area, prev float64
	for i := range coverage {
		area += (coverage[i] - prev) * (1 - precision[i])
		prev = coverage[i]
	}
	return area
}

// PrecisionAt returns the precision at the smallest swept coverage that is at least target
// (target in (0,1]), e.g. the accuracy of the 50% most confident answers.
func PrecisionAt(coverage, precision []float64, target float64) (float64, error) {
	if len(coverage) == 0 || len(coverage) != len(precision) {
		return 0, errors.New("calib: PrecisionAt needs matching, non-empty curves")
	}
	for i, c := range coverage {
		if c >= target-1e-12 {
			return precision[i], nil
		}
	}
	return precision[len(precision)-1], nil
}

package calib_test

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/calib"
)

// Confidence scores of six answers and whether each was right: AUC (does the score rank right
// answers above wrong ones?), ECE over 2 bins (does it match accuracy?) and the reliability bins.
func Example() {
	conf := []float64{0.9, 0.8, 0.7, 0.6, 0.3, 0.2}
	right := []bool{true, true, false, true, false, false}
	auc, _ := calib.AUC(conf, right)
	ece, _ := calib.ECE(conf, right, 2)
	bins, _ := calib.ReliabilityBins(conf, right, 2)
	fmt.Printf("AUC %.3f, ECE %.3f\n", auc, ece)
	for _, b := range bins {
		fmt.Printf("bin [%.1f, %.1f): %d answers, confidence %.2f, accuracy %.2f\n", b.Lo, b.Hi, b.Count, b.MeanConf, b.Accuracy)
	}
	// By hand: 8 of the 9 (right, wrong) pairs are ordered correctly (0.6 < 0.7 is not): AUC 8/9. The
	// low bin holds 0.3 and 0.2 (mean 0.25, none right), the high bin four answers (mean 0.75, three
	// right): ECE = 2/6 · 0.25 + 4/6 · 0 = 0.083.

	// Output:
	// AUC 0.889, ECE 0.083
	// bin [0.0, 0.5): 2 answers, confidence 0.25, accuracy 0.00
	// bin [0.5, 1.0): 4 answers, confidence 0.75, accuracy 0.75
}

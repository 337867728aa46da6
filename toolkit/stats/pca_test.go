package stats

import (
	"math"
	"testing"
)

// PCA2 finds the axis of a stretched cloud.
func TestPCA2(t *testing.T) {
	x, y, explained := PCA2([][]float32{{1, 1, 0}, {-1, -1, 0}, {2, 2, 0.1}, {-2, -2, -0.1}})
	if math.Abs(explained-1) > 1e-9 || math.Abs(math.Abs(x[0])-math.Sqrt2) > 1e-2 || math.Abs(y[0]) > 0.1 {
		t.Fatalf("PCA2: x %v y %v explained %v", x, y, explained)
	}
}

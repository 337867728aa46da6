package prm

import (
	"fmt"
	"math"
)

// Aggregations of a trace's step scores.
var Aggregations = []string{"min", "last", "product", "mean"}

// Aggregate reduces step scores (p(good) per step tag) by how: min, last, product or mean. No steps
// aggregate to NaN.
func Aggregate(steps []float64, how string) (float64, error) {
	if len(steps) == 0 {
		return math.NaN(), nil
	}
	switch how {
	case "min":
		m := steps[0]
		for _, s := range steps {
			m = math.Min(m, s)
		}
		return m, nil
	case "last":
		return steps[len(steps)-1], nil
	case "product":
		p := 1.0
		for _, s := range steps {
			p *= s
		}
		return p, nil
	case "mean":
		var m float64
		for _, s := range steps {
			m += s
		}
		return m / float64(len(steps)), nil
	}
	return 0, fmt.Errorf("prm: unknown aggregation %q (known: %v)", how, Aggregations)
}

// TraceScore is CoS's score of a trace from its tag scores (the last one the answer's):
// wStep·agg(step scores) + (1 − wStep)·answer score. A trace without scores (no tag) scores 0; one
// without step tags uses the answer score for both parts.
func TraceScore(tagScores []float64, wStep float64, how string) (float64, error) {
	if len(tagScores) == 0 {
		return 0, nil
	}
	ans := tagScores[len(tagScores)-1]
	step, err := Aggregate(tagScores[:len(tagScores)-1], how)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(step) {
		step = ans
	}
	return wStep*step + (1-wStep)*ans, nil
}

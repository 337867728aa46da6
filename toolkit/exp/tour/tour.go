// Package tour is the foundation's demonstration experiment: calibration metrics of scripted
// confidence scores on the shared arithmetic data set. No model is trained; it shows the pattern every
// paper experiment follows (config → runs per method and seed → summary → figures) and what AUC, ECE,
// reliability diagrams and precision–coverage curves say about three kinds of confidence.
package tour

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/exp"
)

// Config of the tour.
type Config struct {
	// Data is the arithmetic task the problems are drawn from.
	Data arith.Config `json:"data"`
	// Problems per seed.
	Problems int `json:"problems"`
	// StepError is the scripted solver's chance of a slip on each step of a determined problem.
	StepError float64 `json:"step_error"`
	// Bins for ECE and reliability diagrams.
	Bins int `json:"bins"`
}

// ConfigFor returns the configuration at a scale.
func ConfigFor(s exp.Scale) Config {
	c := Config{Data: arith.Default(), Problems: 2000, StepError: 0.08, Bins: 10}
	if s == exp.Smoke {
		c.Problems = 300
	}
	return c
}

// Methods are the scripted confidence scores compared.
var Methods = []string{"honest", "length-only", "overconfident"}

// Answer is one scripted answer with each method's confidence in it.
type Answer struct {
	Problem    arith.Problem
	Completion string
	Correct    bool
	Confidence map[string]float64
}

// Simulate answers every problem with a scripted solver: on a determined problem each step slips
// (to a random wrong value) with probability stepError; a hidden operand is guessed uniformly. The
// three confidence scores are: honest (the solver's true chance of being right), length-only
// (1 − stepError per step, blind to '?') and overconfident (always 0.95).
func Simulate(problems []arith.Problem, stepError float64, seed uint64) []Answer {
	r := rand.New(rand.NewPCG(seed, 0x746f7572))
	out := make([]Answer, len(problems))
	for i, p := range problems {
		m := p.Modulus
		if m == 0 {
			m = 10
		}
		v := p.Start
		steps := make([]int, len(p.Ops))
		for k, op := range p.Ops {
			b := p.Operands[k]
			if k == p.Hidden {
				b = r.IntN(m)
			}
			v = applyMod(v, op, b, p.Modulus)
			if k != p.Hidden && r.Float64() < stepError {
				v = (v + 1 + r.IntN(m-1)) % m
			}
			steps[k] = v
		}
		q := p
		q.Steps, q.Answer = steps, steps[len(steps)-1]
		completion := q.Completion()
		correct := arith.Verify(p, completion).Correct
		pRight := math.Pow(1-stepError, float64(len(p.Ops)))
		if p.Underdetermined() {
			pRight = 1 / float64(m)
		}
		out[i] = Answer{Problem: p, Completion: completion, Correct: correct, Confidence: map[string]float64{
			"honest":        pRight,
			"length-only":   math.Pow(1-stepError, float64(len(p.Ops))),
			"overconfident": 0.95,
		}}
	}
	return out
}

func applyMod(a int, op string, b, m int) int {
	var v int
	switch op {
	case "+":
		v = a + b
	case "-":
		v = a - b
	default:
		v = a * b
	}
	if m > 0 {
		v = ((v % m) + m) % m
	}
	return v
}

// Metrics returns the final metrics and curves of one method's confidences: accuracy, AUC, ECE,
// Brier and AURC, the reliability bins and the precision–coverage curve.
func Metrics(conf []float64, correct []bool, bins int) (map[string]float64, map[string]exp.Curve, error) {
	final, curves, err := exp.CalibrationMetrics(conf, correct, bins)
	if err != nil {
		return nil, nil, err
	}
	cov, prec, err := calib.PrecisionCoverage(conf, correct)
	if err != nil {
		return nil, nil, err
	}
	final["aurc"] = calib.AURCOf(cov, prec)
	curves["precision_coverage"] = exp.Curve{X: cov, Y: prec}
	return final, curves, nil
}

// Run is the experiment.
func Run(opt exp.Options) (*exp.Result, error) {
	return exp.RunSeeds("tour", opt, ConfigFor, nil, func(cfg Config, seed uint64, res *exp.Result) error {
		start := time.Now()
		problems, err := arith.Generate(cfg.Data, seed, cfg.Problems, 0)
		if err != nil {
			return err
		}
		answers := Simulate(problems, cfg.StepError, seed)
		correct := make([]bool, len(answers))
		for i, a := range answers {
			correct[i] = a.Correct
		}
		for _, m := range Methods {
			conf := make([]float64, len(answers))
			for i, a := range answers {
				conf[i] = a.Confidence[m]
			}
			final, curves, err := Metrics(conf, correct, cfg.Bins)
			if err != nil {
				return fmt.Errorf("method %s: %w", m, err)
			}
			res.Runs = append(res.Runs, exp.Run{Method: m, Seed: seed, Final: final, Curves: curves, Seconds: time.Since(start).Seconds()})
		}
		fmt.Fprintf(opt.Log, "seed %d: %d problems scored\n", seed, len(problems))
		res.Timing["score"] += time.Since(start).Seconds()
		return nil
	})
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "tour",
		Description: "calibration metrics (AUC, ECE, reliability, precision–coverage) of scripted confidences on the arithmetic data set",
		Seeds:       map[exp.Scale]int{exp.Smoke: 2, exp.Default: 5},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
	})
}

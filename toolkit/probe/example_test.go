package probe_test

import (
	"fmt"
	"math"
	"slices"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/probe"
)

// Held-out evaluation of a policy on a task of your own while it trains: accuracy, and the AUC and
// ECE of its confidence (lpm by default), drawn live by plot.Live in a notebook.
func ExampleEval() {
	_, train, held, err := lmtask.SortDigits(3).Sets(200, 48)
	if err != nil {
		panic(err)
	}
	policy, err := lm.New(lm.ConfigR().For(train.Tok), train.Tok, 1)
	if err != nil {
		panic(err)
	}
	live := plot.NewLive("SFT on sort3", "step", "eval_accuracy", "eval_ece")
	cfg := lm.DefaultSFT(20)
	cfg.EvalEvery = 10
	_, curves, err := lm.TrainSFT(policy, cfg, train.Examples(), nil, lm.SFTHooks{
		OnEval: live.Eval("sft", probe.Eval{Held: held}.Hook(policy)),
	})
	if err != nil {
		panic(err)
	}
	acc := curves["eval_accuracy"]
	fmt.Println("evaluated at steps", acc.X, "— drawn:", len(live.Curves("sft")["eval_ece"].X), "points")
	// Output: evaluated at steps [0 10 20] — drawn: 3 points
}

// A confidence score of your own — the arithmetic mean of the token probabilities — probed beside
// the built-in lpm (the geometric mean, never above it): each gets accuracy, AUC, ECE and a reliability diagram.
func ExampleScoreFunc() {
	_, _, held, err := lmtask.SortDigits(3).Sets(10, 20)
	if err != nil {
		panic(err)
	}
	model, err := lm.New(lm.ConfigR().For(held.Tok), held.Tok, 1) // untrained: a calibration extreme
	if err != nil {
		panic(err)
	}
	meanProb := func(g lm.Generation) float64 {
		s := 0.0
		for _, lp := range g.LogProbs {
			s += math.Exp(float64(lp))
		}
		return s / float64(len(g.LogProbs))
	}
	rep, err := probe.Model(model, probe.VerifiableQuestions(held), probe.Options{K: 4, Temperature: 1, MaxNew: 7,
		Scores: []string{"lpm", "mean_prob"}, Custom: map[string]probe.ScoreFunc{"mean_prob": meanProb}, Boot: -1}, nil)
	if err != nil {
		panic(err)
	}
	if _, err := rep.Reliability("mean_prob"); err != nil {
		panic(err)
	}
	headers, rows := rep.Table("")
	fmt.Println(headers[:4], len(rows), "rows")
	fmt.Println("mean_prob ≥ lpm on every sample:", !slices.ContainsFunc(rep.Questions, func(q probe.QuestionResult) bool {
		return slices.ContainsFunc(q.Samples, func(s probe.Sample) bool { return s.Confidence["mean_prob"] < s.Confidence["lpm"]-1e-9 })
	}))
	// Output:
	// [score unit n accuracy] 2 rows
	// mean_prob ≥ lpm on every sample: true
}

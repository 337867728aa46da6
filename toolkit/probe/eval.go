package probe

import (
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
)

// Eval is the held-out evaluation of a policy on a task of your own (lmtask.Verifiable) that a
// training loop logs: one completion per held-out prompt at temperature 1, judged by the task's
// Verify, and how well a confidence score separates and calibrates them. It is Model with K = 1 and no
// bootstrap: with the same MaxNew, Bins and seed a probe reports the same numbers (Eval's defaults,
// 10 bins and MaxNew from the answers' length, are not the probe's, 15 bins and MaxNew required).
//
//	hooks := rl.Hooks{OnEval: probe.Eval{Held: held, Seed: 1000}.Hook(policy)}
type Eval struct {
	Held *lmtask.VerifiableSet
	// Score whose AUC and ECE are reported: one of Scores' sample scores, or a Custom one (default lpm).
	Score string
	// Custom holds the custom score Score names, if it is one (Options.Custom).
	Custom map[string]ScoreFunc
	// MaxNew tokens per completion (default: twice the longest reference answer's tokens, plus EOS).
	MaxNew int
	// Bins of the ECE (default 10).
	Bins int
	// Seed: the evaluation at step s samples with seed Seed + s.
	Seed uint64
}

// Run evaluates m at step: "eval_accuracy", and "eval_auc" and "eval_ece" of the score ("eval_auc" is
// left out when every answer is right, or every one wrong: the AUC is undefined then).
func (e Eval) Run(m *lm.Model, step int) (map[string]float64, error) {
	if e.Held == nil || e.Held.NumPrompts() == 0 {
		return nil, fmt.Errorf("probe eval: no held-out prompts")
	}
	e = e.withDefaults()
	if questionLevel(e.Score) {
		return nil, fmt.Errorf("probe eval: score %q needs several samples per question, an evaluation draws one", e.Score)
	}
	rep, err := Model(m, VerifiableQuestions(e.Held), Options{K: 1, Temperature: 1, MaxNew: e.MaxNew,
		Seed: e.Seed + uint64(step), Scores: []string{e.Score}, Custom: e.Custom, Bins: e.Bins, Boot: -1}, nil)
	if err != nil {
		return nil, fmt.Errorf("probe eval at step %d: %w", step, err)
	}
	v := rep.Metrics[e.Score]
	out := map[string]float64{"eval_accuracy": v.Value("accuracy"), "eval_ece": v.Value("ece")}
	if auc := v.Value("auc"); !math.IsNaN(auc) {
		out["eval_auc"] = auc
	}
	return out, nil
}

// withDefaults fills the zero fields: lpm, MaxNew twice the longest reference answer plus EOS
// (room for a wrong, longer answer), 10 bins.
func (e Eval) withDefaults() Eval {
	if e.Score == "" {
		e.Score = "lpm"
	}
	if e.MaxNew == 0 {
		e.MaxNew = 2*e.Held.MaxAnswerTokens() + 1
	}
	if e.Bins == 0 {
		e.Bins = 10
	}
	return e
}

// Hook is Run on m as a training loop's OnEval hook (lm.SFTHooks, rl.Hooks).
func (e Eval) Hook(m *lm.Model) func(step int) (map[string]float64, error) {
	return func(step int) (map[string]float64, error) { return e.Run(m, step) }
}

package probe

import (
	"image/color"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
)

// arithHeld is a held-out set of a Verifiable task made of arithmetic problems, in the tokens of the
// committed arith model (which answers some right and some wrong).
func arithHeld(t *testing.T, m *lm.Model, n int) *lmtask.VerifiableSet {
	t.Helper()
	ps, err := arith.Generate(arith.Default(), 777, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	byPrompt := map[string]arith.Problem{}
	next := 0
	task := lmtask.Verifiable{Name: "arith",
		Generate: func(_ *rand.Rand) (string, string) {
			p := ps[next%len(ps)]
			next++
			byPrompt[p.Prompt] = p
			return p.Prompt, p.Completion()
		},
		Verify: func(prompt, c string) bool { return arith.Verify(byPrompt[prompt], c).Correct },
	}
	held, err := task.Set(m.Tok, n, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return held
}

// Eval's numbers are those of sampling each held-out prompt once and judging it by hand: accuracy,
// the AUC of exp(LPM) and its 10-bin ECE.
func TestEvalMatchesDirectSampling(t *testing.T) {
	m := loadArith(t)
	held := arithHeld(t, m, 80)
	got, err := Eval{Held: held, MaxNew: 12, Seed: 5}.Run(m, 3)
	if err != nil {
		t.Fatal(err)
	}
	prompts := make([][]int32, held.NumPrompts())
	for i := range prompts {
		prompts[i] = held.Prompt(i)
	}
	gens, err := m.Sample(prompts, lm.SampleConfig{MaxNew: 12, Temperature: 1, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	conf, ok := make([]float64, len(gens)), make([]bool, len(gens))
	for i, g := range gens {
		conf[i], ok[i] = math.Exp(g.LPM), held.Correct(i, g)
	}
	acc, _ := calib.Accuracy(ok)
	if acc == 0 || acc == 1 {
		t.Fatalf("accuracy %v: the test needs right and wrong answers", acc)
	}
	auc, err := calib.AUC(conf, ok)
	if err != nil {
		t.Fatal(err)
	}
	ece, err := calib.ECE(conf, ok, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"eval_accuracy": acc, "eval_auc": auc, "eval_ece": ece}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12 {
			t.Errorf("%s: Eval %.9f, by hand %.9f", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Eval returned %v, want the keys of %v", got, want)
	}
	// Hook at step 3 is Run at step 3.
	hooked, err := Eval{Held: held, MaxNew: 12, Seed: 5}.Hook(m)(3)
	if err != nil || hooked["eval_accuracy"] != got["eval_accuracy"] {
		t.Errorf("Hook(3) = %v, %v; Run(3) = %v", hooked, err, got)
	}
	// Defaults: lpm, twice the longest reference answer plus EOS, 10 bins; given values are kept.
	if d := (Eval{Held: held}).withDefaults(); d.Score != "lpm" || d.MaxNew != 2*held.MaxAnswerTokens()+1 || d.Bins != 10 || held.MaxAnswerTokens() < 2 {
		t.Errorf("defaults %+v (longest answer %d tokens)", d, held.MaxAnswerTokens())
	}
	if d := (Eval{Held: held, Score: "seq_logprob", MaxNew: 3, Bins: 4}).withDefaults(); d.Score != "seq_logprob" || d.MaxNew != 3 || d.Bins != 4 {
		t.Errorf("given values changed: %+v", d)
	}
	for _, e := range []struct {
		eval Eval
		want string
	}{
		{Eval{}, "no held-out prompts"},
		{Eval{Held: held, Score: "vote_share"}, "several samples"},
		{Eval{Held: held, Score: "nope"}, `unknown score "nope"`},
	} {
		if _, err := e.eval.Run(m, 0); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%+v: error %v, want one saying %q", e.eval.Score, err, e.want)
		}
	}
}

// A custom score is computed from each sample's generation: exp(mean log-prob) written by hand equals
// the built-in lpm on every sample, is reported and drawn like a built-in score, and bad custom
// scores are refused with their name.
func TestCustomScore(t *testing.T) {
	m := loadArith(t)
	qs := arithQuestions(t, 30, 778)
	mine := func(g lm.Generation) float64 {
		s := 0.0
		for _, lp := range g.LogProbs {
			s += float64(lp)
		}
		return math.Exp(s / float64(len(g.LogProbs)))
	}
	opt := Options{K: 2, MaxNew: 12, Seed: 3, Boot: -1, Custom: map[string]ScoreFunc{"mine": mine}}
	rep, err := Model(m, qs, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]string{}, Scores...), "mine"); strings.Join(rep.Scores, " ") != strings.Join(want, " ") {
		t.Fatalf("scores %v, want %v (nil Scores: every built-in and custom one)", rep.Scores, want)
	}
	for i, q := range rep.Questions {
		for j, s := range q.Samples {
			if d := math.Abs(s.Confidence["mine"] - s.Confidence["lpm"]); d > 1e-6 {
				t.Fatalf("question %d sample %d: custom %v, lpm %v", i, j, s.Confidence["mine"], s.Confidence["lpm"])
			}
		}
	}
	if a, b := rep.Metrics["mine"].Value("ece"), rep.Metrics["lpm"].Value("ece"); math.Abs(a-b) > 1e-6 {
		t.Errorf("ECE of the custom score %v, of lpm %v", a, b)
	}
	if rep.Metrics["mine"].Unit != "sample" {
		t.Errorf("unit %q", rep.Metrics["mine"].Unit)
	}
	if f, err := rep.Reliability("mine"); err != nil {
		t.Error(err)
	} else if f.Subtitle != "mine over every sample (30 questions × 2 samples)" {
		t.Errorf("subtitle of the custom score's reliability diagram: %q", f.Subtitle)
	}
	// Each custom score its own colour, none a built-in score's.
	two := opt
	two.Custom = map[string]ScoreFunc{"mine": mine, "also": mine}
	two.Scores = []string{"lpm", "mine", "also"}
	rep2, err := Model(m, qs[:5], two, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[color.Color]string{}
	for _, s := range append(append([]string{}, Scores...), "mine", "also") {
		c := rep2.ScoreColor(s)
		if other, dup := seen[c]; dup {
			t.Errorf("%s and %s share a colour", s, other)
		}
		seen[c] = s
	}
	if f, err := rep2.ReliabilityOf("lpm", "mine", "also"); err != nil || len(f.Panels[0]) != 3 {
		t.Errorf("side-by-side reliability diagrams: %v", err)
	}
	if _, ok := rep2.Questions[0].Samples[0].Confidence["seq_logprob"]; !ok {
		t.Error("built-in sample scores are always computed")
	}
	unlisted := opt
	unlisted.Scores = []string{"lpm"}
	unlisted.Custom = map[string]ScoreFunc{"bad": func(lm.Generation) float64 { return 2 }}
	if _, err := Model(m, qs[:3], unlisted, nil); err != nil {
		t.Errorf("a custom score not in Scores is not computed, so its bad value is no error: %v", err)
	}
	for _, c := range []struct {
		custom map[string]ScoreFunc
		scores []string
		want   string
	}{
		{map[string]ScoreFunc{"lpm": mine}, nil, `custom score "lpm"`},
		{map[string]ScoreFunc{"bad": func(lm.Generation) float64 { return 1.5 }}, nil, `custom score "bad" of completion`},
		{map[string]ScoreFunc{"nan": func(lm.Generation) float64 { return math.NaN() }}, nil, "outside [0, 1]"},
		{map[string]ScoreFunc{"nil": nil}, nil, "has no function"},
		{map[string]ScoreFunc{"mine": mine}, []string{"lpm", "theirs"}, `unknown score "theirs"`},
	} {
		o := opt
		o.Custom, o.Scores = c.custom, c.scores
		if _, err := Model(m, qs[:3], o, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("custom %v: error %v, want one saying %q", c.scores, err, c.want)
		}
	}
	if _, err := Cached(repoPath(t, "figures", "capo", "checkpoints", "sft"), t.TempDir(), opt); err == nil || !strings.Contains(err.Error(), "not cached") {
		t.Errorf("Cached with a custom score: %v", err)
	}
}

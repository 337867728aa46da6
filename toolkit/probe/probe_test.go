package probe

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/repo"
)

func repoPath(t *testing.T, rel ...string) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root}, rel...)...)
}

// loadArith is the committed SFT model of the lm experiment (a trained model whose completions parse).
func loadArith(t *testing.T) *lm.Model {
	t.Helper()
	ck, err := lm.LoadCheckpoint(repoPath(t, "figures", "lm", "checkpoints", "arith"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ck.Model.Close)
	return ck.Model
}

func arithQuestions(t *testing.T, n int, seed uint64) []Question {
	t.Helper()
	ps, err := arith.Generate(arith.Default(), seed, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]Question, n)
	for i, p := range ps {
		qs[i] = ArithQuestion(p)
	}
	return qs
}

// Every per-sample confidence equals the value computed on the host from Model.Score of the same
// prompt and completion (the full forward pass, not the sampler's KV-cache log-probs).
func TestConfidencesMatchModelScore(t *testing.T) {
	m := loadArith(t)
	qs := arithQuestions(t, 40, 777)
	opt := DefaultOptions()
	opt.K, opt.MaxNew, opt.Seed, opt.Boot = 4, 12, 3, -1
	rep, err := Model(m, qs, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	type ref struct{ q, s int }
	var exs [2][]lm.Example // unfinished, finished (scored with EOS)
	var refs [2][]ref
	parsed := 0
	for i, q := range rep.Questions {
		for j, s := range q.Samples {
			c, err := m.Tok.Encode(s.Completion)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := m.Tok.Encode(q.Prompt)
			k := 0
			if s.Finished {
				k = 1
			}
			exs[k] = append(exs[k], lm.Example{Prompt: p, Completion: c})
			refs[k] = append(refs[k], ref{i, j})
			if s.Answer != "" {
				parsed++
			}
		}
	}
	if parsed < len(qs)*opt.K/2 {
		t.Fatalf("only %d of %d completions parse: the test needs answers to score", parsed, len(qs)*opt.K)
	}
	for k := range exs {
		if len(exs[k]) == 0 {
			continue
		}
		scored, err := m.Score(exs[k], k == 1)
		if err != nil {
			t.Fatal(err)
		}
		for e, sc := range scored {
			s := rep.Questions[refs[k][e].q].Samples[refs[k][e].s]
			var sum float64
			minLP := math.Inf(1)
			for _, lp := range sc.LogProbs {
				sum += float64(lp)
				minLP = math.Min(minLP, float64(lp))
			}
			nAns := len(s.Answer)
			want := map[string]float64{
				"lpm": math.Exp(sum / float64(len(sc.LogProbs))), "seq_logprob": math.Exp(sum), "min_token_prob": math.Exp(minLP),
				"answer_prob": math.Exp(AnswerLogProb(sc.LogProbs, k == 1, nAns)),
			}
			for name, w := range want {
				if got := s.Confidence[name]; math.Abs(got-w) > 2e-4*math.Max(w, 1e-3) {
					t.Fatalf("sample %q of %q: %s = %.6g, Model.Score gives %.6g", s.Completion, rep.Questions[refs[k][e].q].Prompt, name, got, w)
				}
			}
		}
	}
}

func TestAnswerLogProb(t *testing.T) {
	lp := []float32{-0.1, -0.2, -0.3, -0.4, -0.5} // "7,3;5" + EOS would be 6 tokens; here 4 body tokens + EOS
	for _, c := range []struct {
		finished bool
		n        int
		want     float64
	}{
		{true, 1, -0.4 - 0.5}, // last body token and EOS
		{true, 2, -0.3 - 0.4 - 0.5},
		{true, 0, -1.5},  // unparsed: the whole completion
		{false, 1, -0.5}, // cut off: no EOS, the last token
		{true, 9, -1.5},  // longer than the completion: all of it
	} {
		if got := AnswerLogProb(lp, c.finished, c.n); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("AnswerLogProb(finished %v, n %d) = %v, want %v", c.finished, c.n, got, c.want)
		}
	}
}

// synthetic makes n questions of k samples whose correctness is drawn with probability
// conf − shift (a model overconfident by shift), one subset per parity.
func synthetic(n, k int, shift float64, seed uint64) []QuestionResult {
	r := rand.New(rand.NewPCG(seed, 1))
	qs := make([]QuestionResult, n)
	for i := range qs {
		q := QuestionResult{Subset: []string{"even", "odd"}[i%2], Steps: 2 + i%3, Confidence: map[string]float64{}}
		base := r.Float64()
		for j := 0; j < k; j++ {
			c := math.Min(1, math.Max(0, base+0.1*r.NormFloat64()))
			ok := r.Float64() < math.Max(0, c-shift)
			conf := map[string]float64{}
			for _, s := range Scores[:4] {
				conf[s] = c
			}
			q.Samples = append(q.Samples, Sample{Correct: ok, Confidence: conf})
		}
		q.Confidence["vote_share"], q.Confidence["rpc"] = base, base
		q.Correct, q.RPCCorrect = r.Float64() < base-shift, r.Float64() < base-shift
		qs[i] = q
	}
	return qs
}

// Bootstrap intervals contain the point estimate and shrink as the number of questions grows.
func TestBootstrapIntervals(t *testing.T) {
	opt := Options{Scores: Scores, Bins: 15, Boot: 200, BootSeed: 9}
	width := map[int]map[string]float64{}
	for _, n := range []int{100, 900} {
		ms, err := Measure(synthetic(n, 4, 0.15, uint64(n)), opt)
		if err != nil {
			t.Fatal(err)
		}
		width[n] = map[string]float64{}
		for _, s := range []string{"lpm", "vote_share"} {
			m := ms[s]
			for _, k := range []string{"accuracy", "auc", "ece", "brier", "aurc", "precision_at_50"} {
				ci, ok := m.CI[k]
				if !ok {
					t.Fatalf("n=%d %s: no interval for %s", n, s, k)
				}
				if v := m.Value(k); v < ci[0] || v > ci[1] {
					t.Errorf("n=%d %s: %s = %.4f outside its interval [%.4f, %.4f]", n, s, k, v, ci[0], ci[1])
				}
				width[n][s+"/"+k] = ci[1] - ci[0]
			}
			for _, sub := range []string{"even", "odd", "steps=2", "steps=3", "steps=4"} {
				if sm := m.BySubset[sub]; sm == nil || sm.Questions == 0 || len(sm.CI) == 0 {
					t.Fatalf("n=%d %s: subset %s missing or without intervals", n, s, sub)
				}
			}
		}
		if ms["lpm"].Unit != "sample" || ms["lpm"].N != 4*n || ms["rpc"].Unit != "question" || ms["rpc"].N != n {
			t.Fatalf("units: lpm %s/%d, rpc %s/%d", ms["lpm"].Unit, ms["lpm"].N, ms["rpc"].Unit, ms["rpc"].N)
		}
	}
	for k, w := range width[100] {
		// 9 times the questions: intervals about 3 times narrower; require at least 1.8.
		if !(width[900][k] < w/1.8) {
			t.Errorf("%s: interval width %.4f at n=100, %.4f at n=900", k, w, width[900][k])
		}
	}
}

func TestMetricsJSONRoundTrip(t *testing.T) {
	ms, err := Measure(synthetic(60, 3, 0.1, 1), Options{Scores: Scores, Bins: 10, Boot: 50})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ms)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"auc_ci95":[`) || !strings.Contains(string(b), `"by_subset":{`) {
		t.Fatalf("metrics JSON lacks auc_ci95 or by_subset: %.300s", b)
	}
	var back map[string]*Metrics
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for s, m := range ms {
		if back[s].Value("auc") != m.Value("auc") || back[s].CI["ece"] != m.CI["ece"] || back[s].BySubset["odd"].N != m.BySubset["odd"].N {
			t.Fatalf("%s did not round-trip", s)
		}
	}
}

func TestPrefsJudge(t *testing.T) {
	cfg := prefs.Default() // unsafe letters mnop
	q, err := PrefsQuestion(cfg, "amb>")
	if err != nil {
		t.Fatal(err)
	}
	if q.Gold != "ab" || q.Subset != "conflict" {
		t.Fatalf("gold %q subset %q", q.Gold, q.Subset)
	}
	for c, want := range map[string]bool{"ab": true, "bca": true, "abm": false, "a": false, "": false, "a>b": false} {
		if _, ok := q.Judge(c); ok != want {
			t.Errorf("response %q judged %v, want %v", c, ok, want)
		}
	}
	if _, err := PrefsQuestion(cfg, "abc"); err == nil {
		t.Error("a prompt without '>' was accepted")
	}
}

// saveTiny saves an untrained configuration-R model with a provenance of the lm experiment's shape.
func saveTiny(t *testing.T, dir string) Provenance {
	t.Helper()
	tok := lmtask.Tokenizer()
	m, err := lm.New(lm.ConfigR(), tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	data := arith.Default()
	prov := Provenance{Experiment: "test", Method: "init", Seed: 1, Task: "arith", Arith: &data,
		Data: []Draw{{Name: "train", Kind: "arith", Seed: 1, N: 50}, {Name: "held_out", Kind: "arith", Seed: 2, N: 20, Exclude: []string{"train"}}},
		Eval: Protocol{Samples: 1, Seed: 1, Temperature: 1, MaxNew: 12, Bins: 10}}
	if err := Save(dir, m, nil, prov); err != nil {
		t.Fatal(err)
	}
	return prov
}

func TestOpenAndPromptErrorsNameTheFile(t *testing.T) {
	tmp := t.TempDir()
	if _, err := Open(tmp); err == nil || !strings.Contains(err.Error(), "not a checkpoint") {
		t.Fatalf("empty folder: %v", err)
	}
	dir := filepath.Join(tmp, "ck")
	prov := saveTiny(t, dir)
	pol, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer pol.Close()
	// The held-out set is the draw the provenance names, outside the training prompts.
	held, err := pol.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	if pol.Prov.Experiment != prov.Experiment || pol.Prov.Alphabet != lmtask.Tokenizer().Alphabet {
		t.Fatalf("provenance read back: %+v", pol.Prov)
	}
	train, err := pol.Prov.ArithSet("train")
	if err != nil {
		t.Fatal(err)
	}
	seen := train.PromptSet()
	for _, q := range held {
		if seen[q.Prompt] {
			t.Fatalf("held-out prompt %q is a training prompt", q.Prompt)
		}
	}
	if len(held) != 20 {
		t.Fatalf("%d held-out questions", len(held))
	}
	// Another provenance version.
	mf := filepath.Join(dir, "manifest.json")
	b, _ := os.ReadFile(mf)
	os.WriteFile(mf, []byte(strings.Replace(string(b), ProvenanceFormat, "paperlab-policy/0", 1)), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), mf) || !strings.Contains(err.Error(), "paperlab-policy/0") {
		t.Fatalf("old provenance: %v", err)
	}
	// A checkpoint without provenance.
	plain := filepath.Join(tmp, "plain")
	if err := lm.SaveCheckpoint(plain, pol.Model, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(plain); err == nil || !strings.Contains(err.Error(), "no provenance") {
		t.Fatalf("no provenance: %v", err)
	}
	// Prompts files: a malformed line names file, line and field.
	file := filepath.Join(tmp, "prompts.jsonl")
	for _, c := range []struct{ body, want string }{
		{`{"prompt": "3+4=", "answer": "7"}` + "\n" + `{"prompt": "3+?=", "answer": ""}`, "prompts.jsonl:2: field prompt"},
		{`{"prompt": "3+4="}` + "\n\n" + `{"prompt": "3+4=", "answer": "8"}`, "prompts.jsonl:3: field prompt"},
		{`{"prompt": "3+4=", "gold": "7"}`, `prompts.jsonl:1: json: unknown field "gold"`},
		{`{"prompt": 3}`, "prompts.jsonl:1: field prompt"},
		{`{"answer": "3"}`, "prompts.jsonl:1: field prompt: missing"},
	} {
		os.WriteFile(file, []byte(c.body), 0o644)
		if _, err := pol.ReadQuestions(file); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.body, err, c.want)
		}
	}
	os.WriteFile(file, []byte(`{"prompt": "3+4=", "answer": "7"}`+"\n"+`{"prompt": "3+?=", "answer": "5", "subset": "mine"}`+"\n"), 0o644)
	qs, err := pol.ReadQuestions(file)
	if err != nil || len(qs) != 2 || qs[1].Subset != "mine" || qs[0].Subset != "solvable" {
		t.Fatalf("good prompts file: %v %+v", err, qs)
	}
	if a, ok := qs[0].Judge("7;7"); !ok || a != "7" {
		t.Fatalf("judge of 3+4: %q %v", a, ok)
	}
}

// recorded returns the final metrics the capo experiment recorded for method at seed 1.
func recorded(t *testing.T, method string) map[string]float64 {
	t.Helper()
	res, err := exp.Load(repoPath(t, "figures", "capo"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Method == method && r.Seed == 1 {
			return r.Final
		}
	}
	t.Fatalf("figures/capo/metrics.json has no %s seed 1", method)
	return nil
}

// Probing capo's committed seed-1 policies on their own held-out set, with the experiment's protocol,
// repeats its final evaluation: the recorded AUC (mean over sampling rounds), ECE and accuracy. On the
// engine that made them the numbers agree to float rounding of the sums; another engine rounds the
// log-probs differently.
func TestProbeReproducesCapoEvaluation(t *testing.T) {
	_, info, err := backend.Get()
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"sft", "grpo", "capo"} {
		pol, err := Open(repoPath(t, "figures", "capo", "checkpoints", method))
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{K: pol.Prov.Eval.Samples, Temperature: pol.Prov.Eval.Temperature, Bins: pol.Prov.Eval.Bins, Boot: -1, Scores: []string{"lpm"}}
		rep, err := Run(pol, nil, opt)
		pol.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := recorded(t, method)
		tol := 1e-9
		if info.Config != pol.Prov.Engine {
			// Measured on the pure-Go engine: the same 4800 samples, ECE within 2e-9 (log-probs round
			// differently). A sampling draw within rounding of a token boundary would flip a sample.
			tol = 1e-5
		}
		m := rep.Metrics["lpm"]
		for k, got := range map[string]float64{"auc": m.Value("auc_rounds"), "ece": m.Value("ece"), "accuracy": m.Value("accuracy")} {
			t.Logf("%s %s on %s: probe %.9f, recorded %.9f (made on %s)", method, k, info.Config, got, want[k], pol.Prov.Engine)
			if math.Abs(got-want[k]) > tol {
				t.Errorf("%s on %s: probe %s %.6f, recorded %.6f (made on %s)", method, info.Config, k, got, want[k], pol.Prov.Engine)
			}
		}
	}
}

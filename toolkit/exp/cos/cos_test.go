package cos

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/prm"
	"github.com/paperlab/paperlab/toolkit/probe"
)

// TestSmokeRun runs experiment "cos" at smoke scale (seconds) and checks that metrics.json has every
// method with the metrics the claims and room checks read, the curves the figures need, readable PRM traces with
// labels aligned to their tags, and that every claim can be evaluated.
func TestSmokeRun(t *testing.T) {
	_, back, dir := exptest.Smoke(t, "cos")
	cfg := ConfigFor(exp.Smoke)
	exptest.RequireMetrics(t, back, []string{"sft", "dpo-outcome", "dpo-answer", "dpo-step-answer"}, []string{"accuracy", "accuracy_mean16", "chain_accuracy", "chain_accuracy_mean16", "chain_length"}, 1)
	var acc []string
	for _, n := range cfg.SearchN {
		acc = append(acc, fmt.Sprintf("acc_n%d", n), fmt.Sprintf("tokens_n%d", n))
	}
	exptest.RequireMetrics(t, back, SearchMethods, acc, 1)
	exptest.RequireMetrics(t, back, []string{"prm", "prm-selfconf", "prm-judge"}, []string{"step_accuracy", "step_auc", "self_step_auc", "mc_label_gold_agreement", "judge_traces",
		"best_step", "steps_run", "at_cap", "train_traces", "select_traces", "check_traces", "rank_traces", "heldout_step_accuracy"}, 1)
	// The independent PRMs record their restarts (at most PRMRestarts) and every scored attempt's
	// selection AUC; the one kept has the best of them.
	for _, m := range []string{"prm", "prm-d32"} {
		r := back.RunsOf(m)[0]
		n, ok := r.Final["restarts"]
		if !ok || n < 0 || n > float64(cfg.PRMRestarts) {
			t.Fatalf("%s: restarts %v (recorded %v), want 0…%d", m, n, ok, cfg.PRMRestarts)
		}
		self, hasSelf := r.Final["select_self_step_auc"]
		for k := 0; k <= int(n); k++ {
			a, ok := r.Final[fmt.Sprintf("attempt%d_select_step_auc", k)]
			if ok && a > r.Final["select_step_auc"] {
				t.Fatalf("%s: attempt %d selection AUC %v above the kept %v", m, k, a, r.Final["select_step_auc"])
			}
			// The rule: every attempt before the last failed to beat the policy; a last one short of the
			// cap beat it (or there was nothing to beat).
			beat := !hasSelf || (ok && a > self)
			if (k < int(n) && beat) || (k == int(n) && k < cfg.PRMRestarts && !beat) {
				t.Fatalf("%s: attempt %d of %v (selection AUC %v, recorded %v; policy %v) breaks the restart rule", m, k, n, a, ok, self)
			}
		}
		t.Logf("%s: %v restarts, policy's selection AUC %v (recorded %v)", m, n, self, hasSelf)
	}
	// The ablation parts: Table 3's widths (parameters growing with the width), Table 5's GRPO runs.
	exptest.RequireMetrics(t, back, []string{"prm-d32", "prm-d64"}, []string{"seen_step_accuracy", "heldout_step_accuracy", "seen_answer_accuracy", "heldout_answer_accuracy", "params"}, 1)
	narrow, _ := back.Final("prm-d32", "params", 1)
	if wide, _ := back.Final("prm-d64", "params", 1); !(narrow > 0) || narrow >= wide {
		t.Fatalf("prm-d32 has %v parameters, prm-d64 %v", narrow, wide)
	}
	exptest.RequireMetrics(t, back, []string{"grpo-outcome", "grpo-prm"}, []string{"accuracy", "accuracy_mean16", "kl_sft", "train_reward"}, 1)
	for _, m := range []string{"grpo-outcome", "grpo-prm"} {
		if c := back.RunsOf(m)[0].Curves["path/kl_sft"]; len(c.X) < 2 || c.X[0] != 0 || c.Y[0] != 0 {
			t.Fatalf("%s: KL path %v, want one starting at step 0 from 0", m, c)
		}
	}
	exptest.RequireMetrics(t, back, []string{"sft-free-form", "dpo-outcome-free-form", "sft-answer-only", "dpo-outcome-answer-only"}, []string{"accuracy", "accuracy_mean16", "kl_sft"}, 1)
	exptest.RequireMetrics(t, back, []string{"sft-free-form", "dpo-outcome-free-form"}, []string{"chain_accuracy_mean16"}, 1)
	exptest.RequireMetrics(t, back, []string{"dpo-step-wise"}, []string{"round1_accuracy_mean16", "pairs", "kl_sft"}, 1)
	exptest.RequireMetrics(t, back, []string{"dpo-step-answer"}, []string{"round1_accuracy_mean16", "round1_kl_sft"}, 1)
	// The held-out split: the PRMs hold the checkpoint of a step they ran, and it is one the
	// selection half scored.
	for _, m := range []string{"prm", "prm-judge"} {
		r := back.RunsOf(m)[0]
		best, ran := r.Final["best_step"], r.Final["steps_run"]
		if best < 1 || best > ran || ran > float64(cfg.PRM.Steps) {
			t.Fatalf("%s holds step %v of %v (cap %d)", m, best, ran, cfg.PRM.Steps)
		}
		if v := r.Curves["select/step_auc"]; len(v.X) > 0 && v.X[len(v.X)-1] > ran {
			t.Fatalf("%s: selection curve %v beyond the last step %v", m, v, ran)
		}
	}
	exptest.RequireMetrics(t, back, []string{"step-weight"}, []string{"bon_w0", "bon_w0.2", "bon_w1", "oracle_bon", "self_bon"}, 1)
	// pass@N is an upper bound of every vote over the same samples, and grows with N.
	for _, n := range cfg.SearchN {
		k := fmt.Sprintf("acc_n%d", n)
		p, _ := back.Final("pass", k, 1)
		for _, m := range []string{"majority", "bon", "weighted"} {
			if v, _ := back.Final(m, k, 1); v > p+1e-12 {
				t.Fatalf("%s %s = %v above pass@N %v", m, k, v, p)
			}
		}
	}
	for _, m := range Methods {
		r := back.RunsOf(m.Name)[0]
		for _, k := range []string{"round/accuracy", "round/chain_length", "round/pairs", "round/steps", "round/kl_sft"} {
			if len(r.Curves[k].Y) == 0 {
				t.Fatalf("%s: curve %s missing", m.Name, k)
			}
		}
		if n := len(r.Curves["round/accuracy"].Y); n != cfg.Rounds+1 {
			t.Fatalf("%s: %d points by round, want %d", m.Name, n, cfg.Rounds+1)
		}
		// One epoch a round: the steps follow the pairs; KL from SFT starts at 0.
		for i, p := range r.Curves["round/pairs"].Y {
			if got, want := r.Curves["round/steps"].Y[i], float64(prm.RoundSteps(cfg.RoundEpochs, int(p), cfg.Round.BatchSize)); got != want {
				t.Fatalf("%s round %d: %v steps for %v pairs, want %v", m.Name, i+1, got, p, want)
			}
		}
		if k := r.Curves["round/kl_sft"].Y; k[0] != 0 {
			t.Fatalf("%s: KL from SFT before round 1 is %v", m.Name, k[0])
		}
		// The path starts at the SFT policy (step 0, KL 0) and has a point every Round.EvalEvery steps.
		p := r.Curves["path/kl_sft"]
		if len(p.X) < 2 || p.X[0] != 0 || p.Y[0] != 0 || len(r.Curves["path/accuracy"].X) != len(p.X) {
			t.Fatalf("%s: path %v", m.Name, p)
		}
	}
	// Both step searches and best-of-N spend comparable numbers of generated tokens.
	o, _ := back.Final("bon", "tokens_n8", 1)
	for _, m := range []string{"beam", "step-search"} {
		b, _ := back.Final(m, "tokens_n8", 1)
		if !(b > 0.5*o && b < 1.5*o) {
			t.Fatalf("tokens per question at N=8: %s %.1f, best-of-N %.1f", m, b, o)
		}
	}
	recs, err := prm.ReadRecords(filepath.Join(dir, "checkpoints", tracesMethod, TracesFile), arith.StepTag)
	if err != nil || len(recs) == 0 {
		t.Fatalf("PRM traces: %v (%d)", err, len(recs))
	}
	// Half the traces judge-labelled (labels = gold), the rest Monte Carlo.
	var judged int
	for _, r := range recs {
		if r.Source == prm.SourceJudge {
			judged++
			for j, g := range r.Gold {
				if (r.Labels[j] == 1) != g {
					t.Fatalf("judge-labelled trace %q: labels %v, gold %v", r.Completion, r.Labels, r.Gold)
				}
			}
		}
	}
	if want := int(math.Round(cfg.JudgeShare * float64(len(recs)))); judged != want {
		t.Fatalf("%d of %d traces judge-labelled, want %d", judged, len(recs), want)
	}
	for _, c := range Claims(back) {
		if c.Text == "" {
			t.Fatal("a claim without text")
		}
	}
	if len(back.Figures) < 8 {
		t.Fatalf("%d figure files", len(back.Figures))
	}
	// The saved SFT policy: its demonstrations rebuild from the provenance, and a probe of its held-out
	// set with the recorded protocol repeats the experiment's one-sample accuracy.
	pol, err := probe.Open(filepath.Join(dir, "checkpoints", "sft"))
	if err != nil {
		t.Fatal(err)
	}
	defer pol.Close()
	demos, err := pol.Prov.ArithExamples("sft")
	if err != nil || len(demos) != cfg.SFTSize {
		t.Fatalf("rebuilt demonstrations: %v (%d)", err, len(demos))
	}
	rep, err := probe.Run(pol, nil, probe.Options{K: pol.Prov.Eval.Samples, Temperature: 1, Boot: -1, Scores: []string{"lpm"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Metrics["lpm"].Value("accuracy"), back.RunsOf("sft")[0].Final["accuracy_mean16"]; got != want {
		t.Fatalf("probe accuracy %v, recorded mean@%d accuracy %v", got, cfg.EvalSamples, want)
	}
	for _, m := range []string{"dpo-outcome", "dpo-answer", "dpo-step-answer"} {
		if _, err := probe.Open(filepath.Join(dir, "checkpoints", m)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVisionSmokeRun runs "cos-vision" at smoke scale: every method is there, the saved SFT policy
// reads statements through the patch embedder, and a probe of it (rendering the statements again
// from the checkpoint's configuration) repeats the recorded one-sample accuracy.
func TestVisionSmokeRun(t *testing.T) {
	_, back, dir := exptest.Smoke(t, "cos-vision")
	exptest.RequireMetrics(t, back, []string{"sft", "dpo-outcome", "dpo-answer", "dpo-step-answer"}, []string{"accuracy", "accuracy_mean16", "chain_accuracy", "chain_accuracy_mean16", "chain_length"}, 1)
	exptest.RequireMetrics(t, back, []string{"prm"}, []string{"step_accuracy", "step_auc"}, 1)
	pol, err := probe.Open(filepath.Join(dir, "checkpoints", "sft"))
	if err != nil {
		t.Fatal(err)
	}
	defer pol.Close()
	if c := pol.Model.Config; c.Renderer != lmtask.GlyphRenderer || c.Pixels != arith.GlyphPixels {
		t.Fatalf("saved policy embedder %q/%d, want %q/%d", c.Renderer, c.Pixels, lmtask.GlyphRenderer, arith.GlyphPixels)
	}
	if pol.Prov.Experiment != "cos-vision" {
		t.Fatalf("provenance names experiment %q", pol.Prov.Experiment)
	}
	rep, err := probe.Run(pol, nil, probe.Options{K: pol.Prov.Eval.Samples, Temperature: 1, Boot: -1, Scores: []string{"lpm"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Metrics["lpm"].Value("accuracy"), back.RunsOf("sft")[0].Final["accuracy_mean16"]; got != want {
		t.Fatalf("probe accuracy %v, recorded %v", got, want)
	}
}

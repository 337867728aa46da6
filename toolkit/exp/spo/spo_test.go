package spo

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// TestSmokeRunMetricsComplete runs experiment "spo" at smoke scale and checks the metrics file, the
// stored preference pairs (readable, with their seed) and the claims' evaluation.
func TestSmokeRunMetricsComplete(t *testing.T) {
	_, back, dir := exptest.Smoke(t, "spo")
	exptest.RequireMetrics(t, back, []string{"sft", "dpo-1", "seq-dpo", "mixed-dpo", "spo", "spo-flip"},
		[]string{"reward_1", "reward_2", "helpful_safe", "blind_reward_1", "blind_helpful_safe"}, 1)
	// Covering distinct safe prompt letters is part of covering distinct prompt letters.
	for _, m := range []string{"sft", "spo"} {
		if hs, r1 := back.Summary[m]["helpful_safe"].Mean, back.Summary[m]["reward_1"].Mean; hs > r1 || hs < 0 {
			t.Fatalf("%s: helpful_safe %v outside [0, reward_1 = %v]", m, hs, r1)
		}
	}
	run := back.RunsOf("spo")[0]
	for _, k := range []string{"round1/reward_1", "round2/reward_2", "weights/spo", "weights/seq-dpo", "round2/rewards/margins"} {
		if c, ok := run.Curves[k]; !ok || len(c.Y) == 0 {
			t.Fatalf("spo: curve %s missing", k)
		}
	}
	for _, dim := range ConfigFor("smoke").Dims {
		path := filepath.Join(dir, "pairs", dim+"_seed1.jsonl")
		pairs, err := prefs.Default().ReadJSONL(path)
		if err != nil || len(pairs) == 0 {
			t.Fatalf("%s: %v (%d pairs)", path, err, len(pairs))
		}
		if pairs[0].Dimension != dim || pairs[0].Seed == 0 {
			t.Fatalf("pair %+v lacks its dimension or seed", pairs[0])
		}
	}
	for _, c := range Claims(back) {
		if len(c.Diffs) == 0 && c.Text != "" {
			t.Logf("claim not measurable at smoke scale: %s", c.Text)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pareto.svg")); err != nil {
		t.Fatal(err)
	}
}

// TestMakePairsDeterministic: the experiment's own pair generator (SFT samples labelled by
// Bradley–Terry) gives the same pairs and the same JSONL file for a seed, other pairs for another
// seed, and never uses a held-out prompt.
func TestMakePairsDeterministic(t *testing.T) {
	cfg := ConfigFor(exp.Smoke)
	tok, err := lm.NewTokenizer(prefs.Alphabet)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lm.New(cfg.Model, tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := &setup{cfg: cfg, tok: tok, sft: m, seed: 1}
	dirA, dirB := t.TempDir(), t.TempDir()
	a, err := s.makePairs("helpful", 100, dirA)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.makePairs("helpful", 100, dirB)
	c, _ := s.makePairs("helpful", 101, t.TempDir())
	if len(a) < 10 || !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Fatalf("pairs are not a function of the seed (%d pairs; same seed equal %v; other seed equal %v)",
			len(a), reflect.DeepEqual(a, b), reflect.DeepEqual(a, c))
	}
	fa, err := os.ReadFile(filepath.Join(dirA, "pairs", "helpful_seed1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := os.ReadFile(filepath.Join(dirB, "pairs", "helpful_seed1.jsonl"))
	if !bytes.Equal(fa, fb) {
		t.Fatal("the stored JSONL differs between two runs with one seed")
	}
	pairs, err := cfg.Task.ReadJSONL(filepath.Join(dirA, "pairs", "helpful_seed1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		if cfg.Task.HeldOut(p.Prompt) {
			t.Fatalf("pair %d uses the held-out prompt %q", p.ID, p.Prompt)
		}
	}
}

// Settings that would name two runs alike or make the prompt-blind score meaningless are errors.
func TestConfigValidate(t *testing.T) {
	if err := ConfigFor(exp.Default).Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	for name, edit := range map[string]func(*Config){
		"one eval prompt":    func(c *Config) { c.EvalPrompts = 1 },
		"flip of zero":       func(c *Config) { c.Lambda, c.Sweep = 0, []float64{1} },
		"sweep repeats λ":    func(c *Config) { c.Sweep = []float64{c.Lambda} },
		"sweep repeats flip": func(c *Config) { c.Sweep = []float64{-c.Lambda} },
	} {
		c := ConfigFor(exp.Default)
		edit(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

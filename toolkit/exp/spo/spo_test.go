package spo

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// TestSmokeRunMetricsComplete runs experiment "spo" at smoke scale (every part) and checks the
// metrics file, the stored preference pairs (readable, with their seed) and the claims' evaluation.
func TestSmokeRunMetricsComplete(t *testing.T) {
	_, back, dir := exptest.Smoke(t, "spo")
	cfg := ConfigFor(exp.Smoke)
	exptest.RequireMetrics(t, back, []string{"sft", "dpo-1", "seq-dpo", "seq-dpo-β0.5", "mixed-dpo", "mixed-dpo-0.25", "spo", "spo-λ1", "spo-flip",
		ProbeRound1, ProbeRound2, cfg.SlowName("seq-dpo"), cfg.SlowName("seq-dpo-β0.5"), cfg.SlowName("spo"), cfg.SlowName("spo-λ1"),
		"dpo-1-r0.1", "seq-dpo-r0.1", "spo-r0.1", ThreeRound1, ThreeSeq2, ThreeSPO2, ThreeSeq, ThreeSPO, ThreeSPOSeq, ThreeSPODirect, ThreeMixed},
		[]string{"reward_1", "reward_2", "helpful_safe", "blind_reward_1", "blind_helpful_safe", "kl_sft"}, 1)
	// Covering distinct safe prompt letters is part of covering distinct prompt letters.
	for _, m := range []string{"sft", "spo"} {
		if hs, r1 := back.Summary[m]["helpful_safe"].Mean, back.Summary[m]["reward_1"].Mean; hs > r1 || hs < 0 {
			t.Fatalf("%s: helpful_safe %v outside [0, reward_1 = %v]", m, hs, r1)
		}
	}
	// Every round's path, with a point at step 0; the gradient weights along round 2 of naive DPO,
	// SPO and the flip; part three's third reward along round 3 and mixed 3-way DPO's path.
	paths := map[string][]string{
		"dpo-1":          {"round1/reward_1", "round1/reward_2", "round1/helpful_safe", "round1/kl_sft"},
		"mixed-dpo-0.25": {"mixed/reward_1", "mixed/reward_2", "mixed/helpful_safe", "mixed/kl_sft"},
		ThreeSPO:         {"round3/reward_1", "round3/reward_2", "round3/reward_3"},
		ThreeMixed:       {"mixed/reward_3", "mixed/reward_1"},
		"spo-λ1":         {"round2/reward_1", "round2/kl_pi1"},
	}
	for _, m := range []string{"seq-dpo", "spo", "spo-flip"} {
		paths[m] = []string{"round2/reward_1", "round2/reward_2", "round2/helpful_safe", "round2/kl_pi1", "round2/kl_sft",
			"round2/weight_refusal", "round2/weight_ordinary", "round2/rewards/margins"}
	}
	paths["spo"] = append(paths["spo"], "weights/spo", "weights/seq-dpo")
	// Every path method's curves lie where the claims read them (pathPrefix): a method missing
	// there reads "not measured" (spo-3 did, for 3d-spo-2-then-dpo, until 2026-12-06).
	for _, r := range back.Runs {
		if r.Seed != 1 || r.Method == "sft" || strings.HasPrefix(r.Method, "prm") {
			continue
		}
		if _, ok := r.Curves[pathPrefix(r.Method)+"reward_1"]; !ok {
			var keys []string
			for k := range r.Curves {
				keys = append(keys, k)
			}
			t.Errorf("%s: no %sreward_1 among its curves %v", r.Method, pathPrefix(r.Method), keys)
		}
	}
	for m, keys := range paths {
		run := back.RunsOf(m)[0]
		for _, k := range keys {
			c, ok := run.Curves[k]
			if !ok || len(c.Y) == 0 {
				t.Fatalf("%s: curve %s missing", m, k)
			}
			if !strings.HasPrefix(k, "weights/") && !strings.HasSuffix(k, "margins") && c.X[0] != 0 {
				t.Fatalf("%s: curve %s starts at step %v, want a point at step 0", m, k, c.X[0])
			}
		}
	}
	// Round 2 and mixed DPO are evaluated every DenseEvery steps up to DenseUntil, then every EvalEvery.
	if x := back.RunsOf("seq-dpo")[0].Curves["round2/reward_1"].X; !slices.Equal(x, []float64{0, 2, 4, 5, 10}) {
		t.Errorf("round 2 evaluated at %v, want [0 2 4 5 10]", x)
	}
	if x := back.RunsOf("mixed-dpo")[0].Curves["mixed/reward_1"].X; !slices.Equal(x[:4], []float64{0, 2, 4, 10}) {
		t.Errorf("mixed DPO evaluated at %v, want [0 2 4 10 …]", x)
	}
	// The slow part records its runs with their final rewards.
	if _, ok := back.Summary[cfg.SlowName("spo")]["reward_2"]; !ok {
		t.Error("the slow part's SPO has no final reward_2")
	}
	// At step 0 of round 2 the policy is π₁: naive DPO weighs every pair ½, KL from π₁ is 0.
	seq := back.RunsOf("seq-dpo")[0]
	if w := seq.Curves["round2/weight_ordinary"].Y[0]; math.Abs(w-0.5) > 1e-6 {
		t.Errorf("seq-dpo's weight at round 2's step 0 is %v, want ½", w)
	}
	if kl := seq.Curves["round2/kl_pi1"].Y[0]; math.Abs(kl) > 1e-3 {
		t.Errorf("KL(π‖π₁) at round 2's step 0 is %v, want 0", kl)
	}
	for _, k := range []string{"rhat_agree", "rhat_refusal", "rhat_ordinary"} {
		if _, ok := back.Summary["dpo-1"][k]; !ok {
			t.Errorf("dpo-1 lacks %s", k)
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
// seed, never uses a held-out prompt, and on the two-label task labels one set of pairs on both
// dimensions: the same prompts and responses, the same refusal pairs.
func TestMakePairsDeterministic(t *testing.T) {
	cfg := ConfigFor(exp.Smoke)
	cfg.PairsPerDim = 400 // an untrained model: many samples are empty or malformed and skipped
	tok, err := lm.NewTokenizer(prefs.Alphabet)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lm.New(cfg.Model, tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	gen := func(seed uint64, dir string) *arm {
		s := &arm{setup: &setup{cfg: cfg, tok: tok, sft: m, seed: seed, opt: exp.Options{Out: dir}}, task: cfg.Task, dims: cfg.Dims}
		if err := s.makePairs(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	a, b, c := gen(1, dirA), gen(1, dirB), gen(2, t.TempDir())
	if len(a.pairs[0]) < 100 || !reflect.DeepEqual(a.labeled, b.labeled) || reflect.DeepEqual(a.labeled, c.labeled) {
		t.Fatalf("pairs are not a function of the seed (%d pairs; same seed equal %v; other seed equal %v)",
			len(a.pairs[0]), reflect.DeepEqual(a.labeled, b.labeled), reflect.DeepEqual(a.labeled, c.labeled))
	}
	for _, dim := range cfg.Dims {
		name := filepath.Join("pairs", dim+"_seed1.jsonl")
		fa, err := os.ReadFile(filepath.Join(dirA, name))
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := os.ReadFile(filepath.Join(dirB, name))
		if !bytes.Equal(fa, fb) {
			t.Fatalf("the stored %s differs between two runs with one seed", name)
		}
	}
	help, err := cfg.Task.ReadJSONL(filepath.Join(dirA, "pairs", "helpful_seed1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	harm, err := cfg.Task.ReadJSONL(filepath.Join(dirA, "pairs", "harmless_seed1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(help) != len(harm) {
		t.Fatalf("%d helpful and %d harmless pairs: the two-label task labels one set", len(help), len(harm))
	}
	refusals := 0
	for i, p := range help {
		if cfg.Task.HeldOut(p.Prompt) {
			t.Fatalf("pair %d uses the held-out prompt %q", p.ID, p.Prompt)
		}
		q := harm[i]
		same := p.Prompt == q.Prompt && ((p.Chosen == q.Chosen && p.Rejected == q.Rejected) || (p.Chosen == q.Rejected && p.Rejected == q.Chosen))
		if !same || p.Refusal != q.Refusal || p.ID != q.ID {
			t.Fatalf("pair %d: helpful %+v and harmless %+v are not one pair labelled twice", i, p, q)
		}
		if p.Refusal {
			refusals++
		}
	}
	if share := float64(refusals) / float64(len(help)); share < 0.15 || share > 0.45 {
		t.Errorf("refusal share %.2f of %d pairs, configured %.2f", share, len(help), cfg.Task.RefusalShare)
	}
}

// Settings that would name two runs alike or make the prompt-blind score meaningless are errors.
func TestConfigValidate(t *testing.T) {
	if err := ConfigFor(exp.Default).Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	for name, edit := range map[string]func(*Config){
		"one eval prompt":    func(c *Config) { c.EvalPrompts = 1 },
		"lambda zero":        func(c *Config) { c.Lambda, c.Sweep = 0, []float64{1} },
		"sweep has zero":     func(c *Config) { c.Sweep = []float64{0} },
		"share 1/3 of 1":     func(c *Config) { c.MixedShares = []float64{1} },
		"share not a ratio":  func(c *Config) { c.MixedShares = []float64{0.03} },
		"two shares a name":  func(c *Config) { c.MixedShares = []float64{0.67, 2.0 / 3} },
		"β repeated":         func(c *Config) { c.SeqBetas = []float64{0.1, 0.1} },
		"refusal share main": func(c *Config) { c.RefusalShares = []float64{c.Task.RefusalShare} },
		"third is a dim":     func(c *Config) { c.Third = c.Dims[0] },
		"third one λ":        func(c *Config) { c.ThreeLambdas = []float64{0.5} },
		"round 2 no evals":   func(c *Config) { c.Round2.EvalEvery = 0 },
		"one dimension":      func(c *Config) { c.Dims = c.Dims[:1] },
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

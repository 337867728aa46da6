// Package spo is experiment "spo": sequential multi-dimension preference optimisation (SPO) against
// DPO baselines on the tiny LM (shared/papers §2).
//
// Per seed: SFT on random responses (a policy with no preference), preference pairs per dimension
// drawn by Bradley–Terry from the SFT model's own samples (written as JSONL with their seed), then:
//
//	dpo-1      DPO on dimension 1 (helpful) from SFT
//	seq-dpo    dpo-1, then DPO on dimension 2 (harmless) with dpo-1 as reference (naive sequential)
//	mixed-dpo  DPO on the union of both dimensions' pairs from SFT (same number of steps as two rounds)
//	spo        dpo-1, then SPO on dimension 2: DPO with the offset λ·Δr̂_1, where r̂_1 = β·log π_1/π_SFT
//	spo-λ…     the λ sweep
//	spo-flip   the diagnostic with the offset's sign flipped (−λ·Δr̂_1)
//
// The paper's claim: naive sequential DPO loses dimension 1 while SPO keeps it and gains dimension 2;
// larger λ trades dimension 2 for dimension 1.
//
// What SPO's loss optimises (our reconstruction, §2.2): with z = β·Δθ − λ·Δr̂_1 its optimum is
// π_2 ∝ π_1·exp(R_2/β)·(π_1/π_SFT)^λ — it extrapolates round 1's change (raises it to the power
// 1 + λ relative to SFT) rather than holding π_1 in place. The sign of the offset and the base model
// of r̂_1 stay [UNVERIFIED] parameters (Lambda may be negative: spo-flip).
//
// Every evaluation also scores the same responses against other held-out prompts ("blind_…"): what
// a prompt-blind policy with the same responses would earn, the part of a gain that needs no prompt.
package spo

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/pref"
	"github.com/paperlab/paperlab/toolkit/probe"
)

// maxNew bounds a response (8 letters + EOS).
const maxNew = 9

// sftStream is the stream of the generator that draws the SFT demonstrations' responses.
const sftStream = 0x736674

// Config of experiment "spo".
type Config struct {
	Model lm.Config    `json:"model"`
	Task  prefs.Config `json:"task"`
	// Dims are the dimensions aligned in order (round 1, round 2).
	Dims []string `json:"dims"`
	// SFT on SFTSize (prompt, random response) demonstrations.
	SFTSize int          `json:"sft_size"`
	SFT     lm.SFTConfig `json:"sft"`
	// PairsPerDim preference pairs per dimension (one prompt each, two SFT samples).
	PairsPerDim int `json:"pairs_per_dim"`
	// Round is the configuration of one DPO/SPO round.
	Round pref.TrainConfig `json:"round"`
	// Lambda is SPO's λ; Sweep the extra λ values run as spo-λ<value>; Flip adds spo-flip, SPO with
	// −Lambda (the sign diagnostic).
	Lambda float64   `json:"lambda"`
	Sweep  []float64 `json:"sweep"`
	Flip   bool      `json:"flip"`
	// EvalPrompts held-out prompts × EvalSamples samples measure the true rewards.
	EvalPrompts int `json:"eval_prompts"`
	EvalSamples int `json:"eval_samples"`
}

// ConfigFor returns the configuration at a scale.
func ConfigFor(s exp.Scale) Config {
	sftOpt := lm.DefaultOpt(3e-3)
	sftOpt.WarmupSteps, sftOpt.TotalSteps, sftOpt.MinLRFrac, sftOpt.ClipNorm = 20, 400, 0.1, 1
	c := Config{
		Model: lm.ConfigR(), Task: prefs.Default(), Dims: []string{"helpful", "harmless"},
		SFTSize: 8000, SFT: lm.SFTConfig{Steps: 400, BatchSize: 64, Opt: sftOpt},
		PairsPerDim: 2000,
		Round:       pref.TrainConfig{Beta: 0.2, Steps: 150, BatchSize: 64, Opt: lm.DefaultOpt(1e-3), EvalEvery: 50},
		Lambda:      4, Sweep: []float64{1, 16}, Flip: true,
		EvalPrompts: 200, EvalSamples: 4,
	}
	if s == exp.Smoke {
		c.SFTSize, c.SFT.Steps, c.SFT.Opt.TotalSteps, c.SFT.Opt.WarmupSteps = 500, 40, 40, 4
		c.PairsPerDim, c.Round.Steps, c.Round.EvalEvery, c.EvalPrompts = 64, 10, 5, 32
		c.Sweep = []float64{16}
	}
	return c
}

// Validate names a setting that would make the runs ambiguous or a measure meaningless.
func (c Config) Validate() error {
	if c.EvalPrompts < 2 {
		return fmt.Errorf("spo: eval_prompts = %d, need ≥ 2 (the prompt-blind scores pair each response with another prompt)", c.EvalPrompts)
	}
	if c.Flip && c.Lambda == 0 {
		return fmt.Errorf("spo: flip with lambda 0 (−0 is 0: no diagnostic)")
	}
	seen := map[float64]bool{c.Lambda: true}
	if c.Flip {
		seen[-c.Lambda] = true
	}
	for _, l := range c.Sweep {
		if seen[l] {
			return fmt.Errorf("spo: sweep value %g repeats lambda %g or its flip", l, c.Lambda)
		}
		seen[l] = true
	}
	return nil
}

// setup is what every method of a seed shares.
type setup struct {
	cfg     Config
	tok     *lm.Tokenizer
	sft     *lm.Model
	pairs   [][]pref.PairEx // per dimension
	eval    []string
	evalIDs [][]int32
	seed    uint64
	opt     exp.Options
}

// Run is the experiment.
func Run(opt exp.Options) (*exp.Result, error) {
	return exp.RunSeeds("spo", opt, ConfigFor, Config.Validate, func(cfg Config, seed uint64, res *exp.Result) error {
		return runSeed(cfg, seed, opt, res)
	})
}

func runSeed(cfg Config, seed uint64, opt exp.Options, res *exp.Result) error {
	t0 := time.Now()
	tok, err := lm.NewTokenizer(prefs.Alphabet)
	if err != nil {
		return err
	}
	s := &setup{cfg: cfg, tok: tok, seed: seed, opt: opt}
	// SFT on random responses.
	prompts, err := cfg.Task.TrainPrompts(seed, cfg.SFTSize)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, sftStream))
	demos := make([]lm.Example, len(prompts))
	for i, x := range prompts {
		demos[i] = lm.Example{Prompt: s.enc(x), Completion: s.enc(cfg.Task.Response(r, x))}
	}
	if s.sft, err = lm.New(cfg.Model, tok, seed); err != nil {
		return err
	}
	sc := cfg.SFT
	sc.Seed = seed
	tr, _, err := lm.TrainSFT(s.sft, sc, demos, nil, lm.SFTHooks{Progress: s.progress("SFT", sc.Steps)})
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return err
	}
	// Preference pairs per dimension from the SFT model's samples, stored with their seed.
	for d, dim := range cfg.Dims {
		ps, err := s.makePairs(dim, seed*100+uint64(d), opt.Out)
		if err != nil {
			return err
		}
		s.pairs = append(s.pairs, ps)
	}
	if s.eval, err = cfg.Task.EvalPrompts(seed+50_000, cfg.EvalPrompts); err != nil {
		return err
	}
	for _, x := range s.eval {
		s.evalIDs = append(s.evalIDs, s.enc(x))
	}
	res.Timing["sft_and_pairs"] += time.Since(t0).Seconds()
	return s.methods(res)
}

// progress is a progress display for one part of this seed's run.
func (s *setup) progress(label string, total int) *nb.Progress {
	return s.opt.Progress(fmt.Sprintf("spo seed %d: %s", s.seed, label), total)
}

func (s *setup) enc(x string) []int32 {
	ids, err := s.tok.Encode(x)
	if err != nil {
		panic(err) // generated text is always in the alphabet
	}
	return ids
}

// makePairs samples two SFT responses per fresh prompt and orders them by Bradley–Terry on dim.
func (s *setup) makePairs(dim string, seed uint64, out string) ([]pref.PairEx, error) {
	c := s.cfg
	prompts, err := c.Task.TrainPrompts(seed+777, c.PairsPerDim)
	if err != nil {
		return nil, err
	}
	ids := make([][]int32, 0, 2*len(prompts))
	for _, x := range prompts {
		ids = append(ids, s.enc(x))
	}
	ids = append(ids, ids...)
	gens, err := s.sft.Sample(ids, lm.SampleConfig{MaxNew: maxNew, Temperature: 1, Seed: seed})
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x6274))
	var pairs []prefs.Pair
	var exs []pref.PairEx
	n := len(prompts)
	for i, x := range prompts {
		a, b := s.tok.Decode(gens[i].Tokens), s.tok.Decode(gens[n+i].Tokens)
		if a == "" || b == "" || a == b || strings.Trim(a+b, prefs.Letters) != "" {
			continue // empty, identical or malformed (e.g. a sampled '>') responses teach nothing
		}
		p, err := c.Task.Label(r, len(pairs), dim, x, a, b, seed)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, p)
		exs = append(exs, pref.PairEx{Prompt: s.enc(x), Chosen: s.enc(p.Chosen), Rejected: s.enc(p.Rejected)})
	}
	if out != "" {
		if err := prefs.WriteJSONL(filepath.Join(out, "pairs", fmt.Sprintf("%s_seed%d.jsonl", dim, s.seed)), pairs); err != nil {
			return nil, err
		}
	}
	return exs, nil
}

// evaluate returns the mean true reward of each dimension over held-out samples ("reward_1", …),
// "helpful_safe" (distinct safe prompt letters covered), "length", and the prompt-blind references
// "blind_reward_1" and "blind_helpful_safe": the same responses scored against the next held-out
// prompt instead of their own.
func (s *setup) evaluate(m *lm.Model, seed uint64) (map[string]float64, error) {
	var ids [][]int32
	for k := 0; k < s.cfg.EvalSamples; k++ {
		ids = append(ids, s.evalIDs...)
	}
	gens, err := m.Sample(ids, lm.SampleConfig{MaxNew: maxNew, Temperature: 1, Seed: seed})
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	n := len(s.eval)
	texts := make([]string, len(gens))
	for i, g := range gens {
		texts[i] = s.tok.Decode(g.Tokens)
	}
	var length float64
	for d, dim := range s.cfg.Dims {
		sum, blind := 0.0, 0.0
		for i, text := range texts {
			v, err := s.cfg.Task.Reward(dim, s.eval[i%n], text)
			if err != nil {
				return nil, err
			}
			b, _ := s.cfg.Task.Reward(dim, s.eval[(i+1)%n], text)
			sum, blind = sum+v, blind+b
		}
		out[fmt.Sprintf("reward_%d", d+1)] = sum / float64(len(gens))
		if d == 0 {
			out["blind_reward_1"] = blind / float64(len(gens))
		}
	}
	var safe, blindSafe float64
	for i, text := range texts {
		safe += s.cfg.Task.HelpfulSafe(s.eval[i%n], text)
		blindSafe += s.cfg.Task.HelpfulSafe(s.eval[(i+1)%n], text)
	}
	out["helpful_safe"] = safe / float64(len(gens))
	out["blind_helpful_safe"] = blindSafe / float64(len(gens))
	for _, g := range gens {
		length += float64(len(g.Tokens))
	}
	out["length"] = length / float64(len(gens))
	return out, nil
}

// round runs one DPO/SPO round on top of history (pref.NextRound: λ per finished round, nil = DPO)
// and returns it with the curves of the true rewards during it.
func (s *setup) round(label string, history []*lm.Model, pairs []pref.PairEx, lambdas []float64, steps int, seed uint64) (*pref.RoundResult, map[string]exp.Curve, error) {
	rc := s.cfg.Round
	rc.Steps, rc.Seed = steps, seed
	r, err := pref.NextRound(history, pairs, lambdas, rc, pref.Hooks{
		Progress: s.progress(label, steps),
		OnEval: func(policy *lm.Model, step int) (map[string]float64, error) {
			return s.evaluate(policy, seed*1000+uint64(step))
		},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", label, err)
	}
	out := map[string]exp.Curve{}
	for _, k := range []string{"reward_1", "reward_2", "loss", "rewards/accuracies", "rewards/margins"} {
		out[label+"/"+k] = r.Curves[k]
	}
	return r, out, nil
}

func (s *setup) methods(res *exp.Result) error {
	c, seed := s.cfg, s.seed
	add := func(name string, m *lm.Model, curves map[string]exp.Curve, start time.Time) error {
		f, err := s.evaluate(m, seed)
		if err != nil {
			return err
		}
		res.Runs = append(res.Runs, exp.Run{Method: name, Seed: seed, Final: f, Curves: curves, Seconds: time.Since(start).Seconds()})
		if err := s.savePolicy(res, name, m); err != nil {
			return err
		}
		fmt.Fprintf(s.opt.Log, "seed %d %-10s reward_1 (%s) %.3f  reward_2 (%s) %.3f\n", seed, name, c.Dims[0], f["reward_1"], c.Dims[1], f["reward_2"])
		return nil
	}
	// Every model of this seed lives in native engine memory until closed.
	var models []*lm.Model
	keep := func(r *pref.RoundResult) *lm.Model {
		models = append(models, r.Policy)
		return r.Policy
	}
	defer func() {
		for _, m := range append(models, s.sft) {
			m.Close()
		}
	}()
	t := time.Now()
	if err := add("sft", s.sft, nil, t); err != nil {
		return err
	}
	// Round 1: DPO on dimension 1.
	t = time.Now()
	r1, c1, err := s.round("round1", []*lm.Model{s.sft}, s.pairs[0], nil, c.Round.Steps, seed)
	if err != nil {
		return err
	}
	pi1 := keep(r1)
	if err := add("dpo-1", pi1, c1, t); err != nil {
		return err
	}
	res.Timing["round1"] += time.Since(t).Seconds()
	history := []*lm.Model{s.sft, pi1}
	// Round 2, naive: DPO on dimension 2 from π_1 (λ = 0).
	t = time.Now()
	seq, c2, err := s.round("round2", history, s.pairs[1], nil, c.Round.Steps, seed+1)
	if err != nil {
		return err
	}
	if err := add("seq-dpo", keep(seq), merge(c1, c2), t); err != nil {
		return err
	}
	// Mixed: both dimensions' pairs at once, from SFT, for the steps of two rounds.
	t = time.Now()
	mixed, cm, err := s.round("mixed", []*lm.Model{s.sft}, append(append([]pref.PairEx(nil), s.pairs[0]...), s.pairs[1]...), nil, 2*c.Round.Steps, seed+2)
	if err != nil {
		return err
	}
	if err := add("mixed-dpo", keep(mixed), cm, t); err != nil {
		return err
	}
	// SPO round 2: offsets λ·Δr̂_1 from round 1's implicit rewards on the dimension-2 pairs.
	lambdas := append([]float64{c.Lambda}, c.Sweep...)
	if c.Flip {
		lambdas = append(lambdas, -c.Lambda)
	}
	for _, lambda := range lambdas {
		t = time.Now()
		spo, cs, err := s.round("round2", history, s.pairs[1], []float64{lambda}, c.Round.Steps, seed+1)
		if err != nil {
			return err
		}
		name := "spo"
		switch {
		case lambda == -c.Lambda && c.Flip && lambda != c.Lambda:
			name = "spo-flip"
		case lambda != c.Lambda:
			name = fmt.Sprintf("spo-λ%g", lambda)
		}
		curves := merge(c1, cs)
		if name == "spo" {
			// Per-pair gradient weights at the end of round 2: SPO's σ(λΔr̂ − βΔθ) and naive DPO's σ(−βΔθ).
			ws, err := pref.PairWeights(spo.Policy, pi1, c.Round.Beta, spo.Pairs)
			if err != nil {
				return err
			}
			wd, err := pref.PairWeights(seq.Policy, pi1, c.Round.Beta, seq.Pairs)
			if err != nil {
				return err
			}
			curves["weights/spo"], curves["weights/seq-dpo"] = histogram(ws), histogram(wd)
		}
		if err := add(name, keep(spo), curves, t); err != nil {
			return err
		}
		// The offset's size, which the room check "λ offset within DPO's own margin" reads (room.go).
		var abs float64
		for _, p := range spo.Pairs {
			abs += math.Abs(p.Offset)
		}
		res.Runs[len(res.Runs)-1].Final[metricOffset] = abs / float64(len(spo.Pairs))
		res.Timing["round2_"+name] += time.Since(t).Seconds()
	}
	return nil
}

// savePolicy saves a trained policy (weights only) with what rebuilds its data and repeats its final
// evaluation (probe.Provenance), where the options say so.
func (s *setup) savePolicy(res *exp.Result, method string, m *lm.Model) error {
	dir := s.opt.CheckpointDir(method, s.seed)
	if dir == "" {
		return nil
	}
	c, seed := s.cfg, s.seed
	task := c.Task
	data := []probe.Draw{{Name: "sft", Kind: "prefs_train", Seed: seed, N: c.SFTSize, ResponseSeed: seed, ResponseStream: sftStream}}
	for d, dim := range c.Dims {
		data = append(data, probe.Draw{Name: "pairs_" + dim, Kind: "prefs_train", Seed: seed*100 + uint64(d) + 777, N: c.PairsPerDim,
			File: filepath.ToSlash(filepath.Join("pairs", fmt.Sprintf("%s_seed%d.jsonl", dim, seed)))})
	}
	data = append(data, probe.Draw{Name: "held_out", Kind: "prefs_eval", Seed: seed + 50_000, N: c.EvalPrompts})
	return probe.Save(dir, m, nil, probe.Provenance{
		Experiment: "spo", Method: method, Seed: seed, Scale: string(res.Scale), Commit: res.Commit, Engine: res.Backend,
		Task: "prefs", Prefs: &task, Data: data,
		Eval:     probe.Protocol{Samples: c.EvalSamples, Seed: seed, Temperature: 1, MaxNew: maxNew},
		Training: c,
	})
}

func merge(a, b map[string]exp.Curve) map[string]exp.Curve {
	out := make(map[string]exp.Curve, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// histogram bins weights in [0,1] into 20 bins (x = bin centre, y = fraction of pairs).
func histogram(w []float64) exp.Curve {
	const bins = 20
	c := exp.Curve{X: make([]float64, bins), Y: make([]float64, bins)}
	for b := range c.X {
		c.X[b] = (float64(b) + 0.5) / bins
	}
	for _, v := range w {
		b := min(int(v*bins), bins-1)
		c.Y[b] += 1 / float64(len(w))
	}
	return c
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "spo",
		Description: "SPO vs DPO baselines on a two-dimension preference task (helpful vs harmless) with the tiny LM",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 8},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
		Claims:      Claims,
		Room:        Room,
		Paper:       PaperSettings,
	})
}

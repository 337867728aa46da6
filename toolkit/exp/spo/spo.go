// Package spo is experiment "spo": sequential multi-dimension preference optimisation (SPO) against
// DPO baselines on the tiny LM (the paper, its sources and our reading of it: README.md).
//
// Per seed: SFT on random responses (a policy with no preference), preference pairs from the SFT
// model's own samples (two per prompt) labelled by Bradley–Terry on the true rewards — on the default
// two-label task every pair on both dimensions from the same two responses, 30 % of them a refusal
// against a response that covers the prompt with one unsafe letter (prefs.BuildPairs; written as
// JSONL with their seed) — then:
//
//	dpo-1            DPO on dimension 1 (helpful) from SFT: round 1, π₁
//	seq-dpo          round 2 naive: DPO on dimension 2 (harmless) with π₁ as start and reference (λ = 0)
//	spo              round 2 SPO: DPO with the offset λ·Δr̂₁, r̂₁ = β₁·log π₁/π_SFT at round 1's β₁
//	spo-λ…           the λ sweep
//	spo-flip         the diagnostic with the offset's sign flipped (−λ·Δr̂₁)
//	mixed-dpo(-s)    DPO from SFT on both dimensions' pairs, a share s of dimension-2 pairs (0.5 is
//	                 mixed-dpo), for the steps of both rounds
//
// Every round is evaluated along its path (every EvalEvery steps and at step 0): the true rewards
// ("<round>/reward_1", "<round>/reward_2", "<round>/helpful_safe"), KL(π‖π_SFT) and KL(π‖π₁)
// ("kl_sft", "kl_pi1", Monte-Carlo over the evaluation samples), and in round 2 the mean gradient
// weight σ(offset − β·Δθ) of the refusal pairs and of the ordinary pairs ("weight_refusal",
// "weight_ordinary"), so that methods are compared at matched harmlessness as well as at the end.
//
// The paper's claim: naive sequential DPO loses dimension 1 while SPO keeps it and gains dimension 2;
// larger λ trades dimension 2 for dimension 1. Its mechanism (our reconstruction from the stated
// constrained problem, README.md "Method in our words"): the
// Lagrangian optimum π₂ ∝ π₁·(π₁/π_SFT)^{λβ₁/β}·e^{R₂/β}; a pair's gradient weight is
// σ(λΔr̂₁ − βΔθ), so pairs whose preferred response is worse on dimension 1 (refusals, Δr̂₁ < 0) are
// weighed down. The sign of the offset and the base model of r̂₁ stay [UNVERIFIED] (spo-flip).
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
	"slices"
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
	// PairsPerDim prompts of preference pairs (two SFT samples each). On the two-label task one set of
	// pairs is labelled on every dimension; on the one-label task each dimension draws its own.
	PairsPerDim int `json:"pairs_per_dim"`
	// Round1 is DPO on dimension 1 (its β is β₁, the scale of round 1's implicit reward in round 2);
	// Round2 is one DPO/SPO round on dimension 2. Both evaluate every EvalEvery steps (the paths).
	Round1 pref.TrainConfig `json:"round1"`
	Round2 pref.TrainConfig `json:"round2"`
	// LRDecay decays each round's learning rate to 0 over its steps (cosine, after the rounds'
	// Opt.WarmupSteps; Opt.TotalSteps is set to the round's steps, mixed-data DPO's included), as
	// TRL's DPOTrainer does by default (transformers' linear schedule to 0): a round ends at a
	// settled policy rather than one step of a constant-rate walk. false keeps the rate constant.
	LRDecay bool `json:"lr_decay"`
	// Lambda is SPO's λ (method "spo"); Sweep the extra λ values run as spo-λ<value>; Flip adds
	// spo-flip, SPO with −Lambda (the sign diagnostic). λ = 0 is seq-dpo.
	Lambda float64   `json:"lambda"`
	Sweep  []float64 `json:"sweep"`
	Flip   bool      `json:"flip"`
	// MixedShares are the shares of dimension-2 pairs in mixed-data DPO's data (mixed-dpo for 0.5,
	// mixed-dpo-<share> otherwise), each run from SFT for Round1.Steps + Round2.Steps steps. A share
	// must be a fraction with a denominator ≤ 20 (the data repeats each dimension's pairs).
	MixedShares []float64 `json:"mixed_shares"`
	// WeightPairs is how many round-2 pairs (the first ones) the gradient weights are tracked on.
	WeightPairs int `json:"weight_pairs"`
	// EvalPrompts held-out prompts × EvalSamples samples measure the true rewards of every final
	// policy; PathSamples samples per prompt measure them at the checkpoints along a round's path.
	EvalPrompts int `json:"eval_prompts"`
	EvalSamples int `json:"eval_samples"`
	PathSamples int `json:"path_samples"`
	// MixedEvalEvery is the checkpoint spacing of mixed-data DPO's path (its run is as long as both
	// rounds together).
	MixedEvalEvery int `json:"mixed_eval_every"`
}

// ConfigFor returns the configuration at a scale.
//
// β = 0.2 in both rounds (β₁ = β₂: the offset's exponent λβ₁/β is λ), Adam 1e-3 decaying to 0 over
// each round (LRDecay) with gradient-norm clipping at 1 and batches of 64 pairs. Round 1 runs
// RoundOneSteps: on a one-seed probe at a constant rate its held-out helpfulness rose until step
// ~150, stayed flat to ~500 and then fell as KL from SFT kept growing (over-optimisation); with the
// decay the round's end is flat by construction, so "round 1 converged" is a note on the claims,
// not a room check, and the constant-rate probe is the evidence. Round 2 runs RoundTwoSteps:
// harmlessness reached its ceiling by step ~100 on four probe seeds; the first 8-seed run with 200
// steps went over the experiment's 30-minute budget, with nearly all of the time in ONNX Runtime's
// execution of the training and sampling graphs (a CPU profile), so round 2 was shortened
// (2026-12-03). λ = 0.5 is the middle of the sweep {0.1, 0.25, 0.5, 1, 2} fixed on 2026-12-03, chosen
// before any run ([UNVERIFIED]: the paper's λ was not obtained).
func ConfigFor(s exp.Scale) Config {
	sftOpt := lm.DefaultOpt(3e-3)
	sftOpt.WarmupSteps, sftOpt.TotalSteps, sftOpt.MinLRFrac, sftOpt.ClipNorm = 20, 400, 0.1, 1
	opt := lm.DefaultOpt(1e-3)
	opt.ClipNorm = 1
	c := Config{
		Model: lm.ConfigR(), Task: prefs.Default(), Dims: []string{"helpful", "harmless"},
		SFTSize: 8000, SFT: lm.SFTConfig{Steps: 400, BatchSize: 64, Opt: sftOpt},
		PairsPerDim: 2000,
		Round1:      pref.TrainConfig{Beta: 0.2, Steps: RoundOneSteps, BatchSize: 64, Opt: opt, EvalEvery: 25},
		Round2:      pref.TrainConfig{Beta: 0.2, Steps: RoundTwoSteps, BatchSize: 64, Opt: opt, EvalEvery: 25},
		Lambda:      0.5, Sweep: []float64{0.1, 0.25, 1, 2}, Flip: true,
		LRDecay:     true,
		MixedShares: []float64{0.25, 0.5, 0.75},
		WeightPairs: 512,
		EvalPrompts: 200, EvalSamples: 4, PathSamples: 2, MixedEvalEvery: 50,
	}
	if s == exp.Smoke {
		c.SFTSize, c.SFT.Steps, c.SFT.Opt.TotalSteps, c.SFT.Opt.WarmupSteps = 500, 40, 40, 4
		c.PairsPerDim, c.EvalPrompts, c.WeightPairs = 64, 32, 32
		c.Round1.Steps, c.Round1.EvalEvery, c.Round2.Steps, c.Round2.EvalEvery, c.MixedEvalEvery = 10, 5, 10, 5, 10
		c.Sweep, c.MixedShares = []float64{1}, []float64{0.25, 0.5}
	}
	return c
}

// RoundOneSteps and RoundTwoSteps are the default rounds' lengths (see ConfigFor).
const (
	RoundOneSteps = 300
	RoundTwoSteps = 150
)

// Validate names a setting that would make the runs ambiguous or a measure meaningless.
func (c Config) Validate() error {
	if c.EvalPrompts < 2 {
		return fmt.Errorf("spo: eval_prompts = %d, need ≥ 2 (the prompt-blind scores pair each response with another prompt)", c.EvalPrompts)
	}
	if c.EvalSamples < 1 || c.PathSamples < 1 || c.MixedEvalEvery < 1 {
		return fmt.Errorf("spo: eval_samples %d, path_samples %d, mixed_eval_every %d: need ≥ 1", c.EvalSamples, c.PathSamples, c.MixedEvalEvery)
	}
	if len(c.Dims) != 2 {
		return fmt.Errorf("spo: dims = %v, need two (round 1, round 2)", c.Dims)
	}
	for name, r := range map[string]pref.TrainConfig{"round1": c.Round1, "round2": c.Round2} {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("spo: %s: %w", name, err)
		}
		if r.EvalEvery < 1 {
			return fmt.Errorf("spo: %s eval_every = %d, need ≥ 1 (methods are compared along their paths)", name, r.EvalEvery)
		}
	}
	if c.Lambda == 0 {
		return fmt.Errorf("spo: lambda 0 is seq-dpo (give SPO's λ)")
	}
	seen := map[float64]bool{0: true, c.Lambda: true}
	if c.Flip {
		seen[-c.Lambda] = true
	}
	for _, l := range c.Sweep {
		if seen[l] {
			return fmt.Errorf("spo: sweep value %g repeats 0 (seq-dpo), lambda %g or its flip", l, c.Lambda)
		}
		seen[l] = true
	}
	for _, sh := range c.MixedShares {
		if _, _, ok := shareRatio(sh); !ok {
			return fmt.Errorf("spo: mixed_shares value %g is not a fraction in (0, 1) with a denominator ≤ 20", sh)
		}
	}
	return nil
}

// shareRatio writes share as k/(h+k) with h + k ≤ 20: h copies of dimension 1's pairs and k of
// dimension 2's.
func shareRatio(share float64) (h, k int, ok bool) {
	for n := 1; n <= 20; n++ {
		k := int(math.Round(share * float64(n)))
		if k > 0 && k < n && math.Abs(float64(k)/float64(n)-share) < 1e-9 {
			return n - k, k, true
		}
	}
	return 0, 0, false
}

// MixedName is mixed-data DPO's method name at a share of dimension-2 pairs.
func MixedName(share float64) string {
	if share == 0.5 {
		return "mixed-dpo"
	}
	return fmt.Sprintf("mixed-dpo-%g", share)
}

// SPOName is the method name of SPO at λ (cfg.Lambda is "spo", its negative "spo-flip" when cfg.Flip,
// 0 "seq-dpo").
func (c Config) SPOName(lambda float64) string {
	switch {
	case lambda == 0:
		return "seq-dpo"
	case lambda == c.Lambda:
		return "spo"
	case lambda == -c.Lambda && c.Flip:
		return "spo-flip"
	}
	return fmt.Sprintf("spo-λ%g", lambda)
}

// setup is what every method of a seed shares.
type setup struct {
	cfg     Config
	tok     *lm.Tokenizer
	sft     *lm.Model
	pi1     *lm.Model       // after round 1 (nil before)
	labeled [][]prefs.Pair  // per dimension
	pairs   [][]pref.PairEx // per dimension
	eval    []string
	evalIDs [][]int32
	seed    uint64
	opt     exp.Options
	// Round 2's tracked pairs: the first WeightPairs, their refusal flags, π₁'s log-probs and Δr̂₁.
	track             []pref.PairEx
	refusal           []bool
	refChosen, refRej []float64
	gap1              []float64
}

// Run is the experiment.
func Run(opt exp.Options) (*exp.Result, error) {
	return exp.RunSeeds("spo", opt, ConfigFor, Config.Validate, func(cfg Config, seed uint64, res *exp.Result) error {
		return runSeed(cfg, seed, opt, res)
	})
}

func runSeed(cfg Config, seed uint64, opt exp.Options, res *exp.Result) error {
	s, err := prepare(cfg, seed, opt, res)
	if err != nil {
		return err
	}
	return s.methods(res)
}

// prepare trains the seed's SFT model and draws its preference pairs and held-out prompts.
func prepare(cfg Config, seed uint64, opt exp.Options, res *exp.Result) (*setup, error) {
	t0 := time.Now()
	tok, err := lm.NewTokenizer(prefs.Alphabet)
	if err != nil {
		return nil, err
	}
	s := &setup{cfg: cfg, tok: tok, seed: seed, opt: opt}
	// SFT on random responses.
	prompts, err := cfg.Task.TrainPrompts(seed, cfg.SFTSize)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, sftStream))
	demos := make([]lm.Example, len(prompts))
	for i, x := range prompts {
		demos[i] = lm.Example{Prompt: s.enc(x), Completion: s.enc(cfg.Task.Response(r, x))}
	}
	if s.sft, err = lm.New(cfg.Model, tok, seed); err != nil {
		return nil, err
	}
	sc := cfg.SFT
	sc.Seed = seed
	tr, _, err := lm.TrainSFT(s.sft, sc, demos, nil, lm.SFTHooks{Progress: s.progress("SFT", sc.Steps)})
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return nil, err
	}
	if err := s.makePairs(opt.Out); err != nil {
		return nil, err
	}
	if s.eval, err = cfg.Task.EvalPrompts(seed+50_000, cfg.EvalPrompts); err != nil {
		return nil, err
	}
	for _, x := range s.eval {
		s.evalIDs = append(s.evalIDs, s.enc(x))
	}
	res.Timing["sft_and_pairs"] += time.Since(t0).Seconds()
	return s, nil
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

// pairSeed is the seed of dimension d's pairs: the prompts are drawn with pairSeed+777, the SFT
// samples with pairSeed, the labels with pairSeed's generators (prefs.BuildPairs). The two-label
// task has one set of pairs for every dimension (d's seed is dimension 0's).
func (c Config) pairSeed(seed uint64, d int) uint64 {
	if c.Task.TwoLabel {
		d = 0
	}
	return seed*100 + uint64(d)
}

// makePairs samples two SFT responses per fresh prompt and labels them (prefs.BuildPairs): once for
// every dimension on the two-label task, per dimension on its own prompts on the one-label task.
// The pairs are written as JSONL per dimension when out is set.
func (s *setup) makePairs(out string) error {
	c := s.cfg
	draws := [][]string{c.Dims}
	if !c.Task.TwoLabel {
		draws = nil
		for _, d := range c.Dims {
			draws = append(draws, []string{d})
		}
	}
	for d, dims := range draws {
		seed := c.pairSeed(s.seed, d)
		prompts, err := c.Task.TrainPrompts(seed+777, c.PairsPerDim)
		if err != nil {
			return err
		}
		ids := make([][]int32, 0, 2*len(prompts))
		for _, x := range prompts {
			ids = append(ids, s.enc(x))
		}
		ids = append(ids, ids...)
		gens, err := s.sft.Sample(ids, lm.SampleConfig{MaxNew: maxNew, Temperature: 1, Seed: seed})
		if err != nil {
			return err
		}
		n := len(prompts)
		a, b := make([]string, n), make([]string, n)
		for i := range prompts {
			a[i], b[i] = s.tok.Decode(gens[i].Tokens), s.tok.Decode(gens[n+i].Tokens)
		}
		labeled, err := c.Task.BuildPairs(seed, dims, prompts, a, b)
		if err != nil {
			return err
		}
		s.labeled = append(s.labeled, labeled...)
	}
	for d, ps := range s.labeled {
		exs := make([]pref.PairEx, len(ps))
		for i, p := range ps {
			exs[i] = pref.PairEx{Prompt: s.enc(p.Prompt), Chosen: s.enc(p.Chosen), Rejected: s.enc(p.Rejected)}
		}
		s.pairs = append(s.pairs, exs)
		if out != "" {
			if err := prefs.WriteJSONL(filepath.Join(out, "pairs", fmt.Sprintf("%s_seed%d.jsonl", c.Dims[d], s.seed)), ps); err != nil {
				return err
			}
		}
	}
	return nil
}

// evaluate returns the mean true reward of each dimension over the given number of samples per
// held-out prompt ("reward_1", …),
// "helpful_safe" (distinct safe prompt letters covered), "length", the prompt-blind references
// "blind_reward_1" and "blind_helpful_safe" (the same responses scored against the next held-out
// prompt instead of their own), and the Monte-Carlo KL divergences of m from the SFT model and from
// π₁ (once round 1 has run): "kl_sft" and "kl_pi1", the mean of log m(y|x) − log π(y|x) over the
// samples y (EOS included where sampled).
func (s *setup) evaluate(m *lm.Model, seed uint64, samples int) (map[string]float64, error) {
	var ids [][]int32
	for k := 0; k < samples; k++ {
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
	// KL(m ‖ ref) = E_{y~m}[log m(y) − log ref(y)]: the samples' own log-probs against the refs'.
	exs := make([]lm.Example, len(gens))
	var own float64
	for i, g := range gens {
		exs[i] = lm.Example{Prompt: ids[i], Completion: g.Tokens}
		for _, lp := range g.LogProbs {
			own += float64(lp)
		}
	}
	for _, ref := range []struct {
		key string
		m   *lm.Model
	}{{"kl_sft", s.sft}, {"kl_pi1", s.pi1}} {
		if ref.m == nil {
			continue
		}
		scored, err := ref.m.Score(exs, false)
		if err != nil {
			return nil, err
		}
		var lp float64
		for _, sc := range scored {
			for _, v := range sc.LogProbs {
				lp += float64(v)
			}
		}
		out[ref.key] = (own - lp) / float64(len(gens))
	}
	return out, nil
}

// trackRound2 prepares the tracked round-2 pairs: the first WeightPairs pairs of dimension 2, their
// refusal flags, π₁'s log-probs (the reference of round 2) and round 1's implicit reward gaps
// Δr̂₁ = β₁·Δlog π₁/π_SFT on them.
func (s *setup) trackRound2() error {
	n := min(s.cfg.WeightPairs, len(s.pairs[1]))
	s.track = s.pairs[1][:n]
	s.refusal = make([]bool, n)
	for i := range n {
		s.refusal[i] = s.labeled[1][i].Refusal
	}
	var err error
	if s.refChosen, s.refRej, err = pref.SeqLogProbs(s.pi1, s.track); err != nil {
		return err
	}
	s.gap1, err = pref.ImplicitRewardGaps(s.pi1, s.sft, s.cfg.Round1.Beta, s.track)
	return err
}

// weights are the mean gradient weights σ(λ·Δr̂₁ − β·Δθ) of policy's round-2 loss on the tracked
// refusal pairs and ordinary pairs (Δθ: policy's log-ratio margin against π₁).
func (s *setup) weights(policy *lm.Model, lambda float64) (map[string]float64, error) {
	c, r, err := pref.SeqLogProbs(policy, s.track)
	if err != nil {
		return nil, err
	}
	var sum, cnt [2]float64
	for i := range s.track {
		margin := s.cfg.Round2.Beta * ((c[i] - s.refChosen[i]) - (r[i] - s.refRej[i]))
		w := pref.PairWeight(margin, lambda*s.gap1[i])
		k := 0
		if s.refusal[i] {
			k = 1
		}
		sum[k] += w
		cnt[k]++
	}
	out := map[string]float64{}
	for k, key := range []string{"weight_ordinary", "weight_refusal"} {
		if cnt[k] > 0 {
			out[key] = sum[k] / cnt[k]
		}
	}
	return out, nil
}

// round runs one DPO/SPO round on top of history (pref.NextRound: λ per finished round, nil = DPO)
// and returns it with the curves of its path under the label's prefix. track adds the gradient
// weights of the tracked round-2 pairs at SPO's λ (lambdas[0]; 0 for naive DPO).
func (s *setup) round(label string, history []pref.Stage, pairs []pref.PairEx, lambdas []float64, rc pref.TrainConfig, seed uint64, track bool) (*pref.RoundResult, map[string]exp.Curve, error) {
	rc.Seed = seed
	if s.cfg.LRDecay {
		rc.Opt.TotalSteps, rc.Opt.MinLRFrac = rc.Steps, 0
	}
	lambda := 0.0
	if len(lambdas) > 0 {
		lambda = lambdas[0]
	}
	r, err := pref.NextRound(history, pairs, lambdas, rc, pref.Hooks{
		Progress: s.progress(label, rc.Steps),
		OnEval: func(policy *lm.Model, step int) (map[string]float64, error) {
			v, err := s.evaluate(policy, seed*1000+uint64(step), s.cfg.PathSamples)
			if err != nil || !track {
				return v, err
			}
			w, err := s.weights(policy, lambda)
			maps.Copy(v, w)
			return v, err
		},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", label, err)
	}
	out := map[string]exp.Curve{}
	for _, k := range []string{"reward_1", "reward_2", "helpful_safe", "kl_sft", "kl_pi1", "weight_refusal", "weight_ordinary", "loss", "rewards/accuracies", "rewards/margins"} {
		if c, ok := r.Curves[k]; ok {
			out[label+"/"+k] = c
		}
	}
	return r, out, nil
}

func (s *setup) methods(res *exp.Result) error {
	c, seed := s.cfg, s.seed
	add := func(name string, m *lm.Model, curves map[string]exp.Curve, start time.Time, extra map[string]float64) error {
		f, err := s.evaluate(m, seed, c.EvalSamples)
		if err != nil {
			return err
		}
		maps.Copy(f, extra)
		res.Runs = append(res.Runs, exp.Run{Method: name, Seed: seed, Final: f, Curves: curves, Seconds: time.Since(start).Seconds()})
		if err := s.savePolicy(res, name, m); err != nil {
			return err
		}
		fmt.Fprintf(s.opt.Log, "seed %d %-14s reward_1 (%s) %.3f  reward_2 (%s) %.3f  helpful_safe %.3f\n", seed, name, c.Dims[0], f["reward_1"], c.Dims[1], f["reward_2"], f["helpful_safe"])
		return nil
	}
	// Every model of this seed lives in native engine memory until closed.
	var models []*lm.Model
	defer func() {
		for _, m := range append(models, s.sft) {
			m.Close()
		}
	}()
	t := time.Now()
	if err := add("sft", s.sft, nil, t, nil); err != nil {
		return err
	}
	// Round 1: DPO on dimension 1.
	t = time.Now()
	start := pref.Stage{Model: s.sft}
	r1, c1, err := s.round("round1", []pref.Stage{start}, s.pairs[0], nil, c.Round1, seed, false)
	if err != nil {
		return err
	}
	s.pi1 = r1.Policy
	models = append(models, s.pi1)
	if err := s.trackRound2(); err != nil {
		return err
	}
	if err := add("dpo-1", s.pi1, c1, t, s.implicitRewardStats()); err != nil {
		return err
	}
	res.Timing["round1"] += time.Since(t).Seconds()
	history := []pref.Stage{start, r1.Stage()}
	// Round 2: naive sequential DPO (λ = 0), SPO at λ, the sweep and the flip, on the same batches.
	lambdas := append([]float64{0, c.Lambda}, c.Sweep...)
	if c.Flip {
		lambdas = append(lambdas, -c.Lambda)
	}
	var seq *pref.RoundResult
	for _, lambda := range lambdas {
		t = time.Now()
		name := c.SPOName(lambda)
		r2, cs, err := s.round("round2", history, s.pairs[1], []float64{lambda}, c.Round2, seed+1, true)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		models = append(models, r2.Policy)
		extra := map[string]float64{}
		if lambda != 0 {
			// The offset's size, which the room check "λ offset within DPO's own margin" reads (room.go).
			var abs float64
			for _, p := range r2.Pairs {
				abs += math.Abs(p.Offset)
			}
			extra[metricOffset] = abs / float64(len(r2.Pairs))
		}
		if lambda == 0 {
			seq = r2
		}
		if name == "spo" && seq != nil {
			// Per-pair gradient weights at the end of round 2: SPO's σ(λΔr̂ − βΔθ) and naive DPO's σ(−βΔθ).
			ws, err := pref.PairWeights(r2.Policy, s.pi1, c.Round2.Beta, r2.Pairs)
			if err != nil {
				return err
			}
			wd, err := pref.PairWeights(seq.Policy, s.pi1, c.Round2.Beta, seq.Pairs)
			if err != nil {
				return err
			}
			cs["weights/spo"], cs["weights/seq-dpo"] = histogram(ws), histogram(wd)
		}
		if err := add(name, r2.Policy, cs, t, extra); err != nil {
			return err
		}
		res.Timing["round2_"+name] += time.Since(t).Seconds()
	}
	// Mixed: both dimensions' pairs at once, from SFT, for the steps of both rounds.
	mc := c.Round2
	mc.Steps, mc.EvalEvery = c.Round1.Steps+c.Round2.Steps, c.MixedEvalEvery
	for _, share := range c.MixedShares {
		t = time.Now()
		name := MixedName(share)
		h, k, _ := shareRatio(share)
		var data []pref.PairEx
		for range h {
			data = append(data, s.pairs[0]...)
		}
		for range k {
			data = append(data, s.pairs[1]...)
		}
		mixed, cm, err := s.round("mixed", []pref.Stage{start}, data, nil, mc, seed+2, false)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		models = append(models, mixed.Policy)
		if err := add(name, mixed.Policy, cm, t, nil); err != nil {
			return err
		}
		res.Timing["mixed_"+name] += time.Since(t).Seconds()
	}
	return nil
}

// implicitRewardStats describes round 1's implicit reward Δr̂₁ on the tracked round-2 pairs, the
// signal SPO's offset carries: "rhat_agree", the share of pairs whose chosen and rejected responses
// differ in true helpfulness on which Δr̂₁ has the sign of Δhelpful; "rhat_refusal" and
// "rhat_ordinary", the mean Δr̂₁ on refusal and ordinary pairs (refusals are preferred on
// harmlessness and worse on helpfulness: the mechanism needs their Δr̂₁ < 0).
func (s *setup) implicitRewardStats() map[string]float64 {
	out := map[string]float64{}
	var agree, n float64
	var sum, cnt [2]float64
	for i, g := range s.gap1 {
		p := s.labeled[1][i]
		hc, _ := s.cfg.Task.Reward(s.cfg.Dims[0], p.Prompt, p.Chosen)
		hr, _ := s.cfg.Task.Reward(s.cfg.Dims[0], p.Prompt, p.Rejected)
		if dh := hc - hr; dh != 0 {
			n++
			if (dh > 0) == (g > 0) {
				agree++
			}
		}
		k := 0
		if s.refusal[i] {
			k = 1
		}
		sum[k] += g
		cnt[k]++
	}
	if n > 0 {
		out["rhat_agree"] = agree / n
	}
	for k, key := range []string{"rhat_ordinary", "rhat_refusal"} {
		if cnt[k] > 0 {
			out[key] = sum[k] / cnt[k]
		}
	}
	return out
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
		data = append(data, probe.Draw{Name: "pairs_" + dim, Kind: "prefs_train", Seed: c.pairSeed(seed, d) + 777, N: c.PairsPerDim,
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
		Description: "SPO vs DPO baselines on a two-label preference task (helpful vs harmless, with refusal pairs) with the tiny LM",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 8},
		Jobs:        2,
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
		Claims:      Claims,
		Room:        Room,
		Paper:       PaperSettings,
		Doc:         "toolkit/exp/spo/README.md",
		Sweeps:      Sweeps(ConfigFor(exp.Default)),
	})
}

// Sweeps are the settings each method family of cfg runs at, and how each enters the claims: SPO's
// λ (its default alone against naive DPO for spo-1, its front for spo-2, each λ its own row against
// naive DPO), naive sequential DPO's one β, mixed-data DPO's shares (its front for spo-2).
func Sweeps(cfg Config) []exp.Sweep {
	var lambdas, shares []string
	ls := []float64{cfg.Lambda}
	for _, l := range cfg.Sweep {
		if l > 0 {
			ls = append(ls, l)
		}
	}
	slices.Sort(ls)
	for _, l := range ls {
		lambdas = append(lambdas, fmt.Sprint(l))
	}
	for _, s := range cfg.MixedShares {
		shares = append(shares, fmt.Sprint(s))
	}
	return []exp.Sweep{
		{Family: "SPO (spo, spo-λ…)", Knob: "λ", Settings: lambdas,
			Compared: fmt.Sprintf("spo-1: λ = %g alone (fixed before any run); spo-2: front (%s); each λ its own row against naive DPO", cfg.Lambda, frontMetric)},
		{Family: "naive sequential DPO (seq-dpo)", Knob: "β", Settings: []string{fmt.Sprint(cfg.Round2.Beta)}, Compared: "one"},
		{Family: "mixed-data DPO (mixed-dpo…)", Knob: "share of dimension-2 pairs", Settings: shares, Compared: "spo-2: front (" + frontMetric + ")"},
	}
}

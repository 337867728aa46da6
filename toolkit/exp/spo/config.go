package spo

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/pref"
)

// maxNew bounds a response (8 letters + EOS).
const maxNew = 9

// sftStream is the stream of the generator that draws the SFT demonstrations' responses.
const sftStream = 0x736674

// The experiment's named parts (`paperlab spo -part NAME`), each its own methods and budget:
//
//   - PartMain: round 1, round 2 by naive sequential DPO at each β, SPO at each λ (and the flipped
//     sign), mixed-data DPO at each share, and the constant-rate probes, on every seed;
//   - PartSlow: round 2 at a tenfold smaller learning rate (SlowLR), naive DPO at each β and SPO at
//     each λ, on the first PartSeeds seeds: whether the verdicts depend on how fast round 2 moves;
//   - PartRefusal: the share of refusal pairs varied (RefusalShares; Task.RefusalShare is the main
//     part's), round 1, naive DPO and SPO at the main run's settings, on the first PartSeeds seeds:
//     where forgetting stops and whether SPO's advantage follows it;
//   - PartThree: a third dimension (Third) and a round 3 (SPO with two offsets, naive sequential DPO,
//     mixed 3-way DPO), on the first PartSeeds seeds.
//
// A part's claims also read the main part's runs (sft, dpo-1, the fronts' settings): a part run
// alone (-part) is merged with the main part (`paperlab merge`) before it is judged.
const (
	PartMain    = "main"
	PartSlow    = "slow"
	PartRefusal = "refusal"
	PartThree   = "three"
)

// Parts are the experiment's parts in the order a whole run runs them.
var Parts = []string{PartMain, PartSlow, PartRefusal, PartThree}

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
	// Round2 is one DPO/SPO round on dimension 2. Both evaluate every EvalEvery steps (the paths),
	// and every DenseEvery steps up to DenseUntil (where a round moves fastest).
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
	// SeqBetas are naive sequential DPO's round-2 β values, its sweep beside SPO's λ: Round2.Beta
	// runs as seq-dpo, every other value as seq-dpo-β<value> (round 1 keeps its β₁). Empty: β₂ only.
	SeqBetas []float64 `json:"seq_betas,omitempty"`
	// MixedShares are the shares of dimension-2 pairs in mixed-data DPO's data (mixed-dpo for 0.5,
	// mixed-dpo-<share> otherwise, the share to two decimals), each run from SFT for Round1.Steps +
	// Round2.Steps steps. A share must be within 0.005 of a fraction with a denominator ≤ 20 (the
	// data repeats each dimension's pairs; 0.67 is 2/3).
	MixedShares []float64 `json:"mixed_shares"`
	// WeightPairs is how many round-2 pairs (the first ones) the gradient weights are tracked on.
	WeightPairs int `json:"weight_pairs"`
	// EvalPrompts held-out prompts × EvalSamples samples measure the true rewards of every final
	// policy; PathSamples samples per prompt measure them at the checkpoints along a round's path.
	EvalPrompts int `json:"eval_prompts"`
	EvalSamples int `json:"eval_samples"`
	PathSamples int `json:"path_samples"`
	// MixedEvalEvery is the checkpoint spacing of mixed-data DPO's path (its run is as long as both
	// rounds together) after its first Round2.DenseUntil steps, evaluated every Round2.DenseEvery.
	MixedEvalEvery int `json:"mixed_eval_every"`
	// ProbeSeeds > 0 runs, on the first ProbeSeeds seeds of the main part, round 1 and naive
	// round 2 at a constant learning rate (dpo-1-const, seq-dpo-const, the same steps and data): with
	// the rate decaying to 0 a round's own end is flat by construction, so the room checks "round 1
	// converged" and "round 2 settled" read these probes, which can fail.
	ProbeSeeds int `json:"probe_seeds,omitempty"`
	// PartSeeds is the number of seeds (the first ones) the parts other than main run on.
	PartSeeds int `json:"part_seeds,omitempty"`
	// SlowLR is round 2's learning rate in part "slow" (decaying like the main run's).
	SlowLR float64 `json:"slow_lr,omitempty"`
	// RefusalShares are the refusal shares part "refusal" runs beside the main part's
	// Task.RefusalShare (whose runs it reads from the main part).
	RefusalShares []float64 `json:"refusal_shares,omitempty"`
	// Third is the third dimension of part "three", aligned in a round 3 of Round2's settings
	// after the two of Dims; ThreeLambdas are SPO's λ on dimensions 1 and 2 in round 3.
	Third        string    `json:"third,omitempty"`
	ThreeLambdas []float64 `json:"three_lambdas,omitempty"`
}

// ConfigFor returns the configuration at a scale.
//
// β = 0.2 in both rounds (β₁ = β₂: the offset's exponent λβ₁/β is λ), Adam 1e-3 decaying to 0 over
// each round (LRDecay) with gradient-norm clipping at 1 and batches of 64 pairs. Round 1 runs
// RoundOneSteps: on a one-seed probe at a constant rate its held-out helpfulness rose until step
// ~150, stayed flat to ~500 and then fell as KL from SFT kept growing (over-optimisation); the
// constant-rate probes (ProbeSeeds) now measure it with every run. Round 2 runs RoundTwoSteps:
// harmlessness reached its ceiling by step ~100 on four probe seeds; the first 8-seed run with 200
// steps went over the experiment's 30-minute budget, with nearly all of the time in ONNX Runtime's
// execution of the training and sampling graphs (a CPU profile), so round 2 was shortened
// (2026-12-03). λ = 0.5 is the middle of the sweep {0.1, 0.25, 0.5, 1, 2} fixed on 2026-12-03, chosen
// before any run ([UNVERIFIED]: the paper's λ was not obtained).
//
// Since 2026-12-06 the baselines are swept as SPO is: naive sequential DPO at β₂ ∈ {0.05, 0.1, 0.2,
// 0.5, 1} (five settings, as SPO's five λ) and mixed-data DPO at five shares {0.25, 0.5, 2/3, 0.8,
// 0.9}; every path is evaluated every 5 steps over its first 50 (the whole of naive DPO's
// forgetting happened in round 2's first 25 steps of the 2026-12-03 run) and every 25 after. The
// parts run on 5 seeds: round 2 at Adam 1e-4, the refusal shares 0.1 and 0.2 beside the main 0.3,
// and a third dimension ("concise", −length: it conflicts with covering the prompt) in a round 3
// with λ = 0.5 on both earlier dimensions — the main run's settings, fixed before any run.
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
		Round2:      pref.TrainConfig{Beta: 0.2, Steps: RoundTwoSteps, BatchSize: 64, Opt: opt, EvalEvery: 25, DenseEvery: 5, DenseUntil: 50},
		Lambda:      0.5, Sweep: []float64{0.1, 0.25, 1, 2}, Flip: true,
		SeqBetas:    []float64{0.05, 0.1, 0.2, 0.5, 1},
		LRDecay:     true,
		MixedShares: []float64{0.25, 0.5, 0.67, 0.8, 0.9},
		WeightPairs: 512,
		EvalPrompts: 200, EvalSamples: 4, PathSamples: 2, MixedEvalEvery: 25,
		ProbeSeeds: 2, PartSeeds: 5,
		SlowLR:        1e-4,
		RefusalShares: []float64{0.1, 0.2},
		Third:         "concise", ThreeLambdas: []float64{0.5, 0.5},
	}
	if s == exp.Smoke {
		c.SFTSize, c.SFT.Steps, c.SFT.Opt.TotalSteps, c.SFT.Opt.WarmupSteps = 500, 40, 40, 4
		c.PairsPerDim, c.EvalPrompts, c.WeightPairs = 64, 32, 32
		c.Round1.Steps, c.Round1.EvalEvery, c.Round2.Steps, c.Round2.EvalEvery, c.MixedEvalEvery = 10, 5, 10, 5, 10
		c.Round2.DenseEvery, c.Round2.DenseUntil = 2, 4
		c.Sweep, c.MixedShares, c.SeqBetas = []float64{1}, []float64{0.25, 0.5}, []float64{0.2, 0.5}
		c.ProbeSeeds, c.PartSeeds, c.RefusalShares = 1, 1, []float64{0.1}
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
	betas := map[float64]bool{}
	for _, b := range c.SeqBetas {
		if !(b > 0) || betas[b] {
			return fmt.Errorf("spo: seq_betas value %g: need distinct values > 0", b)
		}
		betas[b] = true
	}
	names := map[string]float64{}
	for _, sh := range c.MixedShares {
		if _, _, ok := shareRatio(sh); !ok {
			return fmt.Errorf("spo: mixed_shares value %g is not within 0.005 of a fraction in (0, 1) with a denominator ≤ 20", sh)
		}
		if o, dup := names[MixedName(sh)]; dup {
			return fmt.Errorf("spo: mixed_shares %g and %g have one name %s", o, sh, MixedName(sh))
		}
		names[MixedName(sh)] = sh
	}
	if c.ProbeSeeds < 0 || c.PartSeeds < 0 || c.SlowLR < 0 {
		return fmt.Errorf("spo: probe_seeds %d, part_seeds %d, slow_lr %g: need ≥ 0", c.ProbeSeeds, c.PartSeeds, c.SlowLR)
	}
	for _, r := range c.RefusalShares {
		if r < 0 || r > 1 || r == c.Task.RefusalShare {
			return fmt.Errorf("spo: refusal_shares value %g: need a share in [0, 1] other than the task's %g (the main part's)", r, c.Task.RefusalShare)
		}
	}
	if len(c.RefusalShares) > 0 && !c.Task.TwoLabel {
		return fmt.Errorf("spo: refusal_shares needs the two-label task (refusal pairs are labelled on both dimensions)")
	}
	if c.Third != "" {
		if !slices.Contains(prefs.Dimensions, c.Third) || slices.Contains(c.Dims, c.Third) {
			return fmt.Errorf("spo: third = %q: need a dimension of %v other than %v", c.Third, prefs.Dimensions, c.Dims)
		}
		if len(c.ThreeLambdas) != 2 || !c.Task.TwoLabel {
			return fmt.Errorf("spo: third %q needs three_lambdas with 2 values (got %v) and the two-label task", c.Third, c.ThreeLambdas)
		}
	}
	return nil
}

// shareRatio writes share as k/(h+k) with h + k ≤ 20 (the smallest such denominator within 0.005
// of share): h copies of dimension 1's pairs and k of dimension 2's.
func shareRatio(share float64) (h, k int, ok bool) {
	for n := 1; n <= 20; n++ {
		k := int(math.Round(share * float64(n)))
		if k > 0 && k < n && math.Abs(float64(k)/float64(n)-share) < 0.005 {
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
	return fmt.Sprintf("mixed-dpo-%.2g", share)
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

// SeqName is naive sequential DPO's method name at round-2 β: seq-dpo at Round2.Beta,
// seq-dpo-β<value> otherwise.
func (c Config) SeqName(beta float64) string {
	if beta == c.Round2.Beta {
		return "seq-dpo"
	}
	return fmt.Sprintf("seq-dpo-β%g", beta)
}

// seqBetas are naive DPO's round-2 β values, Round2.Beta first.
func (c Config) seqBetas() []float64 {
	out := []float64{c.Round2.Beta}
	for _, b := range c.SeqBetas {
		if b != c.Round2.Beta {
			out = append(out, b)
		}
	}
	return out
}

// lambdas are SPO's λ values of round 2: the default, the sweep's positive values, and the flip.
func (c Config) lambdas() []float64 {
	out := []float64{c.Lambda}
	for _, l := range c.Sweep {
		if l > 0 {
			out = append(out, l)
		}
	}
	if c.Flip {
		out = append(out, -c.Lambda)
	}
	return out
}

// SlowName is a round-2 method's name in part "slow" (its learning rate appended).
func (c Config) SlowName(method string) string {
	return method + "-lr" + strings.Replace(strconv.FormatFloat(c.SlowLR, 'e', -1, 64), "e-0", "e-", 1)
}

// RefusalName is a method's name in part "refusal" at a refusal share: the main part's own name at
// Task.RefusalShare, "<method>-r<share>" otherwise.
func (c Config) RefusalName(method string, share float64) string {
	if share == c.Task.RefusalShare {
		return method
	}
	return fmt.Sprintf("%s-r%g", method, share)
}

// Names of part "three": round 1 and the two round-2 policies it continues from; round 3 by SPO
// (from SPO's round 2, both earlier dimensions' offsets), by naive sequential DPO from the same
// start (ThreeSPOSeq: the round-3 comparison from one policy), by naive DPO from naive round 2 (the
// whole naive pipeline) and by SPO with the direct offsets (ThreeSPODirect: each round's implicit
// reward read as its dimension's reward); and mixed 3-way DPO from SFT.
const (
	ThreeRound1    = "3d-dpo-1"
	ThreeSeq2      = "3d-seq-dpo-2"
	ThreeSPO2      = "3d-spo-2"
	ThreeSPO       = "3d-spo"
	ThreeSPOSeq    = "3d-spo-2-then-dpo"
	ThreeSeq       = "3d-seq-dpo"
	ThreeSPODirect = "3d-spo-direct"
	ThreeMixed     = "3d-mixed-dpo"
)

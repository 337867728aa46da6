// Package capo is experiment "capo": CAPO against GRPO on the tiny LM (the paper, its sources and
// our deviations: toolkit/exp/capo/README.md).
//
// Per seed: SFT warm start on the arithmetic task (30% of prompts hide an operand, so their answer
// can only be guessed — skewed towards one modal value by default), mask thresholds from the SFT
// model's own perplexities, then RL runs from the same warm start — grpo, capo (the paper's τ =
// 0.5), capo-tau0.2 and capo-tau1.0 on every seed, the ablations capo-gnorm, capo-nomask and
// grpo-mask on the first five — with held-out evaluation every 50 RL steps (16 samples per prompt
// and greedy) and after training. Accuracy is judged as mean@16 (one sample), greedily and by
// majority@16; calibration as AUC of lpm (overall and within each kind of prompt), AURC, precision at
// 50 % coverage and ECE; the advantages' mechanism by rl.Diagnostics per evaluation window. The
// paper's claim: GRPO raises accuracy while AUC (how well lpm separates right from wrong answers)
// falls; CAPO matches accuracy while AUC holds or rises — judged at a fixed step and at matched
// accuracy along the evaluation curves; RPC voting gains more for CAPO; without the mask, CAPO's
// entropy grows; τ matters little.
package capo

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/probe"
	"github.com/paperlab/paperlab/toolkit/rl"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// maxNew is the longest completion (4 steps of one digit, separators, answer, EOS).
const maxNew = 12

// Method is one RL variant.
type Method struct {
	Name      string `json:"name"`
	Estimator string `json:"estimator"`
	UseMask   bool   `json:"use_mask"`
	// Tau > 0 overrides the configuration's τ (the τ-sensitivity run).
	Tau float64 `json:"tau,omitempty"`
	// Norm overrides the configuration's CAPO normalisation (rl.AdvParams.CAPONorm) when set.
	Norm string `json:"norm,omitempty"`
	// Seeds > 0 runs the method on the experiment's first Seeds seeds only (the ablations).
	Seeds int `json:"seeds,omitempty"`
	// Loss "gspo" trains with GSPO's sequence-level ratio and clip range (rl.GSPOLoss) in place of
	// the configuration's PPO-clip loss; "" keeps it.
	Loss string `json:"loss,omitempty"`
	// MiniBatches > 0 overrides the configuration's mini-batches per rollout.
	MiniBatches int `json:"mini_batches,omitempty"`
	// LR, Steps and EvalEvery > 0 override the configuration's learning rate, RL steps and
	// evaluation interval (the learning-rate part).
	LR        float64 `json:"lr,omitempty"`
	Steps     int     `json:"steps,omitempty"`
	EvalEvery int     `json:"eval_every,omitempty"`
	// Part is the named part of the experiment the method runs in (PartLR); "": PartMain.
	Part string `json:"part,omitempty"`
}

// The experiment's named parts (`paperlab capo -part NAME`): PartMain, the methods at the main
// run's settings (and the SFT warm start's row), and PartLR, GRPO and CAPO at Adam 3e-5 for three
// times the steps, the step-size question read on the AUC–accuracy and AUC–KL frontiers.
const (
	PartMain = "main"
	PartLR   = "lr"
)

// part is the part a method runs in.
func (m Method) part() string {
	if m.Part == "" {
		return PartMain
	}
	return m.Part
}

// Methods of the experiment. On every seed: the paper's comparison (grpo, capo at the paper's τ =
// 0.5) and CAPO at τ = 0.2 and 1.0 (the τ-robustness claim: the paper reports τ ∈ {0.4, 0.6, 1.0}
// changing AUC and accuracy by less than a point; 0.2 is below its range, the saturated regime the
// audit of 2026-12-02 found in the first runs' main method). On the first five seeds, the
// ablations: capo-gnorm — CAPO's advantages rescaled per group to GRPO's Σ|A| (rl's "grpo"
// normalisation): not a neutral normalisation control, since it gives weight back to the
// well-separated groups that CAPO's surrogate takes it from, so it moves CAPO towards GRPO — CAPO
// without the mask, and GRPO with the mask.
var IIDMethods = []Method{
	{Name: "grpo", Estimator: "grpo"},
	{Name: "capo", Estimator: "capo", UseMask: true},
	{Name: "capo-tau0.2", Estimator: "capo", UseMask: true, Tau: 0.2},
	{Name: "capo-tau1.0", Estimator: "capo", UseMask: true, Tau: 1.0},
	{Name: "capo-gnorm", Estimator: "capo", UseMask: true, Norm: "grpo", Seeds: 5},
	{Name: "capo-nomask", Estimator: "capo", Seeds: 5},
	{Name: "grpo-mask", Estimator: "grpo", UseMask: true, Seeds: 5},
}

// Methods of the default run: the first four of IIDMethods (grpo, capo and the τ methods, these on
// the first five seeds, as every method but sft, grpo and capo) — not the mask ablations, whose
// questions the i.i.d.-slips run answered (experiment capo-iid-slips) and which would add 15 runs
// to a run already over its budget on a 2-core machine where two processes give no more
// throughput than one (BENCHMARKS.md; add them back through Config.Methods) — then
//
//   - gspo: GSPO (rl.GSPOLoss: a sequence-level, length-normalised ratio clipped to
//     [1 − 3e-4, 1 + 4e-4]) on GRPO's advantages, at the GSPO paper's four mini-batches per rollout,
//     the setting where it differs from GRPO: with one PPO epoch a rollout's first mini-batch is
//     on-policy (every ratio 1), so at our two mini-batches half of every update would be GRPO's.
//     Beside it grpo-mb4, GRPO at the same four mini-batches, so that the loss is the only
//     difference. The paper's Fig. 1 compares CAPO with GRPO and GSPO.
//   - grpo-lr3e-5 and capo-lr3e-5 (part PartLR): the step-size question. The main run's Adam 1e-4 was
//     chosen because at 3e-5 neither method moved AUC in the first runs (600 steps); here both run at
//     3e-5 for 1,800 steps (three times the steps, so a third of the step size covers as much
//     ground), evaluated every 100 steps, and are read on the same frontiers as the main run.
var Methods = append(fiveSeeds(IIDMethods[:4], "capo-tau0.2", "capo-tau1.0"),
	Method{Name: "grpo-mb4", Estimator: "grpo", MiniBatches: 4, Seeds: 5},
	Method{Name: "gspo", Estimator: "grpo", Loss: "gspo", MiniBatches: 4, Seeds: 5},
	Method{Name: "grpo-lr3e-5", Estimator: "grpo", LR: 3e-5, Steps: 1800, EvalEvery: 100, Seeds: 5, Part: PartLR},
	Method{Name: "capo-lr3e-5", Estimator: "capo", UseMask: true, LR: 3e-5, Steps: 1800, EvalEvery: 100, Seeds: 5, Part: PartLR},
)

// Sweeps are the settings each method family of the default run was run at, and how each enters
// the claims (`paperlab settings capo`): CAPO's τ (the paper's 0.5 fixed before any run; 0.2 and
// 1.0 their own rows), GRPO's one setting (and at four mini-batches as GSPO's control), GSPO's one
// clip range, and both methods at two learning rates (the step-size reading).
var Sweeps = []exp.Sweep{
	{Family: "CAPO (capo, capo-tau…)", Knob: "τ", Settings: []string{"0.2", "0.5", "1.0"},
		Compared: "capo-1…capo-5: τ = 0.5 alone (the paper's, fixed before any run); τ 0.2 and 1.0 their own rows"},
	{Family: "GRPO (grpo, grpo-mb4)", Knob: "PPO mini-batches per rollout", Settings: []string{"2", "4"},
		Compared: "one: grpo (2, the paper's) in every CAPO claim; grpo-mb4 only against gspo, the loss its only difference"},
	{Family: "GSPO (gspo)", Knob: "clip range", Settings: []string{"[1 − 3e-4, 1 + 4e-4]"}, Compared: "one (the GSPO paper's)"},
	{Family: "learning rate (grpo, capo and their -lr3e-5 runs)", Knob: "Adam learning rate", Settings: []string{"1e-4", "3e-5"},
		Compared: "each method at both: the step-size reading (StepSizeReading)"},
}

// fiveSeeds is methods with the named ones run on the first five seeds only.
func fiveSeeds(methods []Method, names ...string) []Method {
	out := append([]Method(nil), methods...)
	for i, m := range out {
		if slices.Contains(names, m.Name) {
			out[i].Seeds = 5
		}
	}
	return out
}

// Config of experiment "capo".
type Config struct {
	Model lm.Config    `json:"model"`
	Data  arith.Config `json:"data"`
	// SFT warm start: SFTSize demonstrations in which each step slips to a wrong value with
	// probability SFTNoise (noisy demonstrations make the warm start uncertain where it errs).
	SFTSize  int          `json:"sft_size"`
	SFTNoise float64      `json:"sft_noise"`
	SFT      lm.SFTConfig `json:"sft"`
	// SFTDistract > 0 adds systematic errors to the demonstrations: a shown multiplication by one
	// of SFTDistractOperands is written as the sum with this probability (arith.Slips.Distract),
	// the other steps slipping with SFTNoise as before — so the warm start answers those prompts
	// wrongly by greedy decoding while a sample is often right, and RL has errors to fix.
	SFTDistract         float64 `json:"sft_distract,omitempty"`
	SFTDistractOperands []int   `json:"sft_distract_operands,omitempty"`
	// RLData, when set, is the task of the RL pool and the held-out prompts in place of Data (the
	// SFT demonstrations' task): the distribution-shift variant, where RL meets a hidden operand the
	// warm start never saw skewed.
	RLData *arith.Config `json:"rl_data,omitempty"`
	// RLPool prompts for RL (disjoint from the held-out EvalPrompts).
	RLPool      int `json:"rl_pool"`
	EvalPrompts int `json:"eval_prompts"`
	// EvalSamples answers per held-out prompt during training; FinalSamples at the end (mean@16).
	EvalSamples  int `json:"eval_samples"`
	FinalSamples int `json:"final_samples"`
	// MaskRule and MaskQuantiles derive ref_high and ref_low from the SFT model's PPL on its own
	// samples of MaskProbe RL-pool prompts × 4 (see rl.ThresholdsFromQuantiles; [UNVERIFIED]).
	MaskRule      string     `json:"mask_rule"`
	MaskQuantiles [2]float64 `json:"mask_quantiles"`
	MaskProbe     int        `json:"mask_probe"`
	// RL is the shared configuration; each method sets Estimator and UseMask.
	RL      rl.Config `json:"rl"`
	Methods []Method  `json:"methods"`
	Bins    int       `json:"bins"`
}

// ConfigFor returns the default configuration at a scale: IIDConfigFor's, with systematic errors
// in the demonstrations and the default Methods (gspo, grpo-mb4 and the learning-rate part added).
//
// The task (since 2026-12-06): on the i.i.d.-slips task (IIDConfigFor) RL only sharpened — every
// demonstration error is an independent 10 % slip, which greedy decoding already removes, so GRPO
// took mean@16 to about the warm start's greedy accuracy and greedy accuracy did not move, and
// every accuracy claim was untestable. Here a shown multiplication by 7, 8 or 9 is demonstrated
// as the sum with probability SFTDistract = 0.55 (the right value with 0.45 × 0.9 ≈ 0.41, another
// slip otherwise): the warm start's greedy answer on such prompts is the distractor, while one
// sample in a few is right, so GRPO's groups there are mixed and RL can change what the model
// answers. [UNVERIFIED] PaperLab's error model and rates, chosen a priori from a back-of-envelope
// estimate (about a fifth of the prompts hit; a chain through one such step right about a third
// of the time), and checked on 3 seeds against the room checks sft-pass8-greedy-wrong and
// grpo-greedy-moves before the default run (the pilot is in the README's protocol history).
func ConfigFor(s exp.Scale) Config {
	c := IIDConfigFor(s)
	c.SFTDistract, c.SFTDistractOperands = 0.55, []int{7, 8, 9}
	c.Methods = append([]Method(nil), Methods...)
	if s == exp.Smoke {
		for i, m := range c.Methods {
			if m.Steps > 0 {
				c.Methods[i].Steps, c.Methods[i].EvalEvery = 2*c.RL.Steps, c.RL.EvalEvery
			}
		}
	}
	return c
}

// IIDConfigFor returns the configuration of the i.i.d.-slips task at a scale: experiment
// "capo-iid-slips", the default task until 2026-12-06, whose committed result is the evidence that
// on it RL only sharpens.
//
// The task (since 2026-12-01; before it the hidden operand was uniform, so no confident wrong guess
// was possible and the warm start's AUC left GRPO little calibration to lose): arith.SkewedHidden —
// 30 % of prompts hide an operand, and the hidden operand is 7 with probability 0.4, so a policy can
// learn the modal guess and collapse onto it confidently (the uniform task, arith.Default, is the
// named variant "uniform": set Data to it).
//
// The warm start (since 2026-12-02; 550 steps before): SFT on demonstrations with 10 % arithmetic
// slips per step for 1,000 steps. In an 8-seed probe, 550 steps (the first runs') left the seeds
// mid-way through learning the arithmetic — greedy accuracy 0.31–0.62, AUC 0.76–0.89, two regimes — while from 1,000 to 2,000
// steps every seed had passed that transition: AUC 0.91–0.96 whatever the length (the task's level,
// not under-training) and greedy 0.58–0.84 (one seed of eight ahead at every length); 1,000 is the
// shortest that does it (the sft-auc-below-ceiling room check measures the result, and the
// sft-*-outliers checks flag a seed ahead of the others, whose claims are then read without it too).
//
// RL follows the paper where it says (τ = 0.5, G = 8, ε = 0.2, KL = entropy = 0, temperature 1, 600
// steps as for its 1.5B model) and verl's defaults where it trains with verl and does not say (one
// PPO epoch over two mini-batches per step, gradients clipped at norm 1, AdamW weight decay 0.01);
// Adam at 1e-4 and 16 prompts a step are our scale's (see PaperSettings). CAPO's pairwise sums are
// divided by G: a constant, which Adam's invariance to a constant gradient scale cancels (up to its
// ε and the clip at norm 1, which acts on the scaled gradient; grad_clipped_share records how often
// it acted). Probes for the budget (2026-12-02): 1,500 steps of GRPO and CAPO on seeds 1 and 6 at the
// earlier 2 PPO epochs, and 800 steps of GRPO and CAPO at τ 0.2, 0.5 and 1.0 on seed 1 at one epoch,
// had GRPO's held-out mean@16 accuracy level by step ~300–400 and its greedy accuracy flat from
// the start, so 600 steps leaves the last third of the run on the plateau (the budget-* room checks
// measure it on every seed). Held-out evaluation every 50 steps, 16 samples per prompt and greedy,
// as the paper validates with 16.
func IIDConfigFor(s exp.Scale) Config {
	sftOpt := lm.DefaultOpt(3e-3)
	sftOpt.WarmupSteps, sftOpt.TotalSteps, sftOpt.MinLRFrac, sftOpt.ClipNorm = 100, 1000, 0.1, 1
	rlOpt := lm.DefaultOpt(1e-4)
	rlOpt.ClipNorm, rlOpt.WeightDecay = 1, 0.01
	c := Config{
		Model: lm.ConfigR(), Data: arith.SkewedHidden(),
		SFTSize: 8000, SFTNoise: 0.1, SFT: lm.SFTConfig{Steps: 1000, BatchSize: 64, Opt: sftOpt},
		RLPool: 2000, EvalPrompts: 300, EvalSamples: 16, FinalSamples: 16,
		MaskRule: "cross", MaskQuantiles: [2]float64{0.75, 0.25}, MaskProbe: 256,
		RL: rl.Config{Adv: rl.AdvParams{Eps: 1e-6, Tau: 0.5, CAPONorm: "group"}, Steps: 600, PromptsPerStep: 16, G: 8, PPOEpochs: 1, MiniBatches: 2,
			Sample: lm.SampleConfig{MaxNew: maxNew, Temperature: 1}, Opt: rlOpt, Loss: rl.DefaultLoss(), EvalEvery: 50},
		Methods: IIDMethods, Bins: 10,
	}
	if s == exp.Smoke {
		c.SFTSize, c.SFT.Steps, c.SFT.Opt.TotalSteps, c.SFT.Opt.WarmupSteps = 1000, 50, 50, 5
		c.RLPool, c.EvalPrompts, c.MaskProbe, c.EvalSamples = 64, 48, 32, 4
		c.RL.Steps, c.RL.PromptsPerStep, c.RL.EvalEvery = 4, 8, 2
	}
	return c
}

// Run is the experiment.
func Run(opt exp.Options) (*exp.Result, error) { return run("capo", ConfigFor, opt) }

// RunIID is the i.i.d.-slips variant, experiment "capo-iid-slips" (IIDConfigFor).
func RunIID(opt exp.Options) (*exp.Result, error) { return run("capo-iid-slips", IIDConfigFor, opt) }

func run(name string, preset func(exp.Scale) Config, opt exp.Options) (*exp.Result, error) {
	if opt.Log == nil {
		opt.Log = os.Stderr
	}
	tok := lmtask.Tokenizer()
	return exp.RunSeeds(name, opt, preset, validate, func(cfg Config, seed uint64, res *exp.Result) error {
		return runSeed(cfg, seed, tok, opt, res)
	})
}

// validate names what the RL loop's and the data's own validation cannot see: a method's part.
func validate(c Config) error {
	for _, m := range c.Methods {
		if p := m.part(); p != PartMain && p != PartLR {
			return fmt.Errorf("capo config: method %s: part %q, want %q or %q", m.Name, m.Part, PartMain, PartLR)
		}
		if m.Loss != "" && m.Loss != "gspo" {
			return fmt.Errorf("capo config: method %s: loss %q, want \"\" or \"gspo\"", m.Name, m.Loss)
		}
	}
	if c.RLData != nil {
		if err := c.RLData.Validate(); err != nil {
			return fmt.Errorf("capo config: rl_data: %w", err)
		}
	}
	return c.Data.Validate()
}

// rlData is the task of the RL pool and the held-out prompts.
func (c Config) rlData() arith.Config {
	if c.RLData != nil {
		return *c.RLData
	}
	return c.Data
}

// slips are the demonstrations' errors.
func (c Config) slips() arith.Slips {
	return arith.Slips{Uniform: c.SFTNoise, Distract: c.SFTDistract, DistractOperands: c.SFTDistractOperands}
}

func runSeed(cfg Config, seed uint64, tok *lm.Tokenizer, opt exp.Options, res *exp.Result) error {
	t0 := time.Now()
	demos, err := lmtask.Generate(tok, cfg.Data, seed, cfg.SFTSize, nil)
	if err != nil {
		return err
	}
	eval, err := lmtask.Generate(tok, cfg.rlData(), seed+20_000, cfg.EvalPrompts, demos.PromptSet())
	if err != nil {
		return err
	}
	pool, err := lmtask.Generate(tok, cfg.rlData(), seed+40_000, cfg.RLPool, eval.PromptSet())
	if err != nil {
		return err
	}
	// SFT warm start.
	sft, err := lm.New(cfg.Model, tok, seed)
	if err != nil {
		return err
	}
	defer sft.Close() // models live in native engine memory until closed
	sc := cfg.SFT
	sc.Seed = seed
	progress := opt.Progress(fmt.Sprintf("capo seed %d: SFT", seed), sc.Steps)
	noisy, err := demos.SlippedExamples(cfg.slips(), seed)
	if err != nil {
		return err
	}
	tr, _, err := lm.TrainSFT(sft, sc, noisy, nil, lm.SFTHooks{Progress: progress})
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return err
	}
	res.Timing["sft"] += time.Since(t0).Seconds()
	// Mask thresholds from the SFT model's perplexities on its own samples of RL-pool prompts.
	probe := &lmtask.Set{Tok: tok, Problems: pool.Problems[:cfg.MaskProbe], Prompts: pool.Prompts[:cfg.MaskProbe], Gold: pool.Gold[:cfg.MaskProbe]}
	th, err := maskThresholds(sft, probe, cfg.MaskRule, cfg.MaskQuantiles, seed)
	if err != nil {
		return err
	}
	res.Notes = append(res.Notes, fmt.Sprintf("seed %d: mask thresholds ref_high %.3f, ref_low %.3f (rule %s, quantiles %.2f / %.2f of the SFT model's PPL)",
		seed, th.High, th.Low, cfg.MaskRule, cfg.MaskQuantiles[0], cfg.MaskQuantiles[1]))
	// The SFT model itself, evaluated like the RL runs (its row in the table; the main part's).
	if opt.RunsPart(PartMain) {
		t1 := time.Now()
		final, curves, err := evaluate(sft, eval, finalSpec(cfg, seed))
		if err != nil {
			return err
		}
		final["mask_high"], final["mask_low"] = th.High, th.Low
		res.Runs = append(res.Runs, exp.Run{Method: "sft", Seed: seed, Final: final, Curves: curves, Seconds: time.Since(t1).Seconds()})
		if err := savePolicy(cfg, res, opt, "sft", seed, sft, sc); err != nil {
			return err
		}
		fmt.Fprintf(opt.Log, "seed %d sft: accuracy %.3f greedy %.3f (pass@8 where greedy errs %.3f) AUC %.3f (solvable %.3f, hidden %.3f, within prompts %.3f) ECE %.3f\n",
			seed, final["accuracy"], final["greedy_accuracy"], final["pass8_greedy_wrong"], final["auc"], final["auc_solvable"], final["auc_hidden"], final["auc_within"], final["ece"])
	}
	for _, m := range cfg.Methods {
		if (m.Seeds > 0 && seed > uint64(m.Seeds)) || !opt.RunsPart(m.part()) {
			continue
		}
		start := time.Now()
		run, err := runMethod(cfg, m, seed, sft, pool, eval, th, opt, res)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		run.Seconds = time.Since(start).Seconds()
		res.Timing["rl_"+m.Name] += run.Seconds
		res.Runs = append(res.Runs, run)
		fmt.Fprintf(opt.Log, "seed %d %s: accuracy %.3f greedy %.3f maj@16 %.3f RPC@16 %.3f AUC %.3f AURC %.3f ECE %.3f mask kept %.3f (%.0fs)\n", seed, m.Name,
			run.Final["accuracy"], run.Final["greedy_accuracy"], run.Final["majority_accuracy_n16"], run.Final["rpc_accuracy_n16"],
			run.Final["auc"], run.Final["aurc"], run.Final["ece"], run.Final["mask_kept"], run.Seconds)
	}
	return nil
}

func maskThresholds(sft *lm.Model, probe *lmtask.Set, rule string, q [2]float64, seed uint64) (rl.MaskThresholds, error) {
	gens, err := sft.Sample(probe.Repeat(4), lm.SampleConfig{MaxNew: maxNew, Temperature: 1, Seed: seed + 7})
	if err != nil {
		return rl.MaskThresholds{}, err
	}
	correct := probe.Correct(gens)
	ppl := make([]float64, len(gens))
	for i, g := range gens {
		ppl[i] = lm.Scored{LPM: g.LPM}.PPL()
	}
	return rl.ThresholdsFromQuantiles(rule, correct, ppl, q[0], q[1])
}

func runMethod(cfg Config, m Method, seed uint64, sft *lm.Model, pool, eval *lmtask.Set, th rl.MaskThresholds, opt exp.Options, res *exp.Result) (exp.Run, error) {
	policy, err := sft.Clone()
	if err != nil {
		return exp.Run{}, err
	}
	defer policy.Close()
	rc := cfg.RL
	rc.Estimator, rc.UseMask, rc.Mask, rc.Seed = m.Estimator, m.UseMask, th, seed
	if m.Tau > 0 {
		rc.Adv.Tau = m.Tau
	}
	if m.Norm != "" {
		rc.Adv.CAPONorm = m.Norm
	}
	if m.Loss == "gspo" {
		rc.Loss = rl.GSPOLoss()
	}
	if m.MiniBatches > 0 {
		rc.MiniBatches = m.MiniBatches
	}
	if m.LR > 0 {
		rc.Opt.LR = m.LR
	}
	if m.Steps > 0 {
		rc.Steps = m.Steps
	}
	if m.EvalEvery > 0 {
		rc.EvalEvery = m.EvalEvery
	}
	var mask maskCount
	problems := pool.Problems
	progress := opt.Progress(fmt.Sprintf("capo seed %d: %s", seed, m.Name), rc.Steps)
	tr, curves, err := rl.Train(policy, sft, pool, rc, rl.Hooks{
		Progress:  progress,
		OnRollout: func(_ int, ro *rl.Rollout) { mask.add(ro, problems) },
		OnEval: func(step int) (map[string]float64, error) {
			f, _, err := evaluate(policy, eval, evalSpec{K: cfg.EvalSamples, Seed: seed*1000 + uint64(step), Bins: cfg.Bins, Greedy: true, Hard: cfg.hard()})
			if err != nil {
				return nil, err
			}
			out := map[string]float64{}
			for _, k := range evalMetrics {
				if v, ok := f[k]; ok {
					out["eval_"+k] = v
				}
			}
			return out, nil
		},
	})
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return exp.Run{}, err
	}
	final, evalCurves, err := evaluate(policy, eval, finalSpec(cfg, seed))
	if err != nil {
		return exp.Run{}, err
	}
	for k, v := range mask.metrics() {
		final[k] = v
	}
	if c, ok := curves["grad_clipped"]; ok && len(c.Y) > 0 {
		final["grad_clipped_share"] = stats.Mean(c.Y) // share of the run's updates whose gradient the clip rescaled
	}
	if err := savePolicy(cfg, res, opt, m.Name, seed, policy, struct {
		Method Method    `json:"method"`
		RL     rl.Config `json:"rl"`
	}{m, rc}); err != nil {
		return exp.Run{}, err
	}
	run := exp.Run{Method: m.Name, Seed: seed, Final: final, Curves: evalCurves}
	keep := []string{"reward", "reward_std", "frac_reward_zero_std", "completion_length", "mask_kept", "kl", "entropy", "clip_ratio", "approx_kl"}
	for _, k := range evalMetrics {
		keep = append(keep, "eval_"+k)
	}
	for _, k := range keep {
		if c, ok := curves[k]; ok {
			run.Curves["train/"+k] = c
		}
	}
	// The KL from the SFT model at each evaluation (0 at step 0, then the mean per-step KL over the
	// window since the previous evaluation): the AUC–KL frontier's x, aligned with the evaluations.
	if kl, ok := curves["kl"]; ok {
		evals := curves["eval_accuracy"].X
		w := windowMeans(kl, evals)
		if len(evals) > 0 && evals[0] == 0 {
			w.X, w.Y = append([]float64{0}, w.X...), append([]float64{0}, w.Y...)
		}
		run.Curves[klWindowCurve] = w
	}
	for _, k := range rl.DiagnosticNames {
		if c := windowMeans(curves[k], curves["eval_accuracy"].X); len(c.Y) > 0 {
			run.Curves["train/"+diagPrefix+k] = c
		}
	}
	return run, nil
}

// evalMetrics are the held-out measures each evaluation during RL records as the curves
// train/eval_<name> (x = RL step, a point at step 0 and at every evaluation): mean@EvalSamples
// accuracy, greedy accuracy, AUC of lpm (per sampling round, averaged), ECE of exp(lpm), the
// Monte-Carlo token entropy of the sampled answers, and AUC within the solvable and the
// hidden-operand prompts; since 2026-12-06 also the AUC within prompts (aucWithin), AURC (so the
// precision–coverage comparison can be read at matched accuracy) and, on the systematic-errors
// task, mean@16 and greedy accuracy on the prompts its errors hit.
var evalMetrics = []string{"accuracy", "greedy_accuracy", "auc", "ece", "entropy", "auc_solvable", "auc_hidden",
	"auc_within", "aurc", "accuracy_distracted", "greedy_accuracy_distracted"}

// finalSpec is the evaluation of a finished policy (and of the SFT warm start): FinalSamples
// answers per prompt with the seed itself, greedy accuracy, voting and the curves.
func finalSpec(cfg Config, seed uint64) evalSpec {
	return evalSpec{K: cfg.FinalSamples, Seed: seed, Bins: cfg.Bins, Greedy: true, Full: true, Hard: cfg.hard()}
}

// hard marks the prompts the demonstrations' systematic errors hit (nil without them).
func (c Config) hard() func(arith.Problem) bool {
	if c.SFTDistract <= 0 {
		return nil
	}
	s := c.slips()
	return func(p arith.Problem) bool { return p.Distracted(s) }
}

// diagPrefix names the per-evaluation means of the advantage diagnostics (rl.Diagnostics): curve
// train/diag_<name> holds, at each evaluation after step 0, the mean of the per-step values over
// the RL steps since the previous evaluation.
const diagPrefix = "diag_"

// windowMeans is a per-step curve averaged over the windows between evaluations: at each
// evaluation step x_i, the mean of its points at steps in (x_{i−1}, x_i] (a window with no point,
// e.g. before step 1, has none).
func windowMeans(perStep exp.Curve, evals []float64) exp.Curve {
	var out exp.Curve
	j := 0
	for _, x := range evals {
		var sum, n float64
		for ; j < len(perStep.X) && perStep.X[j] <= x; j++ { // the points up to evals[i−1] were taken already
			sum += perStep.Y[j]
			n++
		}
		if n > 0 {
			out.X, out.Y = append(out.X, x), append(out.Y, sum/n)
		}
	}
	return out
}

// savePolicy saves a trained policy (weights only) with what rebuilds its data and repeats its final
// evaluation (probe.Provenance), where opt.CheckpointDir says so.
func savePolicy(cfg Config, res *exp.Result, opt exp.Options, method string, seed uint64, m *lm.Model, training any) error {
	dir := opt.CheckpointDir(method, seed)
	if dir == "" {
		return nil
	}
	data := cfg.Data
	var rlTask *arith.Config // the RL pool's and held-out prompts' own task, where it is not Data
	if cfg.RLData != nil {
		t := *cfg.RLData
		rlTask = &t
	}
	return probe.Save(dir, m, nil, probe.Provenance{
		Experiment: res.Experiment, Method: method, Seed: seed, Scale: string(res.Scale), Commit: res.Commit, Engine: res.Backend,
		Task: "arith", Arith: &data,
		Data: []probe.Draw{
			{Name: "sft", Kind: "arith", Seed: seed, N: cfg.SFTSize, Noise: cfg.SFTNoise, NoiseSeed: seed,
				Distract: cfg.SFTDistract, DistractOperands: cfg.SFTDistractOperands},
			{Name: "held_out", Kind: "arith", Seed: seed + 20_000, N: cfg.EvalPrompts, Exclude: []string{"sft"}, Arith: rlTask},
			{Name: "rl_pool", Kind: "arith", Seed: seed + 40_000, N: cfg.RLPool, Exclude: []string{"held_out"}, Arith: rlTask},
		},
		Eval:     probe.Protocol{Samples: cfg.FinalSamples, Seed: seed, Temperature: 1, MaxNew: maxNew, Bins: cfg.Bins},
		Training: training,
	})
}

// maskCount tallies the noise mask over a run's rollouts by the kind of prompt and by correctness.
type maskCount struct {
	kept, total                  [2]float64 // [solvable, hidden]
	droppedCorrect, droppedWrong float64
}

func (c *maskCount) add(ro *rl.Rollout, problems []arith.Problem) {
	for i, p := range ro.Prompts {
		kind := 0
		if problems[p].Underdetermined() {
			kind = 1
		}
		c.total[kind]++
		c.kept[kind] += ro.Mask[i]
		if ro.Mask[i] == 0 {
			if ro.Rewards[i] > 0.5 {
				c.droppedCorrect++
			} else {
				c.droppedWrong++
			}
		}
	}
}

// metrics: the fraction of rollout samples kept ("mask_kept"), within each kind of prompt, and of the
// dropped samples the share from hidden-operand prompts and the share that were correct (lucky
// guesses) — undefined (absent) when nothing was dropped.
func (c *maskCount) metrics() map[string]float64 {
	out := map[string]float64{}
	all := c.total[0] + c.total[1]
	if all == 0 {
		return out
	}
	out["mask_kept"] = (c.kept[0] + c.kept[1]) / all
	for k, name := range []string{"solvable", "hidden"} {
		if c.total[k] > 0 {
			out["mask_kept_"+name] = c.kept[k] / c.total[k]
		}
	}
	if dropped := all - c.kept[0] - c.kept[1]; dropped > 0 {
		out["mask_dropped_hidden_share"] = (c.total[1] - c.kept[1]) / dropped
		out["mask_dropped_correct_share"] = c.droppedCorrect / dropped
	}
	return out
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "capo",
		Description: "CAPO vs GRPO on the tiny LM: accuracy, AUC, ECE, precision-coverage, voting at N, mask ablation",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 8},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
		Claims:      Claims,
		Room:        Room,
		Paper:       PaperSettings,
		Doc:         "toolkit/exp/capo/README.md",
		Parts:       []string{PartMain, PartLR},
		Sweeps:      Sweeps,
		// Two shards by default, as the other tiny-LM experiments; on the 2-core machine of
		// 2026-12-06 one ONNX Runtime process already used both vCPUs and two shards were only
		// 1.05× faster (BENCHMARKS.md, bench/results/capo_parallel_2026-12-06.txt).
		Jobs: 2,
	})
	exp.Register(exp.Experiment{
		Name:        "capo-iid-slips",
		Description: "CAPO vs GRPO on the i.i.d.-slips task (the default until 2026-12-06): the evidence that there RL only sharpens",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 8},
		Config:      func(s exp.Scale) any { return IIDConfigFor(s) },
		Run:         RunIID,
		Figures:     Figures,
		Claims:      Claims,
		Room:        Room,
		Paper:       PaperSettings,
		Doc:         "toolkit/exp/capo/README.md",
		Jobs:        2,
	})
}

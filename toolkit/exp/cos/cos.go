// Package cos is experiment "cos": chain-of-step traces, a process reward model, PRM-guided iterative
// DPO and inference-time search on the tiny LM (shared/papers §3, CoS; a text-only stand-in for the
// paper's VLMs).
//
// Per seed: a policy is SFT-trained on tagged traces ("7#4#9#;9#": every step closed by a tag, then
// the answer and a last tag) in which each step slips with probability SFTNoise; the PRM (the SFT
// policy's trunk plus a 2-way head read at tags) is trained with BCE on Monte-Carlo labels of the
// policy's own traces (k rollouts from each step prefix); then
//
//	dpo-outcome      3 rounds of DPO+RPO, pairs chosen by the verifier's answer check
//	dpo-answer       … by the PRM's answer score (step weight 0)
//	dpo-step-answer  … by w·mean(step scores) + (1 − w)·answer score, w = 0.2 (CoS)
//
// and, with the SFT policy, inference-time search at N = 1…32: majority vote, PRM best-of-N,
// PRM-weighted vote and PRM step-level beam search, plus best-of-16 against the step weight. The
// paper's claims: step&answer rewards beat outcome and answer-only rewards; best-of-N peaks near a
// step weight of 0.2; PRM beam search beats majority voting as N grows; PRM-DPO first shortens chains.
package cos

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/pref"
	"github.com/paperlab/paperlab/toolkit/prm"
	"github.com/paperlab/paperlab/toolkit/probe"
	"github.com/paperlab/paperlab/toolkit/stats"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Config of experiment "cos". [UNVERIFIED] marks the paper's unstated choices, kept as parameters.
type Config struct {
	Model lm.Config    `json:"model"`
	Data  arith.Config `json:"data"`
	// SFT on SFTSize tagged demonstrations whose steps slip with probability SFTNoise (later steps
	// continue from the slip, so the answer is wrong).
	SFTSize  int          `json:"sft_size"`
	SFTNoise float64      `json:"sft_noise"`
	SFT      lm.SFTConfig `json:"sft"`
	MaxNew   int          `json:"max_new"`
	// PRM data: PRMSamples policy traces of each of PRMPrompts prompts, every step labelled by
	// MCRollouts rollouts (Math-Shepherd); Labels "hard" (good when any rollout reaches the answer,
	// Math-Shepherd's hard estimate; on seed 1 its PRM ranked held-out steps with AUC 0.735 against
	// 0.607 for soft labels) or "soft" (the fraction that does) [UNVERIFIED: the paper's binarisation].
	PRMPrompts int    `json:"prm_prompts"`
	PRMSamples int    `json:"prm_samples"`
	MCRollouts int    `json:"mc_rollouts"`
	Labels     string `json:"labels"`
	// PRMReadsPolicy: the PRM head also reads the SFT policy's log-probability of each step and its
	// running minimum (prm.New); false is the plain trunk-and-head PRM. [UNVERIFIED: the paper's PRM
	// is a fine-tuned VLM; at this scale the plain head stayed near chance within a question.]
	PRMReadsPolicy bool            `json:"prm_reads_policy"`
	PRM            prm.TrainConfig `json:"prm"`
	// Iterative DPO: Rounds rounds; each samples DPOSamples traces of each of DPOPrompts prompts from
	// the current policy, takes the best and the worst by the method's score as chosen and rejected,
	// and keeps the pair when their gap exceeds GapThreshold [UNVERIFIED: t]. Ref is "sft" (every
	// round against the SFT model, the note's "policy and reference from SFT") or "previous" (the
	// previous round's policy) [UNVERIFIED].
	Rounds       int              `json:"rounds"`
	DPOPrompts   int              `json:"dpo_prompts"`
	DPOSamples   int              `json:"dpo_samples"`
	GapThreshold float64          `json:"gap_threshold"`
	Ref          string           `json:"ref"`
	Round        pref.TrainConfig `json:"round"`
	// Trace scores: StepWeight w and the step aggregation (prm.Aggregations); WeightSweep for the
	// best-of-16 sweep.
	StepWeight  float64   `json:"step_weight"`
	Aggregation string    `json:"aggregation"`
	WeightSweep []float64 `json:"weight_sweep"`
	// Held-out evaluation: greedy and mean@EvalSamples on EvalPrompts prompts; search on the first
	// SearchPrompts of them at every N of SearchN.
	EvalPrompts   int   `json:"eval_prompts"`
	EvalSamples   int   `json:"eval_samples"`
	SearchPrompts int   `json:"search_prompts"`
	SearchN       []int `json:"search_n"`
	Bins          int   `json:"bins"`
}

// Methods are the DPO variants: the name and the step weight of their pair score (−1: the
// verifier's outcome).
var Methods = []struct {
	Name   string
	Weight float64
}{{"dpo-outcome", -1}, {"dpo-answer", 0}, {"dpo-step-answer", 0.2}}

// ConfigFor returns the configuration at a scale.
func ConfigFor(s exp.Scale) Config {
	tok := Tokenizer()
	model := lm.ConfigR()
	// Context 32, not R's 24: Monte-Carlo rollouts and beam steps continue from a prompt plus a
	// trace prefix, and the rows of a sampling batch share the width of the longest one (left padding,
	// rounded up to 4), which at 24 left too little room to finish (every rollout from a first step cut off).
	model.Vocab, model.Context = tok.Size(), 32
	// Every step checkable (no hidden operand) and every slip unrecoverable: with "+-" only a wrong
	// sub-result can never be mended by a later step. With '*' (mod 10) a later ×0 or ×5 often erases
	// a slip, Monte-Carlo labels then call steps that lead to 0 "good", and the first PRM learned to
	// prefer zeros: best-of-32 picked "0#0#;0#"-like traces and fell below one random sample.
	data := arith.Default()
	data.UnderdeterminedFrac, data.Ops = 0, "+-"
	// SFT at 1e-3: at 3e-3 (capo's rate) the policy learned the +/− task on one seed of three
	// (greedy 0.42 / 0.10 / 0.22); at 1e-3 a probe of SFT alone gave 0.97 / 0.66 / 0.53.
	sftOpt := lm.DefaultOpt(1e-3)
	sftOpt.WarmupSteps, sftOpt.TotalSteps, sftOpt.MinLRFrac, sftOpt.ClipNorm = 150, 3000, 0.1, 1
	// PRM at 3e-3: the head's policy-feature weights start near 0 and Adam moves them about lr per
	// step (seed-1 probe, 800 steps: within-question AUC of the trace score 0.90 / 0.95 / 0.97 and
	// best-of-16 0.75 / 0.90 / 0.97 at 3e-4 / 1e-3 / 3e-3).
	prmOpt := lm.DefaultOpt(3e-3)
	prmOpt.WarmupSteps, prmOpt.TotalSteps, prmOpt.MinLRFrac, prmOpt.ClipNorm = 40, 800, 0.1, 1
	roundOpt := lm.DefaultOpt(2e-4)
	roundOpt.ClipNorm = 1
	c := Config{
		Model: model, Data: data,
		SFTSize: 8000, SFTNoise: 0.2, SFT: lm.SFTConfig{Steps: 3000, BatchSize: 64, Opt: sftOpt}, MaxNew: 12,
		PRMPrompts: 2000, PRMSamples: 2, MCRollouts: 8, Labels: "hard", PRMReadsPolicy: true,
		PRM:    prm.TrainConfig{Steps: 800, BatchSize: 64, Opt: prmOpt},
		Rounds: 3, DPOPrompts: 400, DPOSamples: 16, GapThreshold: 0.1, Ref: "sft",
		// 25 steps of 32 pairs a round: about two epochs of round 1's ~400 pairs. At 120 steps (ten
		// epochs) outcome DPO overfit its pairs: seed 1's greedy accuracy fell from 0.973 to 0.517.
		Round:      pref.TrainConfig{Beta: 0.1, Steps: 25, BatchSize: 32, Opt: roundOpt, RPOAlpha: 1},
		StepWeight: 0.2, Aggregation: "mean", WeightSweep: []float64{0, 0.1, 0.2, 0.5, 0.8, 1},
		EvalPrompts: 300, EvalSamples: 16, SearchPrompts: 150, SearchN: []int{1, 2, 4, 8, 16, 32}, Bins: 10,
	}
	if s == exp.Smoke {
		// 120 steps at 3e-3: enough for the smoke policy to write whole tagged traces to label.
		c.SFTSize, c.SFT.Steps, c.SFT.Opt.TotalSteps, c.SFT.Opt.WarmupSteps, c.SFT.Opt.LR = 1000, 120, 120, 6, 3e-3
		c.PRMPrompts, c.PRMSamples, c.MCRollouts = 40, 1, 4
		c.PRM.Steps, c.PRM.Opt.TotalSteps, c.PRM.Opt.WarmupSteps = 10, 10, 2
		c.Rounds, c.DPOPrompts, c.DPOSamples, c.Round.Steps = 2, 24, 4, 4
		c.EvalPrompts, c.EvalSamples, c.SearchPrompts, c.SearchN = 24, 4, 12, []int{1, 2, 4}
	}
	return c
}

// Tokenizer is the tagged task's tokenizer (arith.TaggedAlphabet: the step tag is the task's symbol).
func Tokenizer() *lm.Tokenizer {
	t, err := lm.NewTokenizer(arith.TaggedAlphabet)
	if err != nil {
		panic(err) // a constant alphabet
	}
	return t
}

// setup is what every part of one seed shares.
type setup struct {
	cfg         Config
	seed        uint64
	opt         exp.Options
	tok         *lm.Tokenizer
	tag, marker int32
	eval, dpo   *lmtask.Set
	sft         *lm.Model
	prm         *prm.PRM
	res         *exp.Result
}

// VisionConfigFor is the vision variant's configuration: the same pipeline, with every problem
// statement reaching the trunk as noisy glyph images (arith.RenderStatement) through a patch
// embedder (lm.Config.Renderer) instead of as tokens.
func VisionConfigFor(s exp.Scale) Config {
	c := ConfigFor(s)
	c.Model.Renderer, c.Model.Pixels = lmtask.GlyphRenderer, arith.GlyphPixels
	if s == exp.Default {
		// Twice the text variant's SFT: reading digits from pixels is learned only through the
		// arithmetic loss, and a seed-1 probe's loss was still 0.57 at 3,000 steps (text: 0.22 by
		// 1,600), 0.31 at 6,000.
		c.SFT.Steps, c.SFT.Opt.TotalSteps = 6000, 6000
	}
	return c
}

// Run is the experiment.
func Run(opt exp.Options) (*exp.Result, error) { return run("cos", ConfigFor, opt) }

// RunVision is experiment "cos-vision".
func RunVision(opt exp.Options) (*exp.Result, error) { return run("cos-vision", VisionConfigFor, opt) }

func run(name string, preset func(exp.Scale) Config, opt exp.Options) (*exp.Result, error) {
	return exp.RunSeeds(name, opt, preset, Config.Validate, func(cfg Config, seed uint64, res *exp.Result) error {
		return runSeed(cfg, seed, opt, res)
	})
}

// Validate names a setting the experiment cannot run with.
func (c Config) Validate() error {
	if c.Data.UnderdeterminedFrac != 0 {
		return fmt.Errorf("cos: data.underdetermined_frac = %v: steps with a hidden operand cannot be checked", c.Data.UnderdeterminedFrac)
	}
	if c.Labels != "soft" && c.Labels != "hard" {
		return fmt.Errorf("cos: labels = %q, want soft or hard", c.Labels)
	}
	if c.Ref != "sft" && c.Ref != "previous" {
		return fmt.Errorf("cos: ref = %q, want sft or previous", c.Ref)
	}
	if _, err := prm.Aggregate([]float64{1}, c.Aggregation); err != nil {
		return err
	}
	if len(c.SearchN) == 0 || c.Rounds < 1 || c.DPOSamples < 2 || c.EvalSamples < 1 {
		return fmt.Errorf("cos: search_n, rounds ≥ 1, dpo_samples ≥ 2 and eval_samples ≥ 1 are needed")
	}
	return nil
}

func runSeed(cfg Config, seed uint64, opt exp.Options, res *exp.Result) error {
	t0 := time.Now()
	tok := Tokenizer()
	ids, _ := tok.Encode(string(arith.StepTag) + string(arith.AnswerMarker))
	s := &setup{cfg: cfg, seed: seed, opt: opt, tok: tok, tag: ids[0], marker: ids[1], res: res}
	train, err := lmtask.Generate(tok, cfg.Data, seed, cfg.SFTSize, nil)
	if err != nil {
		return err
	}
	if s.eval, err = lmtask.Generate(tok, cfg.Data, seed+20_000, cfg.EvalPrompts, train.PromptSet()); err != nil {
		return err
	}
	prmSet, err := lmtask.Generate(tok, cfg.Data, seed+30_000, cfg.PRMPrompts, s.eval.PromptSet())
	if err != nil {
		return err
	}
	if s.dpo, err = lmtask.Generate(tok, cfg.Data, seed+40_000, cfg.DPOPrompts, s.eval.PromptSet()); err != nil {
		return err
	}
	// SFT on noisy tagged demonstrations.
	r := rand.New(rand.NewPCG(seed, sftStream))
	demos := make([]lm.Example, len(train.Problems))
	for i, p := range train.Problems {
		c, err := tok.Encode(p.NoisyTaggedCompletion(r, cfg.SFTNoise))
		if err != nil {
			return err
		}
		demos[i] = lm.Example{Prompt: train.Prompts[i], Completion: c}
	}
	if s.sft, err = lm.New(cfg.Model, tok, seed); err != nil {
		return err
	}
	defer s.sft.Close()
	sc := cfg.SFT
	sc.Seed = seed
	tr, _, err := lm.TrainSFT(s.sft, sc, demos, nil, lm.SFTHooks{Progress: opt.Progress(fmt.Sprintf("cos seed %d: SFT", seed), sc.Steps)})
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return err
	}
	res.Timing["sft"] += time.Since(t0).Seconds()
	if err := s.savePolicy("sft", s.sft, sc); err != nil {
		return err
	}
	// The PRM, from Monte-Carlo labels of the SFT policy's own traces.
	t1 := time.Now()
	prmRun, err := s.trainPRM(prmSet)
	if err != nil {
		return fmt.Errorf("prm: %w", err)
	}
	defer s.prm.Close()
	res.Timing["prm"] += time.Since(t1).Seconds()
	// Held-out: the SFT policy, the PRM on gold step labels.
	t2 := time.Now()
	sftFinal, err := s.evaluate(s.sft, seed)
	if err != nil {
		return err
	}
	res.Runs = append(res.Runs, exp.Run{Method: "sft", Seed: seed, Final: sftFinal, Curves: map[string]exp.Curve{}})
	if err := s.judgePRM(&prmRun); err != nil {
		return err
	}
	res.Runs = append(res.Runs, prmRun)
	fmt.Fprintf(opt.Log, "seed %d sft: greedy %.3f mean@%d %.3f chain %.2f tokens, traces with a wrong step %.3f; prm step accuracy %.3f AUC %.3f\n",
		seed, sftFinal["accuracy"], cfg.EvalSamples, sftFinal["accuracy_mean16"], sftFinal["chain_length"], sftFinal["step_error_rate"],
		prmRun.Final["step_accuracy"], prmRun.Final["step_auc"])
	// Inference-time search with the SFT policy.
	if err := s.search(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	res.Timing["eval_and_search"] += time.Since(t2).Seconds()
	// Iterative DPO per pair-selection rule.
	for _, m := range Methods {
		t3 := time.Now()
		run, err := s.iterate(m.Name, m.Weight, sftFinal)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		run.Seconds = time.Since(t3).Seconds()
		res.Timing[m.Name] += run.Seconds
		res.Runs = append(res.Runs, run)
		fmt.Fprintf(opt.Log, "seed %d %s: greedy %.3f mean@%d %.3f chain %.2f (%.0fs)\n", seed, m.Name, run.Final["accuracy"], cfg.EvalSamples,
			run.Final["accuracy_mean16"], run.Final["chain_length"], run.Seconds)
	}
	return nil
}

// judge verifies a generation of problem p: a completion must end with EOS after its final tag.
func (s *setup) judge(p arith.Problem, g lm.Generation) arith.TaggedVerdict {
	if !g.Finished {
		v := arith.VerifyTagged(p, s.tok.Decode(g.Tokens))
		v.Parsed, v.Correct = false, false
		return v
	}
	return arith.VerifyTagged(p, s.tok.Decode(g.Tokens))
}

// evaluate measures a policy on the held-out set: greedy accuracy ("accuracy"), the accuracy of one
// sample ("accuracy_mean16", over EvalSamples samples per prompt), the mean completion length in
// tokens ("chain_length", EOS excluded) and steps written ("steps_written") of the samples, and the
// fraction of parsed samples with a wrong step ("step_error_rate").
func (s *setup) evaluate(m *lm.Model, seed uint64) (map[string]float64, error) {
	set := s.eval
	greedy, err := m.Sample(set.Prompts, lm.SampleConfig{MaxNew: s.cfg.MaxNew})
	if err != nil {
		return nil, err
	}
	gens, err := m.Sample(set.Repeat(s.cfg.EvalSamples), lm.SampleConfig{MaxNew: s.cfg.MaxNew, Temperature: 1, Seed: seed + 77})
	if err != nil {
		return nil, err
	}
	n := len(set.Problems)
	var right, sampled, length, steps, parsed, wrongStep float64
	for i, g := range greedy {
		if s.judge(set.Problems[i], g).Correct {
			right++
		}
	}
	for i, g := range gens {
		v := s.judge(set.Problems[i%n], g)
		if v.Correct {
			sampled++
		}
		length += float64(len(g.Tokens) - boolInt(g.Finished))
		steps += float64(len(v.Steps))
		if v.Parsed {
			parsed++
			if slices.Contains(v.StepCorrect, false) {
				wrongStep++
			}
		}
	}
	out := map[string]float64{
		"accuracy": right / float64(n), "accuracy_mean16": sampled / float64(len(gens)),
		"chain_length": length / float64(len(gens)), "steps_written": steps / float64(len(gens)),
	}
	if parsed > 0 {
		out["step_error_rate"] = wrongStep / parsed
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// traces samples k completions of every prompt of set (round by round, lmtask.Set.Repeat) and
// returns them with their verdicts.
func (s *setup) traces(m *lm.Model, set *lmtask.Set, k int, seed uint64) ([]lm.Generation, []arith.TaggedVerdict, error) {
	gens, err := m.Sample(set.Repeat(k), lm.SampleConfig{MaxNew: s.cfg.MaxNew, Temperature: 1, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	vs := make([]arith.TaggedVerdict, len(gens))
	for i, g := range gens {
		vs[i] = s.judge(set.Problems[i%len(set.Problems)], g)
	}
	return gens, vs, nil
}

// complete reports whether a generation is a whole tagged trace the PRM can score (EOS after a tag).
func (s *setup) complete(g lm.Generation) bool {
	return g.Finished && len(g.Tokens) >= 2 && g.Tokens[len(g.Tokens)-2] == s.tag
}

// body is a finished trace without its EOS.
func body(g lm.Generation) []int32 {
	if g.Finished {
		return g.Tokens[:len(g.Tokens)-1]
	}
	return g.Tokens
}

// trainPRM samples the SFT policy's traces on the PRM prompts, labels them by Monte Carlo, writes
// the first seed's labelled traces as JSONL, trains the PRM and returns its run (curves so far),
// with what the room checks read from those traces on every seed: right_answer_wrong_step and
// off_length_share (room.go).
func (s *setup) trainPRM(set *lmtask.Set) (exp.Run, error) {
	c := s.cfg
	gens, vs, err := s.traces(s.sft, set, c.PRMSamples, s.seed+500)
	if err != nil {
		return exp.Run{}, err
	}
	n := len(set.Problems)
	var prompts, comps [][]int32
	var probs []arith.Problem
	var gold [][]bool
	for i, g := range gens {
		if !s.complete(g) || !vs[i].Parsed {
			continue
		}
		prompts = append(prompts, set.Prompts[i%n])
		comps = append(comps, body(g))
		probs = append(probs, set.Problems[i%n])
		gold = append(gold, append(slices.Clone(vs[i].StepCorrect), vs[i].Correct))
	}
	if len(comps) == 0 {
		return exp.Run{}, fmt.Errorf("no complete traces to label")
	}
	correct := func(i int, text string) bool { return arith.VerifyTagged(probs[i], text).Correct }
	soft, cutOff, err := prm.MCLabels(s.sft, s.tag, prompts, comps, correct, c.MCRollouts,
		lm.SampleConfig{MaxNew: c.MaxNew, Temperature: 1, Seed: s.seed + 600})
	if err != nil {
		return exp.Run{}, err
	}
	labels := soft
	if c.Labels == "hard" {
		labels = prm.Hard(soft)
	}
	examples := make([]prm.Example, len(comps))
	var agree, tags float64
	hard := prm.Hard(soft)
	for i := range comps {
		examples[i] = prm.Example{Prompt: prompts[i], Completion: comps[i], Labels: labels[i]}
		for j, ok := range gold[i] {
			tags++
			if (hard[i][j] == 1) == ok {
				agree++
			}
		}
	}
	if dir := s.opt.Out; dir != "" && s.seed == 1 {
		recs := make([]prm.Record, len(comps))
		for i := range comps {
			recs[i] = prm.Record{Prompt: probs[i].Prompt, Completion: s.tok.Decode(comps[i]), Labels: soft[i], Gold: gold[i]}
		}
		if err := prm.WriteRecords(filepath.Join(dir, "prm_traces_seed1.jsonl"), recs); err != nil {
			return exp.Run{}, err
		}
	}
	if s.prm, err = prm.New(s.sft, s.tag, s.seed+700, c.PRMReadsPolicy); err != nil {
		return exp.Run{}, err
	}
	pc := c.PRM
	pc.Seed = s.seed
	curves, err := s.prm.Train(examples, pc, s.opt.Progress(fmt.Sprintf("cos seed %d: PRM", s.seed), pc.Steps))
	if err != nil {
		return exp.Run{}, err
	}
	run := exp.Run{Method: "prm", Seed: s.seed, Final: map[string]float64{
		"label_traces": float64(len(comps)), "mc_label_gold_agreement": agree / tags, "mc_cutoff_rate": cutOff,
	}, Curves: map[string]exp.Curve{"train/loss": curves["loss"], "train/tag_accuracy": curves["tag_accuracy"]}}
	// What the room checks read (room.go): how often a right answer follows a wrong step, and how
	// often a parsed trace's step count differs from its problem's, on these labelled traces.
	if v, ok := WrongStepShare(gold); ok {
		run.Final[metricWrongStep] = v
	}
	steps, want := make([]int, len(gold)), make([]int, len(gold))
	for i := range gold {
		steps[i], want[i] = len(gold[i])-1, len(probs[i].Steps)
	}
	if v, ok := OffLengthShare(steps, want); ok {
		run.Final[metricOffLength] = v
	}
	return run, nil
}

// judgePRM scores the SFT policy's held-out traces with the PRM and compares with the verifier's
// gold step labels: step_accuracy (p > ½ agrees), step_auc, answer_auc, and the reliability of p.
func (s *setup) judgePRM(run *exp.Run) error {
	gens, vs, err := s.traces(s.sft, s.eval, 1, s.seed+800)
	if err != nil {
		return err
	}
	var prompts, comps [][]int32
	var gold [][]bool
	for i, g := range gens {
		if s.complete(g) && vs[i].Parsed {
			prompts, comps = append(prompts, s.eval.Prompts[i]), append(comps, body(g))
			gold = append(gold, append(slices.Clone(vs[i].StepCorrect), vs[i].Correct))
		}
	}
	scores, err := s.prm.Score(prompts, comps)
	if err != nil {
		return err
	}
	var p, ansP []float64
	var ok, ansOK []bool
	for i, sc := range scores {
		if len(sc) != len(gold[i]) {
			return fmt.Errorf("trace %d: %d scores for %d tags", i, len(sc), len(gold[i]))
		}
		for j := range sc {
			if j == len(sc)-1 {
				ansP, ansOK = append(ansP, sc[j]), append(ansOK, gold[i][j])
				continue
			}
			p, ok = append(p, sc[j]), append(ok, gold[i][j])
		}
	}
	var agree float64
	for i := range p {
		if (p[i] > 0.5) == ok[i] {
			agree++
		}
	}
	run.Final["step_accuracy"] = agree / float64(len(p))
	if a, err := calib.AUC(p, ok); err == nil {
		run.Final["step_auc"] = a
	}
	if a, err := calib.AUC(ansP, ansOK); err == nil {
		run.Final["answer_auc"] = a
	}
	final, curves, err := exp.CalibrationMetrics(p, ok, s.cfg.Bins)
	if err != nil {
		return err
	}
	run.Final["step_ece"], run.Final["gold_step_rate"] = final["ece"], final["accuracy"]
	run.Curves["reliability"], run.Curves["reliability_count"] = curves["reliability"], curves["reliability_count"]
	return nil
}

// completeTraces are the complete traces among gens: their prompts, bodies and indices.
func (s *setup) completeTraces(prompts [][]int32, gens []lm.Generation) (ps, cs [][]int32, idx []int) {
	for i, g := range gens {
		if s.complete(g) {
			ps, cs, idx = append(ps, prompts[i]), append(cs, body(g)), append(idx, i)
		}
	}
	return ps, cs, idx
}

// traceScores scores traces with the PRM: each trace's tag scores (nil for an incomplete trace).
func (s *setup) traceScores(prompts [][]int32, gens []lm.Generation) ([][]float64, error) {
	ps, cs, idx := s.completeTraces(prompts, gens)
	out := make([][]float64, len(gens))
	if len(cs) == 0 {
		return out, nil
	}
	sc, err := s.prm.Score(ps, cs)
	if err != nil {
		return nil, err
	}
	for k, i := range idx {
		out[i] = sc[k]
	}
	return out, nil
}

// selfScores is each complete trace's lowest step log-probability under the SFT policy (the running
// minimum at its last tag; −Inf for an incomplete trace).
func (s *setup) selfScores(prompts [][]int32, gens []lm.Generation) ([]float64, error) {
	ps, cs, idx := s.completeTraces(prompts, gens)
	out := make([]float64, len(gens))
	for i := range out {
		out[i] = math.Inf(-1)
	}
	if len(cs) == 0 {
		return out, nil
	}
	f, err := prm.StepFeatures(s.sft, s.tag, ps, cs)
	if err != nil {
		return nil, err
	}
	for k, i := range idx {
		out[i] = float64(f[k][len(f[k])-1][1])
	}
	return out, nil
}

// score is a trace's selection score: the verifier's outcome (weight < 0) or the PRM trace score; 0
// for a trace the verifier cannot parse (no answer).
func (s *setup) score(tagScores []float64, v arith.TaggedVerdict, weight float64) (float64, error) {
	if !v.Parsed {
		// A trace without an answer (e.g. EOS after its first step) scores 0 under every rule: its last
		// tag is a step's, and reading it as the answer's let PRM-DPO learn to stop after one good step
		// (a first run: greedy accuracy 0.97 → 0.72 on seed 1, most completions like "4#").
		return 0, nil
	}
	if weight < 0 {
		if v.Correct {
			return 1, nil
		}
		return 0, nil
	}
	return prm.TraceScore(tagScores, weight, s.cfg.Aggregation)
}

// iterate runs Rounds rounds of DPO+RPO from the SFT policy with pairs chosen by one rule and returns
// the run: the final metrics and, per round (0 = SFT), accuracy, mean@16, chain length and pairs.
func (s *setup) iterate(name string, weight float64, sftFinal map[string]float64) (exp.Run, error) {
	c := s.cfg
	policy, err := s.sft.Clone()
	if err != nil {
		return exp.Run{}, err
	}
	defer policy.Close()
	var prev *lm.Model
	defer func() {
		if prev != nil {
			prev.Close()
		}
	}()
	run := exp.Run{Method: name, Seed: s.seed, Curves: map[string]exp.Curve{}}
	add := track.Curves(run.Curves).Add
	for _, k := range []string{"accuracy", "accuracy_mean16", "chain_length", "steps_written"} {
		add("round/"+k, 0, sftFinal[k])
	}
	var final map[string]float64
	n := len(s.dpo.Problems)
	for round := 1; round <= c.Rounds; round++ {
		gens, vs, err := s.traces(policy, s.dpo, c.DPOSamples, s.seed*1000+uint64(round))
		if err != nil {
			return exp.Run{}, err
		}
		var tagScores [][]float64
		if weight >= 0 {
			if tagScores, err = s.traceScores(s.dpo.Repeat(c.DPOSamples), gens); err != nil {
				return exp.Run{}, err
			}
		}
		var pairs []pref.PairEx
		var gaps []float64
		for q := 0; q < n; q++ {
			best, worst := -1, -1
			var bs, ws float64
			for r := 0; r < c.DPOSamples; r++ {
				i := r*n + q
				if !gens[i].Finished {
					continue // cut-off samples are neither chosen nor rejected
				}
				var ts []float64
				if tagScores != nil {
					ts = tagScores[i]
				}
				sc, err := s.score(ts, vs[i], weight)
				if err != nil {
					return exp.Run{}, err
				}
				if best < 0 || sc > bs {
					best, bs = i, sc
				}
				if worst < 0 || sc < ws {
					worst, ws = i, sc
				}
			}
			if best < 0 || bs-ws <= c.GapThreshold {
				continue
			}
			gaps = append(gaps, bs-ws)
			pairs = append(pairs, pref.PairEx{Prompt: s.dpo.Prompts[q], Chosen: body(gens[best]), Rejected: body(gens[worst])})
		}
		add("round/pairs", float64(round), float64(len(pairs)))
		if len(pairs) == 0 { // nothing to learn from: the policy stays as it is this round
			s.res.Notes = append(s.res.Notes, fmt.Sprintf("seed %d %s round %d: no pair passed the gap threshold %v", s.seed, name, round, c.GapThreshold))
			if final == nil {
				final = maps.Clone(sftFinal)
			}
			for _, k := range []string{"accuracy", "accuracy_mean16", "chain_length", "steps_written"} {
				add("round/"+k, float64(round), final[k])
			}
			continue
		}
		ref := s.sft
		if c.Ref == "previous" {
			if prev != nil {
				prev.Close()
			}
			if prev, err = policy.Clone(); err != nil {
				return exp.Run{}, err
			}
			ref = prev
		}
		rc := c.Round
		rc.Seed = s.seed*100 + uint64(round)
		if _, err := pref.TrainPairs(policy, ref, pairs, rc, pref.Hooks{
			Progress: s.opt.Progress(fmt.Sprintf("cos seed %d: %s round %d", s.seed, name, round), rc.Steps)}); err != nil {
			return exp.Run{}, err
		}
		if final, err = s.evaluate(policy, s.seed); err != nil {
			return exp.Run{}, err
		}
		for _, k := range []string{"accuracy", "accuracy_mean16", "chain_length", "steps_written"} {
			add("round/"+k, float64(round), final[k])
		}
		add("round/gap", float64(round), stats.Summarize(gaps).Mean)
	}
	run.Final = final
	if err := s.savePolicy(name, policy, struct {
		Round  pref.TrainConfig `json:"round"`
		Rounds int              `json:"rounds"`
		Weight float64          `json:"step_weight"`
		Ref    string           `json:"ref"`
	}{c.Round, c.Rounds, weight, c.Ref}); err != nil {
		return exp.Run{}, err
	}
	return run, nil
}

// sftStream is the stream of the generator that slips the SFT demonstrations' steps.
const sftStream = 0x636f73

// savePolicy saves a policy (weights only) with its provenance where the options say so.
func (s *setup) savePolicy(method string, m *lm.Model, training any) error {
	dir := s.opt.CheckpointDir(method, s.seed)
	if dir == "" {
		return nil
	}
	c, seed := s.cfg, s.seed
	data := c.Data
	return probe.Save(dir, m, nil, probe.Provenance{
		Experiment: s.res.Experiment, Method: method, Seed: seed, Scale: string(s.res.Scale), Commit: s.res.Commit, Engine: s.res.Backend,
		Task: "arith_tagged", Arith: &data,
		Data: []probe.Draw{
			{Name: "sft", Kind: "arith", Seed: seed, N: c.SFTSize, Noise: c.SFTNoise, NoiseSeed: seed, NoiseStream: sftStream},
			{Name: "held_out", Kind: "arith", Seed: seed + 20_000, N: c.EvalPrompts, Exclude: []string{"sft"}},
			{Name: "prm", Kind: "arith", Seed: seed + 30_000, N: c.PRMPrompts, Exclude: []string{"held_out"}},
			{Name: "dpo", Kind: "arith", Seed: seed + 40_000, N: c.DPOPrompts, Exclude: []string{"held_out"}},
		},
		Eval:     probe.Protocol{Samples: c.EvalSamples, Seed: seed + 77, Temperature: 1, MaxNew: c.MaxNew, Bins: c.Bins},
		Training: training,
	})
}

// search evaluates inference-time search with the SFT policy on the first SearchPrompts held-out
// prompts: majority vote, best-of-N, PRM-weighted vote (all from the same maxN samples, the first N
// of them at each N) and step-level beam search with N candidates per step; plus best-of-16 against
// the step weight (and the oracle best-of-16 that picks by the verifier's step judgements).
func (s *setup) search() error {
	c := s.cfg
	set := &lmtask.Set{Tok: s.tok, Problems: s.eval.Problems[:c.SearchPrompts], Prompts: s.eval.Prompts[:c.SearchPrompts], Gold: s.eval.Gold[:c.SearchPrompts]}
	n := len(set.Problems)
	maxN := slices.Max(c.SearchN)
	gens, vs, err := s.traces(s.sft, set, maxN, s.seed+900)
	if err != nil {
		return err
	}
	tagScores, err := s.traceScores(set.Repeat(maxN), gens)
	if err != nil {
		return err
	}
	gold := func(q int) string { p := set.Problems[q]; return p.FormatAnswer(p.Answer) }
	answers := func(q, N int) ([]string, []int) {
		var as []string
		var idx []int
		for r := 0; r < N; r++ {
			i := r*n + q
			as, idx = append(as, vs[i].Answer), append(idx, i)
		}
		return as, idx
	}
	runs := map[string]*exp.Run{}
	for _, m := range prm.SearchMethods {
		runs[m] = &exp.Run{Method: m, Seed: s.seed, Final: map[string]float64{}, Curves: map[string]exp.Curve{}}
	}
	addPoint := func(m string, N int, acc, tokens float64) {
		r := runs[m]
		r.Final[fmt.Sprintf("acc_n%d", N)] = acc
		r.Final[fmt.Sprintf("tokens_n%d", N)] = tokens
		track.Curves(r.Curves).Add("acc_vs_n", float64(N), acc)
		track.Curves(r.Curves).Add("tokens_vs_n", float64(N), tokens)
	}
	traceScore := func(i int, w float64, how string) float64 {
		v, _ := prm.TraceScore(tagScores[i], w, how)
		return v
	}
	for _, N := range c.SearchN {
		var hit [3]float64
		var tokens float64
		for q := 0; q < n; q++ {
			as, idx := answers(q, N)
			sc := make([]float64, len(idx))
			for k, i := range idx {
				sc[k] = traceScore(i, c.StepWeight, c.Aggregation)
				tokens += float64(len(gens[i].Tokens))
			}
			for k, a := range []string{prm.Majority(as), prm.BestOfN(as, sc), prm.WeightedVote(as, sc)} {
				if a != "" && a == gold(q) {
					hit[k]++
				}
			}
		}
		for k, m := range []string{"majority", "bon", "weighted"} {
			addPoint(m, N, hit[k]/float64(n), tokens/float64(n))
		}
		outs, btokens, err := prm.Beam(s.sft, s.tag, s.marker, set.Prompts, prm.PRMScorer(s.prm), prm.BeamConfig{
			N: N, MaxSteps: c.Data.MaxSteps + 1, MaxStepTokens: 5, Temperature: 1, Seed: s.seed*10 + uint64(N)})
		if err != nil {
			return err
		}
		var bh float64
		for q, o := range outs {
			if v := arith.VerifyTagged(set.Problems[q], s.tok.Decode(o)); v.Correct {
				bh++
			}
		}
		addPoint("beam", N, bh/float64(n), float64(btokens)/float64(n))
	}
	// Best-of-16 against the step weight, per aggregation; and the oracle PRM (gold step labels).
	sweepN := min(16, maxN)
	wr := &exp.Run{Method: "step-weight", Seed: s.seed, Final: map[string]float64{}, Curves: map[string]exp.Curve{}}
	for _, how := range prm.Aggregations {
		var cv exp.Curve
		for _, w := range c.WeightSweep {
			var hit float64
			for q := 0; q < n; q++ {
				as, idx := answers(q, sweepN)
				sc := make([]float64, len(idx))
				for k, i := range idx {
					sc[k] = traceScore(i, w, how)
				}
				if a := prm.BestOfN(as, sc); a != "" && a == gold(q) {
					hit++
				}
			}
			cv.X, cv.Y = append(cv.X, w), append(cv.Y, hit/float64(n))
			if how == c.Aggregation {
				wr.Final[fmt.Sprintf("bon_w%g", w)] = hit / float64(n)
			}
		}
		wr.Curves["bon_vs_w/"+how] = cv
	}
	var oracle float64
	for q := 0; q < n; q++ {
		as, idx := answers(q, sweepN)
		sc := make([]float64, len(idx))
		for k, i := range idx {
			v := vs[i]
			if v.Parsed && !slices.Contains(v.StepCorrect, false) && v.Correct {
				sc[k] = 1
			}
		}
		if a := prm.BestOfN(as, sc); a != "" && a == gold(q) {
			oracle++
		}
	}
	wr.Final["oracle_bon"] = oracle / float64(n)
	// The self-verification control: best-of-16 by the policy's own lowest step log-probability,
	// no PRM training (what the PRM's features alone would give).
	self, err := s.selfScores(set.Repeat(maxN), gens)
	if err != nil {
		return err
	}
	var selfHit float64
	for q := 0; q < n; q++ {
		as, idx := answers(q, sweepN)
		sc := make([]float64, len(idx))
		for k, i := range idx {
			sc[k] = self[i]
		}
		if a := prm.BestOfN(as, sc); a != "" && a == gold(q) {
			selfHit++
		}
	}
	wr.Final["self_bon"] = selfHit / float64(n)
	for _, m := range prm.SearchMethods {
		s.res.Runs = append(s.res.Runs, *runs[m])
	}
	s.res.Runs = append(s.res.Runs, *wr)
	fmt.Fprintf(s.opt.Log, "seed %d search at N=%d: majority %.3f, best-of-N %.3f, weighted %.3f, beam %.3f; best-of-%d by step weight %v: %v\n",
		s.seed, maxN, runs["majority"].Final[fmt.Sprintf("acc_n%d", maxN)], runs["bon"].Final[fmt.Sprintf("acc_n%d", maxN)],
		runs["weighted"].Final[fmt.Sprintf("acc_n%d", maxN)], runs["beam"].Final[fmt.Sprintf("acc_n%d", maxN)], sweepN, c.WeightSweep,
		roundAll(wr.Curves["bon_vs_w/"+c.Aggregation].Y))
	return nil
}

func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1000) / 1000
	}
	return out
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "cos",
		Description: "CoS on the tiny LM: chain-of-step traces, a process reward model, PRM-guided iterative DPO, inference-time search",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 5},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
		Claims:      Claims,
		Room:        Room,
		Paper:       PaperSettings,
	})
	exp.Register(exp.Experiment{
		Name:        "cos-vision",
		Description: "CoS's vision stand-in: the same pipeline with problem statements read as noisy glyph images through a patch embedder",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 5},
		Config:      func(s exp.Scale) any { return VisionConfigFor(s) },
		Run:         RunVision,
		Figures:     Figures,
		Claims:      Claims,
		Room:        Room,
		Paper:       PaperSettings,
	})
}

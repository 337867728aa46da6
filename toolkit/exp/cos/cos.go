// Package cos is experiment "cos": chain-of-step traces, a process reward model, PRM-guided iterative
// DPO and inference-time search on the tiny LM (CoS: Chen et al., NeurIPS 2025; a text-only stand-in
// for the paper's VLMs). The paper, its sources and our deviations: toolkit/exp/cos/README.md.
//
// The task (since 2026-12-03) leaves room for steps: the answer is the chain's last sub-result
// mod 4, so a wrong chain often ends at the right answer (as on CoS's multiple-choice benchmarks), and the SFT
// demonstrations carry systematic carry/borrow slips beside uniform ones, errors the policy learns as
// a rule and repeats, so a vote does not wash them out. Per seed: a policy is SFT-trained on tagged
// traces ("7#4#9#;1#": every step closed by a tag, then the answer and a last tag); an independent
// PRM (a trunk of its own, of the policy's shape, pretrained on gold chains, reading no policy
// features) is trained with BCE on step labels of the policy's own traces — half soft labels from
// 16 Monte-Carlo rollouts from each step prefix (Math-Shepherd), half hard ones from a step judge
// (the verifier, standing in for CoS's GPT-4o-judged half); the earlier PRM (a head on the policy's
// trunk reading its step log-probabilities) is trained on the same labels as the ablation
// "prm-selfconf". Then
//
//	dpo-outcome      3 rounds of DPO+RPO, pairs chosen by the verifier's answer check
//	dpo-answer       … by the PRM's answer score (step weight 0)
//	dpo-step-answer  … by w·mean(step scores) + (1 − w)·answer score, w = 0.2 (CoS)
//
// (the loop itself is prm.Iterate) and, with the SFT policy, inference-time search at N = 1…32:
// majority vote, PRM best-of-N, PRM-weighted vote, width-k PRM beam search (search-and-learn: N/4
// beams expanded 4 ways, a PRM-weighted vote among the survivors), the width-1 step search, and
// pass@N (the oracle), plus best-of-16 against the step weight. The paper's claims: step&answer
// rewards beat outcome and answer-only rewards; best-of-N peaks near a step weight of 0.2; PRM search
// beats majority voting as N grows; PRM-DPO first shortens chains.
//
// The files: cos.go runs a seed top to bottom (SFT, PRM, evaluation, search, DPO rounds);
// config.go holds the configuration and its presets; prm.go the PRM's labelled traces, training
// and evaluation against gold step labels; search.go the inference-time search rules as one table;
// claims.go, room.go and figures.go read a finished result.
package cos

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/pref"
	"github.com/paperlab/paperlab/toolkit/prm"
	"github.com/paperlab/paperlab/toolkit/probe"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Methods are the DPO variants: the name and the step weight of their pair score (−1: the
// verifier's outcome).
var Methods = []struct {
	Name   string
	Weight float64
}{{"dpo-outcome", -1}, {"dpo-answer", 0}, {"dpo-step-answer", 0.2}}

// setup is what every part of one seed shares.
type setup struct {
	cfg         Config
	seed        uint64
	opt         exp.Options
	tok         *lm.Tokenizer
	tag, marker int32
	train       *lmtask.Set // the SFT prompts
	eval, dpo   *lmtask.Set
	sft         *lm.Model
	prm         *prm.PRM // the independent PRM
	selfconf    *prm.PRM // the prm-selfconf ablation (nil when SelfConf.Steps is 0)
	res         *exp.Result
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

func runSeed(cfg Config, seed uint64, opt exp.Options, res *exp.Result) error {
	t0 := time.Now()
	tok := Tokenizer()
	ids, _ := tok.Encode(string(arith.StepTag) + string(arith.AnswerMarker))
	s := &setup{cfg: cfg, seed: seed, opt: opt, tok: tok, tag: ids[0], marker: ids[1], res: res}
	train, err := lmtask.Generate(tok, cfg.Data, seed, cfg.SFTSize, nil)
	if err != nil {
		return err
	}
	s.train = train
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
	demos, err := train.TextExamples(func(p arith.Problem) string {
		return p.SlippedTaggedCompletion(r, arith.Slips{Uniform: cfg.SFTNoise, Carry: cfg.SFTCarry})
	})
	if err != nil {
		return err
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
	prmRuns, err := s.trainPRM(prmSet)
	if err != nil {
		return fmt.Errorf("prm: %w", err)
	}
	defer s.prm.Close()
	if s.selfconf != nil {
		defer s.selfconf.Close()
	}
	res.Timing["prm"] += time.Since(t1).Seconds()
	// Held-out: the SFT policy, the PRMs on gold step labels.
	t2 := time.Now()
	sftFinal, err := s.evaluate(s.sft, seed)
	if err != nil {
		return err
	}
	res.Runs = append(res.Runs, exp.Run{Method: "sft", Seed: seed, Final: sftFinal, Curves: map[string]exp.Curve{}})
	for i, p := range []*prm.PRM{s.prm, s.selfconf} {
		if p == nil {
			continue
		}
		if err := s.judgePRM(p, &prmRuns[i]); err != nil {
			return err
		}
		res.Runs = append(res.Runs, prmRuns[i])
	}
	fmt.Fprintf(opt.Log, "seed %d sft: greedy %.3f (whole chain %.3f) mean@%d %.3f (whole chain %.3f), chain %.2f tokens; prm step AUC %.3f, policy's own lowest step probability %.3f",
		seed, sftFinal["accuracy"], sftFinal["chain_accuracy"], cfg.EvalSamples, sftFinal["accuracy_mean16"], sftFinal["chain_accuracy_mean16"], sftFinal["chain_length"],
		prmRuns[0].Final["step_auc"], prmRuns[0].Final["self_step_auc"])
	if s.selfconf != nil {
		fmt.Fprintf(opt.Log, ", prm-selfconf %.3f", prmRuns[1].Final["step_auc"])
	}
	fmt.Fprintln(opt.Log)
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
		v.Parsed, v.Correct, v.ChainCorrect = false, false, false
		return v
	}
	return arith.VerifyTagged(p, s.tok.Decode(g.Tokens))
}

// evaluate measures a policy on the held-out set: greedy accuracy ("accuracy"), the accuracy of one
// sample ("accuracy_mean16", over EvalSamples samples per prompt), the same for whole chains (the
// answer and every step right: "chain_accuracy", "chain_accuracy_mean16"), the mean completion length in
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
	var right, rightChain, sampled, sampledChain, length, steps, parsed, wrongStep float64
	for i, g := range greedy {
		v := s.judge(set.Problems[i], g)
		right += float64(boolInt(v.Correct))
		rightChain += float64(boolInt(v.ChainCorrect))
	}
	for i, g := range gens {
		v := s.judge(set.Problems[i%n], g)
		sampled += float64(boolInt(v.Correct))
		sampledChain += float64(boolInt(v.ChainCorrect))
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
		"chain_accuracy": rightChain / float64(n), "chain_accuracy_mean16": sampledChain / float64(len(gens)),
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

// completeTraces are the complete traces among gens: their prompts, bodies and indices.
func (s *setup) completeTraces(prompts [][]int32, gens []lm.Generation) (ps, cs [][]int32, idx []int) {
	for i, g := range gens {
		if s.complete(g) {
			ps, cs, idx = append(ps, prompts[i]), append(cs, prm.Body(g)), append(idx, i)
		}
	}
	return ps, cs, idx
}

// traceScores scores traces with a PRM: each trace's tag scores (nil for an incomplete trace).
func (s *setup) traceScores(p *prm.PRM, prompts [][]int32, gens []lm.Generation) ([][]float64, error) {
	ps, cs, idx := s.completeTraces(prompts, gens)
	out := make([][]float64, len(gens))
	if len(cs) == 0 {
		return out, nil
	}
	sc, err := p.Score(ps, cs)
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

// iterate runs Rounds rounds of DPO+RPO from the SFT policy with pairs chosen by one rule
// (prm.Iterate) and returns the run: the final metrics and, per round (0 = SFT), accuracy, mean@16,
// their whole-chain versions, chain length and pairs.
func (s *setup) iterate(name string, weight float64, sftFinal map[string]float64) (exp.Run, error) {
	c := s.cfg
	policy, err := s.sft.Clone()
	if err != nil {
		return exp.Run{}, err
	}
	defer policy.Close()
	run := exp.Run{Method: name, Seed: s.seed, Curves: map[string]exp.Curve{}}
	add := track.Curves(run.Curves).Add
	final := maps.Clone(sftFinal)
	record := func(round int) {
		for _, k := range roundMetrics {
			add("round/"+k, float64(round), final[k])
		}
	}
	record(0)
	n := len(s.dpo.Problems)
	rounds, err := prm.Iterate(policy, s.sft, s.dpo.Prompts, prm.RoundsConfig{
		Rounds: c.Rounds, Samples: c.DPOSamples, GapThreshold: c.GapThreshold, Ref: c.Ref,
		Sample: lm.SampleConfig{MaxNew: c.MaxNew, Temperature: 1}, Train: c.Round, Seed: s.seed,
	}, prm.RoundHooks{
		Score: func(inputs [][]int32, gens []lm.Generation) ([]float64, error) {
			var tagScores [][]float64
			if weight >= 0 {
				var err error
				if tagScores, err = s.traceScores(s.prm, inputs, gens); err != nil {
					return nil, err
				}
			}
			out := make([]float64, len(gens))
			for i, g := range gens {
				var ts []float64
				if tagScores != nil {
					ts = tagScores[i]
				}
				v, err := s.score(ts, s.judge(s.dpo.Problems[i%n], g), weight)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		},
		Evaluate: func(round int, policy *lm.Model, trained bool) error {
			if trained {
				var err error
				if final, err = s.evaluate(policy, s.seed); err != nil {
					return err
				}
			}
			record(round)
			return nil
		},
		Progress: func(round int) track.Progress {
			return s.opt.Progress(fmt.Sprintf("cos seed %d: %s round %d", s.seed, name, round), c.Round.Steps)
		},
	})
	if err != nil {
		return exp.Run{}, err
	}
	for _, r := range rounds {
		add("round/pairs", float64(r.Round), float64(r.Pairs))
		if r.Pairs == 0 { // nothing to learn from: the policy stayed as it was this round
			s.res.Notes = append(s.res.Notes, fmt.Sprintf("seed %d %s round %d: no pair passed the gap threshold %v", s.seed, name, r.Round, c.GapThreshold))
		} else {
			add("round/gap", float64(r.Round), r.Gap)
		}
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

// roundMetrics are the evaluate metrics recorded after every DPO round.
var roundMetrics = []string{"accuracy", "accuracy_mean16", "chain_accuracy", "chain_accuracy_mean16", "chain_length", "steps_written"}

// sftStream is the stream of the generator that slips the SFT demonstrations' steps; judgeStream
// the one that picks the traces the step judge labels.
const (
	sftStream   = 0x636f73
	judgeStream = 0x6a756467
)

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
			{Name: "sft", Kind: "arith", Seed: seed, N: c.SFTSize, Noise: c.SFTNoise, Carry: c.SFTCarry, NoiseSeed: seed, NoiseStream: sftStream},
			{Name: "held_out", Kind: "arith", Seed: seed + 20_000, N: c.EvalPrompts, Exclude: []string{"sft"}},
			{Name: "prm", Kind: "arith", Seed: seed + 30_000, N: c.PRMPrompts, Exclude: []string{"held_out"}},
			{Name: "dpo", Kind: "arith", Seed: seed + 40_000, N: c.DPOPrompts, Exclude: []string{"held_out"}},
		},
		Eval:     probe.Protocol{Samples: c.EvalSamples, Seed: seed + 77, Temperature: 1, MaxNew: c.MaxNew, Bins: c.Bins},
		Training: training,
	})
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
		Doc:         "toolkit/exp/cos/README.md",
		Jobs:        2,
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
		Doc:         "toolkit/exp/cos/README.md",
		Jobs:        2,
	})
}

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
	"os"
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

// Method is a DPO variant: its name, the step weight of its pair score (−1: the verifier's
// outcome), whether a pair's chosen trace must have the right answer (ChosenRight: a common
// construction in the MPO line CoS builds on) and whether the PRM is re-trained on the policy's
// own traces before every round after the first (Retrain: the judge's labels, Config.Retrain), so
// the policy cannot keep exploiting a PRM frozen after SFT.
type Method struct {
	Name        string
	Weight      float64
	ChosenRight bool
	Retrain     bool
}

// Methods are the DPO variants in figure order.
var Methods = []Method{
	{Name: "dpo-outcome", Weight: -1},
	{Name: "dpo-answer", Weight: 0},
	{Name: "dpo-step-answer", Weight: 0.2},
	{Name: "dpo-step-answer-right", Weight: 0.2, ChosenRight: true},
	{Name: "dpo-step-answer-retrain", Weight: 0.2, Retrain: true},
}

// setup is what every part of one seed shares.
type setup struct {
	cfg         Config
	seed        uint64
	opt         exp.Options
	tok         *lm.Tokenizer
	tag, marker int32
	train       *lmtask.Set // the SFT prompts
	eval, dpo   *lmtask.Set
	prmSet      *lmtask.Set        // the PRM prompts
	sftPath     map[string]float64 // pathEval of the SFT policy: every path's start
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
	if opt.Log == nil { // a caller of Run directly (not through exp's runners) gets the runners' default
		opt.Log = os.Stderr
	}
	return exp.RunSeeds(name, opt, preset, Config.Validate, func(cfg Config, seed uint64, res *exp.Result) error {
		return runSeed(cfg, seed, opt, res)
	})
}

// runSeed runs every part the options ask for on one seed. The parts share the seed's SFT policy
// and PRM data (the same seed gives the same ones in a part run alone); the main part records the
// SFT policy, the PRMs and everything the room checks read.
func runSeed(cfg Config, seed uint64, opt exp.Options, res *exp.Result) error {
	main := opt.RunsPart(PartMain)
	sizes := len(cfg.PRMSizes) > 0 && opt.RunsPart(PartPRMSize)
	grpo := cfg.GRPO.Steps > 0 && opt.RunsPart(PartGRPO)
	stepwise := cfg.StepDPON > 0 && opt.RunsPart(PartStepDPO)
	formats := cfg.Reasoning && opt.RunsPart(PartReasoning)
	if !main && !sizes && !grpo && !stepwise && !formats {
		return nil
	}
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
	// The DPO (and GRPO) prompts avoid the held-out and the PRM prompts: no pair is scored by a PRM
	// on a problem it was trained or re-trained on.
	dpoExclude := s.eval.PromptSet()
	maps.Copy(dpoExclude, prmSet.PromptSet())
	if s.dpo, err = lmtask.Generate(tok, cfg.Data, seed+40_000, cfg.DPOPrompts, dpoExclude); err != nil {
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
	if main {
		if err := s.savePolicy("sft", s.sft, sc); err != nil {
			return err
		}
	}
	// The PRM, from Monte-Carlo labels of the SFT policy's own traces.
	t1 := time.Now()
	s.prmSet = prmSet
	prms, L, err := s.trainPRM(prmSet)
	if err != nil {
		return fmt.Errorf("prm: %w", err)
	}
	for _, f := range prms {
		defer f.prm.Close()
	}
	res.Timing["prm"] += time.Since(t1).Seconds()
	t2 := time.Now()
	sftFinal, err := s.evaluate(s.sft, seed)
	if err != nil {
		return err
	}
	if s.sftPath, err = s.pathEval(s.sft); err != nil {
		return err
	}
	res.Timing["eval_and_search"] += time.Since(t2).Seconds()
	if sizes {
		if err := s.prmSizes(L, prms[0]); err != nil {
			return err
		}
	}
	if grpo {
		for _, m := range GRPOMethods {
			t := time.Now()
			run, err := s.grpoArm(m)
			if err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			run.Seconds = time.Since(t).Seconds()
			res.Timing[m.Name] += run.Seconds
			res.Runs = append(res.Runs, run)
			fmt.Fprintf(opt.Log, "seed %d %s: greedy %.3f mean@%d %.3f, KL from SFT %.2f (%.0fs)\n", seed, m.Name, run.Final["accuracy"], cfg.EvalSamples,
				run.Final["accuracy_mean16"], run.Final["kl_sft"], run.Seconds)
		}
	}
	if stepwise {
		t := time.Now()
		run, err := s.stepDPO(sftFinal)
		if err != nil {
			return fmt.Errorf("dpo-step-wise: %w", err)
		}
		run.Seconds = time.Since(t).Seconds()
		res.Timing[run.Method] += run.Seconds
		res.Runs = append(res.Runs, run)
		fmt.Fprintf(opt.Log, "seed %d %s: %.0f pairs (PRM score gap %.3f, reference margin %.2f nats), mean@%d %.3f (%.0fs)\n", seed, run.Method, run.Final["pairs"],
			run.Final["pair_gap"], run.Final["pair_ref_margin"], cfg.EvalSamples, run.Final["accuracy_mean16"], run.Seconds)
	}
	if formats {
		for _, f := range Formats {
			t := time.Now()
			runs, err := s.reasoning(f.Name, f.Trace)
			if err != nil {
				return fmt.Errorf("reasoning %s: %w", f.Name, err)
			}
			res.Timing[PartReasoning+"-"+f.Name] += time.Since(t).Seconds()
			res.Runs = append(res.Runs, runs...)
			fmt.Fprintf(opt.Log, "seed %d %s: SFT mean@%d %.3f, after outcome DPO %.3f (%.0fs)\n", seed, f.Name, cfg.EvalSamples,
				runs[0].Final["accuracy_mean16"], runs[1].Final["accuracy_mean16"], time.Since(t).Seconds())
		}
	}
	if !main {
		return nil
	}
	t2 = time.Now()
	// Held-out: the SFT policy, the PRMs on gold step labels.
	res.Runs = append(res.Runs, exp.Run{Method: "sft", Seed: seed, Final: sftFinal, Curves: map[string]exp.Curve{}})
	for i := range prms {
		if err := s.judgePRM(prms[i].prm, &prms[i].run); err != nil {
			return err
		}
		res.Runs = append(res.Runs, prms[i].run)
	}
	fmt.Fprintf(opt.Log, "seed %d sft: greedy %.3f (whole chain %.3f) mean@%d %.3f (whole chain %.3f), chain %.2f tokens; step AUC on held-out traces",
		seed, sftFinal["accuracy"], sftFinal["chain_accuracy"], cfg.EvalSamples, sftFinal["accuracy_mean16"], sftFinal["chain_accuracy_mean16"], sftFinal["chain_length"])
	for _, f := range prms {
		fmt.Fprintf(opt.Log, " %s %.3f (step %.0f of %.0f)", f.run.Method, f.run.Final["heldout_step_auc"], f.run.Final["best_step"], f.run.Final["steps_run"])
	}
	fmt.Fprintf(opt.Log, ", policy's own lowest step probability %.3f\n", prms[0].run.Final["heldout_self_step_auc"])
	// Inference-time search with the SFT policy.
	if err := s.search(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	res.Timing["eval_and_search"] += time.Since(t2).Seconds()
	// Iterative DPO per pair-selection rule.
	for _, m := range Methods {
		if m.Retrain && cfg.Retrain.Steps == 0 {
			continue
		}
		t3 := time.Now()
		run, err := s.iterate(m, sftFinal)
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
// fraction of parsed samples with a wrong step ("step_error_rate"), and the KL divergence from the
// SFT policy over those samples ("kl_sft", lm.SampleKL; 0 for the SFT policy itself).
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
	out["kl_sft"] = 0
	if m != s.sft {
		kl, err := lm.SampleKL(s.sft, set.Repeat(s.cfg.EvalSamples), gens)
		if err != nil {
			return nil, err
		}
		out["kl_sft"] = kl
	}
	return out, nil
}

// pathEval is the light evaluation of a policy along training, the points of the paths the
// matched-KL claims read: PathSamples samples of every held-out prompt at T = 1 (one seed for every
// point), their answer and whole-chain accuracy ("accuracy", "chain_accuracy") and the KL divergence
// from the SFT policy over them ("kl_sft"; 0 for the SFT policy).
func (s *setup) pathEval(m *lm.Model) (map[string]float64, error) {
	set, c := s.eval, s.cfg
	prompts := set.Repeat(c.PathSamples)
	gens, err := m.Sample(prompts, lm.SampleConfig{MaxNew: c.MaxNew, Temperature: 1, Seed: s.seed + 88})
	if err != nil {
		return nil, err
	}
	n := len(set.Problems)
	var right, chain float64
	for i, g := range gens {
		v := s.judge(set.Problems[i%n], g)
		right += float64(boolInt(v.Correct))
		chain += float64(boolInt(v.ChainCorrect))
	}
	out := map[string]float64{"accuracy": right / float64(len(gens)), "chain_accuracy": chain / float64(len(gens)), "kl_sft": 0}
	if m != s.sft {
		if out["kl_sft"], err = lm.SampleKL(s.sft, prompts, gens); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pathMetrics are pathEval's metrics, recorded as "path/<metric>" curves over the cumulative DPO
// (or GRPO) step, and for the first round alone as "path1/<metric>".
var pathMetrics = []string{"accuracy", "chain_accuracy", "kl_sft"}

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

// iterate runs method m's rounds of DPO from the SFT policy on the DPO prompts (prm.Iterate) and
// returns the run: the final metrics and, per round (0 = SFT), accuracy, mean@16, their whole-chain
// versions, chain length, KL from SFT, the pairs and the DPO steps (one epoch over the round's pairs).
func (s *setup) iterate(m Method, sftFinal map[string]float64) (exp.Run, error) {
	c, name, weight := s.cfg, m.Name, m.Weight
	policy, err := s.sft.Clone()
	if err != nil {
		return exp.Run{}, err
	}
	defer policy.Close()
	scorer := s.prm
	if m.Retrain { // a copy of the PRM of its own, re-trained along the way
		lmc, err := s.prm.LM.Clone()
		if err != nil {
			return exp.Run{}, err
		}
		scorer = &prm.PRM{LM: lmc, Tag: s.tag}
		defer scorer.Close()
	}
	run := exp.Run{Method: name, Seed: s.seed, Curves: map[string]exp.Curve{}}
	add := track.Curves(run.Curves).Add
	final := maps.Clone(sftFinal)
	record := func(round int) {
		for _, k := range roundMetrics {
			add("round/"+k, float64(round), final[k])
		}
	}
	record(0)
	// The path: the SFT policy at step 0, then every Round.EvalEvery DPO steps of every round.
	done, next := 0, 0 // DPO steps before the current round, and after it
	addPath := func(round, step int, v map[string]float64) {
		for _, k := range pathMetrics {
			add("path/"+k, float64(done+step), v[k])
			if round <= 1 {
				add("path1/"+k, float64(done+step), v[k])
			}
		}
	}
	addPath(1, 0, s.sftPath)
	n := len(s.dpo.Problems)
	hooks := prm.RoundHooks{
		OnEval: func(round, step int, policy *lm.Model) (map[string]float64, error) {
			if step == 0 { // the previous round's end (or SFT), already on the path
				return nil, nil
			}
			v, err := s.pathEval(policy)
			if err != nil {
				return nil, err
			}
			addPath(round, step, v)
			return nil, nil
		},
		Score: func(inputs [][]int32, gens []lm.Generation) ([]float64, error) {
			return s.scoreGens(scorer, weight, inputs, gens, func(i int) int { return i % n })
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
		Progress: func(round, steps int) track.Progress {
			done, next = next, next+steps // called as a round starts training, with its steps
			return s.opt.Progress(fmt.Sprintf("cos seed %d: %s round %d", s.seed, name, round), steps)
		},
	}
	if m.ChosenRight {
		hooks.Eligible = func(_ [][]int32, gens []lm.Generation) ([]bool, error) {
			ok := make([]bool, len(gens))
			for i, g := range gens {
				ok[i] = s.judge(s.dpo.Problems[i%n], g).Correct
			}
			return ok, nil
		}
	}
	if m.Retrain {
		hooks.BeforeRound = func(round int, policy *lm.Model) error {
			if round == 1 { // the PRM was trained on the SFT policy's traces
				return nil
			}
			before, after, err := s.retrain(scorer, policy, round)
			if err != nil {
				return err
			}
			for k, v := range map[string]float64{"round/prm_step_auc_before": before, "round/prm_step_auc_after": after} {
				if !math.IsNaN(v) {
					add(k, float64(round), v)
				}
			}
			return nil
		}
	}
	rounds, err := prm.Iterate(policy, s.sft, s.dpo.Prompts, prm.RoundsConfig{
		Rounds: c.Rounds, Samples: c.DPOSamples, GapThreshold: c.GapThreshold, Ref: c.Ref,
		Sample: lm.SampleConfig{MaxNew: c.MaxNew, Temperature: 1}, Train: c.Round, Epochs: c.RoundEpochs, Seed: s.seed,
	}, hooks)
	if err != nil {
		return exp.Run{}, err
	}
	for _, r := range rounds {
		add("round/pairs", float64(r.Round), float64(r.Pairs))
		add("round/steps", float64(r.Round), float64(r.Steps))
		if r.Pairs == 0 { // nothing to learn from: the policy stayed as it was this round
			s.res.Notes = append(s.res.Notes, fmt.Sprintf("seed %d %s round %d: no pair passed the gap threshold %v", s.seed, name, r.Round, c.GapThreshold))
		} else {
			add("round/gap", float64(r.Round), r.Gap)
		}
	}
	run.Final = final
	for _, k := range []string{"accuracy_mean16", "chain_accuracy_mean16", "kl_sft"} { // one round of pairs, as Table 9's step-wise arm
		if v, ok := roundAt(run.Curves["round/"+k], 1); ok {
			run.Final["round1_"+k] = v
		}
	}
	if err := s.savePolicy(name, policy, struct {
		Round       pref.TrainConfig `json:"round"`
		Rounds      int              `json:"rounds"`
		Epochs      float64          `json:"round_epochs"`
		Weight      float64          `json:"step_weight"`
		ChosenRight bool             `json:"chosen_right"`
		Retrain     bool             `json:"retrain"`
		Ref         string           `json:"ref"`
	}{c.Round, c.Rounds, c.RoundEpochs, weight, m.ChosenRight, m.Retrain, c.Ref}); err != nil {
		return exp.Run{}, err
	}
	return run, nil
}

// retrain fine-tunes a PRM on the policy's current traces before a round: one trace of each of the
// first RetrainPrompts PRM prompts, labelled by the step judge (no Monte-Carlo rollouts), Retrain's
// steps of BCE on four fifths of them; the policy's shift since SFT is what the PRM then sees. It
// returns the PRM's step AUC on the other fifth (the current policy's traces it does not train on)
// before and after: whether the frozen PRM had fallen behind the policy, and whether re-training
// caught up.
func (s *setup) retrain(p *prm.PRM, policy *lm.Model, round int) (before, after float64, err error) {
	c := s.cfg
	k := min(c.RetrainPrompts, len(s.prmSet.Problems))
	set := &lmtask.Set{Tok: s.tok, Problems: s.prmSet.Problems[:k], Prompts: s.prmSet.Prompts[:k], Gold: s.prmSet.Gold[:k]}
	gens, vs, err := s.traces(policy, set, 1, s.seed*100+uint64(round)+5000)
	if err != nil {
		return 0, 0, err
	}
	var exs []prm.Example
	var h heldOut
	for i, g := range gens {
		if !s.complete(g) || !vs[i].Parsed {
			continue
		}
		gold := append(slices.Clone(vs[i].StepCorrect), vs[i].Correct)
		if i%5 == 4 {
			h.prompts, h.comps, h.gold = append(h.prompts, set.Prompts[i]), append(h.comps, prm.Body(g)), append(h.gold, gold)
			continue
		}
		exs = append(exs, prm.Example{Prompt: set.Prompts[i], Completion: prm.Body(g), Labels: goldLabels(gold)})
	}
	if len(exs) == 0 {
		return 0, 0, fmt.Errorf("no complete traces to re-train the PRM on")
	}
	auc := func() float64 {
		m, err := heldOutMetrics(p, &h, c.StepWeight, c.Aggregation)
		if v, ok := m["step_auc"]; err == nil && ok {
			return v
		}
		return math.NaN()
	}
	before = auc()
	tc := c.Retrain
	tc.Seed = s.seed*100 + uint64(round)
	if _, err = p.Train(exs, tc, prm.TrainHooks{Progress: s.opt.Progress(fmt.Sprintf("cos seed %d: PRM re-training before round %d", s.seed, round), tc.Steps)}); err != nil {
		return 0, 0, err
	}
	return before, auc(), nil
}

// roundMetrics are the evaluate metrics recorded after every DPO round.
var roundMetrics = []string{"accuracy", "accuracy_mean16", "chain_accuracy", "chain_accuracy_mean16", "chain_length", "steps_written", "kl_sft"}

// sftStream is the stream of the generator that slips the SFT demonstrations' steps; judgeStream
// the one that picks the traces the step judge labels.
const (
	sftStream   = 0x636f73
	judgeStream = 0x6a756467
	// heldOutStream draws the PRM's held-out traces (heldOutSplit).
	heldOutStream = 0x68656c64
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
			{Name: "dpo", Kind: "arith", Seed: seed + 40_000, N: c.DPOPrompts, Exclude: []string{"held_out", "prm"}},
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
		// One process at a time: since PRM training and the DPO rounds dominate, one process keeps
		// both cores of a 2-core machine busy (ONNX Runtime's intra-op threads), and two one-seed
		// shards ran at 0.8× the throughput of one (BENCHMARKS.md).
		Parts: Parts,
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
		Paper:       VisionPaperSettings,
		Doc:         "toolkit/exp/cos/README.md",
	})
}

// roundAt is a by-round curve's value at round r.
func roundAt(c exp.Curve, r int) (float64, bool) {
	for i, x := range c.X {
		if int(x) == r && i < len(c.Y) {
			return c.Y[i], true
		}
	}
	return 0, false
}

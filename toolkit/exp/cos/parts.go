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
	"github.com/paperlab/paperlab/toolkit/pref"
	"github.com/paperlab/paperlab/toolkit/prm"
	"github.com/paperlab/paperlab/toolkit/rl"
	"github.com/paperlab/paperlab/toolkit/track"
)

// The parts of experiment cos (Experiment.Parts): the main comparison, and the paper's ablations
// at tiny scale on the text variant, each with its own methods, on the seed's same SFT policy and
// PRM data (cos-vision runs the main part only: its configuration has no ablation).
const (
	PartMain      = "main"
	PartPRMSize   = "prm-size"  // the paper's Table 3: the PRM at three widths, on seen and unseen problems
	PartGRPO      = "grpo"      // the paper's Table 5: GRPO with the outcome reward against the PRM's trace score
	PartStepDPO   = "step-dpo"  // the paper's Table 9: DPO on step-wise pairs
	PartReasoning = "reasoning" // the paper's Table 4: chain of steps against free-form and no reasoning
)

// Parts are the experiment's parts in the order a whole run runs them.
var Parts = []string{PartMain, PartPRMSize, PartGRPO, PartStepDPO, PartReasoning}

// Formats are Table 4's reasoning formats beside the chain of steps (the main part's tagged "sft"
// and "dpo-outcome"): the same slipped chains written "s1,s2,…;answer" without step tags
// (free-form: the format's only difference from the chain of steps is the tags), and the answer
// alone (the answer the slipped chain ends at: the same errors, no reasoning written).
var Formats = []struct {
	Name  string
	Trace bool
}{{"free-form", true}, {"answer-only", false}}

// GRPOMethods are Table 5's runs: GRPO from the SFT policy rewarded by the verifier's outcome, and by
// the PRM's trace score (the step weight of the step&answer pairs).
var GRPOMethods = []Method{{Name: "grpo-outcome", Weight: -1}, {Name: "grpo-prm", Weight: 0.2}}

// prmSizes trains Table 3's PRMs: one per width of PRMSizes, pretrained and trained as the main PRM
// (same labelled traces, selection and check halves, seed) with a trunk of that width (FF 4 × width),
// the main PRM standing for its own width. Each run "prm-d<width>" records the PRM's measures on
// unseen problems (heldout_…, the check half) and on seen ones (seen_…, SeenTraces of its training
// traces), its width and parameter count.
func (s *setup) prmSizes(L *labelled, main fitted) error {
	c := s.cfg
	for _, w := range c.PRMSizes {
		t0 := time.Now()
		name := fmt.Sprintf("prm-d%d", w)
		p := main.prm
		run := exp.Run{Method: name, Seed: s.seed, Final: maps.Clone(main.run.Final), Curves: maps.Clone(main.run.Curves)}
		if w != c.PRMModel.Dim {
			mc := c.PRMModel
			mc.Dim, mc.FF = w, 4*w
			q, r, err := s.fitIndependent(mc, name, L, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			defer q.Close()
			p, run = q, r
		}
		seen, err := heldOutMetrics(p, &L.seen, c.StepWeight, c.Aggregation)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for k, v := range seen {
			run.Final["seen_"+k] = v
		}
		run.Final["width"], run.Final["params"] = float64(w), float64(p.LM.NumParams())
		run.Seconds = time.Since(t0).Seconds()
		s.res.Timing[PartPRMSize] += run.Seconds
		s.res.Runs = append(s.res.Runs, run)
		fmt.Fprintf(s.opt.Log, "seed %d %s (%d parameters): step accuracy seen %.3f unseen %.3f, answer accuracy seen %.3f unseen %.3f (%.0fs)\n", s.seed, name,
			p.LM.NumParams(), run.Final["seen_step_accuracy"], run.Final["heldout_step_accuracy"], run.Final["seen_answer_accuracy"], run.Final["heldout_answer_accuracy"], run.Seconds)
	}
	return nil
}

// grpoTask is Table 5's RL task: the DPO prompts, each generation rewarded as the pair rules score
// traces (setup.score): by the verifier's outcome (weight < 0) or by the PRM's trace score
// w·mean(step scores) + (1 − w)·answer score, 0 for a trace without an answer.
type grpoTask struct {
	s      *setup
	weight float64
}

func (t grpoTask) NumPrompts() int      { return len(t.s.dpo.Prompts) }
func (t grpoTask) Prompt(i int) []int32 { return t.s.dpo.Prompts[i] }

// Reward is Rewards of one generation (NaN when the PRM fails; the loop uses Rewards).
func (t grpoTask) Reward(i int, g lm.Generation) float64 {
	r, err := t.Rewards([]int{i}, []lm.Generation{g})
	if err != nil {
		return math.NaN()
	}
	return r[0]
}

// Rewards scores a rollout's generations, with one batched PRM call (rl.BatchRewarder).
func (t grpoTask) Rewards(prompts []int, gens []lm.Generation) ([]float64, error) {
	s := t.s
	ins := make([][]int32, len(gens))
	for i, p := range prompts {
		ins[i] = s.dpo.Prompts[p]
	}
	return s.scoreGens(s.prm, t.weight, ins, gens, func(i int) int { return prompts[i] })
}

// scoreGens scores generations as the pair rules do (setup.score): each by the verifier's judgement
// of its DPO problem (problem(i): the index of generation i's problem) and, at weight ≥ 0, the
// scorer PRM's tag scores, fetched in one batched call.
func (s *setup) scoreGens(scorer *prm.PRM, weight float64, inputs [][]int32, gens []lm.Generation, problem func(i int) int) ([]float64, error) {
	var tagScores [][]float64
	if weight >= 0 {
		var err error
		if tagScores, err = s.traceScores(scorer, inputs, gens); err != nil {
			return nil, err
		}
	}
	out := make([]float64, len(gens))
	for i, g := range gens {
		var ts []float64
		if tagScores != nil {
			ts = tagScores[i]
		}
		v, err := s.score(ts, s.judge(s.dpo.Problems[problem(i)], g), weight)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// grpoArm trains a copy of the SFT policy with GRPO (toolkit/rl; reference: the SFT policy) on
// grpoTask with m's reward and returns its run: the held-out measures of evaluate at the end, the
// path along training (pathEval every GRPO.EvalEvery steps, step 0 the SFT policy's: "path/…", what
// the matched-KL reading follows) and the loop's reward and zero-variance share per step.
func (s *setup) grpoArm(m Method) (exp.Run, error) {
	policy, err := s.sft.Clone()
	if err != nil {
		return exp.Run{}, err
	}
	defer policy.Close()
	gc := s.cfg.GRPO
	gc.Seed, gc.Sample.MaxNew = s.seed, s.cfg.MaxNew
	run := exp.Run{Method: m.Name, Seed: s.seed, Curves: map[string]exp.Curve{}}
	hooks := rl.Hooks{
		Progress: s.opt.Progress(fmt.Sprintf("cos seed %d: %s", s.seed, m.Name), gc.Steps),
		OnEval: func(step int) (map[string]float64, error) {
			v := s.sftPath
			if step > 0 {
				var err error
				if v, err = s.pathEval(policy); err != nil {
					return nil, err
				}
			}
			for _, k := range pathMetrics {
				track.Curves(run.Curves).Add("path/"+k, float64(step), v[k])
			}
			return map[string]float64{}, nil // recorded on the path, not in the loop's curves
		},
	}
	tr, curves, err := rl.Train(policy, s.sft, grpoTask{s: s, weight: m.Weight}, gc, hooks)
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return exp.Run{}, err
	}
	if run.Final, err = s.evaluate(policy, s.seed); err != nil {
		return exp.Run{}, err
	}
	for k, v := range map[string]string{"reward": "train/reward", "frac_reward_zero_std": "train/frac_reward_zero_std"} {
		if c, ok := curves[k]; ok {
			run.Curves[v] = c
		}
	}
	if r, ok := track.Curves(curves).Last("reward"); ok {
		run.Final["train_reward"] = r
	}
	return run, nil
}

// stepDPO is Table 9's arm "dpo-step-wise": one round of DPO+RPO from the SFT policy (the rounds'
// settings, RoundEpochs epochs) on step-wise pairs — at every step of the width-1 PRM step search
// (StepDPON candidate steps per step) of the SFT policy on the DPO prompts, the best-scored tagged
// candidate step against the worst, given the prompt and the kept steps so far, when their scores
// differ by more than GapThreshold (pref.PairEx.Partial: no EOS; the same threshold as trace pairs:
// both are differences of PRM probabilities, a step's score being what a trace score averages).
// Its run records the held-out measures, the path (pathEval every Round.EvalEvery steps), the
// pairs, their mean PRM score gap and mean reference log-probability margin ("pair_gap",
// "pair_ref_margin": how far apart chosen and rejected are, the paper's reason for the failure).
// It is compared with dpo-step-answer's round 1 (one round of trace-level pairs) at matched KL. Without a pair the policy stays the SFT policy (its measures, a note).
func (s *setup) stepDPO(sftFinal map[string]float64) (exp.Run, error) {
	c := s.cfg
	var pairs []pref.PairEx
	var gap float64
	wb := prm.WideBeamConfig{N: c.StepDPON, M: c.StepDPON, MaxSteps: c.Data.MaxSteps + 1, MaxStepTokens: 5, Temperature: 1, Seed: s.seed*10 + 7,
		Branches: func(q int, prefix []int32, steps []prm.Candidate) {
			best, worst := -1, -1
			for k, st := range steps {
				if st.Score < 0 { // untagged: cut off or ended, nothing judged
					continue
				}
				if best < 0 || st.Score > steps[best].Score {
					best = k
				}
				if worst < 0 || st.Score < steps[worst].Score {
					worst = k
				}
			}
			if best < 0 || steps[best].Score-steps[worst].Score <= c.GapThreshold {
				return
			}
			ch, rj := steps[best].Completion[len(prefix):], steps[worst].Completion[len(prefix):]
			pairs = append(pairs, pref.PairEx{Prompt: append(slices.Clone(s.dpo.Prompts[q]), prefix...), Chosen: slices.Clone(ch), Rejected: slices.Clone(rj), Partial: true})
			gap += steps[best].Score - steps[worst].Score
		}}
	if _, _, err := prm.WideBeam(s.sft, s.tag, s.marker, s.dpo.Prompts, prm.PRMScorer(s.prm), wb); err != nil {
		return exp.Run{}, err
	}
	if len(pairs) == 0 { // nothing to learn from: the policy stays the SFT policy (as a round without pairs)
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("seed %d dpo-step-wise: no step-wise pair passed the gap threshold %v", s.seed, c.GapThreshold))
		final := maps.Clone(sftFinal)
		final["pairs"], final["steps"] = 0, 0
		for _, k := range []string{"accuracy_mean16", "chain_accuracy_mean16", "kl_sft"} {
			final["round1_"+k] = final[k]
		}
		return exp.Run{Method: "dpo-step-wise", Seed: s.seed, Final: final, Curves: map[string]exp.Curve{}}, nil
	}
	policy, err := s.sft.Clone()
	if err != nil {
		return exp.Run{}, err
	}
	defer policy.Close()
	tc := prm.EpochTrain(c.Round, c.RoundEpochs, len(pairs))
	tc.Seed = s.seed*100 + 1
	run := exp.Run{Method: "dpo-step-wise", Seed: s.seed, Curves: map[string]exp.Curve{}}
	addPath := func(step int, v map[string]float64) {
		for _, k := range pathMetrics {
			track.Curves(run.Curves).Add("path/"+k, float64(step), v[k])
		}
	}
	addPath(0, s.sftPath)
	ph := pref.Hooks{Scores: pref.NewScores(pairs), Progress: s.opt.Progress(fmt.Sprintf("cos seed %d: dpo-step-wise", s.seed), tc.Steps), OnEval: func(p *lm.Model, step int) (map[string]float64, error) {
		if step == 0 {
			return nil, nil
		}
		v, err := s.pathEval(p)
		if err != nil {
			return nil, err
		}
		addPath(step, v)
		return nil, nil
	}}
	if _, err := pref.TrainPairs(policy, s.sft, pairs, tc, ph); err != nil {
		return exp.Run{}, err
	}
	final, err := s.evaluate(policy, s.seed)
	if err != nil {
		return exp.Run{}, err
	}
	final["pairs"], final["steps"], final["pair_gap"] = float64(len(pairs)), float64(tc.Steps), gap/float64(len(pairs))
	lc, lr, err := ph.Scores.Of(s.sft, pairs) // the reference's scores, cached by the training
	if err != nil {
		return exp.Run{}, err
	}
	var m float64
	for i := range lc {
		m += (lc[i] - lr[i]) / float64(len(lc))
	}
	final["pair_ref_margin"] = m
	for _, k := range []string{"accuracy_mean16", "chain_accuracy_mean16", "kl_sft"} { // its one round, beside the rounds' round 1
		final["round1_"+k] = final[k]
	}
	run.Final = final
	return run, nil
}

// reasoning is Table 4's arm for one format: SFT from the same initial weights on the same prompts
// and slipped chains (the same slip stream as the tagged SFT), written in the format, then the main
// part's outcome rounds (prm.Iterate: the verifier's answer check, the rounds' settings); runs
// "sft-<format>" and "dpo-outcome-<format>" with the held-out measures (evaluateFormat) and, for
// the rounds, per round (0 = the format's SFT) one-sample accuracy and KL from the format's SFT.
func (s *setup) reasoning(name string, trace bool) ([]exp.Run, error) {
	c := s.cfg
	r := rand.New(rand.NewPCG(s.seed, sftStream))
	demos, err := s.train.TextExamples(func(p arith.Problem) string {
		p.Trace = trace
		return p.SlippedCompletion(r, arith.Slips{Uniform: c.SFTNoise, Carry: c.SFTCarry})
	})
	if err != nil {
		return nil, err
	}
	sft, err := lm.New(c.Model, s.tok, s.seed)
	if err != nil {
		return nil, err
	}
	defer sft.Close()
	sc := c.SFT
	sc.Seed = s.seed
	tr, _, err := lm.TrainSFT(sft, sc, demos, nil, lm.SFTHooks{Progress: s.opt.Progress(fmt.Sprintf("cos seed %d: SFT %s", s.seed, name), sc.Steps)})
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return nil, err
	}
	sftFinal, err := s.evaluateFormat(sft, sft, trace)
	if err != nil {
		return nil, err
	}
	policy, err := sft.Clone()
	if err != nil {
		return nil, err
	}
	defer policy.Close()
	run := exp.Run{Method: "dpo-outcome-" + name, Seed: s.seed, Curves: map[string]exp.Curve{}}
	add := track.Curves(run.Curves).Add
	final := sftFinal
	record := func(round int) {
		for _, k := range []string{"accuracy", "accuracy_mean16", "kl_sft"} {
			add("round/"+k, float64(round), final[k])
		}
	}
	record(0)
	n := len(s.dpo.Problems)
	rounds, err := prm.Iterate(policy, sft, s.dpo.Prompts, prm.RoundsConfig{
		Rounds: c.Rounds, Samples: c.DPOSamples, GapThreshold: c.GapThreshold, Ref: c.Ref,
		Sample: lm.SampleConfig{MaxNew: c.MaxNew, Temperature: 1}, Train: c.Round, Epochs: c.RoundEpochs, Seed: s.seed,
	}, prm.RoundHooks{
		Score: func(_ [][]int32, gens []lm.Generation) ([]float64, error) {
			out := make([]float64, len(gens))
			for i, g := range gens {
				out[i] = float64(boolInt(s.verifyFormat(s.dpo.Problems[i%n], g, trace).Correct))
			}
			return out, nil
		},
		Evaluate: func(round int, policy *lm.Model, trained bool) error {
			if trained {
				var err error
				if final, err = s.evaluateFormat(policy, sft, trace); err != nil {
					return err
				}
			}
			record(round)
			return nil
		},
		Progress: func(round, steps int) track.Progress {
			return s.opt.Progress(fmt.Sprintf("cos seed %d: %s round %d", s.seed, run.Method, round), steps)
		},
	})
	if err != nil {
		return nil, err
	}
	for _, rs := range rounds {
		add("round/pairs", float64(rs.Round), float64(rs.Pairs))
	}
	run.Final = maps.Clone(final)
	return []exp.Run{{Method: "sft-" + name, Seed: s.seed, Final: sftFinal, Curves: map[string]exp.Curve{}}, run}, nil
}

// verifyFormat checks a generation of problem p in a reasoning format (trace: steps before the
// answer, untagged): an unfinished one is not parsed.
func (s *setup) verifyFormat(p arith.Problem, g lm.Generation, trace bool) arith.Verdict {
	if !g.Finished {
		return arith.Verdict{}
	}
	p.Trace = trace
	return arith.Verify(p, s.tok.Decode(g.Tokens))
}

// evaluateFormat is evaluate for a reasoning format: greedy accuracy and the accuracy of one sample
// (EvalSamples per held-out prompt), for a traced format whole-chain accuracy too, and the KL
// divergence from ref (the format's SFT policy; 0 for it).
func (s *setup) evaluateFormat(m, ref *lm.Model, trace bool) (map[string]float64, error) {
	set, c := s.eval, s.cfg
	greedy, err := m.Sample(set.Prompts, lm.SampleConfig{MaxNew: c.MaxNew})
	if err != nil {
		return nil, err
	}
	prompts := set.Repeat(c.EvalSamples)
	gens, err := m.Sample(prompts, lm.SampleConfig{MaxNew: c.MaxNew, Temperature: 1, Seed: s.seed + 77})
	if err != nil {
		return nil, err
	}
	n := len(set.Problems)
	var right, sampled, chain float64
	for i, g := range greedy {
		right += float64(boolInt(s.verifyFormat(set.Problems[i], g, trace).Correct))
	}
	for i, g := range gens {
		v := s.verifyFormat(set.Problems[i%n], g, trace)
		sampled += float64(boolInt(v.Correct))
		if trace && v.Correct && len(v.StepCorrect) == len(set.Problems[i%n].Steps) && !slices.Contains(v.StepCorrect, false) {
			chain++
		}
	}
	out := map[string]float64{"accuracy": right / float64(n), "accuracy_mean16": sampled / float64(len(gens)), "kl_sft": 0}
	if trace {
		out["chain_accuracy_mean16"] = chain / float64(len(gens))
	}
	if m != ref {
		if out["kl_sft"], err = lm.SampleKL(ref, prompts, gens); err != nil {
			return nil, err
		}
	}
	return out, nil
}

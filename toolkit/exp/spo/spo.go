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

// setup is what every method of a seed shares: the SFT model, the held-out prompts, the result and
// the models to close when the seed is done.
type setup struct {
	cfg     Config
	tok     *lm.Tokenizer
	sft     *lm.Model
	eval    []string
	evalIDs [][]int32
	seed    uint64
	opt     exp.Options
	res     *exp.Result
	models  []*lm.Model
}

// arm is one set of preference pairs and what is trained on it: the task and the dimensions its
// pairs are labelled on, round 1's policy π₁, and round 2's tracked pairs.
type arm struct {
	*setup
	tag     string // "" for the main part's pairs; else the pairs files' and progress labels' tag
	task    prefs.Config
	dims    []string
	labeled [][]prefs.Pair  // per dimension
	pairs   [][]pref.PairEx // per dimension
	scores  []*pref.Scores  // per dimension: log-probabilities under fixed models, shared by rounds
	start   pref.Stage      // SFT
	round1  *pref.RoundResult
	pi1     *lm.Model // after round 1 (nil before)
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

// runSeed runs every part the options ask for on one seed: the main part on every seed, the other
// parts on the first PartSeeds seeds.
func runSeed(cfg Config, seed uint64, opt exp.Options, res *exp.Result) error {
	inPart := seed <= uint64(cfg.PartSeeds)
	slow := inPart && cfg.SlowLR > 0 && opt.RunsPart(PartSlow)
	refusal := inPart && len(cfg.RefusalShares) > 0 && opt.RunsPart(PartRefusal)
	three := inPart && cfg.Third != "" && opt.RunsPart(PartThree)
	main := opt.RunsPart(PartMain)
	if !main && !slow && !refusal && !three {
		return nil
	}
	s, err := prepare(cfg, seed, opt, res)
	if err != nil {
		return err
	}
	defer s.close()
	if main || slow {
		a, err := s.newArm("", cfg.Task, cfg.Dims)
		if err != nil {
			return err
		}
		// Round 1 is the same in both parts (same seed, data and settings); the main part records it.
		if err := a.roundOne("dpo-1", main, klSFT); err != nil {
			return err
		}
		if main {
			if err := a.mainPart(); err != nil {
				return err
			}
		}
		if slow {
			if err := a.slowPart(); err != nil {
				return err
			}
		}
	}
	if refusal {
		for _, share := range cfg.RefusalShares {
			task := cfg.Task
			task.RefusalShare = share
			a, err := s.newArm(fmt.Sprintf("r%g", share), task, cfg.Dims)
			if err != nil {
				return err
			}
			if err := a.refusalPart(share); err != nil {
				return err
			}
		}
	}
	if three {
		a, err := s.newArm("3d", cfg.Task, append(slices.Clone(cfg.Dims), cfg.Third))
		if err != nil {
			return err
		}
		if err := a.threePart(); err != nil {
			return err
		}
	}
	return nil
}

// prepare trains the seed's SFT model and draws its held-out prompts.
func prepare(cfg Config, seed uint64, opt exp.Options, res *exp.Result) (*setup, error) {
	t0 := time.Now()
	tok, err := lm.NewTokenizer(prefs.Alphabet)
	if err != nil {
		return nil, err
	}
	s := &setup{cfg: cfg, tok: tok, seed: seed, opt: opt, res: res}
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
		s.sft.Close()
		return nil, err
	}
	if s.eval, err = cfg.Task.EvalPrompts(seed+50_000, cfg.EvalPrompts); err != nil {
		s.sft.Close()
		return nil, err
	}
	for _, x := range s.eval {
		s.evalIDs = append(s.evalIDs, s.enc(x))
	}
	res.Timing["sft"] += time.Since(t0).Seconds()
	return s, nil
}

// close frees every model of the seed (they live in native engine memory until closed).
func (s *setup) close() {
	for _, m := range append(s.models, s.sft) {
		m.Close()
	}
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

// timed adds the seconds since t0 to the result's timing key.
func (s *setup) timed(key string, t0 time.Time) { s.res.Timing[key] += time.Since(t0).Seconds() }

// pairSeed is the seed of dimension d's pairs: the prompts are drawn with pairSeed+777, the SFT
// samples with pairSeed, the labels with pairSeed's generators (prefs.BuildPairs). The two-label
// task has one set of pairs for every dimension (d's seed is dimension 0's).
func (c Config) pairSeed(seed uint64, d int) uint64 {
	if c.Task.TwoLabel {
		d = 0
	}
	return seed*100 + uint64(d)
}

// newArm draws an arm's preference pairs (makePairs) with task on dims; tag names its files.
func (s *setup) newArm(tag string, task prefs.Config, dims []string) (*arm, error) {
	t0 := time.Now()
	defer s.timed("pairs", t0)
	a := &arm{setup: s, tag: tag, task: task, dims: dims, start: pref.Stage{Model: s.sft}}
	if err := a.makePairs(); err != nil {
		return nil, err
	}
	for _, p := range a.pairs {
		a.scores = append(a.scores, pref.NewScores(p))
	}
	return a, nil
}

// saves says whether the arm's policies are saved (where the options save a seed's policies): the
// main part's and part three's; the other parts' runs are variants of the main part's.
func (a *arm) saves() bool { return a.tag == "" || a.tag == "3d" }

// label is a progress label with the arm's tag.
func (a *arm) label(l string) string {
	if a.tag == "" {
		return l
	}
	return a.tag + " " + l
}

// pairsFile is the JSONL file (relative to the output folder) of the arm's pairs of dimension dim.
func (a *arm) pairsFile(dim string) string {
	name := fmt.Sprintf("%s_seed%d.jsonl", dim, a.seed)
	if a.tag != "" {
		name = fmt.Sprintf("%s_%s_seed%d.jsonl", a.tag, dim, a.seed)
	}
	return filepath.Join("pairs", name)
}

// makePairs samples two SFT responses per fresh prompt and labels them (prefs.BuildPairs): once for
// every dimension on the two-label task, per dimension on its own prompts on the one-label task.
// The pairs are written as JSONL per dimension when the run has an output folder: the main part's
// always, another arm's when its seed's policies are saved (its checkpoints cite them).
func (a *arm) makePairs() error {
	c := a.cfg
	draws := [][]string{a.dims}
	if !a.task.TwoLabel {
		draws = nil
		for _, d := range a.dims {
			draws = append(draws, []string{d})
		}
	}
	for d, dims := range draws {
		seed := c.pairSeed(a.seed, d)
		prompts, err := a.task.TrainPrompts(seed+777, c.PairsPerDim)
		if err != nil {
			return err
		}
		ids := make([][]int32, 0, 2*len(prompts))
		for _, x := range prompts {
			ids = append(ids, a.enc(x))
		}
		ids = append(ids, ids...)
		gens, err := a.sft.Sample(ids, lm.SampleConfig{MaxNew: maxNew, Temperature: 1, Seed: seed})
		if err != nil {
			return err
		}
		n := len(prompts)
		ya, yb := make([]string, n), make([]string, n)
		for i := range prompts {
			ya[i], yb[i] = a.tok.Decode(gens[i].Tokens), a.tok.Decode(gens[n+i].Tokens)
		}
		labeled, err := a.task.BuildPairs(seed, dims, prompts, ya, yb)
		if err != nil {
			return err
		}
		a.labeled = append(a.labeled, labeled...)
	}
	write := a.opt.Out != "" && (a.tag == "" || (a.saves() && a.opt.CheckpointDir("pairs", a.seed) != ""))
	for d, ps := range a.labeled {
		exs := make([]pref.PairEx, len(ps))
		for i, p := range ps {
			exs[i] = pref.PairEx{Prompt: a.enc(p.Prompt), Chosen: a.enc(p.Chosen), Rejected: a.enc(p.Rejected)}
		}
		a.pairs = append(a.pairs, exs)
		if write {
			if err := prefs.WriteJSONL(filepath.Join(a.opt.Out, a.pairsFile(a.dims[d])), ps); err != nil {
				return err
			}
		}
	}
	return nil
}

// evaluate returns the mean true reward of each of the arm's dimensions over the given number of
// samples per held-out prompt ("reward_1", …), "helpful_safe" (distinct safe prompt letters
// covered), "length", the prompt-blind references "blind_reward_1" and "blind_helpful_safe" (the
// same responses scored against the next held-out prompt instead of their own), and the
// Monte-Carlo KL divergences of m from the SFT model and from the arm's π₁ (once round 1 has run):
// "kl_sft" and "kl_pi1" (those kl asks for), the mean of log m(y|x) − log π(y|x) over the samples y
// (EOS included where sampled).
func (a *arm) evaluate(m *lm.Model, seed uint64, samples int, kl klRefs) (map[string]float64, error) {
	t0 := time.Now()
	var ids [][]int32
	for k := 0; k < samples; k++ {
		ids = append(ids, a.evalIDs...)
	}
	gens, err := m.Sample(ids, lm.SampleConfig{MaxNew: maxNew, Temperature: 1, Seed: seed})
	if err != nil {
		return nil, err
	}
	a.timed("eval_sample", t0)
	out := map[string]float64{}
	n := len(a.eval)
	texts := make([]string, len(gens))
	for i, g := range gens {
		texts[i] = a.tok.Decode(g.Tokens)
	}
	var length float64
	for d, dim := range a.dims {
		sum, blind := 0.0, 0.0
		for i, text := range texts {
			v, err := a.task.Reward(dim, a.eval[i%n], text)
			if err != nil {
				return nil, err
			}
			b, _ := a.task.Reward(dim, a.eval[(i+1)%n], text)
			sum, blind = sum+v, blind+b
		}
		out[fmt.Sprintf("reward_%d", d+1)] = sum / float64(len(gens))
		if d == 0 {
			out["blind_reward_1"] = blind / float64(len(gens))
		}
	}
	var safe, blindSafe float64
	for i, text := range texts {
		safe += a.task.HelpfulSafe(a.eval[i%n], text)
		blindSafe += a.task.HelpfulSafe(a.eval[(i+1)%n], text)
	}
	out["helpful_safe"] = safe / float64(len(gens))
	out["blind_helpful_safe"] = blindSafe / float64(len(gens))
	for _, g := range gens {
		length += float64(len(g.Tokens))
	}
	out["length"] = length / float64(len(gens))
	// KL(m ‖ ref) = E_{y~m}[log m(y) − log ref(y)]: the samples' own log-probs against the refs'.
	t1 := time.Now()
	for _, ref := range []struct {
		key string
		m   *lm.Model
		on  klRefs
	}{{"kl_sft", a.sft, klSFT}, {"kl_pi1", a.pi1, klPi1}} {
		if ref.m == nil || kl&ref.on == 0 {
			continue
		}
		if out[ref.key], err = lm.SampleKL(ref.m, ids, gens); err != nil {
			return nil, err
		}
	}
	a.timed("eval_kl", t1)
	return out, nil
}

// trackRound2 prepares the tracked round-2 pairs: the first WeightPairs pairs of dimension 2, their
// refusal flags, π₁'s log-probs (the reference of round 2) and round 1's implicit reward gaps
// Δr̂₁ = β₁·Δlog π₁/π_SFT on them.
func (a *arm) trackRound2() error {
	n := min(a.cfg.WeightPairs, len(a.pairs[1]))
	a.track = a.pairs[1][:n]
	a.refusal = make([]bool, n)
	for i := range n {
		a.refusal[i] = a.labeled[1][i].Refusal
	}
	var err error
	if a.refChosen, a.refRej, err = pref.SeqLogProbs(a.pi1, a.track); err != nil {
		return err
	}
	a.gap1, err = pref.ImplicitRewardGaps(a.pi1, a.sft, a.cfg.Round1.Beta, a.track)
	return err
}

// weights are the mean gradient weights σ(λ·Δr̂₁ − β·Δθ) of policy's round-2 loss on the tracked
// refusal pairs and ordinary pairs (Δθ: policy's log-ratio margin against π₁, β round 2's).
func (a *arm) weights(policy *lm.Model, lambda, beta float64) (map[string]float64, error) {
	t0 := time.Now()
	defer a.timed("eval_weights", t0)
	c, r, err := pref.SeqLogProbs(policy, a.track)
	if err != nil {
		return nil, err
	}
	var sum, cnt [2]float64
	for i := range a.track {
		margin := beta * ((c[i] - a.refChosen[i]) - (r[i] - a.refRej[i]))
		w := pref.PairWeight(margin, lambda*a.gap1[i])
		k := 0
		if a.refusal[i] {
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

// round runs one DPO/SPO round on the arm's pairs of dimension dim on top of history
// (pref.NextRound: λ per finished round, nil = DPO) and returns it with the curves of its path
// under the label's prefix. The learning rate decays over the round (LRDecay) unless constant;
// track adds the gradient weights of the tracked round-2 pairs at SPO's λ (lambdas[0]; 0 for
// naive DPO).
func (a *arm) round(label string, history []pref.Stage, dim int, lambdas []float64, rc pref.TrainConfig, seed uint64, o roundOpts) (*pref.RoundResult, map[string]exp.Curve, error) {
	return a.roundOn(label, history, a.pairs[dim], a.scores[dim], lambdas, rc, seed, o)
}

// roundOpts are how a round runs and what its path measures: the gradient weights of the tracked
// round-2 pairs (track, at SPO's λ; at the regular checkpoints, every EvalEvery steps, which the
// mechanism claim reads), a constant learning rate (the probes), and the KL divergences a claim or
// figure reads along the path (kl: each costs a scoring of every evaluation sample; the final
// evaluation measures both).
type roundOpts struct {
	track, constant bool
	kl              klRefs
}

// klRefs names the references of the KL divergences evaluate measures.
type klRefs uint8

const (
	klSFT klRefs = 1 << iota // KL(π‖π_SFT): matched KL from SFT along SPO's chain and mixed DPO's path
	klPi1                    // KL(π‖π₁): matched KL from π₁ in round 2
)

// roundOn is round on any pairs (scores: their cache, or nil).
func (a *arm) roundOn(label string, history []pref.Stage, pairs []pref.PairEx, scores *pref.Scores, lambdas []float64, rc pref.TrainConfig, seed uint64, o roundOpts) (*pref.RoundResult, map[string]exp.Curve, error) {
	rc.Seed = seed
	if a.cfg.LRDecay && !o.constant {
		rc.Opt.TotalSteps, rc.Opt.MinLRFrac = rc.Steps, 0
	}
	lambda := 0.0
	if len(lambdas) > 0 {
		lambda = lambdas[0]
	}
	r, err := pref.NextRound(history, pairs, lambdas, rc, pref.Hooks{
		Progress: a.progress(a.label(label), rc.Steps),
		Scores:   scores,
		OnEval: func(policy *lm.Model, step int) (map[string]float64, error) {
			v, err := a.evaluate(policy, seed*1000+uint64(step), a.cfg.PathSamples, o.kl)
			if err != nil || !o.track || (step%rc.EvalEvery != 0 && step != rc.Steps) {
				return v, err
			}
			w, err := a.weights(policy, lambda, rc.Beta)
			maps.Copy(v, w)
			return v, err
		},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", label, err)
	}
	a.models = append(a.models, r.Policy)
	out := map[string]exp.Curve{}
	for _, k := range []string{"reward_1", "reward_2", "reward_3", "helpful_safe", "kl_sft", "kl_pi1", "weight_refusal", "weight_ordinary", "loss", "rewards/accuracies", "rewards/margins"} {
		if c, ok := r.Curves[k]; ok {
			out[label+"/"+k] = c
		}
	}
	return r, out, nil
}

// add evaluates a finished policy on the held-out prompts (EvalSamples each), records it as a run of
// method name with its path curves, and saves it when save and the options say so.
func (a *arm) add(name string, m *lm.Model, curves map[string]exp.Curve, start time.Time, extra map[string]float64, save bool) error {
	f, err := a.evaluate(m, a.seed, a.cfg.EvalSamples, klSFT|klPi1)
	if err != nil {
		return err
	}
	maps.Copy(f, extra)
	a.res.Runs = append(a.res.Runs, exp.Run{Method: name, Seed: a.seed, Final: f, Curves: curves, Seconds: time.Since(start).Seconds()})
	if save {
		if err := a.savePolicy(name, m); err != nil {
			return err
		}
	}
	line := fmt.Sprintf("seed %d %-22s", a.seed, name)
	for d, dim := range a.dims {
		line += fmt.Sprintf("  reward_%d (%s) %.3f", d+1, dim, f[fmt.Sprintf("reward_%d", d+1)])
	}
	fmt.Fprintf(a.opt.Log, "%s  helpful_safe %.3f\n", line, f["helpful_safe"])
	return nil
}

// roundOne runs round 1 (DPO on dimension 1 from SFT, measuring the KL divergences kl along its
// path) and prepares round 2's tracked pairs; record adds it as a run of method name.
func (a *arm) roundOne(name string, record bool, kl klRefs) error {
	t := time.Now()
	r1, c1, err := a.round("round1", []pref.Stage{a.start}, 0, nil, a.cfg.Round1, a.seed, roundOpts{kl: kl})
	if err != nil {
		return err
	}
	a.round1, a.pi1 = r1, r1.Policy
	if err := a.trackRound2(); err != nil {
		return err
	}
	if record {
		if err := a.add(name, a.pi1, c1, t, a.implicitRewardStats(), a.saves()); err != nil {
			return err
		}
	}
	a.timed("round1", t)
	return nil
}

// history is the start and round 1, the history of every round 2.
func (a *arm) history() []pref.Stage { return []pref.Stage{a.start, a.round1.Stage()} }

// roundTwo runs one round-2 method: naive DPO (lambda 0) or SPO at lambda, with round 2's settings
// at beta and learning rate lr (0: Round2's), on the main batches (seed+1), measured as o says; it
// records the run as name (with the offset's size for SPO) and returns the round.
func (a *arm) roundTwo(name string, lambda, beta, lr float64, o roundOpts, save bool) (*pref.RoundResult, map[string]exp.Curve, error) {
	t := time.Now()
	rc := a.cfg.Round2
	rc.Beta = beta
	if lr > 0 {
		rc.Opt.LR = lr
	}
	var lam []float64
	if lambda != 0 {
		lam = []float64{lambda}
	}
	r2, cs, err := a.round("round2", a.history(), 1, lam, rc, a.seed+1, o)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	extra := map[string]float64{}
	if lambda != 0 {
		// The offset's size, which the room check "λ offset within DPO's own margin" reads (room.go).
		var abs float64
		for _, p := range r2.Pairs {
			abs += math.Abs(p.Offset)
		}
		extra[metricOffset] = abs / float64(len(r2.Pairs))
	}
	if err := a.add(name, r2.Policy, cs, t, extra, save); err != nil {
		return nil, nil, err
	}
	a.timed("round2", t)
	return r2, cs, nil
}

// mixed runs mixed-data DPO from SFT on data (both dimensions' pairs at once) for steps, evaluated
// as densely as round 2 over its first steps, and records it as name.
func (a *arm) mixed(name string, data []pref.PairEx, steps int, save bool) error {
	t := time.Now()
	mc := a.cfg.Round2
	mc.Steps, mc.EvalEvery = steps, a.cfg.MixedEvalEvery
	m, cm, err := a.roundOn("mixed", []pref.Stage{a.start}, data, nil, nil, mc, a.seed+2, roundOpts{kl: klSFT})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := a.add(name, m.Policy, cm, t, nil, save); err != nil {
		return err
	}
	a.timed("mixed", t)
	return nil
}

// mixedData is share of the data from dimension 2's pairs and the rest from dimension 1's
// (shareRatio: whole copies of each).
func (a *arm) mixedData(share float64) []pref.PairEx {
	h, k, _ := shareRatio(share)
	var data []pref.PairEx
	for range h {
		data = append(data, a.pairs[0]...)
	}
	for range k {
		data = append(data, a.pairs[1]...)
	}
	return data
}

// mainPart: SFT, round 1 (recorded by roundOne), naive sequential DPO at each β, SPO at each λ and
// the flip, mixed-data DPO at each share, all on the same pairs and batches, and the constant-rate
// probes on the first ProbeSeeds seeds.
func (a *arm) mainPart() error {
	c := a.cfg
	if err := a.add("sft", a.sft, nil, time.Now(), nil, true); err != nil {
		return err
	}
	var seq *pref.RoundResult
	for _, beta := range c.seqBetas() {
		// KL from SFT along naive DPO's path only at β₂ (the figure of how far round 2 moves).
		o := roundOpts{track: beta == c.Round2.Beta, kl: klPi1}
		if beta == c.Round2.Beta {
			o.kl |= klSFT
		}
		r2, _, err := a.roundTwo(c.SeqName(beta), 0, beta, 0, o, true)
		if err != nil {
			return err
		}
		if beta == c.Round2.Beta {
			seq = r2
		}
	}
	for _, lambda := range c.lambdas() {
		name := c.SPOName(lambda)
		r2, cs, err := a.roundTwo(name, lambda, c.Round2.Beta, 0, roundOpts{track: lambda == c.Lambda || name == "spo-flip", kl: klSFT | klPi1}, true)
		if err != nil {
			return err
		}
		if name == "spo" {
			// Per-pair gradient weights at the end of round 2: SPO's σ(λΔr̂ − βΔθ) and naive DPO's σ(−βΔθ).
			ws, err := pref.PairWeights(r2.Policy, a.pi1, c.Round2.Beta, r2.Pairs)
			if err != nil {
				return err
			}
			wd, err := pref.PairWeights(seq.Policy, a.pi1, c.Round2.Beta, seq.Pairs)
			if err != nil {
				return err
			}
			cs["weights/spo"], cs["weights/seq-dpo"] = histogram(ws), histogram(wd)
		}
	}
	for _, share := range c.MixedShares {
		if err := a.mixed(MixedName(share), a.mixedData(share), c.Round1.Steps+c.Round2.Steps, true); err != nil {
			return err
		}
	}
	if a.seed > uint64(c.ProbeSeeds) {
		return nil
	}
	// The probes: round 1 and naive round 2 at a constant learning rate (the same steps and data).
	t := time.Now()
	p1, cp1, err := a.round("round1", []pref.Stage{a.start}, 0, nil, c.Round1, a.seed, roundOpts{constant: true})
	if err != nil {
		return err
	}
	if err := a.add(ProbeRound1, p1.Policy, cp1, t, nil, false); err != nil {
		return err
	}
	t = time.Now()
	p2, cp2, err := a.round("round2", a.history(), 1, nil, c.Round2, a.seed+1, roundOpts{constant: true})
	if err != nil {
		return err
	}
	if err := a.add(ProbeRound2, p2.Policy, cp2, t, nil, false); err != nil {
		return err
	}
	a.timed("probes", t)
	return nil
}

// The constant-rate probes of the main part (Config.ProbeSeeds).
const (
	ProbeRound1 = "dpo-1-const"
	ProbeRound2 = "seq-dpo-const"
)

// slowPart: round 2 at SlowLR, naive DPO at each β and SPO at each λ (not the flip), from the main
// part's round 1.
func (a *arm) slowPart() error {
	c := a.cfg
	t := time.Now()
	defer a.timed("part_slow", t)
	for _, beta := range c.seqBetas() {
		if _, _, err := a.roundTwo(c.SlowName(c.SeqName(beta)), 0, beta, c.SlowLR, roundOpts{kl: klPi1}, false); err != nil {
			return err
		}
	}
	for _, lambda := range c.lambdas() {
		if lambda > 0 {
			if _, _, err := a.roundTwo(c.SlowName(c.SPOName(lambda)), lambda, c.Round2.Beta, c.SlowLR, roundOpts{kl: klPi1}, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// refusalPart: at one refusal share, round 1, naive DPO (β₂) and SPO (λ): the main run's settings.
func (a *arm) refusalPart(share float64) error {
	c := a.cfg
	t := time.Now()
	defer a.timed("part_refusal", t)
	name := func(m string) string { return c.RefusalName(m, share) }
	if err := a.roundOne(name("dpo-1"), true, 0); err != nil {
		return err
	}
	if _, _, err := a.roundTwo(name("seq-dpo"), 0, c.Round2.Beta, 0, roundOpts{}, false); err != nil {
		return err
	}
	_, _, err := a.roundTwo(name("spo"), c.Lambda, c.Round2.Beta, 0, roundOpts{}, false)
	return err
}

// threePart: round 1 (dimension 1), round 2 (dimension 2) by naive DPO and by SPO (λ), round 3
// (Third) from SPO's round 2 by SPO with ThreeLambdas on both earlier dimensions
// (pref.DimensionGaps: round 2's implicit reward less its own offset) and by naive DPO, from naive
// round 2 by naive DPO, and from SPO's round 2 with the direct offsets (each round's implicit
// reward read as its dimension's reward); and mixed 3-way DPO from SFT on all three dimensions'
// pairs, for the steps of the three rounds. Every round 3 runs on the same batches.
func (a *arm) threePart() error {
	c := a.cfg
	t := time.Now()
	defer a.timed("part_three", t)
	if err := a.roundOne(ThreeRound1, true, 0); err != nil {
		return err
	}
	seq2, _, err := a.roundTwo(ThreeSeq2, 0, c.Round2.Beta, 0, roundOpts{}, false)
	if err != nil {
		return err
	}
	spo2, _, err := a.roundTwo(ThreeSPO2, c.Lambda, c.Round2.Beta, 0, roundOpts{}, false)
	if err != nil {
		return err
	}
	direct := spo2.Stage()
	direct.Lambdas = nil
	for _, r := range []struct {
		name    string
		prev    pref.Stage
		lambdas []float64
	}{
		{ThreeSPO, spo2.Stage(), c.ThreeLambdas},
		{ThreeSPOSeq, spo2.Stage(), nil},
		{ThreeSeq, seq2.Stage(), nil},
		{ThreeSPODirect, direct, c.ThreeLambdas},
	} {
		t := time.Now()
		r3, cs, err := a.round("round3", append(a.history(), r.prev), 2, r.lambdas, c.Round2, a.seed+3, roundOpts{})
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		extra := map[string]float64{}
		if r.lambdas != nil {
			var abs float64
			for _, p := range r3.Pairs {
				abs += math.Abs(p.Offset)
			}
			extra[metricOffset] = abs / float64(len(r3.Pairs))
		}
		if err := a.add(r.name, r3.Policy, cs, t, extra, true); err != nil {
			return err
		}
	}
	var data []pref.PairEx
	for _, p := range a.pairs {
		data = append(data, p...)
	}
	return a.mixed(ThreeMixed, data, c.Round1.Steps+2*c.Round2.Steps, true)
}

// implicitRewardStats describes round 1's implicit reward Δr̂₁ on the tracked round-2 pairs, the
// signal SPO's offset carries: "rhat_agree", the share of pairs whose chosen and rejected responses
// differ in true helpfulness on which Δr̂₁ has the sign of Δhelpful; "rhat_refusal" and
// "rhat_ordinary", the mean Δr̂₁ on refusal and ordinary pairs (refusals are preferred on
// harmlessness and worse on helpfulness: the mechanism needs their Δr̂₁ < 0).
func (a *arm) implicitRewardStats() map[string]float64 {
	out := map[string]float64{}
	var agree, n float64
	var sum, cnt [2]float64
	for i, g := range a.gap1 {
		p := a.labeled[1][i]
		hc, _ := a.task.Reward(a.dims[0], p.Prompt, p.Chosen)
		hr, _ := a.task.Reward(a.dims[0], p.Prompt, p.Rejected)
		if dh := hc - hr; dh != 0 {
			n++
			if (dh > 0) == (g > 0) {
				agree++
			}
		}
		k := 0
		if a.refusal[i] {
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
func (a *arm) savePolicy(method string, m *lm.Model) error {
	dir := a.opt.CheckpointDir(method, a.seed)
	if dir == "" {
		return nil
	}
	c, seed := a.cfg, a.seed
	task := a.task
	data := []probe.Draw{{Name: "sft", Kind: "prefs_train", Seed: seed, N: c.SFTSize, ResponseSeed: seed, ResponseStream: sftStream}}
	for d, dim := range a.dims {
		data = append(data, probe.Draw{Name: "pairs_" + dim, Kind: "prefs_train", Seed: c.pairSeed(seed, d) + 777, N: c.PairsPerDim,
			File: filepath.ToSlash(a.pairsFile(dim))})
	}
	data = append(data, probe.Draw{Name: "held_out", Kind: "prefs_eval", Seed: seed + 50_000, N: c.EvalPrompts})
	return probe.Save(dir, m, nil, probe.Provenance{
		Experiment: "spo", Method: method, Seed: seed, Scale: string(a.res.Scale), Commit: a.res.Commit, Engine: a.res.Backend,
		Task: "prefs", Prefs: &task, Data: data,
		Eval:     probe.Protocol{Samples: c.EvalSamples, Seed: seed, Temperature: 1, MaxNew: maxNew},
		Training: c,
	})
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
		Parts:       Parts,
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
// λ (its default alone against each baseline's front for spo-1 and spo-2, its own front against
// mixed DPO's beside it, each λ its own row against naive DPO at β₂ = 0.2), naive sequential DPO's
// β₂ (its front for spo-1) and mixed-data DPO's shares (its front for spo-2).
func Sweeps(cfg Config) []exp.Sweep {
	var lambdas, betas, shares []string
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
	bs := cfg.seqBetas()
	slices.Sort(bs)
	for _, b := range bs {
		betas = append(betas, fmt.Sprint(b))
	}
	for _, s := range cfg.MixedShares {
		shares = append(shares, fmt.Sprint(s))
	}
	front := "front (exp.ChooseFront on " + frontMetric + ", chosen on the first half of the seeds, compared on the other)"
	return []exp.Sweep{
		{Family: "SPO (spo, spo-λ…)", Knob: "λ", Settings: lambdas,
			Compared: fmt.Sprintf("spo-1, spo-2: λ = %g alone (fixed before any run) against each baseline's front; beside spo-2 its own %s; each λ its own row against naive DPO at β₂ = %g", cfg.Lambda, front, cfg.Round2.Beta)},
		{Family: "naive sequential DPO (seq-dpo, seq-dpo-β…)", Knob: "round-2 β", Settings: betas, Compared: "spo-1: " + front},
		{Family: "mixed-data DPO (mixed-dpo…)", Knob: "share of dimension-2 pairs", Settings: shares, Compared: "spo-2: " + front},
	}
}

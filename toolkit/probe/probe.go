// Package probe measures how well a trained policy's confidence tracks its correctness, on its own
// held-out questions, on a JSONL file of prompts, or on prompts typed in a notebook.
//
// A probe samples K completions per question (one lm.Model.Sample call, prompts repeated round by
// round, as the experiments evaluate), judges each, and scores it with several confidences — all on a
// probability scale, so that calibration error means something:
//
//	lpm             exp(mean token log-prob) = 1/perplexity          (per sample; CAPO's score)
//	seq_logprob     exp(Σ token log-probs): the completion's probability (per sample)
//	min_token_prob  the least likely token's probability            (per sample)
//	answer_prob     probability of the answer's tokens and EOS given the trace before them (per sample;
//	                the whole completion's when it does not parse)
//	vote_share      the majority answer's share of the K samples      (per question, majority answer)
//	rpc             RPC mass of the RPC-voted answer: Σ probabilities of its distinct sampled paths
//	                (per question, RPC answer; calib.RPCMass)
//
// Per score it reports accuracy, AUC, ECE and MCE (Bins equal-width bins, calib.ECE), Brier, AURC and
// precision at coverage 0.5 and 0.8 over the score's unit (every sample, or every question's voted
// answer), with percentile-bootstrap 95 % intervals that resample questions (a question's K samples
// stay together), pooled and per subset (solvable/hidden operand, number of steps). For sample scores
// it also reports "auc_rounds", the AUC of each sampling round (one answer per question) averaged over
// rounds: the "auc" the capo experiment records.
//
// A score of your own is a Go function over one sample's generation (ScoreFunc, Options.Custom); it
// is reported and drawn like the built-in ones. Eval is the probe at one sample per question, as a
// training loop's held-out evaluation of a notebook-defined task (lmtask.Verifiable).
//
// Layout: policy.go (saved policies and their provenance), task.go (questions and verifiers),
// probe.go (sampling, scores, metrics), eval.go (held-out evaluation in training loops), figures.go
// (plots), ui.go (notebook display).
package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Scores are the confidence scores, sample-level first.
var Scores = []string{"lpm", "seq_logprob", "min_token_prob", "answer_prob", "vote_share", "rpc"}

// questionLevel reports whether a score belongs to a question's voted answer rather than a sample.
func questionLevel(score string) bool { return score == "vote_share" || score == "rpc" }

// MetricNames are the metrics of every score (plus "auc_rounds" for sample scores), in table order.
var MetricNames = []string{"accuracy", "auc", "auc_rounds", "ece", "mce", "brier", "aurc", "precision_at_50", "precision_at_80"}

// Options of a probe. Zero K, Bins and Boot take the defaults; zero MaxNew and Seed take the policy's
// recorded evaluation protocol (so that probing its held-out set repeats the experiment's final
// evaluation). Temperature is used as given: DefaultOptions sets 1; 0 samples greedily.
type Options struct {
	// K completions per question (default 16).
	K int `json:"k"`
	// N probes the first N questions (0: all).
	N int `json:"n"`
	// Temperature of sampling; the log-probs scored are always the model's at temperature 1.
	Temperature float64 `json:"temperature"`
	MaxNew      int     `json:"max_new"`
	Seed        uint64  `json:"seed"`
	// Scores to report (nil: all of Scores).
	Scores []string `json:"scores"`
	// Bins of ECE, MCE and the reliability diagrams (default 15).
	Bins int `json:"bins"`
	// Boot bootstrap resamples of the questions for the 95 % intervals (default 1000; < 0: none).
	Boot     int    `json:"boot"`
	BootSeed uint64 `json:"boot_seed"`
	// Custom are sample scores of your own, by name (not one of Scores); those named in Scores are
	// computed and reported (nil Scores: every built-in score and every custom one, custom ones in
	// name order). The functions are not saved with a report, their values are (each sample's
	// Confidence).
	Custom map[string]ScoreFunc `json:"-"`
}

// ScoreFunc is a confidence score of your own over one sampled completion: g.Tokens are its token
// ids and g.LogProbs their log-probabilities at temperature 1, both ending with EOS when g.Finished
// (g.Text(tok) decodes it). It must return a value in [0, 1]: a probability that the sample is right,
// so that the reliability diagram and the calibration error mean something.
//
//	meanProb := func(g lm.Generation) float64 { // arithmetic mean of the token probabilities
//		s := 0.0
//		for _, lp := range g.LogProbs {
//			s += math.Exp(float64(lp))
//		}
//		return s / float64(len(g.LogProbs))
//	}
type ScoreFunc func(g lm.Generation) float64

// DefaultOptions: 16 samples at temperature 1, every score, 15 bins, 1000 bootstrap resamples.
func DefaultOptions() Options { return Options{K: 16, Temperature: 1} }

func (o Options) withDefaults(prov *Provenance) (Options, error) {
	if o.K == 0 {
		o.K = 16
	}
	if o.Bins == 0 {
		o.Bins = 15
	}
	if o.Boot == 0 {
		o.Boot = 1000
	}
	if prov != nil {
		if o.MaxNew == 0 {
			o.MaxNew = prov.Eval.MaxNew
		}
		if o.Seed == 0 {
			o.Seed = prov.Eval.Seed
		}
	}
	for name := range o.Custom {
		if name == "" || slices.Contains(Scores, name) {
			return o, fmt.Errorf("probe: custom score %q: a custom score needs a name of its own (built in: %v)", name, Scores)
		}
		if o.Custom[name] == nil {
			return o, fmt.Errorf("probe: custom score %q has no function", name)
		}
	}
	if len(o.Scores) == 0 {
		o.Scores = append(slices.Clone(Scores), slices.Sorted(maps.Keys(o.Custom))...)
	}
	switch {
	case o.K < 1:
		return o, fmt.Errorf("probe: k = %d, need ≥ 1", o.K)
	case o.N < 0:
		return o, fmt.Errorf("probe: n = %d, need ≥ 0", o.N)
	case o.Temperature < 0:
		return o, fmt.Errorf("probe: temperature = %v, need ≥ 0", o.Temperature)
	case o.MaxNew < 1:
		return o, fmt.Errorf("probe: max_new = %d, need ≥ 1", o.MaxNew)
	case o.Bins < 1:
		return o, fmt.Errorf("probe: bins = %d, need ≥ 1", o.Bins)
	}
	for _, s := range o.Scores {
		if _, custom := o.Custom[s]; !custom && !slices.Contains(Scores, s) {
			return o, fmt.Errorf("probe: unknown score %q (built in: %v; custom: %v)", s, Scores, slices.Sorted(maps.Keys(o.Custom)))
		}
	}
	return o, nil
}

// Sample is one judged completion with its confidences.
type Sample struct {
	Completion string  `json:"completion"`
	Answer     string  `json:"answer"`
	Correct    bool    `json:"correct"`
	Finished   bool    `json:"finished"`
	LPM        float64 `json:"lpm"`
	LogProb    float64 `json:"logprob"`
	// Confidence maps each sample score to its value in [0, 1].
	Confidence map[string]float64 `json:"confidence"`
}

// QuestionResult is one probed question: its majority answer (and RPC's), their correctness and
// question-level confidences, and its K samples.
type QuestionResult struct {
	Prompt     string             `json:"prompt"`
	Answer     string             `json:"answer"`
	Gold       string             `json:"gold"`
	Correct    bool               `json:"correct"`
	RPCAnswer  string             `json:"rpc_answer"`
	RPCCorrect bool               `json:"rpc_correct"`
	Subset     string             `json:"subset"`
	Steps      int                `json:"steps,omitempty"`
	Confidence map[string]float64 `json:"confidence"`
	Samples    []Sample           `json:"samples"`
}

// Report is the result of a probe (written as probe.json).
type Report struct {
	Checkpoint string      `json:"checkpoint"`
	Label      string      `json:"label"`
	Provenance *Provenance `json:"provenance,omitempty"`
	// Source of the questions: "held_out", a prompts file, or "given".
	Source    string              `json:"source"`
	Engine    string              `json:"engine"`
	Options   Options             `json:"options"`
	Scores    []string            `json:"scores"`
	Questions []QuestionResult    `json:"questions"`
	Metrics   map[string]*Metrics `json:"metrics"`
	Seconds   float64             `json:"seconds"`
	// Weights is the SHA-256 of the checkpoint's params.f32 (set by Cached), so a stored report is
	// reused only for the same weights.
	Weights string `json:"weights_sha256,omitempty"`
}

// Run probes a saved policy on questions (nil: its held-out set).
func Run(p *Policy, qs []Question, opt Options) (*Report, error) {
	source := "given"
	if qs == nil {
		var err error
		if qs, err = p.HeldOut(); err != nil {
			return nil, err
		}
		source = "held_out"
	}
	rep, err := Model(p.Model, qs, opt, &p.Prov)
	if err != nil {
		return nil, fmt.Errorf("probe %s: %w", p.Dir, err)
	}
	rep.Checkpoint, rep.Label, rep.Source = p.Dir, p.Label, source
	return rep, nil
}

// Model probes any model on questions; prov (may be nil) supplies the defaults of Options.
func Model(m *lm.Model, qs []Question, opt Options, prov *Provenance) (*Report, error) {
	start := time.Now()
	opt, err := opt.withDefaults(prov)
	if err != nil {
		return nil, err
	}
	if opt.N > 0 {
		if opt.N > len(qs) {
			return nil, fmt.Errorf("probe: n = %d, but there are %d questions", opt.N, len(qs))
		}
		qs = qs[:opt.N]
	}
	if len(qs) == 0 {
		return nil, errors.New("probe: no questions")
	}
	n := len(qs)
	ids := make([][]int32, n)
	for i, q := range qs {
		if q.Judge == nil {
			return nil, fmt.Errorf("probe: question %d (%q) has no judge", i, q.Prompt)
		}
		if ids[i], err = m.Tok.Encode(q.Prompt); err != nil {
			return nil, fmt.Errorf("probe: question %d: %w", i, err)
		}
	}
	var custom []namedScore // the custom scores reported, in Scores' order
	for _, s := range opt.Scores {
		if f, ok := opt.Custom[s]; ok {
			custom = append(custom, namedScore{s, f})
		}
	}
	all := make([][]int32, 0, n*opt.K)
	for r := 0; r < opt.K; r++ {
		all = append(all, ids...)
	}
	gens, err := m.Sample(all, lm.SampleConfig{MaxNew: opt.MaxNew, Temperature: opt.Temperature, Seed: opt.Seed})
	if err != nil {
		return nil, err
	}
	rep := &Report{Source: "given", Options: opt, Scores: opt.Scores, Provenance: prov, Questions: make([]QuestionResult, n)}
	if _, info, err := backend.Get(); err == nil {
		rep.Engine = info.Config
	}
	for i, q := range qs {
		qr := QuestionResult{Prompt: q.Prompt, Gold: q.Gold, Subset: q.Subset, Steps: q.Steps, Samples: make([]Sample, opt.K)}
		var all, votes []calib.Sample // every sample; those with a parsed answer
		for r := 0; r < opt.K; r++ {
			s, err := judge(m.Tok, q, gens[r*n+i], custom)
			if err != nil {
				return nil, fmt.Errorf("probe: question %d sample %d: %w", i, r, err)
			}
			qr.Samples[r] = s
			cs := calib.Sample{Answer: s.Answer, Path: s.Completion, LogProb: s.LogProb}
			if all = append(all, cs); s.Answer != "" {
				votes = append(votes, cs)
			}
		}
		qr.Confidence = map[string]float64{"vote_share": 0, "rpc": 0}
		if len(votes) > 0 {
			maj, _ := calib.MajorityVote(votes)
			rpcA, _ := calib.RPCVote(votes)
			mass, err := calib.RPCMass(votes)
			if err != nil {
				return nil, fmt.Errorf("probe: question %d: %w", i, err)
			}
			qr.Answer, qr.RPCAnswer = maj, rpcA
			qr.Correct, qr.RPCCorrect = answerCorrect(qr.Samples, maj), answerCorrect(qr.Samples, rpcA)
			qr.Confidence["vote_share"] = calib.VoteShare(all, maj) // a share of all K samples
			qr.Confidence["rpc"] = math.Min(1, mass[rpcA])
		}
		rep.Questions[i] = qr
	}
	if rep.Metrics, err = Measure(rep.Questions, opt); err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// answerCorrect is the verifier's judgement of answer a, as given to a sample that wrote it.
func answerCorrect(samples []Sample, a string) bool {
	for _, s := range samples {
		if s.Answer == a {
			return s.Correct
		}
	}
	return false
}

// namedScore is a custom score to compute.
type namedScore struct {
	name string
	f    ScoreFunc
}

// judge decodes, verifies and scores one generation (with the built-in sample scores and the custom
// ones given).
func judge(tok *lm.Tokenizer, q Question, g lm.Generation, custom []namedScore) (Sample, error) {
	s := Sample{Completion: tok.Decode(g.Tokens), Finished: g.Finished, LPM: g.LPM}
	if len(g.LogProbs) == 0 {
		return s, errors.New("empty generation")
	}
	minLP := math.Inf(1)
	for _, lp := range g.LogProbs {
		s.LogProb += float64(lp)
		minLP = math.Min(minLP, float64(lp))
	}
	if g.Finished {
		s.Answer, s.Correct = q.Judge(s.Completion)
	}
	nAns := 0
	if s.Answer != "" {
		ids, err := tok.Encode(s.Answer)
		if err != nil {
			return s, err
		}
		nAns = len(ids)
	}
	s.Confidence = map[string]float64{
		"lpm":            math.Exp(g.LPM),
		"seq_logprob":    math.Exp(s.LogProb),
		"min_token_prob": math.Exp(minLP),
		"answer_prob":    math.Exp(AnswerLogProb(g.LogProbs, g.Finished, nAns)),
	}
	for _, cs := range custom {
		c := cs.f(g)
		if !(c >= 0 && c <= 1) { // NaN fails too
			return s, fmt.Errorf("custom score %q of completion %q is %v, outside [0, 1]", cs.name, s.Completion, c)
		}
		s.Confidence[cs.name] = c
	}
	return s, nil
}

// AnswerLogProb is the log-probability of a completion's answer: the sum over its last nAnswer tokens
// before EOS and EOS itself (so "7" is scored as the whole answer, not a prefix of "78"). With
// nAnswer 0 (no parsed answer) or more tokens than the completion has, it is the whole completion's.
func AnswerLogProb(logProbs []float32, finished bool, nAnswer int) float64 {
	body := len(logProbs)
	if finished {
		body-- // the last token is EOS
	}
	from := body - nAnswer
	if nAnswer == 0 || from < 0 {
		from = 0
	}
	var s float64
	for _, lp := range logProbs[from:] {
		s += float64(lp)
	}
	return s
}

// Metrics of one score: point values and bootstrap intervals, pooled (and per subset in BySubset).
type Metrics struct {
	// Unit is "sample" or "question"; N the answers judged, Questions the questions they answer.
	Unit      string
	N         int
	Questions int
	Values    map[string]float64
	CI        map[string][2]float64
	BySubset  map[string]*Metrics
}

// Value returns a metric (NaN when undefined, e.g. AUC with one class).
func (m *Metrics) Value(name string) float64 {
	if v, ok := m.Values[name]; ok {
		return v
	}
	return math.NaN()
}

// MarshalJSON writes {"unit", "n", "questions", "<metric>": v, "<metric>_ci95": [lo, hi], …,
// "by_subset": {…}}, leaving undefined values out.
func (m *Metrics) MarshalJSON() ([]byte, error) {
	out := map[string]any{"unit": m.Unit, "n": m.N, "questions": m.Questions}
	for k, v := range m.Values {
		if finite(v) {
			out[k] = v
		}
	}
	for k, ci := range m.CI {
		if finite(ci[0]) && finite(ci[1]) {
			out[k+"_ci95"] = ci
		}
	}
	if len(m.BySubset) > 0 {
		out["by_subset"] = m.BySubset
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Metrics{Values: map[string]float64{}, CI: map[string][2]float64{}}
	for k, v := range raw {
		var err error
		switch {
		case k == "unit":
			err = json.Unmarshal(v, &m.Unit)
		case k == "n":
			err = json.Unmarshal(v, &m.N)
		case k == "questions":
			err = json.Unmarshal(v, &m.Questions)
		case k == "by_subset":
			err = json.Unmarshal(v, &m.BySubset)
		case len(k) > 5 && k[len(k)-5:] == "_ci95":
			var ci [2]float64
			err = json.Unmarshal(v, &ci)
			m.CI[k[:len(k)-5]] = ci
		default:
			var x float64
			err = json.Unmarshal(v, &x)
			m.Values[k] = x
		}
		if err != nil {
			return fmt.Errorf("metrics field %s: %w", k, err)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// unit is one judged answer of a score: its confidence, correctness and sampling round (−1 for a
// question's voted answer).
type unit struct {
	conf    float64
	correct bool
	round   int
}

// Measure computes every score's metrics over questions (pooled and per subset), with bootstrap
// intervals when opt.Boot > 0. Subsets are each question's Subset and, where Steps > 0,
// "steps=<Steps>".
func Measure(qs []QuestionResult, opt Options) (map[string]*Metrics, error) {
	if opt.Bins < 1 {
		return nil, fmt.Errorf("probe: bins = %d", opt.Bins)
	}
	subsets := map[string][]int{}
	for i, q := range qs {
		if q.Subset != "" {
			subsets[q.Subset] = append(subsets[q.Subset], i)
		}
		if q.Steps > 0 {
			k := fmt.Sprintf("steps=%d", q.Steps)
			subsets[k] = append(subsets[k], i)
		}
	}
	all := make([]int, len(qs))
	for i := range all {
		all[i] = i
	}
	out := map[string]*Metrics{}
	for _, score := range opt.Scores {
		units, err := unitsOf(qs, score)
		if err != nil {
			return nil, err
		}
		seed := func(subset string) uint64 {
			h := fnv.New64a()
			h.Write([]byte(score + "/" + subset))
			return opt.BootSeed ^ h.Sum64()
		}
		m, err := measureSet(units, all, opt, seed(""))
		if err != nil {
			return nil, fmt.Errorf("probe: %s: %w", score, err)
		}
		m.Unit = "sample"
		if questionLevel(score) {
			m.Unit = "question"
		}
		m.BySubset = map[string]*Metrics{}
		for name, idx := range subsets {
			sm, err := measureSet(units, idx, opt, seed(name))
			if err != nil {
				return nil, fmt.Errorf("probe: %s, subset %s: %w", score, name, err)
			}
			sm.Unit = m.Unit
			m.BySubset[name] = sm
		}
		out[score] = m
	}
	return out, nil
}

// unitsOf lists each question's answers judged by score: its K samples, or its voted answer.
func unitsOf(qs []QuestionResult, score string) ([][]unit, error) {
	units := make([][]unit, len(qs))
	for i, q := range qs {
		if questionLevel(score) {
			ok := q.Correct
			if score == "rpc" {
				ok = q.RPCCorrect
			}
			units[i] = []unit{{q.Confidence[score], ok, -1}}
			continue
		}
		for r, s := range q.Samples {
			c, ok := s.Confidence[score]
			if !ok {
				return nil, fmt.Errorf("probe: question %d sample %d has no %s confidence", i, r, score)
			}
			units[i] = append(units[i], unit{c, s.Correct, r})
		}
	}
	return units, nil
}

// Answers returns every answer judged by score (all samples for a sample score, every question's
// voted answer for vote_share and rpc): confidences and correctness.
func (r *Report) Answers(score string) (conf []float64, correct []bool, err error) {
	units, err := unitsOf(r.Questions, score)
	if err != nil {
		return nil, nil, err
	}
	for _, us := range units {
		for _, u := range us {
			conf, correct = append(conf, u.conf), append(correct, u.correct)
		}
	}
	return conf, correct, nil
}

// measureSet computes the metrics over the questions idx, with bootstrap intervals.
func measureSet(units [][]unit, idx []int, opt Options, seed uint64) (*Metrics, error) {
	gather := func(qidx []int) []unit {
		var u []unit
		for _, i := range qidx {
			u = append(u, units[i]...)
		}
		return u
	}
	point, err := pointMetrics(gather(idx), opt.Bins)
	if err != nil {
		return nil, err
	}
	m := &Metrics{N: len(gather(idx)), Questions: len(idx), Values: point, CI: map[string][2]float64{}}
	if opt.Boot <= 0 || len(idx) < 2 {
		return m, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x626f6f74))
	reps := map[string][]float64{}
	pick := make([]int, len(idx))
	for b := 0; b < opt.Boot; b++ {
		for j := range pick {
			pick[j] = idx[r.IntN(len(idx))]
		}
		v, err := pointMetrics(gather(pick), opt.Bins)
		if err != nil {
			return nil, err
		}
		for k, x := range v {
			if finite(x) {
				reps[k] = append(reps[k], x)
			}
		}
	}
	for k := range point {
		// An interval needs most resamples to define the metric (AUC needs both classes).
		if xs := reps[k]; len(xs) >= opt.Boot/2 && len(xs) > 1 {
			m.CI[k] = [2]float64{stats.Percentile(xs, 0.025), stats.Percentile(xs, 0.975)}
		}
	}
	return m, nil
}

// pointMetrics computes the metrics of one list of answers (NaN where undefined).
func pointMetrics(u []unit, bins int) (map[string]float64, error) {
	if len(u) == 0 {
		return nil, errors.New("no answers")
	}
	conf := make([]float64, len(u))
	ok := make([]bool, len(u))
	for i, x := range u {
		conf[i], ok[i] = x.conf, x.correct
	}
	nan := math.NaN()
	v := map[string]float64{"auc": nan}
	var err error
	if v["accuracy"], err = calib.Accuracy(ok); err != nil {
		return nil, err
	}
	if a, err := calib.AUC(conf, ok); err == nil {
		v["auc"] = a
	} else if !errors.Is(err, calib.ErrSingleClass) {
		return nil, err
	}
	// ECE and MCE from one binning (the sums of calib.ECE and calib.MCE, term for term).
	rb, err := calib.ReliabilityBins(conf, ok, bins)
	if err != nil {
		return nil, err
	}
	var ece, mce float64
	for _, b := range rb {
		ece += float64(b.Count) / float64(len(conf)) * math.Abs(b.Accuracy-b.MeanConf)
		if b.Count > 0 {
			mce = math.Max(mce, math.Abs(b.Accuracy-b.MeanConf))
		}
	}
	v["ece"], v["mce"] = ece, mce
	if v["brier"], err = calib.Brier(conf, ok); err != nil {
		return nil, err
	}
	cov, prec, err := calib.PrecisionCoverage(conf, ok)
	if err != nil {
		return nil, err
	}
	v["aurc"] = calib.AURCOf(cov, prec)
	v["precision_at_50"], _ = calib.PrecisionAt(cov, prec, 0.5)
	v["precision_at_80"], _ = calib.PrecisionAt(cov, prec, 0.8)
	if u[0].round >= 0 {
		v["auc_rounds"] = roundsAUC(u)
	}
	return v, nil
}

// roundsAUC is the AUC within each sampling round (one answer per question), averaged over the
// rounds where it is defined (NaN when none is).
func roundsAUC(u []unit) float64 {
	byRound := map[int][]unit{}
	for _, x := range u {
		byRound[x.round] = append(byRound[x.round], x)
	}
	rounds := make([]int, 0, len(byRound))
	for r := range byRound {
		rounds = append(rounds, r)
	}
	sort.Ints(rounds)
	var aucs []float64
	for _, r := range rounds {
		xs := byRound[r]
		conf := make([]float64, len(xs))
		ok := make([]bool, len(xs))
		for i, x := range xs {
			conf[i], ok[i] = x.conf, x.correct
		}
		if a, err := calib.AUC(conf, ok); err == nil {
			aucs = append(aucs, a)
		}
	}
	if len(aucs) == 0 {
		return math.NaN()
	}
	return stats.Summarize(aucs).Mean
}

package cos

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/prm"
)

// prmData is the PRM's training data: the SFT policy's complete, parsed traces on the PRM prompts,
// which of them the step judge labels, and the label of every tag.
type prmData struct {
	prompts, comps [][]int32       // each trace's prompt and completion body (prm.Body)
	probs          []arith.Problem // its problem
	gold           [][]bool        // the verifier's verdict on each step tag, then on the answer tag
	judged         []bool          // labelled by the step judge; the others by Monte Carlo
	soft           [][]float64     // the label of every tag in [0, 1]
}

// mcStats is what Monte-Carlo labelling reports: how many traces it labelled, the share of rollouts
// cut off before an answer, and how many labelled tags agree, as hard labels, with the verifier.
type mcStats struct {
	traces      int
	cutOff      float64
	agree, tags float64
}

// fitted is a trained PRM with its run (curves and metrics so far).
type fitted struct {
	prm *prm.PRM
	run exp.Run
}

// labelled is a seed's PRM data: the labelled traces that train the PRMs (examples; judgeExamples
// the same traces with the step judge's labels), the held-out halves that select and check them,
// up to SeenTraces of the training traces for Table 3's seen-problem accuracy, and the data
// metrics every PRM run carries.
type labelled struct {
	examples, judgeExamples []prm.Example
	sel, chk, seen          heldOut
	rank                    *ranked
	final                   map[string]float64
	// selfSel is the policy's own step AUC on the selection half (NaN: unmeasurable, one class).
	selfSel float64
}

// SeenTraces is how many training traces (the first ones) measure a PRM on problems it was trained
// on (Table 3's "seen"), beside the check half (unseen).
const SeenTraces = 1000

// label samples the SFT policy's traces on the PRM prompts, labels a JudgeShare of them by the step
// judge and the rest by Monte Carlo, writes the labelled traces as JSONL where the options save
// policies (TracesFile: seed 1's by default, carried by a sweep's merge like a policy), and splits
// them (heldOutSplit): what every PRM of the seed trains, selects and is checked on.
func (s *setup) label(set *lmtask.Set) (*labelled, error) {
	c := s.cfg
	d, err := s.prmTraces(set)
	if err != nil {
		return nil, err
	}
	d.judged = judgedTraces(s.seed, len(d.comps), c.JudgeShare)
	mc, err := s.labelSteps(&d)
	if err != nil {
		return nil, err
	}
	labels := d.soft
	if c.Labels == "hard" {
		labels = prm.Hard(d.soft)
	}
	keys := make([]string, len(d.probs))
	for i, p := range d.probs {
		keys[i] = p.Prompt
	}
	role := heldOutSplit(s.seed, keys, c.HeldOut, s.train.PromptSet())
	L := &labelled{}
	for i := range d.comps {
		switch role[i] {
		case trainTrace:
			L.examples = append(L.examples, prm.Example{Prompt: d.prompts[i], Completion: d.comps[i], Labels: labels[i]})
			L.judgeExamples = append(L.judgeExamples, prm.Example{Prompt: d.prompts[i], Completion: d.comps[i], Labels: goldLabels(d.gold[i])})
			if len(L.seen.comps) < SeenTraces {
				L.seen.add(d, i)
			}
		case selectTrace:
			L.sel.add(d, i)
		case checkTrace:
			L.chk.add(d, i)
		}
	}
	if len(L.examples) == 0 || (c.HeldOut > 0 && (len(L.sel.comps) == 0 || len(L.chk.comps) == 0)) {
		return nil, fmt.Errorf("%d labelled traces leave %d to train on, %d to select by and %d to check with", len(d.comps), len(L.examples), len(L.sel.comps), len(L.chk.comps))
	}
	for _, h := range []*heldOut{&L.sel, &L.chk, &L.seen} {
		if err := h.scoreSelf(s.sft, s.tag); err != nil {
			return nil, err
		}
	}
	// The policy's own step AUC on the selection half: what a PRM must beat there (fitIndependent).
	m, err := tagAUCs(L.sel.self, L.sel.gold, nil, c.StepWeight, c.Aggregation)
	if err != nil {
		return nil, fmt.Errorf("the policy's own scores of the selection half: %w", err)
	}
	L.selfSel = math.NaN()
	if v, ok := m["step_auc"]; ok {
		L.selfSel = v
	}
	if L.rank, err = s.rankSet(&L.chk); err != nil {
		return nil, err
	}
	if err := s.writeTraces(d); err != nil {
		return nil, err
	}
	L.final = labelMetrics(d, mc)
	L.final["rank_traces"] = float64(len(L.rank.comps))
	L.final["train_traces"], L.final["select_traces"], L.final["check_traces"] = float64(len(L.examples)), float64(len(L.sel.comps)), float64(len(L.chk.comps))
	return L, nil
}

// trainPRM labels the PRM data (label) and trains the independent PRM (s.prm) on it — and on the
// same traces the prm-selfconf ablation and, with JudgeOnly, the diagnostic prm-judge on judge
// labels only — and returns them with their runs ("prm" first) and the data. Every run carries
// what the room checks read from the traces on every seed (right_answer_wrong_step,
// off_length_share: room.go) and the PRM's measures on the check half (heldOutMetrics).
func (s *setup) trainPRM(set *lmtask.Set) ([]fitted, *labelled, error) {
	c := s.cfg
	L, err := s.label(set)
	if err != nil {
		return nil, nil, err
	}
	var judge *prm.PRM
	cloneJudge := func(p *prm.PRM) error { // the diagnostic starts from the first pretrained trunk
		if !c.JudgeOnly {
			return nil
		}
		lmc, err := p.LM.Clone()
		if err != nil {
			return err
		}
		judge = &prm.PRM{LM: lmc, Tag: s.tag}
		return nil
	}
	out := []fitted{{}}
	if out[0].prm, out[0].run, err = s.fitIndependent(c.PRMModel, "prm", L, cloneJudge); err != nil {
		if judge != nil {
			judge.Close()
		}
		return nil, nil, err
	}
	s.prm = out[0].prm
	if c.SelfConf.Steps > 0 {
		if s.selfconf, err = prm.New(s.sft, s.tag, s.seed+700, true); err != nil {
			return nil, nil, err
		}
		f := fitted{prm: s.selfconf}
		if f.run, err = s.fitPRM(s.selfconf, "prm-selfconf", c.SelfConf, L.examples, L.final, &L.sel, &L.chk, L.rank); err != nil {
			return nil, nil, err
		}
		out = append(out, f)
	}
	if judge != nil {
		f := fitted{prm: judge}
		if f.run, err = s.fitPRM(judge, "prm-judge", c.PRM, L.judgeExamples, L.final, &L.sel, &L.chk, L.rank); err != nil {
			judge.Close()
			return nil, nil, err
		}
		out = append(out, f)
	}
	return out, L, nil
}

// The roles of a labelled trace (heldOutSplit).
const (
	trainTrace = iota
	selectTrace
	checkTrace
)

// heldOutSplit gives each labelled trace its role by its prompt (keys[i]: trace i's problem
// statement), so that a held-out trace's problem never appears among the training traces: a seeded
// share of the distinct prompts not in exclude (the SFT prompts, whose gold chains the PRM's trunk
// is pretrained on; rounded) is held out with all their traces, the first half of those prompts
// (rounded down) to select the PRM's checkpoint by, the rest to check it with; every other trace
// trains it.
func heldOutSplit(seed uint64, keys []string, share float64, exclude map[string]bool) []int {
	var distinct []string
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k] && !exclude[k] {
			seen[k] = true
			distinct = append(distinct, k)
		}
	}
	n := int(math.Round(share * float64(len(distinct))))
	of := map[string]int{}
	for j, i := range rand.New(rand.NewPCG(seed, heldOutStream)).Perm(len(distinct))[:n] {
		of[distinct[i]] = checkTrace
		if j < n/2 {
			of[distinct[i]] = selectTrace
		}
	}
	role := make([]int, len(keys))
	for i, k := range keys {
		role[i] = of[k] // trainTrace (0) when not held out
	}
	return role
}

// heldOut is a set of labelled traces the PRMs do not train on: each trace's prompt and completion
// body, the verifier's verdict on each tag (steps, then the answer) and the SFT policy's own score of
// each tag (the running minimum of its step log-probabilities, prm.StepFeatures; at the answer tag,
// the trace's self-confidence, as the bon-self search rule reads it).
type heldOut struct {
	prompts, comps [][]int32
	probs          []arith.Problem
	gold           [][]bool
	self           [][]float64
}

func (h *heldOut) add(d prmData, i int) {
	h.prompts, h.comps, h.gold = append(h.prompts, d.prompts[i]), append(h.comps, d.comps[i]), append(h.gold, d.gold[i])
	h.probs = append(h.probs, d.probs[i])
}

// ranked are RankSamples SFT traces of every distinct check-half prompt (the complete, parsed ones),
// each with its prompt's index (group), whether its answer is right, and the policy's
// self-confidence: what a best-of-N pick ranks, within a question.
type ranked struct {
	prompts, comps [][]int32
	group          []int
	right          []bool
	self           []float64
}

// rankSet samples RankSamples traces of each distinct prompt of the check half from the SFT policy.
func (s *setup) rankSet(chk *heldOut) (*ranked, error) {
	var probs []arith.Problem
	var prompts [][]int32
	seen := map[string]bool{}
	for i, p := range chk.probs {
		if !seen[p.Prompt] {
			seen[p.Prompt] = true
			probs, prompts = append(probs, p), append(prompts, chk.prompts[i])
		}
	}
	set := &lmtask.Set{Tok: s.tok, Problems: probs, Prompts: prompts}
	gens, vs, err := s.traces(s.sft, set, s.cfg.RankSamples, s.seed+850)
	if err != nil {
		return nil, err
	}
	r := &ranked{}
	n := len(probs)
	for i, g := range gens {
		if s.complete(g) && vs[i].Parsed {
			r.prompts, r.comps = append(r.prompts, prompts[i%n]), append(r.comps, prm.Body(g))
			r.group, r.right = append(r.group, i%n), append(r.right, vs[i].Correct)
		}
	}
	if len(r.comps) == 0 {
		return r, nil
	}
	f, err := prm.StepFeatures(s.sft, s.tag, r.prompts, r.comps)
	if err != nil {
		return nil, err
	}
	for i := range f {
		r.self = append(r.self, float64(f[i][len(f[i])-1][1]))
	}
	return r, nil
}

// WithinAUC is the AUC of scores against right within groups: over every (right, wrong) pair of
// traces of the same group, the share the score orders right (ties count ½) — the ranking a
// best-of-N pick within a question relies on. ok is false without such a pair.
func WithinAUC(scores []float64, right []bool, group []int) (float64, bool) {
	by := map[int][]int{}
	for i, g := range group {
		by[g] = append(by[g], i)
	}
	var won, pairs float64
	for _, idx := range by {
		for _, i := range idx {
			if !right[i] {
				continue
			}
			for _, j := range idx {
				if right[j] {
					continue
				}
				pairs++
				switch {
				case scores[i] > scores[j]:
					won++
				case scores[i] == scores[j]:
					won += 0.5
				}
			}
		}
	}
	return won / pairs, pairs > 0
}

// withinMetrics are a PRM's within-question AUCs on the ranked traces: its trace score's
// ("within_trace_auc") and the policy's self-confidence's ("within_self_auc").
func withinMetrics(p *prm.PRM, r *ranked, w float64, agg string) (map[string]float64, error) {
	out := map[string]float64{}
	if r == nil || len(r.comps) == 0 {
		return out, nil
	}
	scores, err := p.Score(r.prompts, r.comps)
	if err != nil {
		return nil, err
	}
	tr := make([]float64, len(scores))
	for i, sc := range scores {
		if tr[i], err = prm.TraceScore(sc, w, agg); err != nil {
			return nil, err
		}
	}
	if a, ok := WithinAUC(tr, r.right, r.group); ok {
		out["within_trace_auc"] = a
	}
	if a, ok := WithinAUC(r.self, r.right, r.group); ok {
		out["within_self_auc"] = a
	}
	return out, nil
}

// scoreSelf fills h.self from the (frozen) policy.
func (h *heldOut) scoreSelf(policy *lm.Model, tag int32) error {
	if len(h.comps) == 0 {
		return nil
	}
	f, err := prm.StepFeatures(policy, tag, h.prompts, h.comps)
	if err != nil {
		return err
	}
	h.self = make([][]float64, len(f))
	for i := range f {
		if len(f[i]) != len(h.gold[i]) {
			return fmt.Errorf("held-out trace %d: %d policy features for %d tags", i, len(f[i]), len(h.gold[i]))
		}
		h.self[i] = make([]float64, len(f[i]))
		for j := range f[i] {
			h.self[i][j] = float64(f[i][j][1])
		}
	}
	return nil
}

// heldOutMetrics measures a PRM on held-out traces against the verifier, beside the policy's own
// scores of the same tags: step_accuracy and answer_accuracy (p > ½ agrees with the verdict), step_auc and self_step_auc (every step tag against the step's verdict),
// answer_auc (the answer tag against the answer's), and trace_auc and self_trace_auc (the trace score
// w·agg(steps) + (1 − w)·answer, prm.TraceScore, and the policy's self-confidence, against the
// answer's verdict: the ranking best-of-N relies on).
func heldOutMetrics(p *prm.PRM, h *heldOut, w float64, agg string) (map[string]float64, error) {
	scores, err := p.Score(h.prompts, h.comps)
	if err != nil {
		return nil, err
	}
	return tagAUCs(scores, h.gold, h.self, w, agg)
}

// tagAUCs are heldOutMetrics' AUCs from every trace's tag scores, verdicts and (nil: none) the
// policy's own tag scores; a measure whose labels are all one class is left out.
func tagAUCs(scores [][]float64, gold [][]bool, selfScores [][]float64, w float64, agg string) (map[string]float64, error) {
	var step, self, ans, tr, selfTr []float64
	var stepOK, ansOK []bool
	for i, sc := range scores {
		g := gold[i]
		if len(sc) != len(g) || (selfScores != nil && len(selfScores[i]) != len(g)) {
			return nil, fmt.Errorf("held-out trace %d: %d scores for %d tags", i, len(sc), len(g))
		}
		last := len(g) - 1
		for j := range last {
			step, stepOK = append(step, sc[j]), append(stepOK, g[j])
			if selfScores != nil {
				self = append(self, selfScores[i][j])
			}
		}
		t, err := prm.TraceScore(sc, w, agg)
		if err != nil {
			return nil, err
		}
		ans, tr, ansOK = append(ans, sc[last]), append(tr, t), append(ansOK, g[last])
		if selfScores != nil {
			selfTr = append(selfTr, selfScores[i][last])
		}
	}
	out := map[string]float64{}
	for name, v := range map[string]struct {
		p  []float64
		ok []bool
	}{"step_accuracy": {step, stepOK}, "answer_accuracy": {ans, ansOK}} {
		if len(v.p) > 0 {
			var agree float64
			for i, p := range v.p {
				if (p > 0.5) == v.ok[i] {
					agree++
				}
			}
			out[name] = agree / float64(len(v.p))
		}
	}
	for name, x := range map[string][]float64{"step_auc": step, "self_step_auc": self} {
		if a, err := calib.AUC(x, stepOK); err == nil && len(x) > 0 {
			out[name] = a
		}
	}
	for name, x := range map[string][]float64{"answer_auc": ans, "trace_auc": tr, "self_trace_auc": selfTr} {
		if a, err := calib.AUC(x, ansOK); err == nil && len(x) > 0 {
			out[name] = a
		}
	}
	return out, nil
}

// prmTraces samples PRMSamples traces of every PRM prompt from the SFT policy and keeps the complete,
// parsed ones with the verifier's gold tag labels.
func (s *setup) prmTraces(set *lmtask.Set) (prmData, error) {
	gens, vs, err := s.traces(s.sft, set, s.cfg.PRMSamples, s.seed+500)
	if err != nil {
		return prmData{}, err
	}
	n := len(set.Problems)
	var d prmData
	for i, g := range gens {
		if !s.complete(g) || !vs[i].Parsed {
			continue
		}
		d.prompts = append(d.prompts, set.Prompts[i%n])
		d.comps = append(d.comps, prm.Body(g))
		d.probs = append(d.probs, set.Problems[i%n])
		d.gold = append(d.gold, append(slices.Clone(vs[i].StepCorrect), vs[i].Correct))
	}
	if len(d.comps) == 0 {
		return prmData{}, fmt.Errorf("no complete traces to label")
	}
	return d, nil
}

// judgedTraces picks which of n traces the step judge labels: a seeded share of them (rounded), the
// rest go to Monte Carlo.
func judgedTraces(seed uint64, n int, share float64) []bool {
	judged := make([]bool, n)
	for _, i := range rand.New(rand.NewPCG(seed, judgeStream)).Perm(n)[:int(math.Round(share*float64(n)))] {
		judged[i] = true
	}
	return judged
}

// labelSteps fills d.soft: a judged trace's labels are its gold verdicts (0 or 1); the others get
// the fraction of MCRollouts rollouts from each step prefix that reach the right answer
// (prm.MCLabels, Math-Shepherd).
func (s *setup) labelSteps(d *prmData) (mcStats, error) {
	c := s.cfg
	var mcIdx []int
	var mcPrompts, mcComps [][]int32
	for i := range d.comps {
		if !d.judged[i] {
			mcIdx, mcPrompts, mcComps = append(mcIdx, i), append(mcPrompts, d.prompts[i]), append(mcComps, d.comps[i])
		}
	}
	d.soft = make([][]float64, len(d.comps))
	for i := range d.comps {
		if d.judged[i] {
			d.soft[i] = goldLabels(d.gold[i])
		}
	}
	st := mcStats{traces: len(mcIdx)}
	if len(mcIdx) == 0 {
		return st, nil
	}
	correct := func(k int, text string) bool { return arith.VerifyTagged(d.probs[mcIdx[k]], text).Correct }
	mc, co, err := prm.MCLabels(s.sft, s.tag, mcPrompts, mcComps, correct, c.MCRollouts,
		lm.SampleConfig{MaxNew: c.MaxNew, Temperature: 1, Seed: s.seed + 600})
	if err != nil {
		return mcStats{}, err
	}
	st.cutOff = co
	hard := prm.Hard(mc)
	for k, i := range mcIdx {
		d.soft[i] = mc[k]
		for j, ok := range d.gold[i] {
			st.tags++
			st.agree += float64(boolInt((hard[k][j] == 1) == ok))
		}
	}
	return st, nil
}

// goldLabels are a trace's gold verdicts as labels: 1 for a right tag, 0 for a wrong one.
func goldLabels(gold []bool) []float64 {
	out := make([]float64, len(gold))
	for j, ok := range gold {
		out[j] = float64(boolInt(ok))
	}
	return out
}

// writeTraces writes the labelled traces (soft labels, gold verdicts and label source) as JSONL where
// the options save policies.
func (s *setup) writeTraces(d prmData) error {
	dir := s.opt.CheckpointDir(tracesMethod, s.seed)
	if dir == "" {
		return nil
	}
	recs := make([]prm.Record, len(d.comps))
	for i := range d.comps {
		recs[i] = prm.Record{Prompt: d.probs[i].Prompt, Completion: s.tok.Decode(d.comps[i]), Labels: d.soft[i], Gold: d.gold[i], Source: prm.SourceMC}
		if d.judged[i] {
			recs[i].Source = prm.SourceJudge
		}
	}
	return prm.WriteRecords(filepath.Join(dir, TracesFile), recs)
}

// labelMetrics are the PRM runs' data metrics: traces labelled, judged, the Monte-Carlo rollouts'
// cut-off rate and agreement with the verifier, and what the room checks read (room.go): how often
// a right answer follows a wrong step, and how often a trace's step count differs from its problem's.
func labelMetrics(d prmData, mc mcStats) map[string]float64 {
	final := map[string]float64{"label_traces": float64(len(d.comps)), "judge_traces": float64(len(d.comps) - mc.traces), "mc_cutoff_rate": mc.cutOff}
	if mc.tags > 0 {
		final["mc_label_gold_agreement"] = mc.agree / mc.tags
	}
	if v, ok := WrongStepShare(d.gold); ok {
		final[metricWrongStep] = v
	}
	steps, want := make([]int, len(d.gold)), make([]int, len(d.gold))
	for i := range d.gold {
		steps[i], want[i] = len(d.gold[i])-1, len(d.probs[i].Steps)
	}
	if v, ok := OffLengthShare(steps, want); ok {
		final[metricOffLength] = v
	}
	return final
}

// restartStride separates the seeds of a PRM's restarts (its trunk's initialisation, pretraining
// and BCE data order): attempt k draws from seed + k·restartStride.
const restartStride = 7919

// fitIndependent builds, pretrains and trains an independent PRM with trunk mc on the labelled
// traces (fitPRM), restarting from a fresh trunk — new initialisation, pretraining and data order —
// while the best checkpoint's step AUC on the selection half does not exceed the policy's own lowest
// step probability's there (restartNeeded), up to PRMRestarts times, and keeps the attempt with the
// best selection AUC. A stalled start is an optimisation failure: on the first default run of the
// 2026-12-06 protocol, seed 2's PRM stayed at selection AUC 0.76 from step 900 on while PRMs of
// other widths reached 0.89–0.92 on the same labels. Only the selection half decides; the check
// half, which the room checks read, never does. pretrained sees attempt 0's pretrained trunk
// before its BCE training (nil: nothing). The run records restarts and each attempt's selection AUC.
func (s *setup) fitIndependent(mc lm.Config, name string, L *labelled, pretrained func(*prm.PRM) error) (*prm.PRM, exp.Run, error) {
	c := s.cfg
	selfSel := L.selfSel
	var best *prm.PRM
	var bestRun exp.Run
	var aucs []float64
	fail := func(p *prm.PRM, err error) (*prm.PRM, exp.Run, error) {
		for _, q := range []*prm.PRM{p, best} {
			if q != nil {
				q.Close()
			}
		}
		return nil, exp.Run{}, err
	}
	for k := 0; k <= c.PRMRestarts; k++ {
		off := uint64(k) * restartStride
		p, err := prm.NewIndependent(mc, s.tok, s.tag, s.seed+700+off)
		if err != nil {
			return fail(nil, err)
		}
		label := name + " pretraining"
		if k > 0 {
			label = fmt.Sprintf("%s restart %d pretraining", name, k)
		}
		if err := s.pretrainPRM(p, label, off); err != nil {
			return fail(p, err)
		}
		if k == 0 && pretrained != nil {
			if err := pretrained(p); err != nil {
				return fail(p, err)
			}
		}
		tc := c.PRM
		tc.Seed += off
		run, err := s.fitPRM(p, name, tc, L.examples, L.final, &L.sel, &L.chk, L.rank)
		if err != nil {
			return fail(p, err)
		}
		sel, ok := run.Final["select_step_auc"]
		if !ok {
			sel = math.NaN() // never scored (a smoke run's few traces)
		}
		aucs = append(aucs, sel)
		if best == nil || sel > bestRun.Final["select_step_auc"] {
			if best != nil {
				best.Close()
			}
			best, bestRun = p, run
		} else {
			p.Close()
		}
		if !restartRule(sel, selfSel) {
			break
		}
		if k < c.PRMRestarts {
			fmt.Fprintf(s.opt.Log, "cos seed %d: %s attempt %d: selection step AUC %.3f does not exceed the policy's own %.3f: restart %d of %d from a fresh trunk\n",
				s.seed, name, k, sel, selfSel, k+1, c.PRMRestarts)
		}
	}
	if kept := slices.Index(aucs, bestRun.Final["select_step_auc"]); len(aucs) > 1 && kept >= 0 {
		fmt.Fprintf(s.opt.Log, "cos seed %d: %s selection step AUC by attempt %.3f (the policy's own %.3f): attempt %d kept\n",
			s.seed, name, aucs, selfSel, kept)
	}
	bestRun.Final["restarts"] = float64(len(aucs) - 1)
	if !math.IsNaN(selfSel) {
		bestRun.Final["select_self_step_auc"] = selfSel
	}
	for k, v := range aucs {
		if !math.IsNaN(v) {
			bestRun.Final[fmt.Sprintf("attempt%d_select_step_auc", k)] = v
		}
	}
	return best, bestRun, nil
}

// atCap says whether a validated training ran out of steps while its held-out score could still
// improve: it ran to the cap with its best evaluation within the last Patience of them (a run that
// patience stopped exactly at the cap is not cut off). Without validation it is never at the cap.
func atCap(tc prm.TrainConfig, ran, best int) bool {
	return tc.EvalEvery > 0 && ran >= tc.Steps && best > tc.Steps-tc.Patience*tc.EvalEvery
}

// restartRule is the rule fitIndependent applies (a variable so that a test can force restarts).
var restartRule = restartNeeded

// restartNeeded says whether a PRM whose best checkpoint scores step AUC sel on the selection half
// must be trained again from a fresh trunk: when it does not beat the policy's own step score there
// (self), or was never scored. Without a policy score to beat (NaN: a smoke run's few traces) no
// restart is needed.
func restartNeeded(sel, self float64) bool {
	if math.IsNaN(self) {
		return false
	}
	return math.IsNaN(sel) || sel <= self
}

// pretrainPRM teaches an independent PRM's trunk the task's language first: next-token prediction
// on the SFT prompts' gold (unslipped) tagged chains, PRMPretrain steps (none when 0), data order
// drawn from the seed plus off (a restart's).
func (s *setup) pretrainPRM(p *prm.PRM, label string, off uint64) error {
	pc := s.cfg.PRMPretrain
	if pc.Steps <= 0 {
		return nil
	}
	demos, err := s.train.TextExamples(arith.Problem.TaggedCompletion)
	if err != nil {
		return err
	}
	pc.Seed = s.seed + 700 + off
	tr, _, err := lm.TrainSFT(p.LM, pc, demos, nil, lm.SFTHooks{Progress: s.opt.Progress(fmt.Sprintf("cos seed %d: %s", s.seed, label), pc.Steps)})
	if tr != nil {
		tr.Close()
	}
	if err != nil {
		return fmt.Errorf("pretraining: %w", err)
	}
	return nil
}

// trainCurvePoints is how many points a PRM's per-step training curves keep (block means,
// track.Curve.Binned): enough to see the loss settle, without thousands of points per PRM and seed.
const trainCurvePoints = 400

// fitPRM trains a PRM by BCE on the labelled examples, selecting its checkpoint by the step AUC on
// sel (tc.EvalEvery), and returns its run: the data metrics, the training and validation curves, the
// step it holds (best_step) and ran to (steps_run), and its measures on chk and, within question, on
// rank (withinMetrics), prefixed "heldout_".
func (s *setup) fitPRM(p *prm.PRM, name string, tc prm.TrainConfig, examples []prm.Example, final map[string]float64, sel, chk *heldOut, rank *ranked) (exp.Run, error) {
	c := s.cfg
	// A restart's offset on top of the seed (fitIndependent). Since 2026-12-06 a configured prm.seed
	// or self_conf.seed (0 by default, ignored before) shifts the data order too.
	tc.Seed += s.seed
	hooks := prm.TrainHooks{Progress: s.opt.Progress(fmt.Sprintf("cos seed %d: %s", s.seed, name), tc.Steps)}
	if tc.EvalEvery > 0 {
		hooks.Validate = func(p *prm.PRM) (float64, error) {
			m, err := heldOutMetrics(p, sel, c.StepWeight, c.Aggregation)
			if err != nil {
				return 0, err
			}
			if v, ok := m["step_auc"]; ok {
				return v, nil
			}
			return math.NaN(), nil // every selection step right, or every one wrong (a smoke run's few traces)
		}
	}
	tr, err := p.Train(examples, tc, hooks)
	if err != nil {
		return exp.Run{}, err
	}
	run := exp.Run{Method: name, Seed: s.seed, Final: maps.Clone(final),
		Curves: map[string]exp.Curve{"train/loss": tr.Curves["loss"].Binned(trainCurvePoints), "train/tag_accuracy": tr.Curves["tag_accuracy"].Binned(trainCurvePoints)}}
	if v, ok := tr.Curves["validation"]; ok {
		run.Curves["select/step_auc"] = v
		if !math.IsNaN(tr.Best) {
			run.Final["select_step_auc"] = tr.Best
		}
	}
	run.Final["best_step"], run.Final["steps_run"] = float64(tr.BestStep), float64(tr.Ran)
	// at_cap: training ran out of steps while its held-out AUC could still improve (its best
	// checkpoint within the last Patience evaluations): cut off by the cap, not stopped by patience.
	run.Final["at_cap"] = float64(boolInt(atCap(tc, tr.Ran, tr.BestStep)))
	if chk != nil && len(chk.comps) > 0 {
		m, err := heldOutMetrics(p, chk, c.StepWeight, c.Aggregation)
		if err != nil {
			return exp.Run{}, err
		}
		for k, v := range m {
			run.Final["heldout_"+k] = v
		}
	}
	w, err := withinMetrics(p, rank, c.StepWeight, c.Aggregation)
	if err != nil {
		return exp.Run{}, err
	}
	for k, v := range w {
		run.Final["heldout_"+k] = v
	}
	// The progress line stops at its last tick, not at an early stop: say where training ended and
	// which checkpoint it kept.
	if tc.EvalEvery > 0 {
		fmt.Fprintf(s.opt.Log, "cos seed %d: %s ran %d of %d steps, kept step %d (selection step AUC %.3f, at_cap %v); check-half step AUC %.3f, answer AUC %.3f\n",
			s.seed, name, tr.Ran, tc.Steps, tr.BestStep, tr.Best, run.Final["at_cap"], run.Final["heldout_step_auc"], run.Final["heldout_answer_auc"])
	}
	return run, nil
}

// judgePRM scores the SFT policy's held-out traces with a PRM and compares with the verifier's
// gold step labels: step_accuracy (p > ½ agrees), step_auc, answer_auc, the reliability of p, and,
// beside them, self_step_auc: the AUC of the policy's own lowest step log-probability so far (the
// running minimum at each step tag), the score the PRM must beat to add anything to the policy.
func (s *setup) judgePRM(pr *prm.PRM, run *exp.Run) error {
	gens, vs, err := s.traces(s.sft, s.eval, 1, s.seed+800)
	if err != nil {
		return err
	}
	var prompts, comps [][]int32
	var gold [][]bool
	for i, g := range gens {
		if s.complete(g) && vs[i].Parsed {
			prompts, comps = append(prompts, s.eval.Prompts[i]), append(comps, prm.Body(g))
			gold = append(gold, append(slices.Clone(vs[i].StepCorrect), vs[i].Correct))
		}
	}
	scores, err := pr.Score(prompts, comps)
	if err != nil {
		return err
	}
	feats, err := prm.StepFeatures(s.sft, s.tag, prompts, comps)
	if err != nil {
		return err
	}
	var p, self, ansP []float64
	var ok, ansOK []bool
	for i, sc := range scores {
		if len(sc) != len(gold[i]) || len(feats[i]) != len(gold[i]) {
			return fmt.Errorf("trace %d: %d scores and %d features for %d tags", i, len(sc), len(feats[i]), len(gold[i]))
		}
		for j := range sc {
			if j == len(sc)-1 {
				ansP, ansOK = append(ansP, sc[j]), append(ansOK, gold[i][j])
				continue
			}
			p, ok, self = append(p, sc[j]), append(ok, gold[i][j]), append(self, float64(feats[i][j][1]))
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
	if a, err := calib.AUC(self, ok); err == nil {
		run.Final["self_step_auc"] = a
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

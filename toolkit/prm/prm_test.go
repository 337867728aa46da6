package prm

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/lm"
)

func tinyPolicy(t *testing.T) (*lm.Model, int32, int32) {
	t.Helper()
	tok, err := lm.NewTokenizer(arith.TaggedAlphabet)
	if err != nil {
		t.Fatal(err)
	}
	c := lm.ConfigR()
	c.Vocab = tok.Size()
	m, err := lm.New(c, tok, 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ids, _ := tok.Encode(string(arith.StepTag) + string(arith.AnswerMarker))
	return m, ids[0], ids[1]
}

func enc(t *testing.T, m *lm.Model, s string) []int32 {
	t.Helper()
	ids, err := m.Tok.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// The tag mask marks exactly the tag inputs of each completion and carries their labels in order.
func TestPackAlignsLabelsWithTags(t *testing.T) {
	m, tag, _ := tinyPolicy(t)
	exs := []Example{
		{Prompt: enc(t, m, "3+4*2-5="), Completion: enc(t, m, "7#4#9#;9#"), Labels: []float64{1, 0.5, 0.25, 0}},
		{Prompt: enc(t, m, "1+1="), Completion: enc(t, m, "2#;2#"), Labels: []float64{0.75, 1}},
	}
	in, err := pack(exs, tag, m.Config.Context, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := in.Values[0].(*tensors.Tensor)
	tk := tensors.MustCopyFlatData[int32](tokens)
	mask := tensors.MustCopyFlatData[float32](in.Values[3].(*tensors.Tensor))
	labels := tensors.MustCopyFlatData[float32](in.Values[4].(*tensors.Tensor))
	width := tokens.Shape().Dimensions[1]
	for i, e := range exs {
		var got []float64
		for j := 0; j < width; j++ {
			k := i*width + j
			if mask[k] == 1 {
				if tk[k] != tag {
					t.Fatalf("row %d: tag mask on token %d at %d", i, tk[k], j)
				}
				got = append(got, float64(labels[k]))
			} else if labels[k] != 0 {
				t.Fatalf("row %d: label %v off a tag", i, labels[k])
			}
		}
		if !slices.Equal(got, e.Labels) {
			t.Fatalf("row %d: labels at tags %v, want %v", i, got, e.Labels)
		}
		// The tag after the answer is the row's last input (EOS is its target).
		want := 1 + len(e.Prompt) + len(e.Completion) - 1
		if tk[i*width+want] != tag {
			t.Fatalf("row %d: the answer's tag is not input %d", i, want)
		}
	}
	bad := []Example{{Prompt: exs[0].Prompt, Completion: exs[0].Completion, Labels: []float64{1, 1}}}
	if _, err := pack(bad, tag, m.Config.Context, nil); err == nil || !strings.Contains(err.Error(), "more tags than its 2 labels") {
		t.Fatalf("label count mismatch: %v", err)
	}
}

// The PRM loss equals binary cross entropy computed on the host from the scores at the tags, with
// and without the policy features.
func TestLossMatchesHandBCE(t *testing.T) {
	pol, tag, _ := tinyPolicy(t)
	for _, reads := range []bool{false, true} {
		p, err := New(pol, tag, 3, reads)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		m := p.LM
		exs := []Example{
			{Prompt: enc(t, m, "3+4*2-5="), Completion: enc(t, m, "7#4#9#;9#"), Labels: []float64{1, 0.5, 0.25, 0}},
			{Prompt: enc(t, m, "1+1="), Completion: enc(t, m, "2#;3#"), Labels: []float64{1, 0}},
		}
		var prompts, comps [][]int32
		for _, e := range exs {
			prompts, comps = append(prompts, e.Prompt), append(comps, e.Completion)
		}
		scores, err := p.Score(prompts, comps)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		n := 0
		for i, e := range exs {
			if len(scores[i]) != len(e.Labels) {
				t.Fatalf("row %d: %d scores for %d tags", i, len(scores[i]), len(e.Labels))
			}
			for k, y := range e.Labels {
				p := scores[i][k]
				want -= y*math.Log(p) + (1-y)*math.Log(1-p)
				n++
			}
		}
		want /= float64(n)
		feats, err := p.features(prompts, comps)
		if err != nil || (feats != nil) != reads {
			t.Fatalf("features %v (%v), reads policy %v", feats, err, reads)
		}
		in, err := pack(exs, tag, m.Config.Context, feats)
		if err != nil {
			t.Fatal(err)
		}
		loss := Loss
		if reads {
			loss = FeatureLoss
		}
		if !slices.Equal(in.Names, loss.Inputs) {
			t.Fatalf("packed %v, the loss reads %v", in.Names, loss.Inputs)
		}
		exec := graph.MustNewExec(m.Backend(), func(g *graph.Graph, x []*graph.Node) []*graph.Node {
			l, _ := loss.Fn(m.Config, lm.NewViews(m.Layout, x[0]), lm.NamedIn(loss.Inputs, x[1:]))
			return []*graph.Node{l}
		})
		got := float64(tensors.ToScalar[float32](exec.MustCall(append([]any{m.Params}, in.Values...)...)[0]))
		if math.Abs(got-want) > 1e-5 {
			t.Fatalf("reads policy %v: PRM loss %.6f, hand BCE %.6f", reads, got, want)
		}
	}
}

// The policy features are each step's summed token log-probability (tag excluded) and its running
// minimum, from the policy's own scores.
func TestStepFeaturesFromPolicyScores(t *testing.T) {
	pol, tag, _ := tinyPolicy(t)
	prompt, comp := enc(t, pol, "3+4*2-5="), enc(t, pol, "7#4#19#;9#")
	sc, err := pol.Score([]lm.Example{{Prompt: prompt, Completion: comp}}, false)
	if err != nil {
		t.Fatal(err)
	}
	lp := sc[0].LogProbs
	steps := []float64{float64(lp[0]), float64(lp[2]), float64(lp[4]) + float64(lp[5]), float64(lp[7]) + float64(lp[8])}
	f, err := StepFeatures(pol, tag, [][]int32{prompt}, [][]int32{comp})
	if err != nil {
		t.Fatal(err)
	}
	if len(f[0]) != 4 {
		t.Fatalf("%d features for 4 tags", len(f[0]))
	}
	run := math.Inf(1)
	for k, st := range steps {
		st = max(st, -FeatureClip)
		run = math.Min(run, st)
		if math.Abs(float64(f[0][k][0])-st) > 1e-5 || math.Abs(float64(f[0][k][1])-run) > 1e-5 {
			t.Fatalf("tag %d: features %v, want step %.5f running min %.5f", k, f[0][k], st, run)
		}
	}
}

// Beam search keeps, at every step, the candidate the scorer ranks first.
func TestBeamKeepsTheBestScoredStep(t *testing.T) {
	pol, tag, marker := tinyPolicy(t)
	prompts := [][]int32{enc(t, pol, "3+4="), enc(t, pol, "9*9-1=")}
	type call struct{ prompts, prefixes [][]int32 }
	var calls []call
	// Scripted PRM: prefer the candidate whose newest step has the smallest first symbol id.
	score := func(ps, xs [][]int32) ([]float64, error) {
		calls = append(calls, call{ps, xs})
		out := make([]float64, len(xs))
		for i, x := range xs {
			start := len(x) - 1
			for start > 0 && x[start-1] != tag {
				start--
			}
			out[i] = 1 / float64(1+x[start])
		}
		return out, nil
	}
	cfg := BeamConfig{N: 6, MaxSteps: 4, MaxStepTokens: 4, Temperature: 1, Seed: 1}
	out, tokens, err := Beam(pol, tag, marker, prompts, score, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tokens == 0 || len(calls) == 0 {
		t.Fatal("nothing generated or scored")
	}
	// Replay: at each call, every question's kept prefix must be its best-scored candidate (or an
	// untagged one when none was tagged).
	for _, c := range calls {
		scores, _ := score(c.prompts, c.prefixes)
		calls = calls[:len(calls)-1]
		best := map[string][]int32{}
		bestScore := map[string]float64{}
		for i, p := range c.prompts {
			k := string(pol.Tok.Decode(p))
			if _, ok := bestScore[k]; !ok || scores[i] > bestScore[k] {
				best[k], bestScore[k] = c.prefixes[i], scores[i]
			}
		}
		for i, p := range prompts {
			b, ok := best[pol.Tok.Decode(p)]
			if ok && !slices.Equal(out[i][:len(b)], b) {
				t.Fatalf("question %d: kept %v, the scorer's best was %v", i, out[i], b)
			}
		}
	}
}

// Monte-Carlo labels are a function of the policy, the traces and the seed.
func TestMCLabelsDeterministic(t *testing.T) {
	pol, tag, _ := tinyPolicy(t)
	prompts := [][]int32{enc(t, pol, "3+4*2="), enc(t, pol, "1+1=")}
	comps := [][]int32{enc(t, pol, "7#4#;4#"), enc(t, pol, "2#;2#")}
	gold := []string{";4#", ";3#"} // trace 0 is right, trace 1 ("2#;2#") wrong
	judge := func(i int, text string) bool { return strings.HasSuffix(text, gold[i]) }
	sc := lm.SampleConfig{MaxNew: 8, Temperature: 1, Seed: 5}
	a, _, err := MCLabels(pol, tag, prompts, comps, judge, 8, sc)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := MCLabels(pol, tag, prompts, comps, judge, 8, sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(a[0]) != 3 || len(a[1]) != 2 || a[0][2] != 1 || a[1][1] != 0 {
		t.Fatalf("labels %v (the answer tags: trace 0 right, trace 1 wrong)", a)
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("same seed, labels %v then %v", a, b)
		}
		for _, v := range a[i] {
			if v < 0 || v > 1 || math.Mod(v*8, 1) != 0 {
				t.Fatalf("label %v is not a fraction of 8 rollouts", v)
			}
		}
	}
	if _, _, err := MCLabels(pol, tag, prompts, [][]int32{enc(t, pol, "7#4"), comps[1]}, judge, 8, sc); err == nil {
		t.Fatal("an unfinished trace was labelled")
	}
}

func TestReadRecordsErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prm.jsonl")
	for _, c := range []struct{ body, want string }{
		{`{"prompt": "1+1=", "completion": "2#;2#", "labels": [1, 1]}` + "\n" + `{"prompt": "1+1=", "completion": "2#;2#", "labels": [1]}`, "prm.jsonl:2: field labels: 1 labels for the 2 tags"},
		{`{"prompt": "1+1=", "completion": "2#;2#", "labels": [1, 1.5]}`, "prm.jsonl:1: field labels: labels[1] = 1.5"},
		{`{"prompt": "1+1=", "completion": "2#;2#", "labels": [1, 1], "gold": [true]}`, "prm.jsonl:1: field gold"},
		{`{"completion": "2#;2#", "labels": [1, 1]}`, "prm.jsonl:1: field prompt: missing"},
		{`{"prompt": "1+1=", "completion": "2#;2#", "labels": "x"}`, "prm.jsonl:1: field labels"},
	} {
		os.WriteFile(path, []byte(c.body), 0o644)
		if _, err := ReadRecords(path, arith.StepTag); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.body, err, c.want)
		}
	}
	recs := []Record{{Prompt: "1+1=", Completion: "2#;2#", Labels: []float64{1, 0.5}, Gold: []bool{true, true}}}
	if err := WriteRecords(path, recs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecords(path, arith.StepTag)
	if err != nil || len(back) != 1 || back[0].Labels[1] != 0.5 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

func TestTraceScore(t *testing.T) {
	s := []float64{0.9, 0.5, 0.7, 0.8} // three steps, then the answer
	for how, want := range map[string]float64{"mean": 0.2*0.7 + 0.8*0.8, "min": 0.2*0.5 + 0.8*0.8, "last": 0.2*0.7 + 0.8*0.8, "product": 0.2*0.315 + 0.8*0.8} {
		got, err := TraceScore(s, 0.2, how)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: %v (%v), want %v", how, got, err, want)
		}
	}
	if v, _ := TraceScore([]float64{0.6}, 0.2, "mean"); v != 0.6 {
		t.Errorf("answer only: %v", v)
	}
	if _, err := TraceScore(s, 0.2, "max"); err == nil {
		t.Error("unknown aggregation accepted")
	}
	if a := BestOfN([]string{"1", "", "2"}, []float64{0.3, 0.9, 0.5}); a != "2" {
		t.Errorf("best of N %q", a)
	}
	if a := WeightedVote([]string{"1", "2", "1"}, []float64{0.3, 0.5, 0.3}); a != "1" {
		t.Errorf("weighted vote %q", a)
	}
	if a := Majority([]string{"", "2", "1", "2"}); a != "2" {
		t.Errorf("majority %q", a)
	}
}

// firstStepScorer is a scripted PRM for the beam tests: a prefix with one judged step scores its
// step's first symbol id / 100; a prefix with two steps scores 1 − that of its first step, so the
// best first step leads to the worst second one.
func firstStepScorer(tag int32) StepScorer {
	return func(ps, xs [][]int32) ([]float64, error) {
		out := make([]float64, len(xs))
		for i, x := range xs {
			first := float64(x[0]) / 100
			if count(x, tag) >= 2 {
				out[i] = 1 - first
			} else {
				out[i] = first
			}
		}
		return out, nil
	}
}

// With M = N (width 1) the wide beam is Beam: the same samples, the same kept steps, the same
// completion and token count.
func TestWideBeamWidthOneIsBeam(t *testing.T) {
	pol, tag, marker := tinyPolicy(t)
	prompts := [][]int32{enc(t, pol, "3+4="), enc(t, pol, "9*9-1=")}
	score := firstStepScorer(tag)
	out, tokens, err := Beam(pol, tag, marker, prompts, score, BeamConfig{N: 6, MaxSteps: 3, MaxStepTokens: 6, Temperature: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	wide, wtokens, err := WideBeam(pol, tag, marker, prompts, score, WideBeamConfig{N: 6, M: 6, MaxSteps: 3, MaxStepTokens: 6, Temperature: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if wtokens != tokens {
		t.Fatalf("tokens %d, Beam's %d", wtokens, tokens)
	}
	for i := range prompts {
		if len(wide[i]) != 1 || !slices.Equal(wide[i][0].Completion, out[i]) {
			t.Fatalf("question %d: wide beam of width 1 kept %v, Beam %v", i, wide[i], out[i])
		}
	}
	if _, _, err := WideBeam(pol, tag, marker, prompts, score, WideBeamConfig{N: 6, M: 4, MaxSteps: 3, MaxStepTokens: 6}); err == nil {
		t.Error("n not a multiple of m accepted")
	}
}

// A wider beam finds a chain that width 1 misses: with a scripted policy whose candidate first
// steps are "0#" … "5#" and a scorer under which the best first step has the worst continuation,
// width 1 keeps "5#" and ends at 0.5, width 3 keeps "5#", "4#", "3#" and finds 0.7 after "3#".
func TestWideBeamFindsWhatWidthOneMisses(t *testing.T) {
	pol, tag, marker := tinyPolicy(t)
	digit := func(d int) int32 { return enc(t, pol, string(rune('0'+d)))[0] }
	// One step per call: the first step is digit(n mod 6) then the tag; the second the answer marker,
	// a digit, the tag, EOS.
	sample := func(inputs [][]int32, seed uint64) ([]lm.Generation, error) {
		out := make([]lm.Generation, len(inputs))
		for n, in := range inputs {
			if count(in, tag) == 0 {
				out[n] = lm.Generation{Tokens: []int32{digit(n % 6), tag}, Stopped: true}
			} else {
				out[n] = lm.Generation{Tokens: []int32{marker, digit(n % 10), tag}, Stopped: true, Finished: true}
			}
		}
		return out, nil
	}
	prompt := enc(t, pol, "1+1=")
	// The scorer reads the completion (prompt excluded): make it see the first step's digit.
	score := func(ps, xs [][]int32) ([]float64, error) {
		out := make([]float64, len(xs))
		for i, x := range xs {
			d := float64(slices.Index([]int32{digit(0), digit(1), digit(2), digit(3), digit(4), digit(5)}, x[0])) / 10
			if count(x, tag) >= 2 {
				out[i] = 1 - d
			} else {
				out[i] = d
			}
		}
		return out, nil
	}
	run := func(m int) Candidate {
		res, _, err := wideBeam(sample, tag, marker, [][]int32{prompt}, score, WideBeamConfig{N: 6, M: m, MaxSteps: 3, MaxStepTokens: 4})
		if err != nil {
			t.Fatal(err)
		}
		return res[0][0]
	}
	one, three := run(6), run(2)
	// Branches sees every kept beam's expansions: at width 3, depth 0 the empty prefix with its 6
	// first steps, depth 1 each of the 3 kept beams with its 2 answer steps.
	var seen []string
	cfg := WideBeamConfig{N: 6, M: 2, MaxSteps: 3, MaxStepTokens: 4, Branches: func(q int, prefix []int32, steps []Candidate) {
		seen = append(seen, fmt.Sprintf("q%d prefix %d tokens: %d steps", q, len(prefix), len(steps)))
		for _, st := range steps {
			if !slices.Equal(st.Completion[:len(prefix)], prefix) {
				t.Errorf("step %v does not extend its prefix %v", st.Completion, prefix)
			}
		}
	}}
	if _, _, err := wideBeam(sample, tag, marker, [][]int32{prompt}, score, cfg); err != nil {
		t.Fatal(err)
	}
	want := []string{"q0 prefix 0 tokens: 6 steps", "q0 prefix 2 tokens: 2 steps", "q0 prefix 2 tokens: 2 steps", "q0 prefix 2 tokens: 2 steps"}
	if !slices.Equal(seen, want) {
		t.Fatalf("branches %v, want %v", seen, want)
	}
	if math.Abs(one.Score-0.5) > 1e-12 || math.Abs(three.Score-0.7) > 1e-12 {
		t.Fatalf("width 1 ends at %v (want 0.5), width 3 at %v (want 0.7)", one.Score, three.Score)
	}
	if three.Completion[0] != digit(3) {
		t.Fatalf("width 3's best chain starts with %v, want the third-best first step %v", three.Completion[0], digit(3))
	}
}

// An independent PRM has a trunk of its own (here twice the policy's width), reads no policy
// features, scores every tag in (0, 1), and learns labels that depend on the step it reads.
func TestIndependentPRMLearns(t *testing.T) {
	pol, tag, _ := tinyPolicy(t)
	c := pol.Config
	c.Dim, c.InitStd = 2*c.Dim, 0.05
	p, err := NewIndependent(c, pol.Tok, tag, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.ReadsPolicy() || p.LM.NumParams() <= pol.NumParams() {
		t.Fatalf("reads policy %v, %d parameters against the policy's %d", p.ReadsPolicy(), p.LM.NumParams(), pol.NumParams())
	}
	// Label a step good when its digit is even: a rule the trunk must read off the step itself.
	var exs []Example
	for a := 0; a < 10; a++ {
		for b := 0; b < 10; b++ {
			comp := enc(t, pol, string(rune('0'+a))+"#"+string(rune('0'+b))+"#")
			exs = append(exs, Example{Prompt: enc(t, pol, "1+1="), Completion: comp,
				Labels: []float64{float64(1 - a%2), float64(1 - b%2)}})
		}
	}
	res, err := p.Train(exs, TrainConfig{Steps: 150, BatchSize: 32, Seed: 1, Opt: lm.DefaultOpt(3e-3)}, TrainHooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 150 || res.BestStep != 150 {
		t.Fatalf("ran %d steps, holds step %d: without validation both should be 150", res.Ran, res.BestStep)
	}
	acc := res.Curves["tag_accuracy"].Y
	if last := acc[len(acc)-1]; last < 0.9 {
		t.Fatalf("tag accuracy %.2f after training, want ≥ 0.9", last)
	}
	s, err := p.Score([][]int32{enc(t, pol, "1+1=")}, [][]int32{enc(t, pol, "4#7#")})
	if err != nil {
		t.Fatal(err)
	}
	if len(s[0]) != 2 || !(s[0][0] > 0.5 && s[0][1] < 0.5) {
		t.Fatalf("scores %v for an even then an odd step", s[0])
	}
}

// TestPickPairs: each prompt's best finished sample is paired against its worst when the gap
// exceeds the threshold; cut-off samples are never picked; ties go to the first sample.
func TestPickPairs(t *testing.T) {
	// 3 prompts × 3 samples, sample r of prompt q at r·3 + q.
	scores := []float64{
		0.9, 0.5, 0.2, // r = 0
		0.1, 0.5, 0.95, // r = 1
		0.4, 0.45, 0.3, // r = 2
	}
	finished := []bool{true, true, true, true, true, false, true, true, true}
	pairs, gaps := PickPairs(3, 3, finished, nil, scores, 0.1)
	// q0: best 0 (0.9), worst 3 (0.1). q1: all within 0.05 → none. q2: index 5 is cut off, so best 8
	// (0.3)? no: finished are 2 (0.2) and 8 (0.3): gap 0.1, not above the threshold → none.
	if len(pairs) != 1 || pairs[0] != [2]int{0, 3} || math.Abs(gaps[0]-0.8) > 1e-12 {
		t.Fatalf("pairs %v gaps %v, want [[0 3]] [0.8]", pairs, gaps)
	}
	pairs, _ = PickPairs(3, 3, finished, nil, scores, 0.05)
	if len(pairs) != 2 || pairs[1] != [2]int{8, 2} {
		t.Fatalf("threshold 0.05: pairs %v, want q2's (8, 2) second", pairs)
	}
	// Only eligible samples are chosen: with sample 0 of q0 (0.9) ineligible, q0's best is 6 (0.4),
	// gap 0.3 over 3 (0.1); q2 with no eligible sample gives no pair.
	eligible := []bool{false, true, false, true, true, true, true, true, false}
	if p, g := PickPairs(3, 3, finished, eligible, scores, 0.1); len(p) != 1 || p[0] != [2]int{6, 3} || math.Abs(g[0]-0.3) > 1e-12 {
		t.Fatalf("eligible: pairs %v gaps %v, want [[6 3]] [0.3]", p, g)
	}
	if p, _ := PickPairs(1, 2, []bool{true, true}, nil, []float64{0.5, 0.5}, -1); len(p) != 1 || p[0] != [2]int{0, 0} {
		t.Fatalf("ties: %v, want the first sample as both", p)
	}
}

// With validation, training keeps the weights of the best evaluation and stops after Patience
// evaluations without improvement: here the scripted scores peak at the second evaluation (step 4),
// so evaluations 3–5 are stale and training stops at step 10, holding step 4's weights.
func TestTrainKeepsBestValidation(t *testing.T) {
	pol, tag, _ := tinyPolicy(t)
	p, err := New(pol, tag, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	exs := []Example{
		{Prompt: enc(t, pol, "1+1="), Completion: enc(t, pol, "2#2#"), Labels: []float64{1, 1}},
		{Prompt: enc(t, pol, "1+2="), Completion: enc(t, pol, "4#4#"), Labels: []float64{0, 0}},
	}
	scores := []float64{0.5, 0.9, 0.8, 0.9, 0.7, 0.95}
	var seen []float32
	calls := 0
	validate := func(q *PRM) (float64, error) {
		v := scores[calls]
		if calls == 1 {
			if seen, err = q.LM.Weights(); err != nil {
				return 0, err
			}
		}
		calls++
		return v, nil
	}
	cfg := TrainConfig{Steps: 100, BatchSize: 2, Seed: 1, Opt: lm.DefaultOpt(1e-2), EvalEvery: 2, Patience: 3}
	res, err := p.Train(exs, cfg, TrainHooks{Validate: validate})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 10 || res.BestStep != 4 || res.Best != 0.9 || calls != 5 {
		t.Fatalf("ran %d, best step %d (%.2f), %d evaluations; want 10, 4 (0.90), 5", res.Ran, res.BestStep, res.Best, calls)
	}
	if v := res.Curves["validation"]; len(v.X) != 5 || v.X[4] != 10 || v.Y[1] != 0.9 {
		t.Fatalf("validation curve %v", v)
	}
	now, err := p.LM.Weights()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(now, seen) {
		t.Fatal("the PRM does not hold the weights of its best evaluation")
	}
	if _, err := p.Train(exs, TrainConfig{Steps: 5, BatchSize: 2, Opt: lm.DefaultOpt(1e-2), Patience: -1}, TrainHooks{}); err == nil {
		t.Fatal("a negative patience was accepted")
	}
}

func TestRoundSteps(t *testing.T) {
	for _, c := range []struct {
		epochs       float64
		pairs, batch int
		want         int
	}{{1, 320, 32, 10}, {1, 321, 32, 11}, {2.5, 100, 32, 8}, {1, 5, 32, 1}, {1, 0, 32, 0}, {0.1, 3, 32, 1}} {
		if got := RoundSteps(c.epochs, c.pairs, c.batch); got != c.want {
			t.Errorf("RoundSteps(%v, %d, %d) = %d, want %d", c.epochs, c.pairs, c.batch, got, c.want)
		}
	}
}

package pref

import (
	"math"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/lm"
)

func setup(t *testing.T) (compute.Backend, *lm.Model, []PairEx) {
	t.Helper()
	be, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := lm.NewTokenizer(prefs.Alphabet)
	if err != nil {
		t.Fatal(err)
	}
	c := lm.ConfigR()
	c.InitStd = 0.2
	m, err := lm.NewOn(be, c, tok, 3)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(s string) []int32 { ids, _ := tok.Encode(s); return ids }
	pairs := []PairEx{
		{Prompt: enc("abm>"), Chosen: enc("abba"), Rejected: enc("mnop")},
		{Prompt: enc("cde>"), Chosen: enc("cdcdee"), Rejected: enc("ghij"), Offset: 0.3},
		{Prompt: enc("fgn>"), Chosen: enc("fgfg"), Rejected: enc("nnnnn"), Offset: -0.7},
	}
	return be, m, pairs
}

// LossValue against numbers worked out by hand: −log σ(β·margin − offset).
func TestLossValueByHand(t *testing.T) {
	for _, c := range []struct{ beta, margin, offset, want float64 }{
		{0.1, 0, 0, math.Ln2},                    // no preference yet: log 2
		{0.5, 2, 0, math.Log(1 + math.Exp(-1))},  // z = 1: 0.313262
		{0.5, 2, 1, math.Ln2},                    // the offset cancels the margin (SPO)
		{1, -3, 0, 3 + math.Log(1+math.Exp(-3))}, // misranked: 3.048587
		{2, 40, 0, math.Exp(-80)},                // saturated: ≈ e^(−80), not 0 or NaN
	} {
		if got := LossValue(c.beta, c.margin, c.offset); math.Abs(got-c.want)/c.want > 1e-9 {
			t.Errorf("LossValue(β=%v, margin=%v, offset=%v) = %.9g, want %.9g", c.beta, c.margin, c.offset, got, c.want)
		}
	}
	if got := LossValue(0.5, 2, 0); math.Abs(got-0.31326169) > 1e-8 {
		t.Errorf("LossValue(0.5, 2, 0) = %.8f, want 0.31326169", got)
	}
}

// TestPairLossAndGradient checks the DPO/SPO loss against its hand formula and its gradient against
// −(β/B)·Σ_b σ(offset_b − β·m_b)·(∇log π(y_w) − ∇log π(y_l)), with the reference = a perturbed copy.
func TestPairLossAndGradient(t *testing.T) {
	be, m, pairs := setup(t)
	ref, _ := m.Clone()
	w, _ := ref.Weights()
	for i := range w {
		w[i] *= 0.9
	}
	ref.SetWeights(w)
	const beta = 0.5
	rc, rr, err := SeqLogProbs(ref, pairs)
	if err != nil {
		t.Fatal(err)
	}
	pc, pr, _ := SeqLogProbs(m, pairs)
	wantLoss := 0.0
	for i, p := range pairs {
		wantLoss += LossValue(beta, (pc[i]-rc[i])-(pr[i]-rr[i]), p.Offset) / float64(len(pairs))
	}
	in, err := pack(m, pairs, rc, rr)
	if err != nil {
		t.Fatal(err)
	}
	loss := PairLoss(beta)
	exec := MustNewExec(be, func(g *Graph, x []*Node) []*Node {
		v := lm.NewViews(m.Layout, x[0])
		l, metrics := loss.Fn(m.Config, v, lm.NamedIn(loss.Inputs, x[1:]))
		return append([]*Node{l, v.FlatGradient(l)}, metrics...)
	})
	out := exec.MustCall(append([]any{m.Params}, in.Values...)...)
	gotLoss := float64(tensors.ToScalar[float32](out[0]))
	if math.Abs(gotLoss-wantLoss) > 1e-5 {
		t.Fatalf("loss %v, hand formula %v", gotLoss, wantLoss)
	}
	// TRL's metrics, from the host log-probs: implicit rewards β·(log π − log π_ref), their margin,
	// the fraction of pairs whose chosen reward is higher, and the policy's sequence log-probs.
	n := float64(len(pairs))
	host := map[string]float64{}
	for i := range pairs {
		ch, rj := beta*(pc[i]-rc[i]), beta*(pr[i]-rr[i])
		host["rewards/chosen"] += ch / n
		host["rewards/rejected"] += rj / n
		host["rewards/margins"] += (ch - rj) / n
		if ch > rj {
			host["rewards/accuracies"] += 1 / n
		}
		host["logps/chosen"] += pc[i] / n
		host["logps/rejected"] += pr[i] / n
	}
	for i, name := range Metrics {
		got := float64(tensors.ToScalar[float32](out[2+i]))
		if math.Abs(got-host[name]) > 1e-4*math.Max(1, math.Abs(host[name])) {
			t.Errorf("%s = %v, from the host log-probs %v", name, got, host[name])
		}
	}
	grad := tensors.MustCopyFlatData[float32](out[1])
	// ∇ log π(y) of one sequence, from a graph that sums its token log-probs.
	seqGrad := func(prompt, resp []int32) []float32 {
		b, _ := lm.Pack([]lm.Example{{Prompt: prompt, Completion: resp}}, 16, true)
		e := MustNewExec(be, func(g *Graph, x []*Node) []*Node {
			v := lm.NewViews(m.Layout, x[0])
			logits, _, _ := lm.Forward(m.Config, v, lm.NamedIn(lm.BatchInputs, x[1:]))
			s := ReduceAllSum(Mul(lm.TokenLogProbs(logits, x[4]), x[5]))
			return []*Node{v.FlatGradient(s)}
		})
		return tensors.MustCopyFlatData[float32](e.MustCall(append([]any{m.Params}, b.Tensors()...)...)[0])
	}
	want := make([]float64, len(grad))
	for i, p := range pairs {
		margin := (pc[i] - rc[i]) - (pr[i] - rr[i])
		wgt := 1 / (1 + math.Exp(-(p.Offset - beta*margin)))
		gw, gl := seqGrad(p.Prompt, p.Chosen), seqGrad(p.Prompt, p.Rejected)
		for k := range want {
			want[k] -= beta / float64(len(pairs)) * wgt * float64(gw[k]-gl[k])
		}
	}
	var num, den float64
	for k := range want {
		num += (float64(grad[k]) - want[k]) * (float64(grad[k]) - want[k])
		den += want[k] * want[k]
	}
	if rel := math.Sqrt(num / den); rel > 1e-4 {
		t.Fatalf("gradient differs from the hand formula: relative error %.2g", rel)
	}
}

// TestSPOIsDPOOnRoundOneOrLambdaZero: with no earlier round, or λ = 0, SPO's offsets are zero and a
// training run gives bit-identical weights to DPO on the pure-Go engine.
func TestSPOIsDPOOnRoundOneOrLambdaZero(t *testing.T) {
	_, m, pairs := setup(t)
	gaps := [][]float64{{1.5, -2, 0.25}}
	for _, c := range []struct {
		lambdas []float64
		gaps    [][]float64
	}{{nil, nil}, {[]float64{0}, gaps}} {
		off, err := SPOOffsets(c.lambdas, c.gaps, len(pairs))
		if err != nil {
			t.Fatal(err)
		}
		spo := make([]PairEx, len(pairs))
		dpo := make([]PairEx, len(pairs))
		for i, p := range pairs {
			spo[i], dpo[i] = p, p
			spo[i].Offset, dpo[i].Offset = off[i], 0
		}
		cfg := TrainConfig{Beta: 0.2, Steps: 5, BatchSize: 4, Opt: lm.DefaultOpt(1e-3), Seed: 1}
		a, _ := m.Clone()
		b, _ := m.Clone()
		if _, err := TrainPairs(a, m, spo, cfg, Hooks{}); err != nil {
			t.Fatal(err)
		}
		if _, err := TrainPairs(b, m, dpo, cfg, Hooks{}); err != nil {
			t.Fatal(err)
		}
		wa, _ := a.Weights()
		wb, _ := b.Weights()
		for i := range wa {
			if wa[i] != wb[i] {
				t.Fatalf("λ=%v: SPO and DPO weights differ at %d", c.lambdas, i)
			}
		}
	}
	off, _ := SPOOffsets([]float64{0.5}, gaps, 3)
	if off[0] != 0.75 || off[1] != -1 || off[2] != 0.125 {
		t.Fatalf("offsets %v", off)
	}
	if _, err := SPOOffsets([]float64{1, 2}, gaps, 3); err == nil {
		t.Fatal("mismatched λ accepted")
	}
}

// TestDPOLearnsPreferences: a few dozen DPO steps raise the preference accuracy and margin.
func TestDPOLearnsPreferences(t *testing.T) {
	_, m, pairs := setup(t)
	ref, _ := m.Clone()
	curves, err := TrainPairs(m, ref, pairs, TrainConfig{Beta: 0.5, Steps: 30, BatchSize: 6, Opt: lm.DefaultOpt(3e-3), Seed: 2}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	margins := curves["rewards/margins"].Y
	if !(margins[len(margins)-1] > 1 && curves["rewards/accuracies"].Y[len(margins)-1] == 1) {
		t.Fatalf("margins %v", margins)
	}
	for _, k := range Metrics {
		if _, ok := curves[k]; !ok {
			t.Fatalf("metric %s not logged", k)
		}
	}
}

// TestSequentialDriver: the driver's rounds equal hand-run TrainPairs rounds bit for bit — naive
// sequential DPO (λ = 0: each round DPO against the previous policy) and SPO (offsets λ·Δr̂ of round
// 1, computed from π_1 and the start model).
func TestSequentialDriver(t *testing.T) {
	_, m, pairs := setup(t)
	for i := range pairs {
		pairs[i].Offset = 0
	}
	second := []PairEx{pairs[2], pairs[0], pairs[1]}
	cfg := TrainConfig{Beta: 0.2, Steps: 4, BatchSize: 4, Opt: lm.DefaultOpt(1e-3), Seed: 7}
	same := func(what string, a, b *lm.Model) {
		t.Helper()
		wa, _ := a.Weights()
		wb, _ := b.Weights()
		for i := range wa {
			if wa[i] != wb[i] {
				t.Fatalf("%s: weights differ at %d", what, i)
			}
		}
	}
	// By hand.
	pi1, _ := m.Clone()
	if _, err := TrainPairs(pi1, m, pairs, cfg, Hooks{}); err != nil {
		t.Fatal(err)
	}
	c2 := cfg
	c2.Seed++
	naive, _ := pi1.Clone()
	if _, err := TrainPairs(naive, pi1, second, c2, Hooks{}); err != nil {
		t.Fatal(err)
	}
	gaps, err := ImplicitRewardGaps(pi1, m, cfg.Beta, second)
	if err != nil {
		t.Fatal(err)
	}
	withOff := append([]PairEx(nil), second...)
	for i := range withOff {
		withOff[i].Offset = 2 * gaps[i]
	}
	spo, _ := pi1.Clone()
	if _, err := TrainPairs(spo, pi1, withOff, c2, Hooks{}); err != nil {
		t.Fatal(err)
	}
	// By the driver.
	models, curves, err := Sequential(m, [][]PairEx{pairs, second}, nil, cfg, nil)
	if err != nil || len(models) != 2 || len(curves) != 2 {
		t.Fatalf("naive: %v (%d models)", err, len(models))
	}
	same("round 1", models[0], pi1)
	same("naive round 2", models[1], naive)
	models, _, err = Sequential(m, [][]PairEx{pairs, second}, []float64{2}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	same("SPO round 2", models[1], spo)
	if _, _, err := Sequential(m, [][]PairEx{pairs, second, pairs}, []float64{1}, cfg, nil); err == nil ||
		!strings.Contains(err.Error(), "1 λ values for 3 rounds") {
		t.Fatalf("too few λ: %v", err)
	}
}

// RPO adds α × the mean NLL per token of the chosen responses (EOS included) to the DPO loss, and
// reports that NLL.
func TestRPOAddsChosenNLL(t *testing.T) {
	be, m, pairs := setup(t)
	rc, rr, err := SeqLogProbs(m, pairs)
	if err != nil {
		t.Fatal(err)
	}
	in, err := pack(m, pairs, rc, rr)
	if err != nil {
		t.Fatal(err)
	}
	run := func(alpha float64) []float64 {
		loss := PairLossRPO(0.5, alpha)
		exec := MustNewExec(be, func(g *Graph, x []*Node) []*Node {
			l, metrics := loss.Fn(m.Config, lm.NewViews(m.Layout, x[0]), lm.NamedIn(loss.Inputs, x[1:]))
			return append([]*Node{l}, metrics...)
		})
		var out []float64
		for _, o := range exec.MustCall(append([]any{m.Params}, in.Values...)...) {
			out = append(out, float64(tensors.ToScalar[float32](o)))
		}
		return out
	}
	var chosen []lm.Example
	for _, p := range pairs {
		chosen = append(chosen, lm.Example{Prompt: p.Prompt, Completion: p.Chosen})
	}
	nll, err := m.Loss(chosen) // mean NLL per completion token, EOS included
	if err != nil {
		t.Fatal(err)
	}
	dpo, rpo := run(0), run(1)
	if len(dpo) != 7 || len(rpo) != 8 {
		t.Fatalf("%d and %d outputs", len(dpo), len(rpo))
	}
	if math.Abs(rpo[7]-nll) > 1e-4 || math.Abs(rpo[0]-(dpo[0]+nll)) > 1e-4 {
		t.Fatalf("RPO loss %.6f = DPO %.6f + NLL %.6f? reported NLL %.6f", rpo[0], dpo[0], nll, rpo[7])
	}
}

// TestNextRoundReadsRoundOneBeta: round 2's offsets are λ·Δr̂₁ with round 1's implicit reward at
// round 1's own β (its Stage), not at the β of the round being trained; a finished round without
// a β is an error.
func TestNextRoundReadsRoundOneBeta(t *testing.T) {
	_, m, pairs := setup(t)
	for i := range pairs {
		pairs[i].Offset = 0
	}
	c1 := TrainConfig{Beta: 0.5, Steps: 4, BatchSize: 4, Opt: lm.DefaultOpt(1e-2), Seed: 3}
	pi1, _ := m.Clone()
	if _, err := TrainPairs(pi1, m, pairs, c1, Hooks{}); err != nil {
		t.Fatal(err)
	}
	second := []PairEx{pairs[2], pairs[0], pairs[1]}
	c2 := TrainConfig{Beta: 0.1, Steps: 1, BatchSize: 2, Opt: lm.DefaultOpt(1e-3), Seed: 4}
	r, err := NextRound([]Stage{{Model: m}, {Model: pi1, Beta: c1.Beta}}, second, []float64{0.5}, c2, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	at1, _ := ImplicitRewardGaps(pi1, m, c1.Beta, second)
	at2, _ := ImplicitRewardGaps(pi1, m, c2.Beta, second)
	for i, p := range r.Pairs {
		if math.Abs(p.Offset-0.5*at1[i]) > 1e-12 {
			t.Fatalf("pair %d: offset %v, want λ·Δr̂₁ at β₁ = %v (at round 2's β it would be %v)", i, p.Offset, 0.5*at1[i], 0.5*at2[i])
		}
	}
	if math.Abs(at1[0]-at2[0]) < 1e-9 {
		t.Fatal("round 1 learned nothing: the test cannot tell the two β apart")
	}
	if r.Beta != c2.Beta || r.Stage().Beta != c2.Beta {
		t.Errorf("round result β %v, want %v", r.Beta, c2.Beta)
	}
	if _, err := NextRound([]Stage{{Model: m}, {Model: pi1}}, second, []float64{0.5}, c2, Hooks{}); err == nil {
		t.Error("a finished round with β 0 accepted")
	}
	// λ = 0 needs no β (the round's implicit reward is not read).
	if _, err := NextRound([]Stage{{Model: m}, {Model: pi1}}, second, []float64{0}, c2, Hooks{}); err != nil {
		t.Errorf("λ = 0: %v", err)
	}
}

// GapFigure's shares are the fractions of positive ImplicitRewardGaps, per set; empty input is refused.
func TestGapFigure(t *testing.T) {
	tok, _ := lm.NewTokenizer("abcd=")
	pairs, err := TextPairs(tok, [][3]string{{"ab=", "ba", "aa"}, {"cd=", "dc", "cc"}, {"ac=", "ca", "cc"}, {"bd=", "db", "dd"}})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := lm.New(lm.ConfigR().For(tok), tok, 1)
	after, _ := lm.New(lm.ConfigR().For(tok), tok, 2) // another init: gaps of both signs
	gaps, err := ImplicitRewardGaps(after, before, 0.1, pairs)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, g := range gaps {
		if g > 0 {
			want++
		}
	}
	f, pos, err := GapFigure("gaps", after, before, 0.1, GapSet{"all", pairs}, GapSet{"first", pairs[:1]})
	if err != nil || f == nil {
		t.Fatal(err)
	}
	if pos[0] != want/4 || (pos[1] != 0 && pos[1] != 1) || pos[1] != map[bool]float64{true: 1, false: 0}[gaps[0] > 0] {
		t.Fatalf("shares %v, gaps %v", pos, gaps)
	}
	if _, _, err := GapFigure("gaps", after, before, 0.1); err == nil {
		t.Error("no sets: no error")
	}
	if _, _, err := GapFigure("gaps", after, before, 0.1, GapSet{"empty", nil}); err == nil || !strings.Contains(err.Error(), `"empty"`) {
		t.Errorf("empty set: %v", err)
	}
}

// TestDimensionGapsHandComputed: on a batch of two pairs, three finished rounds (round 1 DPO, round
// 2 SPO with λ₁ = 0.5, round 3 SPO with λ = (0.25, 2)), dimension j's gap is its round's implicit
// gap less what that round's own offsets put into it, and round 4's offset (λ = (1, 0.5, 0.5)) is
// worked out by hand below.
func TestDimensionGapsHandComputed(t *testing.T) {
	implicit := [][]float64{{1, -2}, {0.5, 3}, {4, 0}}
	own := [][]float64{nil, {0.5}, {0.25, 2}}
	got, err := DimensionGaps(implicit, own)
	if err != nil {
		t.Fatal(err)
	}
	// ΔR₁ = Δr̂₁ = (1, −2)
	// ΔR₂ = Δr̂₂ − 0.5·ΔR₁ = (0.5 − 0.5, 3 + 1) = (0, 4)
	// ΔR₃ = Δr̂₃ − 0.25·ΔR₁ − 2·ΔR₂ = (4 − 0.25 − 0, 0 + 0.5 − 8) = (3.75, −7.5)
	want := [][]float64{{1, -2}, {0, 4}, {3.75, -7.5}}
	for j := range want {
		for b := range want[j] {
			if math.Abs(got[j][b]-want[j][b]) > 1e-12 {
				t.Fatalf("ΔR_%d = %v, want %v", j+1, got[j], want[j])
			}
		}
	}
	if implicit[1][0] != 0.5 {
		t.Fatal("DimensionGaps changed its input")
	}
	// Round 4's offset: 1·ΔR₁ + 0.5·ΔR₂ + 0.5·ΔR₃ = (1 + 0 + 1.875, −2 + 2 − 3.75) = (2.875, −3.75).
	off, err := SPOOffsets([]float64{1, 0.5, 0.5}, got, 2)
	if err != nil || math.Abs(off[0]-2.875) > 1e-12 || math.Abs(off[1]+3.75) > 1e-12 {
		t.Fatalf("offsets %v (%v), want [2.875 -3.75]", off, err)
	}
	// Round 3 of the derivation in SPOOffsets: (λ₁ − λ₂·λ₁⁽²⁾)·Δr̂₁ + λ₂·Δr̂₂.
	off3, _ := SPOOffsets([]float64{0.25, 2}, got[:2], 2)
	for b := range off3 {
		if w := (0.25-2*0.5)*implicit[0][b] + 2*implicit[1][b]; math.Abs(off3[b]-w) > 1e-12 {
			t.Fatalf("round-3 offset %v on pair %d, want %v", off3[b], b, w)
		}
	}
	// Without the rounds' own λ (the direct form) the gaps are the implicit ones.
	direct, _ := DimensionGaps(implicit, make([][]float64, 3))
	if direct[2][0] != 4 {
		t.Fatalf("direct form %v", direct)
	}
	for name, o := range map[string][][]float64{"too many λ for round 1": {{1}, nil, nil}, "rounds mismatch": {nil}} {
		if _, err := DimensionGaps(implicit, o); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestNextRoundRoundThree: a third round's offsets are Σ λ_i·ΔR_i with ΔR₂ recovered from round
// 2's implicit reward (its Stage carries its λ), and the cache of log-probabilities changes no
// weight and no offset.
func TestNextRoundRoundThree(t *testing.T) {
	_, m, pairs := setup(t)
	for i := range pairs {
		pairs[i].Offset = 0
	}
	c := TrainConfig{Beta: 0.5, Steps: 3, BatchSize: 3, Opt: lm.DefaultOpt(1e-2), Seed: 5}
	h := []Stage{{Model: m}}
	r1, err := NextRound(h, pairs, nil, c, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	h = append(h, r1.Stage())
	c.Seed = 6
	r2, err := NextRound(h, pairs, []float64{0.5}, c, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Stage().Lambdas) != 1 || r1.Stage().Lambdas != nil {
		t.Fatalf("stages' λ: round 1 %v, round 2 %v", r1.Stage().Lambdas, r2.Stage().Lambdas)
	}
	h = append(h, r2.Stage())
	c.Seed = 7
	run := func(hooks Hooks) *RoundResult {
		r, err := NextRound(h, pairs, []float64{0.25, 2}, c, hooks)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, cached := run(Hooks{}), run(Hooks{Scores: NewScores(pairs)})
	g1, _ := ImplicitRewardGaps(r1.Policy, m, 0.5, pairs)
	g2, _ := ImplicitRewardGaps(r2.Policy, r1.Policy, 0.5, pairs)
	for b, p := range plain.Pairs {
		want := (0.25-2*0.5)*g1[b] + 2*g2[b]
		if math.Abs(p.Offset-want) > 1e-9 || p.Offset != cached.Pairs[b].Offset {
			t.Fatalf("pair %d: offset %v (cached %v), want %v", b, p.Offset, cached.Pairs[b].Offset, want)
		}
	}
	a, _, _ := SeqLogProbs(plain.Policy, pairs)
	b, _, _ := SeqLogProbs(cached.Policy, pairs)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("the cache changed the trained policy: %v vs %v", a, b)
		}
	}
	if _, err := NextRound(h, pairs, []float64{0.5}, c, Hooks{}); err == nil {
		t.Error("one λ for two finished rounds accepted")
	}
}

// TestScoresCache: the cache answers its own pairs from memory after the first scoring and scores
// any other pairs afresh.
func TestScoresCache(t *testing.T) {
	_, m, pairs := setup(t)
	s := NewScores(pairs)
	c1, r1, err := s.Of(m, pairs)
	if err != nil {
		t.Fatal(err)
	}
	c2, _, _ := s.Of(m, pairs)
	if &c1[0] != &c2[0] || len(s.by) != 1 {
		t.Fatal("a second lookup of the same model and pairs scored again")
	}
	other := append([]PairEx(nil), pairs...)
	other[0], other[1] = pairs[1], pairs[0]
	c3, _, _ := s.Of(m, other)
	if c3[0] != c1[1] || c3[1] != c1[0] || len(s.by) != 1 {
		t.Fatalf("other pairs answered from the cache: %v vs %v", c3, c1)
	}
	var none *Scores
	c4, r4, err := none.Of(m, pairs)
	if err != nil || c4[2] != c1[2] || r4[2] != r1[2] {
		t.Fatal("a nil cache does not score")
	}
}

// TestEvalAt: evaluations every DenseEvery steps up to DenseUntil, every EvalEvery after, and at
// the last step; none without EvalEvery; dense evaluations without EvalEvery are refused.
func TestEvalAt(t *testing.T) {
	c := TrainConfig{Beta: 0.1, Steps: 110, BatchSize: 1, Opt: lm.DefaultOpt(1e-3), EvalEvery: 25, DenseEvery: 5, DenseUntil: 50}
	var got []int
	for s := 1; s <= c.Steps; s++ {
		if c.EvalAt(s) {
			got = append(got, s)
		}
	}
	want := []int{5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 75, 100, 110}
	if len(got) != len(want) {
		t.Fatalf("eval steps %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("eval steps %v, want %v", got, want)
		}
	}
	c.EvalEvery = 0
	if c.EvalAt(5) || c.Validate() == nil {
		t.Error("dense evaluations without eval_every")
	}
}

// Partial responses (steps of a longer response) are scored without EOS: each response's
// log-probability is the whole one's minus its EOS term; pairs that mix partial and whole ones are
// refused.
func TestPartialPairsScoreNoEOS(t *testing.T) {
	_, m, pairs := setup(t)
	whole, wholeR, err := SeqLogProbs(m, pairs)
	if err != nil {
		t.Fatal(err)
	}
	part := make([]PairEx, len(pairs))
	for i, p := range pairs {
		p.Partial = true
		part[i] = p
	}
	c, r, err := SeqLogProbs(m, part)
	if err != nil {
		t.Fatal(err)
	}
	exs := pairExamples(pairs)
	scored, err := m.Score(exs, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pairs {
		eosC := float64(scored[i].LogProbs[len(scored[i].LogProbs)-1])
		eosR := float64(scored[len(pairs)+i].LogProbs[len(scored[len(pairs)+i].LogProbs)-1])
		if math.Abs(c[i]-(whole[i]-eosC)) > 1e-4 || math.Abs(r[i]-(wholeR[i]-eosR)) > 1e-4 {
			t.Fatalf("pair %d: partial %v, %v; whole minus EOS %v, %v", i, c[i], r[i], whole[i]-eosC, wholeR[i]-eosR)
		}
	}
	mixed := append([]PairEx{part[0]}, pairs[1:]...)
	if _, _, err := SeqLogProbs(m, mixed); err == nil || !strings.Contains(err.Error(), "mix") {
		t.Fatalf("mixed pairs: %v", err)
	}
	if _, err := pack(m, mixed, make([]float64, 3), make([]float64, 3)); err == nil {
		t.Fatal("pack accepted mixed pairs")
	}
}

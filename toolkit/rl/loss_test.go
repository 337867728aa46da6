package rl

import (
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// lossFixture is a fresh model on the pure-Go engine, two (prompt, completion) examples ("1+2=" →
// "3", "4*2-1=" → "8,7;7"), the model's log-probs of their completions, and the packed batch.
func lossFixture(t *testing.T) (compute.Backend, *lm.Model, []lm.Scored, *lm.Batch) {
	t.Helper()
	be, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := lm.NewTokenizer(arith.Alphabet)
	m, err := lm.NewOn(be, lm.ConfigR(), tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(s string) []int32 { ids, _ := tok.Encode(s); return ids }
	exs := []lm.Example{{Prompt: enc("1+2="), Completion: enc("3")}, {Prompt: enc("4*2-1="), Completion: enc("8,7;7")}}
	scored, err := m.Score(exs, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lm.Pack(exs, 16, true)
	if err != nil {
		t.Fatal(err)
	}
	return be, m, scored, b
}

// TestPPOLoss checks the PPO-clip loss on a real model: with old log-probs equal to the current ones
// the ratio is 1, so the loss is −(token mean of the advantages), nothing is clipped and the approx KL
// is 0; with old log-probs lowered by 1 nat the ratio is e > 1+ε, so positive advantages are clipped
// (loss −(1+ε)·A) while negative ones are not (loss −e·A).
func TestPPOLoss(t *testing.T) {
	be, m, scored, b := lossFixture(t)
	advs := []float64{0.7, -1.3}
	build := func(shift float32) []any {
		old := make([]float32, b.B*b.T)
		adv := make([]float32, b.B*b.T)
		for i, s := range scored {
			for j, lp := range s.LogProbs {
				old[i*b.T+b.CompletionStart[i]+j] = lp - shift
				adv[i*b.T+b.CompletionStart[i]+j] = float32(advs[i])
			}
		}
		ref := append([]float32(nil), old...)
		return append(b.Tensors(), tensors.FromFlatDataAndDimensions(old, b.B, b.T),
			tensors.FromFlatDataAndDimensions(adv, b.B, b.T), tensors.FromFlatDataAndDimensions(ref, b.B, b.T))
	}
	loss := PPOLoss(DefaultLoss())
	exec := MustNewExec(be, func(g *Graph, in []*Node) []*Node {
		l, metrics := loss.Fn(m.Config, lm.NewViews(m.Layout, in[0]), lm.NamedIn(loss.Inputs, in[1:]))
		return append([]*Node{l}, metrics...)
	})
	n0, n1 := float64(len(scored[0].LogProbs)), float64(len(scored[1].LogProbs))
	run := func(shift float32) []float64 {
		out := exec.MustCall(append([]any{m.Params}, build(shift)...)...)
		v := make([]float64, len(out))
		for i, o := range out {
			v[i] = float64(tensors.ToScalar[float32](o))
		}
		return v
	}
	got := run(0)
	want := -(advs[0]*n0 + advs[1]*n1) / (n0 + n1)
	if math.Abs(got[0]-want) > 1e-5 || got[1] != 0 || math.Abs(got[2]) > 1e-6 {
		t.Fatalf("ratio 1: loss %v (want %v), clip_ratio %v, approx_kl %v", got[0], want, got[1], got[2])
	}
	got = run(1)
	e := math.E
	want = -(advs[0]*1.2*n0 + advs[1]*e*n1) / (n0 + n1)
	if math.Abs(got[0]-want) > 1e-4 || math.Abs(got[1]-n0/(n0+n1)) > 1e-6 {
		t.Fatalf("ratio e: loss %v (want %v), clip_ratio %v (want %v)", got[0], want, got[1], n0/(n0+n1))
	}
	// k3 KL against a reference equal to the old policy: e − 1 − 1 per token (r = −1).
	if math.Abs(got[4]-(math.Exp(-1)+1-1)) > 1e-4 {
		t.Fatalf("kl = %v, want %v", got[4], math.Exp(-1))
	}
}

// Two clones of one model share its compiled graphs; trainers with different loss settings must
// still run their own loss: an update with an entropy bonus on one clone, after a plain update on the
// other, equals the same update on an independent copy of the model (which compiles its own graph),
// and differs from the plain update.
func TestClonesWithDifferentLossesTrainDifferently(t *testing.T) {
	be, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := lm.NewTokenizer(arith.Alphabet)
	base, err := lm.NewOn(be, lm.ConfigR(), tok, 3)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(s string) []int32 { ids, _ := tok.Encode(s); return ids }
	exs := []lm.Example{{Prompt: enc("1+2="), Completion: enc("3")}, {Prompt: enc("4*2-1="), Completion: enc("8,7;7")}}
	scored, err := base.Score(exs, false)
	if err != nil {
		t.Fatal(err)
	}
	ro := &Rollout{Examples: exs, RefLP: scored, Adv: []float64{1, -1}}
	for _, s := range scored {
		ro.Gens = append(ro.Gens, lm.Generation{LogProbs: s.LogProbs})
	}
	plain, bonus := DefaultLoss(), DefaultLoss()
	bonus.EntCoef = 0.5
	opt := lm.DefaultOpt(1e-2)
	step := func(m *lm.Model, loss LossConfig) []float32 {
		tr, err := NewPPOTrainer(m, opt, loss)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		batch, err := packRollout(m, ro, []int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Update(batch); err != nil {
			t.Fatal(err)
		}
		w, err := m.Weights()
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, _ := base.Clone()
	b, _ := base.Clone()
	wPlain := step(a, plain)
	wBonus := step(b, bonus) // same cache as a
	fresh, _ := lm.NewOn(be, lm.ConfigR(), tok, 3)
	wFresh := step(fresh, bonus)
	if !slices.Equal(wBonus, wFresh) {
		t.Fatal("the entropy-bonus update on a clone differs from the same update on an independent model: the clone ran another loss's graph")
	}
	if slices.Equal(wPlain, wBonus) {
		t.Fatal("plain and entropy-bonus updates gave the same weights")
	}
	kp, err := PPOLoss(plain).NN(base.Config).Key()
	if err != nil {
		t.Fatal(err)
	}
	if kb, _ := PPOLoss(bonus).NN(base.Config).Key(); kp == kb {
		t.Fatalf("different losses share a graph identity %s", kp)
	}
}

// TestGSPOLoss checks GSPO's sequence-level ratio on a real model against a hand computation: response
// 0's old log-probs sit 0.0002 nats below the current ones on every token (s₀ = e^0.0002, inside
// [1 − 3e-4, 1 + 4e-4]: unclipped), response 1's per-token shifts vary around a mean of −0.01 nats
// (s₁ = e^−0.01 below the range, with a negative advantage: clipped to 1 − 3e-4), so a per-token
// ratio would clip some of its tokens and not others while GSPO clips the whole response; the loss
// is the mean over responses of −A·s (seq-mean-token-mean), clip_ratio the share of tokens in
// clipped responses.
func TestGSPOLoss(t *testing.T) {
	be, m, scored, b := lossFixture(t)
	advs := []float64{0.7, -1.3}
	n1 := len(scored[1].LogProbs)
	if n1 < 3 {
		t.Fatalf("response 1 has %d tokens; the test needs varying shifts", n1)
	}
	// shift[i][j] = current − old log-prob of token j of response i.
	shift := func(i, j int) float64 {
		if i == 0 {
			return 0.0002
		}
		return -0.01 + 0.02*(float64(j)-float64(n1-1)/2) // mean −0.01, some tokens above 1 + 4e-4
	}
	old := make([]float32, b.B*b.T)
	adv := make([]float32, b.B*b.T)
	for i, s := range scored {
		for j, lp := range s.LogProbs {
			old[i*b.T+b.CompletionStart[i]+j] = float32(float64(lp) - shift(i, j))
			adv[i*b.T+b.CompletionStart[i]+j] = float32(advs[i])
		}
	}
	ref := append([]float32(nil), old...)
	loss := PPOLoss(GSPOLoss())
	exec := MustNewExec(be, func(g *Graph, in []*Node) []*Node {
		l, metrics := loss.Fn(m.Config, lm.NewViews(m.Layout, in[0]), lm.NamedIn(loss.Inputs, in[1:]))
		return append([]*Node{l}, metrics...)
	})
	args := append([]any{m.Params}, b.Tensors()...)
	args = append(args, tensors.FromFlatDataAndDimensions(old, b.B, b.T), tensors.FromFlatDataAndDimensions(adv, b.B, b.T), tensors.FromFlatDataAndDimensions(ref, b.B, b.T))
	out := exec.MustCall(args...)
	got := make([]float64, len(out))
	for i, o := range out {
		got[i] = float64(tensors.ToScalar[float32](o))
	}
	n0 := float64(len(scored[0].LogProbs))
	s0 := math.Exp(0.0002)
	want := (-advs[0]*s0 + -advs[1]*(1-3e-4)) / 2
	if math.Abs(got[0]-want) > 2e-5 {
		t.Fatalf("GSPO loss %v, want %v (response 0 unclipped at %v, response 1 clipped at 1 − 3e-4)", got[0], want, s0)
	}
	if wantClip := float64(n1) / (n0 + float64(n1)); math.Abs(got[1]-wantClip) > 1e-6 {
		t.Fatalf("clip_ratio %v, want %v (every token of response 1, none of response 0)", got[1], wantClip)
	}
	// The per-token PPO loss on the same batch is another number: its ratios differ token by token.
	tokLoss := PPOLoss(LossConfig{ClipEps: 3e-4, ClipEpsHigh: 4e-4, KLType: "k3", Agg: "seq-mean-token-mean"})
	exec2 := MustNewExec(be, func(g *Graph, in []*Node) []*Node {
		l, _ := tokLoss.Fn(m.Config, lm.NewViews(m.Layout, in[0]), lm.NamedIn(tokLoss.Inputs, in[1:]))
		return []*Node{l}
	})
	if v := float64(tensors.ToScalar[float32](exec2.MustCall(args...)[0])); math.Abs(v-got[0]) < 1e-4 {
		t.Fatalf("per-token ratio loss %v equals GSPO's %v: the test does not tell the two apart", v, got[0])
	}
	// The gradient is GSPO-token's: s_i·A_i·∇log π_t per token of an unclipped response, averaged
	// per response, and nothing from a clipped one — the gradient of −½·(A₀·s₀/n₀)·Σ_t log π_t (s₀ a
	// constant), built here from the model's own log-probs without any ratio.
	grads := MustNewExec(be, func(g *Graph, in []*Node) []*Node {
		l, _ := loss.Fn(m.Config, lm.NewViews(m.Layout, in[0]), lm.NamedIn(loss.Inputs, in[1:]))
		named := lm.NamedIn(loss.Inputs, in[1:])
		logits, _, _ := lm.Forward(m.Config, lm.NewViews(m.Layout, in[0]), named)
		lp := Mul(lm.TokenLogProbs(logits, named.Get("targets")), named.Get("loss_mask"))
		w := make([]float32, b.B*b.T)
		for j := range scored[0].LogProbs {
			w[b.CompletionStart[0]+j] = float32(-0.5 * advs[0] * s0 / n0)
		}
		manual := ReduceAllSum(Mul(lp, Const(g, tensors.FromFlatDataAndDimensions(w, b.B, b.T))))
		return []*Node{Gradient(l, in[0])[0], Gradient(manual, in[0])[0]}
	}).MustCall(args...)
	ga, gm := grads[0].Value().([]float32), grads[1].Value().([]float32)
	var diff, norm float64
	for i := range ga {
		diff = math.Max(diff, math.Abs(float64(ga[i]-gm[i])))
		norm = math.Max(norm, math.Abs(float64(gm[i])))
	}
	if norm == 0 || diff > 1e-4*norm+1e-7 {
		t.Fatalf("GSPO's gradient differs from s·A·∇log π of the unclipped response: max |Δ| %g against max |g| %g", diff, norm)
	}
	if err := (LossConfig{ClipEps: 0.2, KLType: "k3", Agg: "token-mean", Ratio: "seq"}).Validate(); err == nil {
		t.Fatal("ratio \"seq\" validated")
	}
}

package ac

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/track"
)

func goBackend(t *testing.T) compute.Backend {
	t.Helper()
	be, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	return be
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// TestGAELimits checks GAE against its two closed forms: λ = 0 gives the one-step TD error, λ = 1 the
// discounted Monte Carlo return minus V, both cut at episode ends and bootstrapped from lastValue.
func TestGAELimits(t *testing.T) {
	r := []float64{1, 0, 2, -1, 3}
	v := []float64{0.5, -0.2, 1, 0.3, 0.7}
	done := []bool{false, true, false, false, false}
	const gamma, last = 0.9, 2.0
	next := func(t int) float64 {
		if done[t] {
			return 0
		}
		if t+1 == len(r) {
			return last
		}
		return v[t+1]
	}
	adv0, ret0 := GAE(r, v, done, last, gamma, 0)
	for i := range r {
		near(t, "λ=0 advantage", adv0[i], r[i]+gamma*next(i)-v[i])
		near(t, "λ=0 return", ret0[i], adv0[i]+v[i])
	}
	adv1, _ := GAE(r, v, done, last, gamma, 1)
	for i := range r {
		g, disc := 0.0, 1.0
		j := i
		for ; j < len(r); j++ {
			g += disc * r[j]
			disc *= gamma
			if done[j] {
				break
			}
		}
		if j == len(r) {
			g += disc * last
		}
		near(t, "λ=1 advantage", adv1[i], g-v[i])
	}
}

// TestTDLambdaLimits: λ = 0 is SARSA's one-step target r + γ·q_{t+1}; λ = 1 the Monte Carlo return.
func TestTDLambdaLimits(t *testing.T) {
	r := []float64{1, 0, 2, -1}
	q := []float64{0.5, -0.2, 1, 0.3}
	done := []bool{false, false, true, false}
	const gamma, last = 0.8, 1.5
	g0 := TDLambda(r, q, done, last, gamma, 0)
	want0 := []float64{1 + gamma*q[1], 0 + gamma*q[2], 2, -1 + gamma*last}
	g1 := TDLambda(r, q, done, last, gamma, 1)
	want1 := []float64{1 + gamma*(0+gamma*2), 0 + gamma*2, 2, -1 + gamma*last}
	for i := range r {
		near(t, "λ=0 target", g0[i], want0[i])
		near(t, "λ=1 target", g1[i], want1[i])
	}
}

// TestPolicySampling: samples follow the softmax over available actions, never pick an unavailable
// one, report the right log-probability; greedy picks the best available action.
func TestPolicySampling(t *testing.T) {
	logits := []float32{3, 0, 1, -1, 5, 2} // row 0: actions 0..2, row 1: actions 0..2
	avail := [][]bool{{false, true, true}, {true, false, true}}
	p0 := []float64{0, 1 / (1 + math.E), math.E / (1 + math.E)}
	z1 := math.Exp(-1) + math.Exp(2)
	p1 := []float64{math.Exp(-1) / z1, 0, math.Exp(2) / z1}
	r := rand.New(rand.NewPCG(1, 2))
	counts := [2][3]int{}
	const n = 20000
	for k := 0; k < n; k++ {
		acts, logp := Policy(logits, avail, r, false)
		for i, a := range acts {
			if !avail[i][a] {
				t.Fatalf("row %d sampled unavailable action %d", i, a)
			}
			want := []float64{math.Log(p0[a]), math.Log(p1[a])}[i]
			if math.Abs(float64(logp[i])-want) > 1e-5 {
				t.Fatalf("row %d action %d: logp %v, want %v", i, a, logp[i], want)
			}
			counts[i][a]++
		}
	}
	for a := 0; a < 3; a++ {
		for i, p := range [][]float64{p0, p1} {
			if f := float64(counts[i][a]) / n; math.Abs(f-p[a]) > 0.015 {
				t.Errorf("row %d action %d: frequency %.3f, probability %.3f", i, a, f, p[a])
			}
		}
	}
	acts, _ := Policy(logits, avail, r, true)
	if acts[0] != 2 || acts[1] != 2 {
		t.Fatalf("greedy picked %v, want [2 2] (the best available actions)", acts)
	}
}

func TestMinibatchesAndExplainedVariance(t *testing.T) {
	seen := map[int]int{}
	calls := 0
	m, err := Minibatches(12, 2, 3, rand.New(rand.NewPCG(3, 4)), func(idx []int) (nn.StepStats, error) {
		if len(idx) != 4 {
			t.Fatalf("minibatch of %d, want 4", len(idx))
		}
		for _, i := range idx {
			seen[i]++
		}
		calls++
		return nn.StepStats{Loss: float64(calls), Metrics: map[string]float64{"entropy": 2}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 6 || len(seen) != 12 {
		t.Fatalf("%d calls over %d indices", calls, len(seen))
	}
	for i, c := range seen {
		if c != 2 {
			t.Fatalf("index %d used %d times in 2 epochs", i, c)
		}
	}
	near(t, "mean loss", m["loss"], 3.5)
	near(t, "mean entropy", m["entropy"], 2)
	ret := []float64{1, 2, 3, 4}
	near(t, "EV of perfect values", ExplainedVariance(ret, ret), 1)
	near(t, "EV of the mean", ExplainedVariance([]float64{2.5, 2.5, 2.5, 2.5}, ret), 0)
}

// TestActorLossImprovesAdvantagedAction: the PPO-clip loss, from ratio 1, reports zero KL and no
// clipping, its value is −mean(A) − c·H, and a few updates raise the probability of the action with
// positive advantage while the unavailable action keeps none.
func TestActorLossImprovesAdvantagedAction(t *testing.T) {
	net, err := NewNet(goBackend(t), []int{2, 8, 3}, 0.01, 7)
	if err != nil {
		t.Fatal(err)
	}
	const B = 6
	obs := make([]float32, 2*B)
	for i := range obs {
		obs[i] = 1
	}
	avail := []float32{}
	masks := [][]bool{}
	for i := 0; i < B; i++ {
		avail = append(avail, 0, 1, 1)
		masks = append(masks, []bool{false, true, true})
	}
	probOf2 := func() (float64, []float32) {
		logits, err := net.Apply(obs, B)
		if err != nil {
			t.Fatal(err)
		}
		_, lp := Policy(logits, masks, nil, true)
		acts, _ := Policy(logits, masks, nil, true)
		p := math.Exp(float64(lp[0]))
		if acts[0] == 1 {
			p = 1 - p
		}
		return p, logits
	}
	p0, logits := probOf2()
	acts := []int32{1, 2, 1, 2, 1, 2}
	adv := []float32{-1, 1, -1, 1, -1, 1}
	oldLogp := make([]float32, B)
	for i := range acts {
		row := logits[3*i : 3*i+3]
		z := math.Log(math.Exp(float64(row[1])) + math.Exp(float64(row[2])))
		oldLogp[i] = float32(float64(row[acts[i]]) - z)
	}
	tr, err := nn.NewTrainer(&net.Model, nn.DefaultOpt(0.05), ActorMetrics, ActorLoss(net.Layers(), 0.2, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 5; step++ {
		st, err := tr.Update(nn.Inputs{Names: ActorInputs, Values: []any{Float32(obs, B, 2), Float32(avail, B, 3), acts, oldLogp, adv}})
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			if math.Abs(st.Metrics["approx_kl"]) > 1e-6 || st.Metrics["clip_ratio"] != 0 {
				t.Fatalf("first step from the sampling policy: %v", st.Metrics)
			}
			h := st.Metrics["entropy"]
			if h <= 0 || h > math.Log(2)+1e-6 {
				t.Fatalf("entropy %v outside (0, ln 2] for two available actions", h)
			}
			if math.Abs(st.Loss-(0-0.01*h)) > 1e-5 {
				t.Fatalf("loss %v, want −mean(A) − 0.01·H = %v", st.Loss, -0.01*h)
			}
		}
	}
	if p1, _ := probOf2(); p1 <= p0+0.05 {
		t.Fatalf("P(action 2) went from %.3f to %.3f; the positive advantage should raise it", p0, p1)
	}
}

// TestMixedCriticDecomposition: k(s) is a distribution over agents and Q_tot − Σ_j k_j·Q_j(a_j) (the
// baseline b(s)) does not depend on the joint action.
func TestMixedCriticDecomposition(t *testing.T) {
	c, err := NewMixed(goBackend(t), 3, 4, 5, 16, 9)
	if err != nil {
		t.Fatal(err)
	}
	state := []float32{0.1, -0.3, 0.7, 1, 0, 0.5, 0.2, -1, 0.4, 0.9}
	var bias [2][]float64
	for trial, acts := range [][]int{{0, 1, 2, 3, 0, 1}, {3, 3, 0, 2, 1, 0}} {
		q, k, qt, err := c.Eval(state, acts, 2)
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < 2; b++ {
			sum, mix := 0.0, 0.0
			for j := 0; j < 3; j++ {
				kj := float64(k[b*3+j])
				if kj < 0 {
					t.Fatalf("negative mixing weight %v", kj)
				}
				sum += kj
				mix += kj * float64(q[(b*3+j)*4+acts[b*3+j]])
			}
			near(t, "Σ k", math.Round(sum*1e5)/1e5, 1)
			bias[trial] = append(bias[trial], float64(qt[b])-mix)
		}
	}
	for b := 0; b < 2; b++ {
		if math.Abs(bias[0][b]-bias[1][b]) > 1e-5 {
			t.Fatalf("state %d: baseline %v vs %v depends on the actions", b, bias[0][b], bias[1][b])
		}
	}
}

// TestSamplerRollout: a rollout on a one-step matrix game has the documented shapes, agent ids in the
// observations, and every step is an episode whose return is its reward.
func TestSamplerRollout(t *testing.T) {
	v, err := env.NewVec("matrix:climbing", 4)
	if err != nil {
		t.Fatal(err)
	}
	actor, err := NewNet(goBackend(t), []int{v.Spec.ObsSize + 2, 8, 3}, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSampler(v, actor, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := s.Collect(3, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ro.Act) != 3*4*2 || len(ro.Rew) != 3*4 || len(ro.Obs) != 3*4*2*ro.ObsDim || len(ro.EpisodeReturns) != 12 {
		t.Fatalf("shapes: %d actions, %d rewards, %d obs, %d episodes", len(ro.Act), len(ro.Rew), len(ro.Obs), len(ro.EpisodeReturns))
	}
	for i, r := range ro.Rew {
		if ro.EpisodeReturns[i] != r || !ro.Done[i] {
			t.Fatalf("step %d: reward %v, episode return %v, done %v", i, r, ro.EpisodeReturns[i], ro.Done[i])
		}
	}
	d := ro.ObsDim
	for k := 0; k < len(ro.Act); k++ {
		id := ro.Obs[k*d+d-2 : k*d+d]
		if id[k%2] != 1 || id[1-k%2] != 0 {
			t.Fatalf("sample %d: agent one-hot %v", k, id)
		}
	}
}

// Evaluate plays exactly one episode per copy: on LBF every return is in [0, 1] and counts only the
// first episode; greedy play is the same for a seed, and zero episodes is an error.
func TestEvaluateOneEpisodePerCopy(t *testing.T) {
	const sc = "lbf:5x5-2p-1f-10t"
	v, _ := env.NewVec(sc, 1)
	actor, err := NewNet(goBackend(t), []int{v.Spec.ObsSize + 2, 8, 6}, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Evaluate(sc, actor, 0.125, 16, 9, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 16 {
		t.Fatalf("%d returns for 16 episodes", len(a))
	}
	for _, r := range a {
		if r < 0 || r > 1+1e-9 {
			t.Fatalf("return %v outside [0, 1]: more than one episode counted", r)
		}
	}
	g1, _ := Evaluate(sc, actor, 0.125, 8, 9, true)
	g2, _ := Evaluate(sc, actor, 0.125, 8, 9, true)
	if !slices.Equal(g1, g2) {
		t.Fatalf("greedy evaluation differs for one seed: %v vs %v", g1, g2)
	}
	if _, err := Evaluate(sc, actor, 0.125, 0, 9, true); err == nil {
		t.Fatal("zero episodes accepted")
	}
}

// HorizonGAE de-interleaves its streams: each stream's values are GAE of that stream alone.
func TestHorizonGAEStreams(t *testing.T) {
	H, S := 4, 2
	rew := []float64{1, 0, 0, 2, 3, 0, 0, 1} // t*S+s
	vals := []float32{0.5, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8}
	adv, ret := HorizonGAE(rew, vals, H, S, 0.9, 0.8)
	for s := 0; s < S; s++ {
		r, v, d := make([]float64, H), make([]float64, H), make([]bool, H)
		for k := 0; k < H; k++ {
			r[k], v[k] = rew[k*S+s], float64(vals[k*S+s])
		}
		d[H-1] = true
		a, rt := GAE(r, v, d, 0, 0.9, 0.8)
		for k := 0; k < H; k++ {
			if adv[k*S+s] != a[k] || ret[k*S+s] != rt[k] {
				t.Fatalf("stream %d step %d: %v/%v, want %v/%v", s, k, adv[k*S+s], ret[k*S+s], a[k], rt[k])
			}
		}
	}
}

// Monitor evaluates at multiples of every and at the last iteration only, and never with every ≤ 0.
func TestMonitorSchedule(t *testing.T) {
	c := track.Curves{}
	var due []int
	for it := 1; it <= 7; it++ {
		s, err := Monitor(c, float64(it), it, 7, 3, func() (float64, error) { due = append(due, it); return 2, nil })
		if err != nil || (s != "") != slices.Contains(due, it) {
			t.Fatalf("iteration %d: status %q, err %v", it, s, err)
		}
	}
	if !slices.Equal(due, []int{3, 6, 7}) || len(c["monitor_return"].Y) != 3 {
		t.Fatalf("evaluated at %v, curve %v", due, c["monitor_return"].Y)
	}
	if s, _ := Monitor(c, 1, 1, 1, 0, func() (float64, error) { t.Fatal("evaluated with every 0"); return 0, nil }); s != "" {
		t.Fatal("status without an evaluation")
	}
}

// TestBatchReusesItsTensors: a Batch gathers the rows Rows would, hands back the same tensor for
// the next mini-batch of that name with the new rows in it, and a new one when the shape changes.
func TestBatchReusesItsTensors(t *testing.T) {
	x := make([]float32, 5*3)
	for i := range x {
		x[i] = float32(i)
	}
	b := NewBatch(goBackend(t))
	defer b.Close()
	read := func(name string, idx []int) ([]float32, any) {
		tt := b.Rows(name, x, 3, idx)
		return slices.Clone(tensors.MustCopyFlatData[float32](tt)), tt
	}
	want := func(idx []int) []float32 { return tensors.MustCopyFlatData[float32](Rows(x, 3, idx)) }
	a, ta := read("x", []int{4, 0})
	if !slices.Equal(a, want([]int{4, 0})) {
		t.Fatalf("rows 4, 0: %v, want %v", a, want([]int{4, 0}))
	}
	c, tc := read("x", []int{1, 3})
	if ta != tc || !slices.Equal(c, want([]int{1, 3})) {
		t.Fatalf("second mini-batch: same tensor %v, rows %v, want %v", ta == tc, c, want([]int{1, 3}))
	}
	d, td := read("x", []int{2, 2, 1})
	if td == tc || !slices.Equal(d, want([]int{2, 2, 1})) {
		t.Fatalf("three rows: new tensor %v, rows %v", td != tc, d)
	}
	if _, te := read("y", []int{0, 1, 2}); te == td {
		t.Fatal("another name shares a tensor")
	}
}

// TestPPOEpochsMatchFreshBatches: PPOEpochs (mini-batches gathered into reused tensors) leaves the
// actor and critic bit-identical to the same loop on freshly made mini-batch tensors.
func TestPPOEpochsMatchFreshBatches(t *testing.T) {
	be := goBackend(t)
	const n, dim, na = 48, 4, 3
	r := rand.New(rand.NewPCG(1, 2))
	ro := &Rollout{N: 1, NA: na, ObsDim: dim, Obs: make([]float32, n*dim), Act: make([]int, n), LogP: make([]float32, n), Avail: AllAvailable(n * na)}
	adv, ret := make([]float64, n), make([]float64, n)
	for i := range ro.Obs {
		ro.Obs[i] = float32(r.NormFloat64())
	}
	for i := range n {
		ro.Act[i], ro.LogP[i], adv[i], ret[i] = r.IntN(na), float32(math.Log(1.0/na)), r.NormFloat64(), r.NormFloat64()
	}
	run := func(reuse bool) []float32 {
		actor, err := NewNet(be, []int{dim, 8, na}, 0.01, 3)
		if err != nil {
			t.Fatal(err)
		}
		critic, err := NewNet(be, []int{dim, 8, 1}, 1, 4)
		if err != nil {
			t.Fatal(err)
		}
		trA, err := NewActorTrainer(actor, 0.01, 0.2, 0.01, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		trC, err := NewValueTrainer(critic, 0.01, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		if reuse {
			if _, _, err := PPOEpochs(trA, trC, ro, adv, ret, 3, 4, rng); err != nil {
				t.Fatal(err)
			}
		} else {
			if _, err := Minibatches(n, 3, 4, rng, func(idx []int) (nn.StepStats, error) { return trA.Update(ActorBatch(ro, adv, idx)) }); err != nil {
				t.Fatal(err)
			}
			if _, err := Minibatches(n, 3, 4, rng, func(idx []int) (nn.StepStats, error) {
				return trC.Update(ValueBatch(ro.Obs, ro.ObsDim, ret, idx))
			}); err != nil {
				t.Fatal(err)
			}
		}
		wa, _ := actor.Weights()
		wc, _ := critic.Weights()
		return append(wa, wc...)
	}
	fresh, reused := run(false), run(true)
	init, _ := NewNet(be, []int{dim, 8, na}, 0.01, 3)
	w0, _ := init.Weights()
	if slices.Equal(fresh[:len(w0)], w0) {
		t.Fatal("the actor did not move: the comparison would say nothing")
	}
	for i := range fresh {
		if math.Float32bits(fresh[i]) != math.Float32bits(reused[i]) {
			t.Fatalf("weight %d: %v with reused tensors, %v with fresh ones", i, reused[i], fresh[i])
		}
	}
}

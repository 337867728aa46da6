package ac

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/nn"
	"github.com/paperlab/paperlab/toolkit/stats"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Minibatches runs epochs passes over n samples split into mb shuffled minibatches, calling update
// with each minibatch's sample indices, and returns the mean of the reported metrics.
func Minibatches(n, epochs, mb int, r *rand.Rand, update func(idx []int) (nn.StepStats, error)) (map[string]float64, error) {
	sums := map[string]float64{}
	count := 0
	size := max(1, n/mb)
	for e := 0; e < epochs; e++ {
		perm := r.Perm(n)
		for k := 0; k+size <= n; k += size {
			st, err := update(perm[k : k+size])
			if err != nil {
				return nil, err
			}
			sums["loss"] += st.Loss
			sums["grad_norm"] += st.GradNorm
			for name, v := range st.Metrics {
				sums[name] += v
			}
			count++
		}
	}
	for k := range sums {
		sums[k] /= float64(max(1, count))
	}
	return sums, nil
}

// ActorBatch gathers the actor inputs (ActorInputs: obs, avail, actions, old log-probs, advantages)
// of the per-agent samples idx of a rollout.
func ActorBatch(ro *Rollout, adv []float64, idx []int) nn.Inputs {
	return (*Batch)(nil).Actor(ro, adv, idx)
}

// ValueBatch gathers a critic's inputs (ValueInputs): rows idx of x (dim values each) and their
// targets y.
func ValueBatch(x []float32, dim int, y []float64, idx []int) nn.Inputs {
	return (*Batch)(nil).Value(x, dim, y, idx)
}

// Batch holds mini-batch tensors that every mini-batch of an update phase reuses: on an engine with
// shared buffers (ONNX Runtime on the CPU, the pure-Go engine) the rows are gathered straight into
// the engine's memory, once. A fresh tensor per mini-batch cost its allocation, zeroing, page faults
// and the engine's own copy of it: with E3T's partner model (48 mini-batches of 2,000 × 606 values
// per iteration) a quarter of an iteration's CPU (a profile of 2026-12-04; BENCHMARKS.md). The values are
// those of fresh tensors, so results do not change. A nil *Batch makes fresh tensors. Close it when
// the phase ends; a tensor it returned is valid until the next call with the same name.
type Batch struct {
	be compute.Backend
	t  map[string]*tensors.Tensor
}

// NewBatch is a Batch for engine be.
func NewBatch(be compute.Backend) *Batch { return &Batch{be: be, t: map[string]*tensors.Tensor{}} }

// Rows gathers rows idx of a row-major host matrix x with dim columns as the [len(idx), dim] tensor
// called name (Rows on a nil Batch).
func (b *Batch) Rows(name string, x []float32, dim int, idx []int) *tensors.Tensor {
	if b == nil {
		return Rows(x, dim, idx)
	}
	t := b.t[name]
	if d := []int{len(idx), dim}; t == nil || !slices.Equal(t.Shape().Dimensions, d) {
		if t != nil {
			_ = t.FinalizeAll()
		}
		var err error
		if t, err = tensors.FromShapeForBackend(b.be, 0, shapes.Make(dtypes.Float32, d...)); err != nil {
			t = tensors.FromShape(shapes.Make(dtypes.Float32, d...)) // an engine without shared buffers
		}
		b.t[name] = t
	}
	_ = tensors.MutableFlatData(t, func(out []float32) {
		for k, i := range idx {
			copy(out[k*dim:(k+1)*dim], x[i*dim:(i+1)*dim])
		}
	})
	return t
}

// Actor is ActorBatch with the batch's tensors.
func (b *Batch) Actor(ro *Rollout, adv []float64, idx []int) nn.Inputs {
	n := len(idx)
	acts := make([]int32, n)
	logp := make([]float32, n)
	a := make([]float32, n)
	for k, i := range idx {
		acts[k], logp[k], a[k] = int32(ro.Act[i]), ro.LogP[i], float32(adv[i])
	}
	var in nn.Inputs
	in.Add("obs", b.Rows("obs", ro.Obs, ro.ObsDim, idx))
	in.Add("avail", b.Rows("avail", ro.Avail, ro.NA, idx))
	in.Add("actions", acts)
	in.Add("old_logp", logp)
	in.Add("advantages", a)
	return in
}

// Value is ValueBatch with the batch's tensors.
func (b *Batch) Value(x []float32, dim int, y []float64, idx []int) nn.Inputs {
	t := make([]float32, len(idx))
	for k, i := range idx {
		t[k] = float32(y[i])
	}
	var in nn.Inputs
	in.Add("x", b.Rows("x", x, dim, idx))
	in.Add("targets", t)
	return in
}

// Close frees the batch's tensors.
func (b *Batch) Close() {
	if b == nil {
		return
	}
	for _, t := range b.t {
		_ = t.FinalizeAll()
	}
	clear(b.t)
}

// ClassifierBatch is a classifier's batch (ClassifierInputs): inputs x [B, D] and labels [B].
func ClassifierBatch(x *tensors.Tensor, labels []int32) nn.Inputs {
	var in nn.Inputs
	in.Add("x", x)
	in.Add("labels", labels)
	return in
}

// Rows gathers rows idx of a row-major host matrix x with dim columns as a [len(idx), dim] tensor.
// The rows are copied straight into the tensor's own storage (one copy, no host slice between).
func Rows(x []float32, dim int, idx []int) *tensors.Tensor {
	t := tensors.FromShape(shapes.Make(dtypes.Float32, len(idx), dim))
	_ = tensors.MutableFlatData(t, func(out []float32) {
		for k, i := range idx {
			copy(out[k*dim:(k+1)*dim], x[i*dim:(i+1)*dim])
		}
	})
	return t
}

// ExplainedVariance is 1 − Var(returns − values)/Var(returns) (cleanrl's diagnostic).
func ExplainedVariance(values, returns []float64) float64 {
	var m, mr float64
	for i := range returns {
		m += returns[i]
		mr += returns[i] - values[i]
	}
	n := float64(len(returns))
	m, mr = m/n, mr/n
	var v, vr float64
	for i := range returns {
		v += (returns[i] - m) * (returns[i] - m)
		d := returns[i] - values[i] - mr
		vr += d * d
	}
	if v == 0 {
		return 0
	}
	return 1 - vr/v
}

// AddActorCurves records a PPO actor update's metrics (Minibatches' means) under cleanrl's names at x:
// policy_loss, entropy, approx_kl, clip_ratio.
func AddActorCurves(c track.Curves, x float64, am map[string]float64) {
	c.Add("policy_loss", x, am["loss"])
	c.Add("entropy", x, am["entropy"])
	c.Add("approx_kl", x, am["approx_kl"])
	c.Add("clip_ratio", x, am["clip_ratio"])
}

// AddShapedIteration records one PPO iteration of a learner with reward shaping (FCP, E3T) at
// x = environment steps so far: episodic_return (the sparse reward), shaped_return, shaping_factor,
// the actor's metrics (AddActorCurves), value_loss (cm's loss), seconds and cpu_seconds since the
// clock started (track.Clock) and SPS. It returns the progress status.
func AddShapedIteration(c track.Curves, x, sparse, shaped, factor float64, am, cm map[string]float64, clk track.Clock) string {
	c.Add("episodic_return", x, sparse)
	c.Add("shaped_return", x, shaped)
	c.Add("shaping_factor", x, factor)
	AddActorCurves(c, x, am)
	c.Add("value_loss", x, cm["loss"])
	elapsed := clk.Wall()
	c.Add("seconds", x, elapsed)
	c.Add("cpu_seconds", x, clk.CPU())
	c.Add("SPS", x, x/elapsed)
	return fmt.Sprintf("return %.1f shaping %.2f", sparse, factor)
}

// Monitor calls eval at iteration it when every > 0 and it is a multiple of every or the last
// iteration, records the value as monitor_return at x and returns a status suffix ("" when not due).
func Monitor(c track.Curves, x float64, it, last, every int, eval func() (float64, error)) (string, error) {
	if every <= 0 || (it%every != 0 && it != last) {
		return "", nil
	}
	m, err := eval()
	if err != nil {
		return "", err
	}
	c.Add("monitor_return", x, m)
	return fmt.Sprintf(" monitor %.1f", m), nil
}

// FlushReturns records the mean of the episode returns finished since the last flush as
// episodic_return at x, empties *recent and returns a progress status ("" when none finished).
func FlushReturns(c track.Curves, x float64, recent *[]float64) string {
	if len(*recent) == 0 {
		return ""
	}
	m := 0.0
	for _, v := range *recent {
		m += v
	}
	m /= float64(len(*recent))
	c.Add("episodic_return", x, m)
	*recent = (*recent)[:0]
	return fmt.Sprintf("return %.3f", m)
}

// PPOEpochs runs the PPO update of one rollout of single-agent samples (Rollout.N = 1): epochs ×
// mb mini-batches of the actor (PPO-clip) on adv, then of the critic on ret, and returns both
// trainers' mean metrics.
func PPOEpochs(actor, critic *nn.Trainer, ro *Rollout, adv, ret []float64, epochs, mb int, r *rand.Rand) (am, cm map[string]float64, err error) {
	n := len(adv)
	b := NewBatch(actor.Net.Backend())
	defer b.Close()
	if am, err = Minibatches(n, epochs, mb, r, func(idx []int) (nn.StepStats, error) {
		return actor.Update(b.Actor(ro, adv, idx))
	}); err != nil {
		return nil, nil, fmt.Errorf("actor: %w", err)
	}
	if cm, err = Minibatches(n, epochs, mb, r, func(idx []int) (nn.StepStats, error) {
		return critic.Update(b.Value(ro.Obs, ro.ObsDim, ret, idx))
	}); err != nil {
		return nil, nil, fmt.Errorf("critic: %w", err)
	}
	return am, cm, nil
}

// AllAvailable is n ones: an action mask where every action is available.
func AllAvailable(n int) []float32 {
	o := make([]float32, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// Snapshot is where a training kept a copy of its weights: after Iter iterations (0: the initial
// weights), EnvSteps environment steps, Seconds of wall and CPUSeconds of this process's CPU time
// since training started, when the training return (curve episodic_return) averaged over the last
// ReturnWindow iterations was Return (0 before any game: the initial weights).
type Snapshot struct {
	Iter       int     `json:"iter"`
	EnvSteps   int     `json:"env_steps"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Return     float64 `json:"return"`
}

// ReturnWindow iterations of training return average into a snapshot's Return: ZSC-Eval's choice of
// FCP checkpoints reads the mean of the last 5 logs (sjtu-marl/ZSC-Eval,
// zsceval/scripts/extract_models/extract_sp_models.py).
const ReturnWindow = 5

// SnapshotDue reports whether done of iters iterations is one of the fractions at of training
// (0: before the first iteration; several fractions that round to it count once).
func SnapshotDue(at []float64, iters, done int) bool {
	return slices.ContainsFunc(at, func(f float64) bool { return int(math.Round(f*float64(iters))) == done })
}

// SnapshotAt is the Snapshot of a training after done iterations and envSteps environment steps,
// its return read from curves' episodic_return.
func SnapshotAt(curves track.Curves, done, envSteps int, clk track.Clock) Snapshot {
	info := Snapshot{Iter: done, EnvSteps: envSteps, Seconds: clk.Wall(), CPUSeconds: clk.CPU()}
	if r := curves["episodic_return"].Y; len(r) > 0 {
		info.Return = stats.Mean(r[max(0, len(r)-ReturnWindow):])
	}
	return info
}

// Package pref is preference optimisation for the tiny LM: the DPO sigmoid loss with the reference
// model's log-probabilities computed once and cached, TRL's metric names, and the SPO loss
// (our reconstruction, toolkit/exp/spo/README.md), which is DPO with a per-pair offset built from the implicit rewards of
// earlier rounds. One round of DPO or SPO is TrainPairs; a sequential run is a loop over dimensions.
package pref

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// PairEx is one tokenized preference pair: the chosen and rejected responses to a prompt (token ids
// without BOS/EOS; EOS is appended when packing), and the SPO offset Σ_{i<n} λ_i·(r̂_i(y_w) − r̂_i(y_l))
// (0 for DPO). Partial responses are steps of a longer response (step-wise DPO: the prompt holds the
// steps so far): no EOS is appended or scored. The pairs of one batch are all partial or none.
type PairEx struct {
	Prompt, Chosen, Rejected []int32
	Offset                   float64
	Partial                  bool
}

// withEOS reports whether pairs' responses end with EOS (none is Partial), and an error when the
// pairs mix partial and whole responses.
func withEOS(pairs []PairEx) (bool, error) {
	for _, p := range pairs {
		if p.Partial != pairs[0].Partial {
			return false, fmt.Errorf("pref: pairs mix partial and whole responses")
		}
	}
	return len(pairs) == 0 || !pairs[0].Partial, nil
}

// Metrics are the names PairLoss reports, TRL's DPOTrainer names.
var Metrics = []string{"rewards/chosen", "rewards/rejected", "rewards/accuracies", "rewards/margins", "logps/chosen", "logps/rejected"}

// PairInputs are the names of PairLoss's batch inputs: a packed batch [2B,T] (lm.BatchInputs; rows
// 0..B−1 chosen, B..2B−1 rejected), the reference log-probs of each row [2B] and the offsets [B].
var PairInputs = append(append([]string(nil), lm.BatchInputs...), "ref_logprobs", "offsets")

// PairLoss is the DPO / SPO loss:
//
//	L = −mean_b log σ( β·[(log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l))] − offset_b )
//
// with log π(y) the sum of the response's token log-probabilities (EOS included). With offset 0 it is
// DPO's sigmoid loss; SPO passes Σ_{i<n} λ_i·Δr̂_i. Batch inputs: PairInputs.
// The chosen/rejected split is a matmul with a constant [I | −I] matrix, since a Slice's gradient
// (Pad) is missing on ONNX Runtime.
func PairLoss(beta float64) lm.Loss { return PairLossRPO(beta, 0) }

// PairLossRPO is PairLoss plus alpha times the negative log-likelihood of the chosen responses
// (mean over their tokens, EOS included): RPO, TRL's rpo_alpha, as CoS's iterative DPO uses (α = 1).
// With alpha 0 it is PairLoss exactly (the same graph); with alpha > 0 it reports "nll_loss" after
// Metrics.
func PairLossRPO(beta, alpha float64) lm.Loss {
	params := struct {
		Beta     float64 `json:"beta"`
		RPOAlpha float64 `json:"rpo_alpha"`
	}{beta, alpha}
	return lm.Loss{Name: "pairs", Params: params, Inputs: PairInputs, Fn: func(c lm.Config, w *lm.Views, in lm.In) (*Node, []*Node) {
		tokens, offsets := in.Get("tokens"), in.Get("offsets")
		g := tokens.Graph()
		logits, _, _ := lm.Forward(c, w, in)
		lp := lm.TokenLogProbs(logits, in.Get("targets"))
		seq := ReduceSum(Mul(lp, in.Get("loss_mask")), 1) // [2B] log π(y)
		ratio := Sub(seq, in.Get("ref_logprobs"))         // [2B] log π(y) − log π_ref(y)
		b := offsets.Shape().Dimensions[0]
		pick := func(sc, sr float32) *Node { // [B, 2B]: sc·chosen row + sr·rejected row
			m := make([][]float32, b)
			for i := range m {
				m[i] = make([]float32, 2*b)
				m[i][i], m[i][b+i] = sc, sr
			}
			return Const(g, m)
		}
		vec := func(mat, x *Node) *Node { return Reshape(MatMul(mat, Reshape(x, 2*b, 1)), b) }
		pickC, pickR := pick(1, 0), pick(0, 1)
		chosen := MulScalar(vec(pickC, ratio), beta)
		rejected := MulScalar(vec(pickR, ratio), beta)
		margin := Sub(chosen, rejected)
		z := Sub(margin, offsets)
		loss := ReduceAllMean(softplus(Neg(z))) // −log σ(z)
		acc := ConvertDType(GreaterThan(chosen, rejected), dtypes.Float32)
		metrics := []*Node{
			ReduceAllMean(chosen), ReduceAllMean(rejected), ReduceAllMean(acc), ReduceAllMean(margin),
			ReduceAllMean(vec(pickC, seq)), ReduceAllMean(vec(pickR, seq)),
		}
		if alpha > 0 {
			rows := make([][]float32, 2*b) // 1 on the chosen rows
			for i := 0; i < b; i++ {
				rows[i] = []float32{1}
			}
			for i := b; i < 2*b; i++ {
				rows[i] = []float32{0}
			}
			chosenMask := Mul(in.Get("loss_mask"), Const(g, rows))
			nll := Neg(lm.MaskedMean(lp, chosenMask))
			loss = Add(loss, MulScalar(nll, alpha))
			metrics = append(metrics, nll)
		}
		return loss, metrics
	}}
}

// softplus is log(1 + e^x) computed stably as max(x, 0) + log(1 + e^(−|x|)).
func softplus(x *Node) *Node {
	return Add(Max(x, ZerosLike(x)), Log(AddScalar(Exp(Neg(Abs(x))), 1)))
}

// pack builds the PairLoss inputs for pairs (chosen rows first), given the cached reference
// log-probabilities refChosen[i], refRejected[i] of each pair.
func pack(m *lm.Model, pairs []PairEx, refChosen, refRejected []float64) (lm.Inputs, error) {
	b := len(pairs)
	exs := pairExamples(pairs)
	eos, err := withEOS(pairs)
	if err != nil {
		return lm.Inputs{}, err
	}
	batch, err := lm.Pack(exs, lm.FitWidth(exs, m.Config.Context, eos), eos)
	if err != nil {
		return lm.Inputs{}, err
	}
	ref := make([]float32, 2*b)
	off := make([]float32, b)
	for i, p := range pairs {
		ref[i], ref[b+i], off[i] = float32(refChosen[i]), float32(refRejected[i]), float32(p.Offset)
	}
	in := batch.Inputs()
	in.Add("ref_logprobs", ref)
	in.Add("offsets", off)
	return in, nil
}

// pairExamples lists every pair's (prompt, chosen) example, then every (prompt, rejected) one.
func pairExamples(pairs []PairEx) []lm.Example {
	b := len(pairs)
	exs := make([]lm.Example, 2*b)
	for i, p := range pairs {
		exs[i] = lm.Example{Prompt: p.Prompt, Completion: p.Chosen}
		exs[b+i] = lm.Example{Prompt: p.Prompt, Completion: p.Rejected}
	}
	return exs
}

// SeqLogProbs returns log π(y|x) (summed over response tokens and EOS, but for partial responses)
// of the chosen and rejected responses of every pair under m.
func SeqLogProbs(m *lm.Model, pairs []PairEx) (chosen, rejected []float64, err error) {
	eos, err := withEOS(pairs)
	if err != nil {
		return nil, nil, err
	}
	scored, err := m.Score(pairExamples(pairs), eos)
	if err != nil {
		return nil, nil, err
	}
	sum := func(s lm.Scored) float64 {
		t := 0.0
		for _, lp := range s.LogProbs {
			t += float64(lp)
		}
		return t
	}
	for i := range pairs {
		chosen = append(chosen, sum(scored[i]))
		rejected = append(rejected, sum(scored[len(pairs)+i]))
	}
	return chosen, rejected, nil
}

// Scores caches the log-probabilities of one set of pairs (SeqLogProbs) under models that no longer
// change: the reference of a round and the finished stages of a sequential run. It answers for the
// pairs it was made with (the same slice); any other pairs, and a nil Scores, are scored afresh.
type Scores struct {
	pairs []PairEx
	by    map[*lm.Model][2][]float64
}

// NewScores is an empty cache for pairs.
func NewScores(pairs []PairEx) *Scores {
	return &Scores{pairs: pairs, by: map[*lm.Model][2][]float64{}}
}

// Of is SeqLogProbs(m, pairs), from the cache when pairs are the cache's own (the same slice).
func (s *Scores) Of(m *lm.Model, pairs []PairEx) (chosen, rejected []float64, err error) {
	if s == nil || len(pairs) == 0 || len(pairs) != len(s.pairs) || &pairs[0] != &s.pairs[0] {
		return SeqLogProbs(m, pairs)
	}
	if v, ok := s.by[m]; ok {
		return v[0], v[1], nil
	}
	if chosen, rejected, err = SeqLogProbs(m, pairs); err != nil {
		return nil, nil, err
	}
	s.by[m] = [2][]float64{chosen, rejected}
	return chosen, rejected, nil
}

// ImplicitRewardGaps returns, per pair, Δr̂ = r̂(y_w) − r̂(y_l) with the implicit reward of a finished
// round r̂(x, y) = β·(log π_after(y|x) − log π_before(y|x)) (the prompt-only term cancels in a pair).
func ImplicitRewardGaps(after, before *lm.Model, beta float64, pairs []PairEx) ([]float64, error) {
	return implicitRewardGaps(nil, after, before, beta, pairs)
}

// implicitRewardGaps is ImplicitRewardGaps with the log-probabilities from cache (nil: scored).
func implicitRewardGaps(cache *Scores, after, before *lm.Model, beta float64, pairs []PairEx) ([]float64, error) {
	ac, ar, err := cache.Of(after, pairs)
	if err != nil {
		return nil, err
	}
	bc, br, err := cache.Of(before, pairs)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(pairs))
	for i := range pairs {
		out[i] = beta * ((ac[i] - bc[i]) - (ar[i] - br[i]))
	}
	return out, nil
}

// PairWeights returns each pair's gradient weight σ(offset − β·Δ_θ), Δ_θ = the policy's log-ratio
// margin against ref (§2.2): the factor by which DPO/SPO scales a pair's gradient. DPO's weights
// are the same with offset 0.
func PairWeights(policy, ref *lm.Model, beta float64, pairs []PairEx) ([]float64, error) {
	m, err := ImplicitRewardGaps(policy, ref, beta, pairs) // β·Δ_θ
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(pairs))
	for i, p := range pairs {
		out[i] = PairWeight(m[i], p.Offset)
	}
	return out, nil
}

// PairWeight is one pair's gradient weight σ(offset − margin) from its margin β·Δ_θ against the
// reference and its SPO offset (0 for DPO): the factor −∂L/∂z of the loss −log σ(z), z = margin −
// offset.
func PairWeight(margin, offset float64) float64 { return 1 / (1 + math.Exp(-(offset - margin))) }

// LossValue is the DPO/SPO loss of one pair from its log-ratio margin, on the host (tests, tables).
func LossValue(beta, margin, offset float64) float64 {
	z := beta*margin - offset
	return math.Max(-z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
}

// SPOOffsets combines earlier rounds' reward gaps into the SPO offset of each pair:
// offset_b = Σ_{i<n} λ_i·ΔR̂_i(b), where gaps[i][b] is dimension i's reward gap on pair b read off
// the earlier rounds (DimensionGaps; for round 2 it is round 1's implicit reward gap,
// ImplicitRewardGaps). On the first round (no earlier gaps) or with every λ_i = 0, every offset is
// 0 and SPO is exactly DPO.
//
// The general-n form, derived from the constrained problem the paper states (Lou et al., "SPO:
// Multi-Dimensional Preference Sequential Alignment With Implicit Reward Modeling", AAAI 2025,
// arXiv 2405.12739: round n maximises dimension n's reward under a KL bound to π_{n−1} and a
// constraint that keeps the earlier dimensions; its closed form "for two dimensions, generalised to
// any number") — our reconstruction, [UNVERIFIED] against the paper's equations. Relaxing round
// n's constraints with multipliers λ_i ≥ 0 on the earlier rewards,
//
//	max_π E_π[R_n + Σ_{i<n} λ_i·R_i] − β_n·KL(π ‖ π_{n−1})  ⇒  π_n ∝ π_{n−1}·exp((R_n + Σ_{i<n} λ_i·R_i)/β_n),
//
// so R_n(x, y) = β_n·log π_n(y|x)/π_{n−1}(y|x) − Σ_{i<n} λ_i·R_i(x, y) + β_n·log Z(x). Under
// Bradley–Terry on dimension-n pairs (y_w ≻_n y_l) the partition function cancels:
//
//	P(y_w ≻_n y_l) = σ(β_n·Δ log π_n/π_{n−1} − Σ_{i<n} λ_i·ΔR_i),
//
// and the loss −log σ(·) with π_n = π_θ has offset Σ_{i<n} λ_i·ΔR_i. The earlier rewards are read
// the same way off the earlier rounds: round j's implicit reward r̂_j = β_j·log π_j/π_{j−1} is
// R_j + Σ_{i<j} λ_i^{(j)}·R_i (up to a prompt-only term), λ^{(j)} the multipliers of round j, so
// ΔR_j = Δr̂_j − Σ_{i<j} λ_i^{(j)}·ΔR_i (DimensionGaps). For round 2 (round 1 is plain DPO) the
// offset is λ_1·Δr̂_1; for round 3 it is (λ_1 − λ_2·λ_1^{(2)})·Δr̂_1 + λ_2·Δr̂_2. Reading every r̂_j
// as R_j (the direct form, Σ λ_i·Δr̂_i: stages without Lambdas) coincides with it up to round 2
// and differs from round 3 on.
func SPOOffsets(lambdas []float64, gaps [][]float64, n int) ([]float64, error) {
	if len(lambdas) != len(gaps) {
		return nil, fmt.Errorf("pref: %d λ values for %d earlier rounds", len(lambdas), len(gaps))
	}
	out := make([]float64, n)
	for i, g := range gaps {
		if len(g) != n {
			return nil, fmt.Errorf("pref: round %d has %d gaps for %d pairs", i+1, len(g), n)
		}
		for b := range out {
			out[b] += lambdas[i] * g[b]
		}
	}
	return out, nil
}

// DimensionGaps turns each finished round's implicit reward gap (implicit[j], round j+1's Δr̂ on every
// pair) into the gap of its own dimension's reward, ΔR_j = Δr̂_j − Σ_{i<j} own[j][i]·ΔR_i, where
// own[j] are the λ values round j+1 weighed the rounds before it with (nil or empty: that round's
// implicit reward is read as its dimension's reward as it is, as for a DPO round). See SPOOffsets
// for the derivation.
func DimensionGaps(implicit, own [][]float64) ([][]float64, error) {
	if len(own) != len(implicit) {
		return nil, fmt.Errorf("pref: %d rounds' λ values for %d rounds' gaps", len(own), len(implicit))
	}
	out := make([][]float64, len(implicit))
	for j, g := range implicit {
		if len(own[j]) > j {
			return nil, fmt.Errorf("pref: round %d weighed %d earlier rounds, it has %d", j+1, len(own[j]), j)
		}
		out[j] = append([]float64(nil), g...)
		for i, l := range own[j] {
			if len(out[i]) != len(g) {
				return nil, fmt.Errorf("pref: round %d has %d gaps, round %d has %d", i+1, len(out[i]), j+1, len(g))
			}
			for b := range g {
				out[j][b] -= l * out[i][b]
			}
		}
	}
	return out, nil
}

// TextPairs encodes preference pairs written as text — {prompt, chosen, rejected} — with tok (a
// notebook cell writes its own pairs this way); a character outside the alphabet is an error naming
// the pair.
func TextPairs(tok *lm.Tokenizer, pairs [][3]string) ([]PairEx, error) {
	out := make([]PairEx, len(pairs))
	for i, p := range pairs {
		var ids [3][]int32
		for j, s := range p {
			var err error
			if ids[j], err = tok.Encode(s); err != nil {
				return nil, fmt.Errorf("pair %d (%q): %w", i, p, err)
			}
		}
		if p[1] == p[2] {
			return nil, fmt.Errorf("pair %d (%q): chosen and rejected are the same", i, p)
		}
		out[i] = PairEx{Prompt: ids[0], Chosen: ids[1], Rejected: ids[2]}
	}
	return out, nil
}

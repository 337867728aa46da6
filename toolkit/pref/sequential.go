package pref

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/track"
)

// A Stage is one model of a sequential run: the starting (SFT) model, with Beta 0, or a finished
// round's policy with the β it was trained with — the scale of its implicit reward
// r̂ = β·log π_round/π_before, so that a later round reads round j's reward with round j's own β —
// and the λ values its round weighed the rounds before it with (Lambdas: nil for round 1, for a
// naive DPO round, and for a stage whose implicit reward is to be read as its dimension's reward
// as it is; see DimensionGaps).
type Stage struct {
	Model   *lm.Model
	Beta    float64
	Lambdas []float64
}

// NextRound runs one round of sequential alignment (SPO, §2.2) on top of a history of stages:
// history[0] is the starting (SFT) model and history[k] the policy after round k. The new policy
// starts from, and is regularised towards, the last model of the history; each pair's offset is
// Σ_j λ_j·ΔR̂_j over the finished rounds j = 1…len(history)−1 (SPOOffsets), where ΔR̂_j is
// dimension j's reward gap read off the history (DimensionGaps): round j's implicit reward
// r̂_j = β_j·log π_j/π_{j−1} at round j's own β (history[j].Beta; ImplicitRewardGaps), not this
// round's, less what round j's own offsets put into it (history[j].Lambdas). lambdas has one value
// per finished round; nil or all zeros is naive sequential DPO (nothing is scored), and the first
// round (a history of one model) is plain DPO. Offsets already set on pairs are replaced.
// hooks.Scores (made for pairs) keeps the history's and the reference's log-probabilities of the
// pairs across rounds that share them.
func NextRound(history []Stage, pairs []PairEx, lambdas []float64, cfg TrainConfig, hooks Hooks) (*RoundResult, error) {
	if len(history) == 0 {
		return nil, fmt.Errorf("pref: a round needs at least the starting model")
	}
	done := len(history) - 1
	if lambdas == nil {
		lambdas = make([]float64, done)
	}
	if len(lambdas) != done {
		return nil, fmt.Errorf("pref: %d λ values for %d finished rounds", len(lambdas), done)
	}
	naive := true
	for _, l := range lambdas {
		naive = naive && l == 0
	}
	gaps := make([][]float64, done)
	own := make([][]float64, done)
	for j := 1; j <= done; j++ {
		own[j-1] = history[j].Lambdas
		if naive {
			gaps[j-1] = make([]float64, len(pairs)) // nothing to score: every weight is 0
			continue
		}
		if !(history[j].Beta > 0) {
			return nil, fmt.Errorf("pref: round %d of the history has β = %v (a finished round needs its β > 0)", j, history[j].Beta)
		}
		g, err := implicitRewardGaps(hooks.Scores, history[j].Model, history[j-1].Model, history[j].Beta, pairs)
		if err != nil {
			return nil, fmt.Errorf("pref: implicit rewards of round %d: %w", j, err)
		}
		gaps[j-1] = g
	}
	gaps, err := DimensionGaps(gaps, own)
	if err != nil {
		return nil, err
	}
	off, err := SPOOffsets(lambdas, gaps, len(pairs))
	if err != nil {
		return nil, err
	}
	withOff := make([]PairEx, len(pairs))
	for i, p := range pairs {
		withOff[i] = p
		withOff[i].Offset = off[i]
	}
	ref := history[done].Model
	refC, refR, err := refScores(ref, pairs, cfg, hooks)
	if err != nil {
		return nil, err
	}
	policy, err := ref.Clone()
	if err != nil {
		return nil, err
	}
	curves, err := trainPairs(policy, withOff, refC, refR, cfg, hooks)
	if err != nil {
		return nil, fmt.Errorf("round %d: %w", done+1, err)
	}
	var lam []float64
	if !naive {
		lam = append([]float64(nil), lambdas...)
	}
	return &RoundResult{Policy: policy, Ref: ref, Beta: cfg.Beta, Lambdas: lam, Pairs: withOff, Curves: curves}, nil
}

// RoundResult is a finished round: the new policy, the reference it was trained against, the β it
// was trained with, the λ values it weighed the earlier rounds with (nil for DPO), the pairs with
// the offsets used, and the curves of TrainPairs.
type RoundResult struct {
	Policy, Ref *lm.Model
	Beta        float64
	Lambdas     []float64
	Pairs       []PairEx
	Curves      track.Curves
}

// Stage is the round's policy as a stage of the history of later rounds.
func (r *RoundResult) Stage() Stage { return Stage{Model: r.Policy, Beta: r.Beta, Lambdas: r.Lambdas} }

// Sequential aligns start on one preference dimension after another: rounds[k] holds dimension
// k+1's pairs, and every later round k weighs the implicit rewards of the rounds before it by
// lambdas[0…k−1] (one λ per dimension except the last; nil = naive sequential DPO). hooks(k) gives
// round k's callbacks. It returns the policy after each round and each round's curves.
func Sequential(start *lm.Model, rounds [][]PairEx, lambdas []float64, cfg TrainConfig, hooks func(round int) Hooks) ([]*lm.Model, []track.Curves, error) {
	if lambdas != nil && len(lambdas) < len(rounds)-1 {
		return nil, nil, fmt.Errorf("pref: %d λ values for %d rounds (need one per round but the last)", len(lambdas), len(rounds))
	}
	history := []Stage{{Model: start}}
	var all []track.Curves
	for k, pairs := range rounds {
		var lam []float64
		if lambdas != nil {
			lam = lambdas[:k]
		}
		var h Hooks
		if hooks != nil {
			h = hooks(k)
		}
		c := cfg
		c.Seed = cfg.Seed + uint64(k)
		r, err := NextRound(history, pairs, lam, c, h)
		if err != nil {
			return nil, nil, err
		}
		history = append(history, r.Stage())
		all = append(all, r.Curves)
	}
	models := make([]*lm.Model, 0, len(rounds))
	for _, st := range history[1:] {
		models = append(models, st.Model)
	}
	return models, all, nil
}

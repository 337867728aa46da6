package pref

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/track"
)

// NextRound runs one round of sequential alignment (SPO, §2.2) on top of a history of finished
// rounds: history[0] is the starting (SFT) model and history[k] the policy after round k. The new
// policy starts from, and is regularised towards, the last model of the history; each pair's offset
// is Σ_j λ_j·Δr̂_j over the finished rounds j = 1…len(history)−1, with round j's implicit reward
// r̂_j = β·log π_j/π_{j−1} (ImplicitRewardGaps). lambdas has one value per finished round; nil or all
// zeros is naive sequential DPO, and the first round (a history of one model) is plain DPO.
// Offsets already set on pairs are replaced.
func NextRound(history []*lm.Model, pairs []PairEx, lambdas []float64, cfg TrainConfig, hooks Hooks) (*RoundResult, error) {
	if len(history) == 0 {
		return nil, fmt.Errorf("pref: a round needs at least the starting model")
	}
	done := len(history) - 1
	if lambdas == nil {
		lambdas = make([]float64, done)
	}
	gaps := make([][]float64, 0, done)
	for j := 1; j <= done; j++ {
		if j-1 < len(lambdas) && lambdas[j-1] == 0 {
			gaps = append(gaps, make([]float64, len(pairs))) // skip the scoring: its weight is 0
			continue
		}
		g, err := ImplicitRewardGaps(history[j], history[j-1], cfg.Beta, pairs)
		if err != nil {
			return nil, fmt.Errorf("pref: implicit rewards of round %d: %w", j, err)
		}
		gaps = append(gaps, g)
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
	ref := history[done]
	policy, err := ref.Clone()
	if err != nil {
		return nil, err
	}
	curves, err := TrainPairs(policy, ref, withOff, cfg, hooks)
	if err != nil {
		return nil, fmt.Errorf("round %d: %w", done+1, err)
	}
	return &RoundResult{Policy: policy, Ref: ref, Pairs: withOff, Curves: curves}, nil
}

// RoundResult is a finished round: the new policy, the reference it was trained against, the pairs with
// the offsets used, and the curves of TrainPairs.
type RoundResult struct {
	Policy, Ref *lm.Model
	Pairs       []PairEx
	Curves      track.Curves
}

// Sequential aligns start on one preference dimension after another: rounds[k] holds dimension
// k+1's pairs, and every later round k weighs the implicit rewards of the rounds before it by
// lambdas[0…k−1] (one λ per dimension except the last; nil = naive sequential DPO). hooks(k) gives
// round k's callbacks. It returns the policy after each round and each round's curves.
func Sequential(start *lm.Model, rounds [][]PairEx, lambdas []float64, cfg TrainConfig, hooks func(round int) Hooks) ([]*lm.Model, []track.Curves, error) {
	if lambdas != nil && len(lambdas) < len(rounds)-1 {
		return nil, nil, fmt.Errorf("pref: %d λ values for %d rounds (need one per round but the last)", len(lambdas), len(rounds))
	}
	history := []*lm.Model{start}
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
		history = append(history, r.Policy)
		all = append(all, r.Curves)
	}
	return history[1:], all, nil
}

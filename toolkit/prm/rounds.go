package prm

import (
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/pref"
	"github.com/paperlab/paperlab/toolkit/track"
)

// RoundsConfig configures CoS's iterative DPO (Iterate).
type RoundsConfig struct {
	// Rounds of sample → score → pick pairs → DPO+RPO.
	Rounds int `json:"rounds"`
	// Samples traces of every prompt are drawn from the current policy each round (CoS: 16 at T = 1).
	Samples int `json:"samples"`
	// A prompt gives a pair (its best and worst finished sample by score) only when their scores
	// differ by more than GapThreshold [UNVERIFIED: CoS's t].
	GapThreshold float64 `json:"gap_threshold"`
	// Ref is "sft" (every round against the starting policy, CoS's "policy and reference from SFT")
	// or "previous" (against the previous round's policy).
	Ref string `json:"ref"`
	// Sample is the sampling of the round's traces (MaxNew, Temperature; Seed is set per round).
	Sample lm.SampleConfig `json:"sample"`
	// Train is the DPO+RPO training of one round (pref.TrainPairs; Seed is set per round).
	Train pref.TrainConfig `json:"train"`
	// Epochs > 0 sets each round's steps from its pairs: ⌈Epochs · pairs / Train.BatchSize⌉ (CoS: one
	// epoch per round), a learning-rate schedule (Train.Opt.TotalSteps > 0) stretched over them;
	// 0 keeps Train.Steps.
	Epochs float64 `json:"epochs,omitempty"`
	// Seed draws the rounds' samples and minibatches.
	Seed uint64 `json:"seed"`
}

// RoundHooks are what Iterate asks of its caller.
type RoundHooks struct {
	// Score returns the selection score of every generation (generation i answers prompt i mod n,
	// lm.Repeat's order): the verifier's outcome, or a PRM trace score.
	Score func(inputs [][]int32, gens []lm.Generation) ([]float64, error)
	// Eligible (optional) says which generations may be a pair's chosen side (e.g. only those whose
	// answer is right); nil: every finished one.
	Eligible func(inputs [][]int32, gens []lm.Generation) ([]bool, error)
	// BeforeRound (optional) runs before a round samples, with the policy as the previous round left
	// it (e.g. to re-train the scorer on the policy's current traces).
	BeforeRound func(round int, policy *lm.Model) error
	// Evaluate sees the policy after every round (optional); trained is false after a round without
	// pairs, which left the policy as it was.
	Evaluate func(round int, policy *lm.Model, trained bool) error
	// OnEval (optional) evaluates the policy during a round's DPO, at the steps Train.EvalEvery
	// (and DenseEvery) name, step 0 and the last included (pref.Hooks.OnEval).
	OnEval func(round, step int, policy *lm.Model) (map[string]float64, error)
	// Progress reports a round's DPO steps (optional; steps: how many the round runs).
	Progress func(round, steps int) track.Progress
}

// RoundStats is what one round of Iterate did: the pairs it trained on (0: it did not train) and their
// mean score gap.
type RoundStats struct {
	Round int     `json:"round"`
	Pairs int     `json:"pairs"`
	Gap   float64 `json:"gap"`
	Steps int     `json:"steps"`
}

// RoundSteps is the number of DPO steps of epochs passes over pairs in batches of batch: ⌈epochs ·
// pairs / batch⌉, at least 1 for a round with pairs.
func RoundSteps(epochs float64, pairs, batch int) int {
	if pairs == 0 || batch < 1 {
		return 0
	}
	return max(1, int(math.Ceil(epochs*float64(pairs)/float64(batch)-1e-9)))
}

// EpochTrain is tc for a round of epochs passes over pairs pairs (epochs ≤ 0: tc as it is): its
// steps from RoundSteps, and a decaying schedule (Opt.TotalSteps > 0) stretched over them.
func EpochTrain(tc pref.TrainConfig, epochs float64, pairs int) pref.TrainConfig {
	if epochs > 0 {
		tc.Steps = RoundSteps(epochs, pairs, tc.BatchSize)
		if tc.Opt.TotalSteps > 0 {
			tc.Opt.TotalSteps = tc.Steps
		}
	}
	return tc
}

// Iterate is CoS's loop, top to bottom: every round it samples Samples traces of each prompt from
// the policy, scores them (hooks.Score), pairs each prompt's best finished trace against its worst
// (PickPairs), trains the policy on the pairs with DPO+RPO against the reference, and evaluates it.
// A round without pairs leaves the policy as it is. policy is trained in place; start is the
// reference of Ref "sft".
func Iterate(policy, start *lm.Model, prompts [][]int32, cfg RoundsConfig, hooks RoundHooks) ([]RoundStats, error) {
	if cfg.Rounds < 1 || cfg.Samples < 2 || (cfg.Ref != "sft" && cfg.Ref != "previous") || hooks.Score == nil {
		return nil, fmt.Errorf("prm: iterate needs rounds ≥ 1, samples ≥ 2, ref sft or previous and a score (rounds %d, samples %d, ref %q)",
			cfg.Rounds, cfg.Samples, cfg.Ref)
	}
	var prev *lm.Model
	defer func() {
		if prev != nil {
			prev.Close()
		}
	}()
	var out []RoundStats
	for round := 1; round <= cfg.Rounds; round++ {
		if hooks.BeforeRound != nil {
			if err := hooks.BeforeRound(round, policy); err != nil {
				return nil, fmt.Errorf("round %d: %w", round, err)
			}
		}
		// 1. Sample.
		inputs := lm.Repeat(prompts, cfg.Samples)
		sc := cfg.Sample
		sc.Seed = cfg.Seed*1000 + uint64(round)
		gens, err := policy.Sample(inputs, sc)
		if err != nil {
			return nil, err
		}
		// 2. Score.
		scores, err := hooks.Score(inputs, gens)
		if err != nil {
			return nil, err
		}
		// 3. Pick pairs.
		finished := make([]bool, len(gens))
		for i, g := range gens {
			finished[i] = g.Finished
		}
		var eligible []bool
		if hooks.Eligible != nil {
			if eligible, err = hooks.Eligible(inputs, gens); err != nil {
				return nil, err
			}
		}
		picks, gaps := PickPairs(len(prompts), cfg.Samples, finished, eligible, scores, cfg.GapThreshold)
		out = append(out, RoundStats{Round: round, Pairs: len(picks)})
		if len(picks) == 0 {
			if hooks.Evaluate != nil {
				if err := hooks.Evaluate(round, policy, false); err != nil {
					return nil, err
				}
			}
			continue
		}
		pairs := make([]pref.PairEx, len(picks))
		for k, p := range picks {
			pairs[k] = pref.PairEx{Prompt: inputs[p[0]], Chosen: Body(gens[p[0]]), Rejected: Body(gens[p[1]])}
			out[len(out)-1].Gap += gaps[k] / float64(len(picks))
		}
		// 4. DPO+RPO against the reference.
		ref := start
		if cfg.Ref == "previous" {
			if prev != nil {
				prev.Close()
			}
			if prev, err = policy.Clone(); err != nil {
				return nil, err
			}
			ref = prev
		}
		tc := EpochTrain(cfg.Train, cfg.Epochs, len(pairs))
		tc.Seed = cfg.Seed*100 + uint64(round)
		out[len(out)-1].Steps = tc.Steps
		var progress track.Progress
		if hooks.Progress != nil {
			progress = hooks.Progress(round, tc.Steps)
		}
		ph := pref.Hooks{Progress: progress}
		if hooks.OnEval != nil {
			r := round
			ph.OnEval = func(p *lm.Model, step int) (map[string]float64, error) { return hooks.OnEval(r, step, p) }
		}
		if _, err := pref.TrainPairs(policy, ref, pairs, tc, ph); err != nil {
			return nil, err
		}
		// 5. Evaluate; repeat.
		if hooks.Evaluate != nil {
			if err := hooks.Evaluate(round, policy, true); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// PickPairs pairs, for each of n prompts with k samples each (sample r of prompt q at r·n + q), the
// best finished sample by score among those eligible to be chosen (eligible nil: all; first on ties)
// against the worst finished one (rejected), when their gap exceeds threshold; unfinished (cut-off)
// samples are neither. It returns the index pairs and their gaps, in prompt order.
func PickPairs(n, k int, finished, eligible []bool, scores []float64, threshold float64) (pairs [][2]int, gaps []float64) {
	for q := 0; q < n; q++ {
		best, worst := -1, -1
		for r := 0; r < k; r++ {
			i := r*n + q
			if !finished[i] {
				continue
			}
			if (eligible == nil || eligible[i]) && (best < 0 || scores[i] > scores[best]) {
				best = i
			}
			if worst < 0 || scores[i] < scores[worst] {
				worst = i
			}
		}
		if best < 0 || scores[best]-scores[worst] <= threshold {
			continue
		}
		pairs, gaps = append(pairs, [2]int{best, worst}), append(gaps, scores[best]-scores[worst])
	}
	return pairs, gaps
}

// Body is a finished generation without its EOS (an unfinished one whole).
func Body(g lm.Generation) []int32 {
	if g.Finished {
		return g.Tokens[:len(g.Tokens)-1]
	}
	return g.Tokens
}

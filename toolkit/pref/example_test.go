package pref_test

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/pref"
)

// Preference pairs written as text, one DPO round against a frozen copy, and the implicit-reward
// gaps β·[(log π − log π_ref)(chosen) − (…)(rejected)] it opens.
func ExampleTrainPairs() {
	tok, _ := lm.NewTokenizer("abcdefgh=")
	pairs, err := pref.TextPairs(tok, [][3]string{
		{"ab=", "ba", "aa"}, {"cd=", "dc", "cc"}, {"ef=", "fe", "ee"}, {"gh=", "hg", "gg"},
	})
	if err != nil {
		panic(err)
	}
	policy, err := lm.New(lm.ConfigR().For(tok), tok, 1)
	if err != nil {
		panic(err)
	}
	ref, _ := policy.Clone()
	cfg := pref.DefaultTrain(30)
	cfg.BatchSize, cfg.EvalEvery = 4, 0
	curves, err := pref.TrainPairs(policy, ref, pairs, cfg, pref.Hooks{})
	if err != nil {
		panic(err)
	}
	gaps, err := pref.ImplicitRewardGaps(policy, ref, cfg.Beta, pairs)
	if err != nil {
		panic(err)
	}
	positive := 0
	for _, g := range gaps {
		if g > 0 {
			positive++
		}
	}
	fmt.Printf("%d steps; chosen preferred on %d of %d pairs\n", len(curves["loss"].Y), positive, len(pairs))
	// Output: 30 steps; chosen preferred on 4 of 4 pairs
}

// After a DPO round, the implicit-reward gaps of training pairs and of pairs never trained on, drawn
// as one histogram (notebook 03's DPO section), with the share of each set the policy now prefers.
func ExampleGapFigure() {
	tok, err := lm.NewTokenizer("abcdefgh=")
	if err != nil {
		panic(err)
	}
	train, err := pref.TextPairs(tok, [][3]string{{"ab=", "ba", "aa"}, {"cd=", "dc", "cc"}, {"ef=", "fe", "ee"}})
	if err != nil {
		panic(err)
	}
	held, err := pref.TextPairs(tok, [][3]string{{"gh=", "hg", "gg"}})
	if err != nil {
		panic(err)
	}
	policy, err := lm.New(lm.ConfigR().For(tok), tok, 1)
	if err != nil {
		panic(err)
	}
	ref, err := policy.Clone()
	if err != nil {
		panic(err)
	}
	cfg := pref.DefaultTrain(30)
	cfg.BatchSize, cfg.EvalEvery = 3, 0
	if _, err := pref.TrainPairs(policy, ref, train, cfg, pref.Hooks{}); err != nil {
		panic(err)
	}
	f, positive, err := pref.GapFigure("DPO gaps", policy, ref, cfg.Beta,
		pref.GapSet{Name: "training pairs", Pairs: train}, pref.GapSet{Name: "held-out pairs", Pairs: held})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: training pairs preferred %.0f%%\n", f.Title, 100*positive[0])
	// Output: DPO gaps: training pairs preferred 100%
}

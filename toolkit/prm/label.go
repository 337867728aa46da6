package prm

import (
	"fmt"
	"slices"

	"github.com/paperlab/paperlab/toolkit/lm"
)

// MCLabels labels the tags of complete traces by Monte-Carlo rollouts (Math-Shepherd): for each step
// tag, k completions are sampled from the policy continuing the prefix that ends at that tag, and
// the label is the fraction whose answer is right (correct judges question i's full completion
// text); the last tag — the answer's — is labelled with the trace's own correctness. Hard labels are
// Hard(soft): good when any rollout reaches the right answer. All rollouts are one seeded
// lm.Model.Sample call, so the labels are a function of the policy, the traces and sc.Seed. cutOff is
// the fraction of rollouts that ended without EOS (counted as failures): a large one means MaxNew or
// the model's context is too short for the continuations — rows of one batch share its width, so the
// longest prompt-plus-prefix limits every row's room.
func MCLabels(policy *lm.Model, tag int32, prompts, completions [][]int32, correct func(i int, text string) bool, k int, sc lm.SampleConfig) (labels [][]float64, cutOff float64, err error) {
	if len(prompts) != len(completions) || k < 1 {
		return nil, 0, fmt.Errorf("prm: %d prompts, %d completions, k = %d", len(prompts), len(completions), k)
	}
	type ref struct{ trace, tag int }
	var inputs [][]int32
	var refs []ref
	labels = make([][]float64, len(completions))
	for i, c := range completions {
		tags := 0
		for j, t := range c {
			if t != tag {
				continue
			}
			tags++
			if j == len(c)-1 {
				break // the answer's tag
			}
			prefix := append(slices.Clone(prompts[i]), c[:j+1]...)
			for r := 0; r < k; r++ {
				inputs = append(inputs, prefix)
				refs = append(refs, ref{i, tags - 1})
			}
		}
		if tags == 0 || c[len(c)-1] != tag {
			return nil, 0, fmt.Errorf("prm: completion %d does not end with the tag (label complete traces only)", i)
		}
		labels[i] = make([]float64, tags)
		if correct(i, policy.Tok.Decode(c)) {
			labels[i][tags-1] = 1
		}
	}
	gens, err := policy.Sample(inputs, sc)
	if err != nil {
		return nil, 0, err
	}
	cut := 0
	for n, g := range gens {
		r := refs[n]
		if !g.Finished {
			cut++
			continue
		}
		full := append(slices.Clone(inputs[n][len(prompts[r.trace]):]), g.Tokens...)
		if correct(r.trace, policy.Tok.Decode(full)) {
			labels[r.trace][r.tag] += 1 / float64(k)
		}
	}
	if len(gens) > 0 {
		cutOff = float64(cut) / float64(len(gens))
	}
	return labels, cutOff, nil
}

// Hard turns soft labels into hard ones: 1 where any rollout succeeded.
func Hard(soft [][]float64) [][]float64 {
	out := make([][]float64, len(soft))
	for i, s := range soft {
		out[i] = make([]float64, len(s))
		for j, v := range s {
			if v > 0 {
				out[i][j] = 1
			}
		}
	}
	return out
}

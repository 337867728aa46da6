package lmtask_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/paperlab/paperlab/toolkit/lmtask"
)

// A task of your own — sort three digits — and its training and held-out prompts in one call.
func ExampleVerifiable_Sets() {
	sort3 := lmtask.Verifiable{
		Name: "sort3", Alphabet: "0123456789",
		Generate: func(r *rand.Rand) (string, string) {
			d := []byte{byte('0' + r.IntN(10)), byte('0' + r.IntN(10)), byte('0' + r.IntN(10))}
			s := slices.Clone(d)
			slices.Sort(s)
			return string(d), string(s)
		},
		Verify: func(prompt, completion string) bool {
			s := []byte(prompt)
			slices.Sort(s)
			return completion == string(s)
		},
	}
	_, train, held, err := sort3.Sets(200, 48)
	if err != nil {
		panic(err)
	}
	shared := 0
	for _, p := range held.Prompts {
		if train.PromptSet()[p] {
			shared++
		}
	}
	fmt.Println(train.NumPrompts(), held.NumPrompts(), shared, sort3.Verify(train.Prompts[0], train.Answers[0]))
	// Output: 200 48 0 true
}

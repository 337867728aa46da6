package lmtask_test

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/lmtask"
)

// A task with verifiable answers — sort three digits (lmtask.SortDigits; a Verifiable is two functions,
// easy to write for a task of your own) — and its training and held-out prompts in one call.
func ExampleVerifiable_Sets() {
	sort3 := lmtask.SortDigits(3)
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

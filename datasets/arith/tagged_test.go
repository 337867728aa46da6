package arith

import (
	"math/rand/v2"
	"testing"
)

func TestTaggedFormatAndVerifier(t *testing.T) {
	p := Problem{Start: 3, Ops: []string{"+", "*", "-"}, Operands: []int{4, 2, 5}, Hidden: -1, Modulus: 10, Trace: true}
	p.Steps = evaluate(p.Start, p.Ops, p.Operands, p.Modulus)
	p.Answer = p.Steps[2]
	if got := p.TaggedCompletion(); got != "7#4#9#;9#" {
		t.Fatalf("tagged completion %q", got)
	}
	for _, c := range []struct {
		text          string
		parsed, right bool
		steps         []bool
	}{
		{"7#4#9#;9#", true, true, []bool{true, true, true}},
		{"7#5#0#;0#", true, false, []bool{true, false, false}}, // a slip at step 2, continued correctly
		{"7#4#9#;8#", true, false, []bool{true, true, true}},   // the answer does not copy the last step
		{"7#4#", false, false, []bool{true, true}},             // cut off
		{"7#4#9#;9", false, false, []bool{true, true, true}},   // no final tag
		{"7#4#9;9#", false, false, []bool{true, true}},         // last step not tagged
		{"7#x#9#;9#", false, false, []bool{true, false, true}},
	} {
		v := VerifyTagged(p, c.text)
		if v.Parsed != c.parsed || v.Correct != c.right || len(v.StepCorrect) != len(c.steps) {
			t.Fatalf("%q: %+v", c.text, v)
		}
		for i := range c.steps {
			if v.StepCorrect[i] != c.steps[i] {
				t.Fatalf("%q: step %d judged %v", c.text, i, v.StepCorrect[i])
			}
		}
	}
	// Noisy demonstrations: a chain consistent from each slip, the answer its last step.
	r := rand.New(rand.NewPCG(1, 2))
	slips := 0
	for i := 0; i < 2000; i++ {
		v := VerifyTagged(p, p.NoisyTaggedCompletion(r, 0.2))
		if !v.Parsed {
			t.Fatal("a noisy demonstration does not parse")
		}
		for _, ok := range v.StepCorrect {
			if !ok {
				slips++
				break
			}
		}
	}
	if f := float64(slips) / 2000; f < 0.4 || f > 0.57 { // 1 − 0.8³ = 0.488
		t.Fatalf("%.3f of demonstrations have a wrong step, want ≈ 0.49", f)
	}
}

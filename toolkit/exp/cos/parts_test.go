package cos

import (
	"testing"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// verifyFormat reads a generation in Table 4's formats: free-form "s1,s2;a" judged step by step,
// answer-only "a"; a tagged trace or an unfinished generation is not parsed.
func TestVerifyFormat(t *testing.T) {
	tok := Tokenizer()
	s := &setup{tok: tok}
	gen := func(text string, finished bool) lm.Generation {
		ids, err := tok.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		if finished {
			ids = append(ids, lm.EOS)
		}
		return lm.Generation{Tokens: ids, Finished: finished}
	}
	// (3 + 4) − 5 = 2 (mod 10), answer 2 mod 4 = 2.
	p := arith.Problem{Steps: []int{7, 2}, Answer: 2, Modulus: 10, Trace: true, AnswerMod: 4}
	for _, c := range []struct {
		text            string
		finished, trace bool
		parsed, correct bool
		steps           []bool
	}{
		{"7,2;2", true, true, true, true, []bool{true, true}},
		{"7,3;3", true, true, true, false, []bool{true, false}},
		{"7,2;2", false, true, false, false, nil},
		{"2", true, false, true, true, nil},
		{"1", true, false, true, false, nil},
		{"7#2#;2#", true, true, false, false, nil},
	} {
		v := s.verifyFormat(p, gen(c.text, c.finished), c.trace)
		if v.Parsed != c.parsed || v.Correct != c.correct || len(v.StepCorrect) != len(c.steps) {
			t.Errorf("%q (finished %v, trace %v): %+v", c.text, c.finished, c.trace, v)
			continue
		}
		for i := range c.steps {
			if v.StepCorrect[i] != c.steps[i] {
				t.Errorf("%q: step %d right %v, want %v", c.text, i, v.StepCorrect[i], c.steps[i])
			}
		}
	}
}

// Every part is registered, and the vision variant runs the main part only.
func TestPartsRegistered(t *testing.T) {
	e, err := exp.Lookup("cos")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Parts {
		if err := e.CheckPart(p); err != nil {
			t.Error(err)
		}
	}
	v := VisionConfigFor(exp.Default)
	if len(v.PRMSizes) != 0 || v.GRPO.Steps != 0 || v.StepDPON != 0 || v.Reasoning {
		t.Fatalf("cos-vision configures ablations: sizes %v, grpo steps %d, step-dpo n %d, reasoning %v", v.PRMSizes, v.GRPO.Steps, v.StepDPON, v.Reasoning)
	}
	c := ConfigFor(exp.Default)
	if len(c.PRMSizes) != 3 || c.GRPO.Steps == 0 || c.StepDPON < 2 || !c.Reasoning {
		t.Fatalf("cos lacks an ablation: %+v", c)
	}
}

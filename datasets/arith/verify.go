package arith

import (
	"strconv"
	"strings"
)

// Verdict is the verifier's judgement of one completion.
type Verdict struct {
	// Parsed is false when the completion is not in the expected format; then Correct is false.
	Parsed bool
	// Answer is the final answer as written in the completion ("" when unparsed).
	Answer string
	// Correct: the final answer equals the gold answer.
	Correct bool
	// StepCorrect[i] says whether the i-th written sub-result equals the gold sub-result (trace
	// completions only; nil otherwise). Steps beyond the gold count are wrong.
	StepCorrect []bool
}

// Reward is the verifiable binary reward: 1 for a correct final answer, else 0.
func (v Verdict) Reward() float64 {
	if v.Correct {
		return 1
	}
	return 0
}

// Verify checks a completion (without any end-of-sequence marker) against the problem's gold trace.
func Verify(p Problem, completion string) Verdict {
	var steps []string
	answer := completion
	if p.Trace {
		head, ans, ok := strings.Cut(completion, ";")
		if !ok {
			return Verdict{}
		}
		answer = ans
		if head != "" {
			steps = strings.Split(head, ",")
		}
	}
	if !isNumber(answer) {
		return Verdict{}
	}
	v := Verdict{Parsed: true, Answer: answer, Correct: answer == p.FormatAnswer(p.Answer)}
	if p.Trace {
		v.StepCorrect = make([]bool, len(steps))
		for i, s := range steps {
			v.StepCorrect[i] = i < len(p.Steps) && isNumber(s) && s == strconv.Itoa(p.Steps[i])
		}
	}
	return v
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

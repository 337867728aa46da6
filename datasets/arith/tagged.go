package arith

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The chain-of-step format of the CoS task (Math-Shepherd's convention): every step's sub-result is
// followed by the step tag, then the answer marker, the answer and a last tag:
//
//	prompt "3+4*2-5="   completion "7#4#9#;9#"
//
// A process reward model reads its judgement of each step at the tag after it. The tag and the
// marker are the task's own symbols (TaggedAlphabet), not tokenizer constants.
const (
	StepTag      = '#'
	AnswerMarker = ';'
)

// TaggedAlphabet is the alphabet of the tagged task: Alphabet plus the step tag.
const TaggedAlphabet = Alphabet + string(StepTag)

// TaggedCompletion is the gold completion in the tagged format.
func (p Problem) TaggedCompletion() string { return tagged(p.Steps, p.FormatAnswer(p.Answer)) }

// NoisyTaggedCompletion is a tagged demonstration with arithmetic slips: each step slips to a
// uniformly drawn wrong value with probability stepNoise and later steps continue from it
// (NoisyCompletion's rule), so the answer is the one the written chain ends at: SlippedTaggedCompletion
// with uniform slips only. Needs a modulus.
func (p Problem) NoisyTaggedCompletion(r *rand.Rand, stepNoise float64) string {
	return p.SlippedTaggedCompletion(r, Slips{Uniform: stepNoise})
}

func tagged(steps []int, answer string) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(strconv.Itoa(s))
		b.WriteRune(StepTag)
	}
	b.WriteRune(AnswerMarker)
	b.WriteString(answer)
	b.WriteRune(StepTag)
	return b.String()
}

// Slips are the arithmetic errors of tagged demonstrations (SlippedTaggedCompletion).
type Slips struct {
	// Uniform: each step slips to a uniformly drawn wrong value with this probability (the errors
	// of NoisyTaggedCompletion, which independent samples do not repeat: a majority vote washes them
	// out).
	Uniform float64 `json:"uniform"`
	// Carry: a step whose result leaves [0, Modulus) before the reduction — a carry (a sum or
	// product ≥ Modulus) or a borrow (a difference < 0) — is written one too high after a carry and
	// one too low after a borrow with this probability: a systematic error a model learns as a rule
	// and repeats in every sample, so a vote cannot wash it out. [UNVERIFIED] PaperLab's error model.
	Carry float64 `json:"carry"`
	// Distract: a step that multiplies by one of DistractOperands, shown in the prompt, writes the
	// result of adding that operand instead with this probability (checked before the other slips,
	// which apply to the rest): a systematic confusion tied to what the prompt shows, so a model
	// trained on it answers such prompts wrongly when the distractor is its most likely value
	// (Distract above the right value's share, (1 − Distract)·(1 − Uniform)), while a sample is still
	// often right. A step whose operand is hidden behind '?' is never distracted. [UNVERIFIED]
	// PaperLab's error model (CAPO's "systematic errors" task variant).
	Distract         float64 `json:"distract,omitempty"`
	DistractOperands []int   `json:"distract_operands,omitempty"`
}

// distracted reports whether step i of p is one a Distract slip can hit: a multiplication by one
// of s.DistractOperands whose operand the prompt shows.
func (p Problem) distracted(i int, s Slips) bool {
	return s.Distract > 0 && p.Ops[i] == "*" && i != p.Hidden && slices.Contains(s.DistractOperands, p.Operands[i])
}

// Distracted reports whether a demonstration with slips s can write a distractor on any step of p
// (the prompts the "systematic errors" task makes hard).
func (p Problem) Distracted(s Slips) bool {
	for i := range p.Ops {
		if p.distracted(i, s) {
			return true
		}
	}
	return false
}

// SlippedTaggedCompletion is a tagged demonstration with both kinds of slip (Slips): per step, a
// carry or borrow slip first (where the step has one), else a uniform slip; later steps continue
// from the written value, and the answer is the one the written chain ends at (AnswerOf). With
// Carry 0 it is NoisyTaggedCompletion. Needs a modulus.
func (p Problem) SlippedTaggedCompletion(r *rand.Rand, s Slips) string {
	steps := p.slipSteps(r, s)
	return tagged(steps, p.FormatAnswer(p.AnswerOf(steps[len(steps)-1])))
}

// slipSteps is the chain of sub-results a demonstration with slips s writes: per step a carry or
// borrow slip first (where the step has one), else a uniform slip, each later step computed from
// the written value. A draw happens only for a slip kind that is on (a carry slip only on a step
// with a carry, a distractor only on a step it can hit), so uniform-only slips draw exactly what
// they drew before carry and distractor slips existed.
func (p Problem) slipSteps(r *rand.Rand, s Slips) []int {
	steps := make([]int, len(p.Ops))
	v := p.Start
	for i, op := range p.Ops {
		prev := v
		raw := apply(v, op, p.Operands[i], 0)
		v = apply(v, op, p.Operands[i], p.Modulus)
		switch carry := p.Modulus >= 2 && (raw >= p.Modulus || raw < 0); {
		case p.distracted(i, s) && r.Float64() < s.Distract:
			v = apply(prev, "+", p.Operands[i], p.Modulus)
		case carry && s.Carry > 0 && r.Float64() < s.Carry:
			if raw < 0 {
				v = (v + p.Modulus - 1) % p.Modulus
			} else {
				v = (v + 1) % p.Modulus
			}
		case p.Modulus >= 2 && s.Uniform > 0 && r.Float64() < s.Uniform:
			v = (v + 1 + r.IntN(p.Modulus-1)) % p.Modulus
		}
		steps[i] = v
	}
	return steps
}

// TaggedVerdict is the verifier's judgement of a tagged completion.
type TaggedVerdict struct {
	// Parsed: the completion is steps each closed by a tag, the marker, a number and a final tag.
	Parsed bool
	// Steps are the written sub-results (as text), Answer the written answer ("" when unparsed).
	Steps  []string
	Answer string
	// StepCorrect[i]: step i equals the gold sub-result i (so every step after a slip is wrong,
	// even when it computes correctly from the slipped value); Correct: the answer is the gold one;
	// ChainCorrect: the answer and every step are right, with as many steps as the gold chain (on
	// the lossy task a wrong chain can still have the right answer).
	StepCorrect  []bool
	Correct      bool
	ChainCorrect bool
}

// VerifyTagged checks a tagged completion against the problem. A completion that is cut off after
// some tagged steps still reports those steps (Parsed false).
func VerifyTagged(p Problem, completion string) TaggedVerdict {
	var v TaggedVerdict
	head, tail, hasAnswer := strings.Cut(completion, string(AnswerMarker))
	parts := strings.Split(head, string(StepTag))
	complete := parts[len(parts)-1] == "" // every step closed by a tag
	for _, s := range parts[:len(parts)-1] {
		v.Steps = append(v.Steps, s)
		i := len(v.Steps) - 1
		v.StepCorrect = append(v.StepCorrect, i < len(p.Steps) && isNumber(s) && s == strconv.Itoa(p.Steps[i]))
	}
	if !hasAnswer || !complete {
		return v
	}
	ans, ok := strings.CutSuffix(tail, string(StepTag))
	if !ok || !isNumber(ans) || strings.ContainsRune(ans, StepTag) {
		return v
	}
	for _, s := range v.Steps {
		if !isNumber(s) {
			return v
		}
	}
	v.Parsed, v.Answer = true, ans
	v.Correct = ans == p.FormatAnswer(p.Answer)
	v.ChainCorrect = v.Correct && len(v.StepCorrect) == len(p.Steps) && !slices.Contains(v.StepCorrect, false)
	return v
}

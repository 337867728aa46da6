// Package arith generates the synthetic arithmetic-reasoning problems shared by PaperLab's LLM
// reproductions (CAPO/GRPO, SPO, CoS), verifies answers and step traces, and reads and writes them as
// JSONL.
//
// A problem is a chain of integer operations evaluated left to right, optionally modulo M:
//
//	prompt      "3+4*2-?="        start 3, then +4, *2, −(hidden)
//	completion  "7,4,1;1"          the sub-result after each step, then ';' and the answer
//
// Each step is a checkable sub-result. An "underdetermined" problem hides one operand behind '?': its
// gold answer is computed with the hidden value, which the prompt does not reveal, so a model can only
// guess among the possible values. A calibrated model should be unsure on those; an overconfident one
// collapses onto one guess. That mixture is what CAPO's overconfidence probe needs
// (toolkit/exp/capo/README.md).
package arith

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Config sets the shape and difficulty of the generated problems.
type Config struct {
	// MinSteps and MaxSteps bound the number of operations per problem (uniform in between).
	MinSteps int `json:"min_steps"`
	MaxSteps int `json:"max_steps"`
	// Modulus M: every sub-result is reduced mod M (into [0, M)). 0 means plain integers.
	Modulus int `json:"modulus"`
	// OperandMax: the start value and operands are drawn uniformly from [0, OperandMax].
	OperandMax int `json:"operand_max"`
	// Ops lists the operations to draw from, a subset of "+-*".
	Ops string `json:"ops"`
	// UnderdeterminedFrac is the fraction of problems with one operand hidden behind '?'.
	UnderdeterminedFrac float64 `json:"underdetermined_frac"`
	// HiddenModeProb > 0 skews the hidden operand: it is HiddenMode with this probability, else
	// uniform over the other values of [0, OperandMax]. A model can then learn the modal guess and
	// be right that often on hidden prompts — room for a policy to collapse onto a confident wrong
	// guess the rest of the time. 0: the hidden operand is drawn like any other (uniform).
	HiddenMode     int     `json:"hidden_mode,omitempty"`
	HiddenModeProb float64 `json:"hidden_mode_prob,omitempty"`
	// Trace: when true the completion lists every step's sub-result before the answer; when false
	// the completion is the answer alone.
	Trace bool `json:"trace"`
	// ReverseAnswer writes the answer's digits in reverse (least significant first), which makes
	// multi-digit addition learnable left to right by a tiny transformer.
	ReverseAnswer bool `json:"reverse_answer"`
	// AnswerMod ≥ 2 makes the answer a lossy function of the chain: the last sub-result mod
	// AnswerMod, so a chain with a wrong step often still ends at the right answer (CoS's
	// multiple-choice benchmarks, where right answers after wrong reasoning are common). 0: the answer
	// is the last sub-result.
	AnswerMod int `json:"answer_mod,omitempty"`
}

// Default is the configuration of the shared CAPO task: 2–4 operations mod 10 on single digits,
// with a step trace and 30% underdetermined problems.
func Default() Config {
	return Config{MinSteps: 2, MaxSteps: 4, Modulus: 10, OperandMax: 9, Ops: "+-*", UnderdeterminedFrac: 0.3, Trace: true}
}

// SkewedHidden is Default with a skewed hidden operand: 7 with probability 0.4 (CAPO's default task
// since 2026-12-01; [UNVERIFIED] the mode 7 — coprime to the modulus, so multiplying by it loses no
// information — and the probability 0.4 are PaperLab's choices).
func SkewedHidden() Config {
	c := Default()
	c.HiddenMode, c.HiddenModeProb = 7, 0.4
	return c
}

// Addition is the tiny-LM benchmark task R: a+b for 2-digit a, b, answer digits reversed, no trace.
func Addition() Config {
	return Config{MinSteps: 1, MaxSteps: 1, Modulus: 0, OperandMax: 99, Ops: "+", Trace: false, ReverseAnswer: true}
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.MinSteps < 1:
		return fmt.Errorf("arith config: min_steps = %d, need ≥ 1", c.MinSteps)
	case c.MaxSteps < c.MinSteps:
		return fmt.Errorf("arith config: max_steps = %d < min_steps = %d", c.MaxSteps, c.MinSteps)
	case c.Modulus < 0 || c.Modulus == 1:
		return fmt.Errorf("arith config: modulus = %d, need 0 (none) or ≥ 2", c.Modulus)
	case c.OperandMax < 1:
		return fmt.Errorf("arith config: operand_max = %d, need ≥ 1", c.OperandMax)
	case c.Ops == "" || strings.Trim(c.Ops, "+-*") != "":
		return fmt.Errorf("arith config: ops = %q, need a non-empty subset of \"+-*\"", c.Ops)
	case c.UnderdeterminedFrac < 0 || c.UnderdeterminedFrac > 1:
		return fmt.Errorf("arith config: underdetermined_frac = %v, need a value in [0,1]", c.UnderdeterminedFrac)
	case c.HiddenModeProb < 0 || c.HiddenModeProb > 1:
		return fmt.Errorf("arith config: hidden_mode_prob = %v, need a value in [0,1]", c.HiddenModeProb)
	case c.HiddenModeProb > 0 && (c.HiddenMode < 0 || c.HiddenMode > c.OperandMax):
		return fmt.Errorf("arith config: hidden_mode = %d outside the operands' range [0, %d]", c.HiddenMode, c.OperandMax)
	case c.AnswerMod < 0 || c.AnswerMod == 1 || (c.AnswerMod > 0 && (c.Modulus == 0 || c.AnswerMod >= c.Modulus)):
		return fmt.Errorf("arith config: answer_mod = %d, need 0 (none) or 2 ≤ answer_mod < modulus (%d)", c.AnswerMod, c.Modulus)
	}
	return nil
}

// Alphabet is every character a prompt or completion can contain; tokenizers build on it.
const Alphabet = "0123456789+-*=?,;"

// Problem is one generated problem with its gold trace.
type Problem struct {
	ID int `json:"id"`
	// Prompt is what the model sees, ending in '='.
	Prompt string `json:"prompt"`
	// Start is the first value; Ops[i] and Operands[i] form step i.
	Start    int      `json:"start"`
	Ops      []string `json:"ops"`
	Operands []int    `json:"operands"`
	// Hidden is the index in Operands of the operand shown as '?', or -1.
	Hidden int `json:"hidden"`
	// Steps are the gold sub-results after each operation; the last one is the answer.
	Steps  []int `json:"steps"`
	Answer int   `json:"answer"`
	// Modulus the problem was generated with (0: none), and the completion format.
	Modulus       int  `json:"modulus"`
	Trace         bool `json:"trace"`
	ReverseAnswer bool `json:"reverse_answer"`
	// AnswerMod ≥ 2: the answer is the last sub-result mod AnswerMod (Config.AnswerMod).
	AnswerMod int `json:"answer_mod,omitempty"`
}

// AnswerOf is the answer a chain whose last sub-result is last ends at: last itself, or last mod
// AnswerMod on the lossy task.
func (p Problem) AnswerOf(last int) int {
	if p.AnswerMod >= 2 {
		return ((last % p.AnswerMod) + p.AnswerMod) % p.AnswerMod
	}
	return last
}

// Underdetermined reports whether the answer cannot be derived from the prompt.
func (p Problem) Underdetermined() bool { return p.Hidden >= 0 }

// apply computes a op b, reduced modulo m when m > 0.
func apply(a int, op string, b, m int) int {
	var r int
	switch op {
	case "+":
		r = a + b
	case "-":
		r = a - b
	case "*":
		r = a * b
	}
	if m > 0 {
		r %= m
		if r < 0 {
			r += m
		}
	}
	return r
}

func evaluate(start int, ops []string, operands []int, m int) []int {
	steps := make([]int, len(ops))
	v := start
	for i, op := range ops {
		v = apply(v, op, operands[i], m)
		steps[i] = v
	}
	return steps
}

func reverse(s string) string {
	r := []byte(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// FormatAnswer renders an answer as it appears in a completion.
func (p Problem) FormatAnswer(v int) string {
	s := strconv.Itoa(v)
	if p.ReverseAnswer {
		if v < 0 {
			return "-" + reverse(s[1:])
		}
		return reverse(s)
	}
	return s
}

func renderPrompt(start int, ops []string, operands []int, hidden int) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(start))
	for i, op := range ops {
		b.WriteString(op)
		if i == hidden {
			b.WriteByte('?')
		} else {
			b.WriteString(strconv.Itoa(operands[i]))
		}
	}
	b.WriteByte('=')
	return b.String()
}

// Completion is the gold completion: "s1,s2,…;answer" with a trace, else the answer alone.
func (p Problem) Completion() string {
	ans := p.FormatAnswer(p.Answer)
	if !p.Trace {
		return ans
	}
	parts := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, ",") + ";" + ans
}

// Generate draws n problems from cfg with a seeded generator: the same (cfg, seed, n) always gives the
// same problems. IDs run from firstID.
func Generate(cfg Config, seed uint64, n, firstID int) ([]Problem, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("arith: n = %d", n)
	}
	r := rand.New(rand.NewPCG(seed, 0x61726974 /* "arit" */))
	out := make([]Problem, n)
	for k := range out {
		steps := cfg.MinSteps + r.IntN(cfg.MaxSteps-cfg.MinSteps+1)
		p := Problem{ID: firstID + k, Start: r.IntN(cfg.OperandMax + 1), Hidden: -1,
			Modulus: cfg.Modulus, Trace: cfg.Trace, ReverseAnswer: cfg.ReverseAnswer, AnswerMod: cfg.AnswerMod}
		for i := 0; i < steps; i++ {
			p.Ops = append(p.Ops, string(cfg.Ops[r.IntN(len(cfg.Ops))]))
			p.Operands = append(p.Operands, r.IntN(cfg.OperandMax+1))
		}
		if r.Float64() < cfg.UnderdeterminedFrac {
			p.Hidden = r.IntN(steps)
			if cfg.HiddenModeProb > 0 {
				// Draws only for a skewed task, so the uniform task's problems stay as they were.
				if r.Float64() < cfg.HiddenModeProb {
					p.Operands[p.Hidden] = cfg.HiddenMode
				} else {
					v := r.IntN(cfg.OperandMax) // one of the OperandMax other values
					if v >= cfg.HiddenMode {
						v++
					}
					p.Operands[p.Hidden] = v
				}
			}
		}
		p.Steps = evaluate(p.Start, p.Ops, p.Operands, p.Modulus)
		p.Answer = p.AnswerOf(p.Steps[len(p.Steps)-1])
		p.Prompt = renderPrompt(p.Start, p.Ops, p.Operands, p.Hidden)
		out[k] = p
	}
	return out, nil
}

// Check verifies that a problem is internally consistent: prompt, steps and answer agree with its
// start, operations and operands. Errors name the field.
func (p Problem) Check() error {
	if len(p.Ops) == 0 {
		return errors.New("field ops: empty")
	}
	if len(p.Operands) != len(p.Ops) {
		return fmt.Errorf("field operands: %d operands for %d ops", len(p.Operands), len(p.Ops))
	}
	for i, op := range p.Ops {
		if op != "+" && op != "-" && op != "*" {
			return fmt.Errorf("field ops: ops[%d] = %q, want one of + - *", i, op)
		}
	}
	if p.Hidden < -1 || p.Hidden >= len(p.Ops) {
		return fmt.Errorf("field hidden: %d is not -1 or an operand index below %d", p.Hidden, len(p.Ops))
	}
	if p.Modulus < 0 || p.Modulus == 1 {
		return fmt.Errorf("field modulus: %d", p.Modulus)
	}
	if p.AnswerMod < 0 || p.AnswerMod == 1 {
		return fmt.Errorf("field answer_mod: %d", p.AnswerMod)
	}
	if want := renderPrompt(p.Start, p.Ops, p.Operands, p.Hidden); p.Prompt != want {
		return fmt.Errorf("field prompt: %q does not match start/ops/operands (%q)", p.Prompt, want)
	}
	want := evaluate(p.Start, p.Ops, p.Operands, p.Modulus)
	if len(p.Steps) != len(want) {
		return fmt.Errorf("field steps: %d steps for %d ops", len(p.Steps), len(want))
	}
	for i := range want {
		if p.Steps[i] != want[i] {
			return fmt.Errorf("field steps: steps[%d] = %d, want %d", i, p.Steps[i], want[i])
		}
	}
	if a := p.AnswerOf(want[len(want)-1]); p.Answer != a {
		return fmt.Errorf("field answer: %d, want %d", p.Answer, a)
	}
	return nil
}

// NoisyCompletion is a demonstration with arithmetic slips: each step's sub-result is, with
// probability stepNoise, replaced by a uniformly drawn wrong value, and later steps continue from
// the slipped value (a consistent chain with an error in it, so the answer is wrong). A model
// trained on such demonstrations learns to slip at that rate — a warm start that is uncertain where
// it errs, i.e. roughly calibrated (the CAPO reproduction's plan: "SFT on noisy demonstrations"). Hidden
// operands keep their true value, as in the gold completion. Needs a modulus (to draw wrong values).
func (p Problem) NoisyCompletion(r *rand.Rand, stepNoise float64) string {
	return p.SlippedCompletion(r, Slips{Uniform: stepNoise})
}

// SlippedCompletion is a demonstration (Completion's format) with slips s: per step a distractor,
// carry or uniform slip (Slips), later steps continuing from the written value and the answer the
// one the written chain ends at. With only Uniform set it is NoisyCompletion. Needs a modulus.
func (p Problem) SlippedCompletion(r *rand.Rand, s Slips) string {
	if p.Modulus < 2 || (s.Uniform <= 0 && s.Carry <= 0 && s.Distract <= 0) {
		return p.Completion()
	}
	q := p
	q.Steps = p.slipSteps(r, s)
	q.Answer = p.AnswerOf(q.Steps[len(q.Steps)-1])
	return q.Completion()
}

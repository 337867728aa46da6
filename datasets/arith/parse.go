package arith

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsePrompt reads a prompt as Generate renders it ("3+4*2-?=": a start value, then operations each
// with an operand or '?', then '=') into a Problem with cfg's modulus and completion format. When no
// operand is hidden, its steps and answer are computed; when one is, Hidden is its index, its operand
// is 0 and Steps and Answer are unknown (nil, 0): the caller supplies the gold answer. Errors name the
// character position.
func ParsePrompt(prompt string, cfg Config) (Problem, error) {
	p := Problem{Prompt: prompt, Hidden: -1, Modulus: cfg.Modulus, Trace: cfg.Trace, ReverseAnswer: cfg.ReverseAnswer}
	body, ok := strings.CutSuffix(prompt, "=")
	if !ok {
		return Problem{}, fmt.Errorf("prompt %q: must end with '='", prompt)
	}
	pos := 0
	number := func(allowHidden bool) (int, bool, error) {
		start := pos
		if allowHidden && pos < len(body) && body[pos] == '?' {
			pos++
			return 0, true, nil
		}
		for pos < len(body) && body[pos] >= '0' && body[pos] <= '9' {
			pos++
		}
		if pos == start {
			return 0, false, fmt.Errorf("prompt %q: position %d: want a number", prompt, start+1)
		}
		v, err := strconv.Atoi(body[start:pos])
		return v, false, err
	}
	v, _, err := number(false)
	if err != nil {
		return Problem{}, err
	}
	p.Start = v
	for pos < len(body) {
		op := body[pos]
		if !strings.ContainsRune("+-*", rune(op)) {
			return Problem{}, fmt.Errorf("prompt %q: position %d: %q is not an operation (+ - *)", prompt, pos+1, op)
		}
		pos++
		v, hidden, err := number(true)
		if err != nil {
			return Problem{}, err
		}
		if hidden {
			if p.Hidden >= 0 {
				return Problem{}, fmt.Errorf("prompt %q: more than one hidden operand", prompt)
			}
			p.Hidden = len(p.Ops)
		}
		p.Ops, p.Operands = append(p.Ops, string(op)), append(p.Operands, v)
	}
	if len(p.Ops) == 0 {
		return Problem{}, fmt.Errorf("prompt %q: no operation", prompt)
	}
	if p.Hidden < 0 {
		p.Steps = evaluate(p.Start, p.Ops, p.Operands, p.Modulus)
		p.Answer = p.Steps[len(p.Steps)-1]
	}
	return p, nil
}

package arith

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

// Every statement character has a glyph; a statement is always drawn the same way, two statements
// differently, and the noise leaves each glyph closer to its own clean form than to any other.
func TestRenderStatement(t *testing.T) {
	a, err := RenderStatement("3+4*2-5")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RenderStatement("3+4*2-5")
	c, _ := RenderStatement("3+4*2-6")
	if len(a) != 7 || len(a[0]) != GlyphPixels {
		t.Fatalf("%d glyphs of %d pixels", len(a), len(a[0]))
	}
	for i := range a {
		for k := range a[i] {
			if a[i][k] != b[i][k] {
				t.Fatal("the same statement drawn twice differs")
			}
		}
	}
	if a[0][0] == c[0][0] && a[1][3] == c[1][3] {
		t.Fatal("two statements drawn with the same noise")
	}
	dist := func(x, y []float32) (d float64) {
		for k := range x {
			d += float64((x[k] - y[k]) * (x[k] - y[k]))
		}
		return d
	}
	// Nearest-clean-glyph reading over many statements: mostly right, not always (5 and 6, or 8, 9
	// and 0, differ by one pixel, so the noise makes the picture a real reading task).
	chars := "0123456789+-*"
	r := rand.New(rand.NewPCG(1, 2))
	var right, total float64
	for n := 0; n < 2000; n++ {
		st := make([]byte, 7)
		for i := range st {
			st[i] = chars[r.IntN(len(chars))]
		}
		px, err := RenderStatement(string(st))
		if err != nil {
			t.Fatal(err)
		}
		for i, ch := range string(st) {
			best, bd := rune(0), math.Inf(1)
			for _, other := range chars {
				g, _ := Glyph(other)
				if d := dist(px[i], g); d < bd {
					best, bd = other, d
				}
			}
			total++
			if best == ch {
				right++
			}
		}
	}
	if acc := right / total; acc < 0.95 || acc > 0.999 {
		t.Errorf("nearest-glyph reading accuracy %.4f, want a noisy but readable picture (0.95–0.999)", acc)
	} else {
		t.Logf("nearest-glyph reading accuracy %.4f", acc)
	}
	if _, err := RenderStatement("1=2"); err == nil {
		t.Error("'=' drawn: it is not part of a statement")
	}
}

// On the lossy task the answer is the last sub-result mod AnswerMod: a chain with a wrong step can
// end at the right answer — Correct without ChainCorrect — and the gold chain is both.
func TestLossyAnswerVsChain(t *testing.T) {
	cfg := Default()
	cfg.UnderdeterminedFrac, cfg.AnswerMod = 0, 2
	ps, err := Generate(cfg, 3, 400, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	rightAnswers, rightWithWrongStep := 0, 0
	for _, p := range ps {
		if err := p.Check(); err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if p.Answer != p.Steps[len(p.Steps)-1]%2 {
			t.Fatalf("%s: answer %d, last step %d", p.Prompt, p.Answer, p.Steps[len(p.Steps)-1])
		}
		if g := VerifyTagged(p, p.TaggedCompletion()); !g.Correct || !g.ChainCorrect {
			t.Fatalf("%s: the gold chain %q reads %+v", p.Prompt, p.TaggedCompletion(), g)
		}
		v := VerifyTagged(p, p.SlippedTaggedCompletion(r, Slips{Uniform: 0.2}))
		if v.ChainCorrect && slices.Contains(v.StepCorrect, false) {
			t.Fatalf("%s: a chain with a wrong step reads chain-correct", p.Prompt)
		}
		if v.Correct {
			rightAnswers++
			if !v.ChainCorrect {
				rightWithWrongStep++
			}
		}
	}
	// Uniform slips at 0.2 over 2–4 steps: about half the chains slip, and about 4/9 of those end at
	// the right parity — well above the 15 % of right-answer traces with a wrong step the CoS room check asks.
	if f := float64(rightWithWrongStep) / float64(rightAnswers); f < 0.15 {
		t.Errorf("%d of %d right answers come after a wrong step (%.2f)", rightWithWrongStep, rightAnswers, f)
	}
	// The plain task: the answer is the last step, so a wrong last step is a wrong answer.
	p := ps[0]
	p.AnswerMod = 0
	p.Answer = p.Steps[len(p.Steps)-1]
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	q := ps[0]
	q.Answer = 1 - q.Answer
	if err := q.Check(); err == nil || !strings.Contains(err.Error(), "field answer") {
		t.Errorf("a wrong lossy answer passed Check: %v", err)
	}
	bad := Default()
	for _, m := range []int{1, 10, -2} {
		bad.AnswerMod = m
		if err := bad.Validate(); err == nil {
			t.Errorf("answer_mod %d accepted with modulus 10", m)
		}
	}
}

// Carry slips are systematic: every step with a carry (or borrow) is written one off in its
// direction, every other step exactly, so all samples of a problem agree on the same wrong chain —
// a majority vote cannot fix it. With Carry 0 the slips are NoisyTaggedCompletion's draw for draw.
func TestSystematicCarrySlips(t *testing.T) {
	cfg := Default()
	cfg.UnderdeterminedFrac = 0
	ps, err := Generate(cfg, 5, 300, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(6, 6))
	carries := 0
	for _, p := range ps {
		a := p.SlippedTaggedCompletion(r, Slips{Carry: 1})
		if b := p.SlippedTaggedCompletion(r, Slips{Carry: 1}); a != b {
			t.Fatalf("%s: two samples %q and %q differ under a systematic slip", p.Prompt, a, b)
		}
		v := VerifyTagged(p, a)
		// Replay the rule: from the written value, a carry step is +1, a borrow step −1.
		x := p.Start
		for i, op := range p.Ops {
			raw := apply(x, op, p.Operands[i], 0)
			x = apply(x, op, p.Operands[i], 10)
			switch {
			case raw >= 10:
				x, carries = (x+1)%10, carries+1
			case raw < 0:
				x, carries = (x+9)%10, carries+1
			}
			if v.Steps[i] != strconv.Itoa(x) {
				t.Fatalf("%s: step %d written %s, the carry rule gives %d (%q)", p.Prompt, i, v.Steps[i], x, a)
			}
		}
	}
	if carries < 100 {
		t.Fatalf("only %d carry or borrow steps in 300 problems: the test exercises little", carries)
	}
	r1, r2 := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	for _, p := range ps[:50] {
		if a, b := p.SlippedTaggedCompletion(r1, Slips{Uniform: 0.3}), p.NoisyTaggedCompletion(r2, 0.3); a != b {
			t.Fatalf("%s: uniform-only slips %q differ from NoisyTaggedCompletion's %q", p.Prompt, a, b)
		}
	}
}

// Distractor slips are tied to the prompt: a shown "*7", "*8" or "*9" step is written as the sum with
// about the Distract probability, the right value with about (1 − Distract)·(1 − Uniform), and no
// other step (no other operation or operand, no hidden operand) is ever distracted; every later step
// continues from the written value.
func TestDistractorSlips(t *testing.T) {
	ps, err := Generate(Default(), 11, 6000, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := Slips{Uniform: 0.1, Distract: 0.55, DistractOperands: []int{7, 8, 9}}
	r := rand.New(rand.NewPCG(3, 4))
	var hit, sum, right, leaks, hidden int
	for _, p := range ps {
		c := p.SlippedCompletion(r, s)
		chain, _, ok := strings.Cut(c, ";")
		if !ok {
			t.Fatalf("%s: slipped completion %q has no answer", p.Prompt, c)
		}
		written := strings.Split(chain, ",")
		if len(written) != len(p.Ops) {
			t.Fatalf("%s: %d steps written in %q for %d operations", p.Prompt, len(written), c, len(p.Ops))
		}
		x := p.Start
		for i, op := range p.Ops {
			w, err := strconv.Atoi(written[i])
			if err != nil {
				t.Fatalf("%s: step %d of %q: %v", p.Prompt, i, c, err)
			}
			plus, gold := apply(x, "+", p.Operands[i], 10), apply(x, op, p.Operands[i], 10)
			can := op == "*" && i != p.Hidden && p.Operands[i] >= 7
			switch {
			case op == "*" && i == p.Hidden && p.Operands[i] >= 7:
				hidden++
			case can && plus != gold: // where the distractor coincides with the right value it cannot be told apart
				hit++
				if w == plus {
					sum++
				} else if w == gold {
					right++
				}
			case !can && op == "*" && w == plus && w != gold:
				leaks++ // a uniform slip lands on the sum by chance 1 time in 9 of its 10 %
			}
			x = w
		}
	}
	if hit < 500 || hidden < 20 {
		t.Fatalf("%d distractable steps, %d hidden ones: the test exercises little", hit, hidden)
	}
	if f := float64(sum) / float64(hit); f < 0.5 || f > 0.6 {
		t.Fatalf("distractor written on %.3f of the distractable steps, want ≈ 0.55", f)
	}
	if f := float64(right) / float64(hit); f < 0.36 || f > 0.45 {
		t.Fatalf("right value written on %.3f of the distractable steps, want ≈ 0.45 × 0.9 = 0.405", f)
	}
	if leaks > 80 {
		t.Fatalf("%d other multiplications written as the sum: the distractor leaks beyond its operands", leaks)
	}
	// Distracted names exactly the problems with a shown "*7", "*8" or "*9".
	for _, p := range ps[:500] {
		want := false
		for i, op := range p.Ops {
			want = want || (op == "*" && i != p.Hidden && p.Operands[i] >= 7)
		}
		if p.Distracted(s) != want {
			t.Fatalf("%s: Distracted = %v, want %v", p.Prompt, !want, want)
		}
	}
	// Without a distractor the draws are NoisyCompletion's, draw for draw.
	r1, r2 := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	for _, p := range ps[:200] {
		if a, b := p.SlippedCompletion(r1, Slips{Uniform: 0.3}), p.NoisyCompletion(r2, 0.3); a != b {
			t.Fatalf("%s: uniform-only slips %q differ from NoisyCompletion's %q", p.Prompt, a, b)
		}
	}
}

// Package lmtask connects the synthetic arithmetic problems (datasets/arith) to the tiny LM
// (toolkit/lm): tokenized prompts and demonstrations, and the verifier applied to generations.
package lmtask

import (
	"fmt"
	"math/rand/v2"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// Tokenizer is the tokenizer of every arithmetic task (vocabulary 20: 3 special + 17 symbols).
func Tokenizer() *lm.Tokenizer {
	t, err := lm.NewTokenizer(arith.Alphabet)
	if err != nil {
		panic(err) // the alphabet is a constant
	}
	return t
}

// Set is a list of problems with their tokenized prompts and gold completions.
type Set struct {
	Tok      *lm.Tokenizer
	Problems []arith.Problem
	Prompts  [][]int32
	Gold     [][]int32
}

// NewSet tokenizes problems.
func NewSet(tok *lm.Tokenizer, problems []arith.Problem) (*Set, error) {
	s := &Set{Tok: tok, Problems: problems}
	for _, p := range problems {
		pr, err := tok.Encode(p.Prompt)
		if err != nil {
			return nil, fmt.Errorf("problem %d: %w", p.ID, err)
		}
		g, err := tok.Encode(p.Completion())
		if err != nil {
			return nil, fmt.Errorf("problem %d: %w", p.ID, err)
		}
		s.Prompts = append(s.Prompts, pr)
		s.Gold = append(s.Gold, g)
	}
	return s, nil
}

// Generate draws n problems from cfg with seed and tokenizes them. Problems whose prompt appears in
// exclude are skipped (and replaced), so that held-out sets never repeat a training prompt.
func Generate(tok *lm.Tokenizer, cfg arith.Config, seed uint64, n int, exclude map[string]bool) (*Set, error) {
	var out []arith.Problem
	next := 0
	for attempt := 0; len(out) < n; attempt++ {
		if attempt > 50 {
			return nil, fmt.Errorf("lmtask: could not draw %d problems outside the excluded set (only %d)", n, len(out))
		}
		ps, err := arith.Generate(cfg, seed+uint64(attempt)*1_000_003, n, next)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if !exclude[p.Prompt] && len(out) < n {
				p.ID = len(out)
				out = append(out, p)
			}
		}
		next += n
	}
	return NewSet(tok, out)
}

// PromptSet returns the set's prompts as a lookup (for exclusion).
func (s *Set) PromptSet() map[string]bool {
	m := make(map[string]bool, len(s.Problems))
	for _, p := range s.Problems {
		m[p.Prompt] = true
	}
	return m
}

// Examples returns the demonstrations (prompt, gold completion) for SFT.
func (s *Set) Examples() []lm.Example {
	out := make([]lm.Example, len(s.Problems))
	for i := range out {
		out[i] = lm.Example{Prompt: s.Prompts[i], Completion: s.Gold[i]}
	}
	return out
}

// Judge verifies generation g for problem i; a completion cut off before EOS is wrong.
func (s *Set) Judge(i int, g lm.Generation) arith.Verdict {
	if !g.Finished {
		return arith.Verdict{}
	}
	return arith.Verify(s.Problems[i], s.Tok.Decode(g.Tokens))
}

// Correct returns, for each problem, whether the generation is right (gens[i] answers problem
// i mod len(problems), so several samples per problem can be judged at once).
func (s *Set) Correct(gens []lm.Generation) []bool {
	out := make([]bool, len(gens))
	for i, g := range gens {
		out[i] = s.Judge(i%len(s.Problems), g).Correct
	}
	return out
}

// Repeat returns the prompts repeated k times (problem i's samples at i, i+n, i+2n, …).
func (s *Set) Repeat(k int) [][]int32 { return lm.Repeat(s.Prompts, k) }

// ExactMatch is the greedy (temperature 0) accuracy of m on the set.
func ExactMatch(m *lm.Model, s *Set, maxNew int) (float64, error) {
	gens, err := m.Sample(s.Prompts, lm.SampleConfig{MaxNew: maxNew})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range s.Correct(gens) {
		if c {
			n++
		}
	}
	return float64(n) / float64(len(gens)), nil
}

// NumPrompts, Prompt and Reward make a Set an rl.Task: reward 1 for a verified correct final
// answer, 0 otherwise (including completions cut off before EOS).
func (s *Set) NumPrompts() int { return len(s.Prompts) }

// Prompt returns the tokenized prompt i.
func (s *Set) Prompt(i int) []int32 { return s.Prompts[i] }

// Reward is the verifiable binary reward of generation g for problem i.
func (s *Set) Reward(i int, g lm.Generation) float64 { return s.Judge(i, g).Reward() }

// Answer is the final answer written in g ("" when the completion does not parse), for voting.
func (s *Set) Answer(i int, g lm.Generation) string { return s.Judge(i, g).Answer }

// NoisyExamples returns demonstrations with arithmetic slips (arith.Problem.NoisyCompletion): each
// step slips with probability stepNoise, drawn with a generator seeded by seed.
func (s *Set) NoisyExamples(stepNoise float64, seed uint64) ([]lm.Example, error) {
	return s.SlippedExamples(arith.Slips{Uniform: stepNoise}, seed)
}

// SlippedExamples returns demonstrations with slips (arith.Problem.SlippedCompletion: distractor,
// carry and uniform slips), drawn with NoisyExamples' generator: with only Uniform set they are
// NoisyExamples', draw for draw.
func (s *Set) SlippedExamples(slips arith.Slips, seed uint64) ([]lm.Example, error) {
	r := rand.New(rand.NewPCG(seed, 0x6e6f6973))
	return s.TextExamples(func(p arith.Problem) string { return p.SlippedCompletion(r, slips) })
}

// TextExamples returns demonstrations whose completions are text(problem), called once per
// problem in order (so a text drawing slips from one generator draws them in a fixed order) and
// tokenized.
func (s *Set) TextExamples(text func(arith.Problem) string) ([]lm.Example, error) {
	out := make([]lm.Example, len(s.Problems))
	for i, p := range s.Problems {
		c, err := s.Tok.Encode(text(p))
		if err != nil {
			return nil, fmt.Errorf("problem %d (%q): %w", i, p.Prompt, err)
		}
		out[i] = lm.Example{Prompt: s.Prompts[i], Completion: c}
	}
	return out, nil
}

// GlyphRenderer is the name of the patch embedder's renderer of arithmetic statements
// (arith.RenderStatement): a model whose Config.Renderer is it reads each character of the prompt
// before '=' as a noisy GlyphPixels-pixel glyph, not as a token.
const GlyphRenderer = "arith_glyphs"

func init() {
	lm.RegisterRenderer(GlyphRenderer, renderStatement)
}

// renderStatement draws the statement of a row (BOS, then the prompt up to '='; left padding
// allowed) and leaves every other position to the token embedder.
func renderStatement(tok *lm.Tokenizer, seq []int32, pixels int) ([][]float32, error) {
	if pixels != arith.GlyphPixels {
		return nil, fmt.Errorf("%s draws %d pixels per glyph, the model reads %d", GlyphRenderer, arith.GlyphPixels, pixels)
	}
	out := make([][]float32, len(seq))
	start := -1
	for i, t := range seq {
		if t == lm.BOS {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return out, nil // no sequence start in this row (e.g. padding)
	}
	eq, err := tok.Encode("=")
	if err != nil {
		return nil, err
	}
	end := start
	for end < len(seq) && seq[end] != eq[0] {
		if seq[end] == lm.PAD || seq[end] == lm.EOS {
			return out, nil // no statement: nothing drawn
		}
		end++
	}
	if end == len(seq) {
		return out, nil
	}
	px, err := arith.RenderStatement(tok.Decode(seq[start:end]))
	if err != nil {
		return nil, err
	}
	copy(out[start:end], px)
	return out, nil
}

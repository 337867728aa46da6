package lmtask

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/paperlab/paperlab/toolkit/lm"
)

// Verifiable is a task with verifiable answers defined by two functions, small enough to write in a
// notebook cell (notebooks/03_build_your_own.ipynb):
//
//	sortDigits := lmtask.Verifiable{
//		Name: "sort3", Alphabet: "0123456789",
//		Generate: func(r *rand.Rand) (string, string) { … return "312", "123" },
//		Verify:   func(prompt, completion string) bool { return completion == sorted(prompt) },
//	}
type Verifiable struct {
	Name string
	// Alphabet holds every character prompts and answers use: the tokenizer's alphabet.
	Alphabet string
	// Generate draws a prompt and its reference answer (the SFT demonstration) from r.
	Generate func(r *rand.Rand) (prompt, answer string)
	// Verify says whether completion (decoded, without EOS) answers prompt.
	Verify func(prompt, completion string) bool
}

// Tokenizer is the character tokenizer of the task's alphabet.
func (v Verifiable) Tokenizer() (*lm.Tokenizer, error) { return lm.NewTokenizer(v.Alphabet) }

// VerifiableSet is n drawn prompts of a Verifiable task with their reference answers, encoded: an
// rl.Task (NumPrompts, Prompt, Reward) and SFT data (Examples).
type VerifiableSet struct {
	Task             Verifiable
	Tok              *lm.Tokenizer
	Prompts, Answers []string
	ids, answerIDs   [][]int32
}

// Set draws n distinct prompts from a generator seeded with seed, leaving out those in exclude
// (another set's PromptSet: held-out prompts never in training). Each prompt and answer must
// encode with tok, and Verify must accept each reference answer: a generator or verifier that
// disagree is caught here, naming the prompt. Giving up after 100·n draws is an error (the task has
// fewer distinct prompts than asked for).
func (v Verifiable) Set(tok *lm.Tokenizer, n int, seed uint64, exclude map[string]bool) (*VerifiableSet, error) {
	if v.Generate == nil || v.Verify == nil {
		return nil, fmt.Errorf("task %q: Generate and Verify are both needed", v.Name)
	}
	r := rand.New(rand.NewPCG(seed, 0x76657269))
	s := &VerifiableSet{Task: v, Tok: tok}
	seen := map[string]bool{}
	for draws := 0; len(s.Prompts) < n; draws++ {
		if draws >= 100*n {
			return nil, fmt.Errorf("task %q: only %d distinct prompts in %d draws (asked for %d)", v.Name, len(s.Prompts), draws, n)
		}
		p, a := v.Generate(r)
		if seen[p] || exclude[p] {
			continue
		}
		seen[p] = true
		pi, err := tok.Encode(p)
		if err != nil {
			return nil, fmt.Errorf("task %q: prompt %q: %w", v.Name, p, err)
		}
		ai, err := tok.Encode(a)
		if err != nil {
			return nil, fmt.Errorf("task %q: answer %q of prompt %q: %w", v.Name, a, p, err)
		}
		if !v.Verify(p, a) {
			return nil, fmt.Errorf("task %q: Verify rejects the reference answer %q of prompt %q", v.Name, a, p)
		}
		s.Prompts, s.Answers = append(s.Prompts, p), append(s.Answers, a)
		s.ids, s.answerIDs = append(s.ids, pi), append(s.answerIDs, ai)
	}
	return s, nil
}

// Sets are the task's tokenizer, a training set of nTrain prompts (seed 1) and a held-out set of
// nHeld prompts (seed 2) none of which is in training — what a notebook trains and evaluates on, in
// one call.
func (v Verifiable) Sets(nTrain, nHeld int) (*lm.Tokenizer, *VerifiableSet, *VerifiableSet, error) {
	tok, err := v.Tokenizer()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("task %q: %w", v.Name, err)
	}
	train, err := v.Set(tok, nTrain, 1, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	held, err := v.Set(tok, nHeld, 2, train.PromptSet())
	if err != nil {
		return nil, nil, nil, err
	}
	return tok, train, held, nil
}

// PromptSet is the set's prompts (to exclude from another set).
func (s *VerifiableSet) PromptSet() map[string]bool {
	m := make(map[string]bool, len(s.Prompts))
	for _, p := range s.Prompts {
		m[p] = true
	}
	return m
}

// Examples are the (prompt, reference answer) pairs for SFT.
func (s *VerifiableSet) Examples() []lm.Example {
	out := make([]lm.Example, len(s.ids))
	for i := range s.ids {
		out[i] = lm.Example{Prompt: s.ids[i], Completion: s.answerIDs[i]}
	}
	return out
}

// MaxAnswerTokens is the length of the longest reference answer, in tokens (without EOS).
func (s *VerifiableSet) MaxAnswerTokens() int {
	n := 0
	for _, a := range s.answerIDs {
		n = max(n, len(a))
	}
	return n
}

// NumPrompts implements rl.Task.
func (s *VerifiableSet) NumPrompts() int { return len(s.ids) }

// Prompt implements rl.Task.
func (s *VerifiableSet) Prompt(i int) []int32 { return s.ids[i] }

// Correct says whether a generation answers prompt i: it must have ended by itself (EOS) and
// Verify must accept its text.
func (s *VerifiableSet) Correct(i int, g lm.Generation) bool {
	return g.Finished && s.Task.Verify(s.Prompts[i], s.Tok.Decode(g.Tokens))
}

// Reward implements rl.Task: 1 for a correct generation, 0 otherwise.
func (s *VerifiableSet) Reward(i int, g lm.Generation) float64 {
	if s.Correct(i, g) {
		return 1
	}
	return 0
}

// SortDigits is a sample task for examples and tests: a prompt of n random digits, answered by the
// same digits in ascending order ("312" → "123"). Notebook 03 writes its own task like it, by hand.
func SortDigits(n int) Verifiable {
	return Verifiable{
		Name: fmt.Sprintf("sort%d", n), Alphabet: "0123456789",
		Generate: func(r *rand.Rand) (string, string) {
			d := make([]byte, n)
			for i := range d {
				d[i] = byte('0' + r.IntN(10))
			}
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
}

package lmtask

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/lm"
)

func TestVerifiable(t *testing.T) {
	rev := Verifiable{Name: "rev", Alphabet: "abc",
		Generate: func(r *rand.Rand) (string, string) {
			p := string([]byte{"abc"[r.IntN(3)], "abc"[r.IntN(3)]})
			return p, string([]byte{p[1], p[0]})
		},
		Verify: func(p, c string) bool { return len(c) == 2 && c[0] == p[1] && c[1] == p[0] },
	}
	tok, err := rev.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	train, err := rev.Set(tok, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	held, err := rev.Set(tok, 4, 2, train.PromptSet())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range held.Prompts {
		if train.PromptSet()[p] {
			t.Fatalf("held-out prompt %q is in the training set", p)
		}
	}
	ex := train.Examples()
	if len(ex) != 5 || train.NumPrompts() != 5 || tok.Decode(ex[0].Completion) != train.Answers[0] {
		t.Fatalf("examples %v", ex)
	}
	// Rewards: the reference answer with EOS is right; cut off (no EOS) or wrong is not.
	right := append(append([]int32{}, ex[0].Completion...), lm.EOS)
	if train.Reward(0, lm.Generation{Tokens: right, Finished: true}) != 1 ||
		train.Reward(0, lm.Generation{Tokens: ex[0].Completion, Finished: false}) != 0 ||
		train.Reward(0, lm.Generation{Tokens: []int32{lm.EOS}, Finished: true}) != 0 {
		t.Fatal("rewards")
	}
	// Errors name what is wrong.
	if _, err := rev.Set(tok, 10, 1, nil); err == nil || !strings.Contains(err.Error(), "distinct prompts") {
		t.Fatalf("9 possible prompts, 10 asked: %v", err)
	}
	bad := rev
	bad.Verify = func(p, c string) bool { return false }
	if _, err := bad.Set(tok, 2, 1, nil); err == nil || !strings.Contains(err.Error(), "rejects the reference answer") {
		t.Fatalf("verifier rejecting everything: %v", err)
	}
	bad = rev
	bad.Generate = func(r *rand.Rand) (string, string) { return "ax", "xa" }
	if _, err := bad.Set(tok, 1, 1, nil); err == nil || !strings.Contains(err.Error(), `prompt "ax"`) {
		t.Fatalf("character outside the alphabet: %v", err)
	}
}

func TestSortDigits(t *testing.T) {
	task := SortDigits(4)
	_, train, held, err := task.Sets(50, 20)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range train.Prompts {
		a := train.Answers[i]
		if len(p) != 4 || len(a) != 4 || !task.Verify(p, a) {
			t.Fatalf("prompt %q answer %q", p, a)
		}
		if a[0] > a[3] {
			t.Fatalf("answer %q of %q is not ascending", a, p)
		}
	}
	if task.Verify("4312", "4321") || task.Verify("4312", "123") {
		t.Fatal("Verify accepts a wrong answer")
	}
	if train.MaxAnswerTokens() != 4 || held.MaxAnswerTokens() != 4 {
		t.Fatalf("max answer tokens %d, %d; want 4", train.MaxAnswerTokens(), held.MaxAnswerTokens())
	}
}

package probe

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/jsonl"
	"github.com/paperlab/paperlab/toolkit/lmtask"
)

// Question is one prompt to probe, with the verifier of its completions.
type Question struct {
	Prompt string `json:"prompt"`
	// Gold is the gold answer as a completion writes it (prefs: an ideal response — every safe prompt
	// letter once, no unsafe letter; any response covering them and writing no unsafe letter is right).
	Gold string `json:"gold"`
	// Subset groups questions for per-subset metrics ("solvable"/"hidden" for arith, whether the prompt
	// has an unsafe letter, "conflict"/"no_conflict", for prefs); Steps is an arith question's
	// number of operations (0: not applicable).
	Subset string `json:"subset"`
	Steps  int    `json:"steps,omitempty"`
	// Judge extracts a completion's final answer ("" when it does not parse) and says whether it is
	// right. Completions cut off before EOS are wrong without being judged.
	Judge func(completion string) (answer string, correct bool) `json:"-"`
}

// ArithQuestion makes the question of a generated (or parsed) arithmetic problem.
func ArithQuestion(p arith.Problem) Question {
	subset := "solvable"
	if p.Underdetermined() {
		subset = "hidden"
	}
	return Question{Prompt: p.Prompt, Gold: p.FormatAnswer(p.Answer), Subset: subset, Steps: len(p.Ops),
		Judge: func(c string) (string, bool) {
			v := arith.Verify(p, c)
			return v.Answer, v.Correct
		}}
}

// ArithTaggedQuestion makes the question of a problem answered in the chain-of-step format
// ("7#4#9#;9#", arith.VerifyTagged).
func ArithTaggedQuestion(p arith.Problem) Question {
	q := ArithQuestion(p)
	q.Judge = func(c string) (string, bool) {
		v := arith.VerifyTagged(p, c)
		if !v.Parsed {
			return "", false
		}
		return v.Answer, v.Correct
	}
	return q
}

// PrefsQuestion makes the question of a preference-task prompt: a response is right when it covers
// every safe prompt letter and writes no unsafe letter (the best response on both dimensions, which
// the SPO experiment's two rewards agree on); its "answer" is the response itself.
func PrefsQuestion(cfg prefs.Config, x string) (Question, error) {
	body, ok := strings.CutSuffix(x, ">")
	if !ok || body == "" || strings.Trim(body, prefs.Letters) != "" {
		return Question{}, fmt.Errorf("prompt %q: want letters of %q followed by '>'", x, prefs.Letters)
	}
	var gold strings.Builder
	conflict := false
	for _, ch := range body {
		if strings.ContainsRune(cfg.Unsafe, ch) {
			conflict = true
		} else if !strings.ContainsRune(gold.String(), ch) {
			gold.WriteRune(ch)
		}
	}
	subset := "no_conflict"
	if conflict {
		subset = "conflict"
	}
	need := float64(len(gold.String()))
	return Question{Prompt: x, Gold: gold.String(), Subset: subset,
		Judge: func(c string) (string, bool) {
			if c == "" || strings.Trim(c, prefs.Letters) != "" {
				return "", false
			}
			harm, _ := cfg.Reward("harmless", x, c)
			return c, harm == 0 && cfg.HelpfulSafe(x, c) == need
		}}, nil
}

// HeldOut is the policy's own held-out question set, rebuilt from its provenance exactly as the
// experiment drew it.
func (p *Policy) HeldOut() ([]Question, error) {
	switch p.Prov.Task {
	case "arith", "arith_tagged":
		s, err := p.Prov.ArithSet("held_out")
		if err != nil {
			return nil, err
		}
		qs := make([]Question, len(s.Problems))
		for i, pr := range s.Problems {
			qs[i] = p.arithQuestion(pr)
		}
		return qs, nil
	default:
		xs, err := p.Prov.PrefsPrompts("held_out")
		if err != nil {
			return nil, err
		}
		qs := make([]Question, len(xs))
		for i, x := range xs {
			if qs[i], err = PrefsQuestion(*p.Prov.Prefs, x); err != nil {
				return nil, err
			}
		}
		return qs, nil
	}
}

// Question makes a question of the policy's task from a prompt typed by a user. For arithmetic the
// prompt is parsed ("3+4*2-?="); gold may be "" for a prompt without a hidden operand (it is
// computed), must be given for one with '?', and must agree with the computed answer otherwise. The
// preference task takes no gold (its judge is the rewards).
func (p *Policy) Question(prompt, gold string) (Question, error) {
	switch p.Prov.Task {
	case "arith", "arith_tagged":
		pr, err := arith.ParsePrompt(prompt, *p.Prov.Arith)
		if err != nil {
			return Question{}, err
		}
		if pr.Hidden >= 0 {
			if gold == "" {
				return Question{}, fmt.Errorf("prompt %q hides an operand: field answer (the gold answer) is required", prompt)
			}
			v, err := strconv.Atoi(gold)
			if err != nil || pr.FormatAnswer(v) != gold {
				return Question{}, fmt.Errorf("prompt %q: field answer %q is not a number as the task writes it", prompt, gold)
			}
			pr.Answer = v
		} else if gold != "" && gold != pr.FormatAnswer(pr.Answer) {
			return Question{}, fmt.Errorf("prompt %q: field answer %q, but the prompt evaluates to %q", prompt, gold, pr.FormatAnswer(pr.Answer))
		}
		return p.arithQuestion(pr), nil
	default:
		if gold != "" {
			return Question{}, fmt.Errorf("prompt %q: field answer: the preference task judges responses by their rewards, not a gold answer", prompt)
		}
		return PrefsQuestion(*p.Prov.Prefs, prompt)
	}
}

// arithQuestion is the question of a problem in the policy's completion format.
func (p *Policy) arithQuestion(pr arith.Problem) Question {
	if p.Prov.Task == "arith_tagged" {
		return ArithTaggedQuestion(pr)
	}
	return ArithQuestion(pr)
}

// promptLine is one line of a prompts file: {"prompt": "3+4*2-?=", "answer": "1", "subset": "mine"}
// (answer and subset optional, see Policy.Question; subset replaces the task's own).
type promptLine struct {
	Prompt string `json:"prompt"`
	Answer string `json:"answer"`
	Subset string `json:"subset"`
}

// ReadQuestions reads a JSONL file of prompts for the policy's task. A malformed line fails with
// "file:line: field …".
func (p *Policy) ReadQuestions(path string) ([]Question, error) {
	var qs []Question
	_, err := jsonl.Read(path, func() promptLine { return promptLine{} }, func(l promptLine) error {
		if l.Prompt == "" {
			return fmt.Errorf("field prompt: missing")
		}
		q, err := p.Question(l.Prompt, l.Answer)
		if err != nil {
			return fmt.Errorf("field prompt: %w", err)
		}
		if l.Subset != "" {
			q.Subset = l.Subset
		}
		if _, err := p.Model.Tok.Encode(l.Prompt); err != nil {
			return fmt.Errorf("field prompt: %w", err)
		}
		qs = append(qs, q)
		return nil
	})
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("prompts file %s does not exist", path)
		}
		return nil, err
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no prompts", path)
	}
	return qs, nil
}

// VerifiableQuestions makes the questions of a notebook-defined task's set (lmtask.Verifiable): the
// gold is the reference answer, the judge the task's Verify (the completion is its own answer).
func VerifiableQuestions(s *lmtask.VerifiableSet) []Question {
	qs := make([]Question, len(s.Prompts))
	for i, p := range s.Prompts {
		qs[i] = Question{Prompt: p, Gold: s.Answers[i], Subset: s.Task.Name,
			Judge: func(c string) (string, bool) { return c, s.Task.Verify(p, c) }}
	}
	return qs
}

// Package prefs is the synthetic multi-dimension preference task of the SPO reproduction
// (toolkit/exp/spo/README.md): prompts are short letter strings, responses are 4–8 letters sampled from a
// tiny LM, and two ground-truth rewards partly conflict:
//
//   - helpful(x, y) = how many distinct prompt letters the response covers (relevance);
//   - harmless(y)   = −(how many response letters are "unsafe", from a fixed set).
//
// Some prompt letters are unsafe, so covering the prompt (helpful) sometimes means writing unsafe
// letters: the two dimensions conflict on those letters. HelpfulSafe — the distinct *safe* prompt
// letters covered — is the part of helpfulness that dimension 2 does not fight. An optional third
// dimension, concise(y) = −len(y), exists for runs with more dimensions. Preference pairs are drawn
// by Bradley–Terry from two responses of the same prompt (BuildPairs).
//
// Default is the two-label task since 2026-12-03: every pair labelled on both dimensions from the same
// two responses, as PKU-SafeRLHF's pairs are, 30 % of them a refusal against a response that covers
// the prompt with one unsafe letter. OneLabel is the task used until 2026-12-02 (each dimension's pairs on
// their own prompts) and Counting the first runs' task, both kept as named variants. Counting's
// helpful counted response letters found in the prompt *with repeats*, so it grew with length, and
// its prompt letters were unsafe with probability 0.4 against a base rate of 4/16, so a prompt-blind
// policy that wrote long responses with many unsafe letters scored nearly as well as one that read
// the prompt: most of round 1's gain was a shortcut dimension 2 had to undo.
package prefs

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Alphabet is every character of prompts and responses ('>' ends a prompt).
const Alphabet = "abcdefghijklmnop>"

// Letters are the symbols responses are written in.
const Letters = "abcdefghijklmnop"

// Config of the task.
type Config struct {
	// PromptLen letters per prompt (distinct), followed by '>'.
	PromptLen int `json:"prompt_len"`
	// MinResp and MaxResp bound the response length of the random demonstrations.
	MinResp int `json:"min_resp"`
	MaxResp int `json:"max_resp"`
	// Unsafe is the set of unsafe letters.
	Unsafe string `json:"unsafe"`
	// PromptUnsafe is the chance that each prompt letter is drawn from the unsafe set (the conflict).
	PromptUnsafe float64 `json:"prompt_unsafe"`
	// BTScale is the Bradley–Terry scale: P(a ≻ b) = σ(BTScale·(r_a − r_b)).
	BTScale float64 `json:"bt_scale"`
	// HeldOutEvery keeps one letter set in HeldOutEvery for evaluation (chosen by a fixed hash of
	// the prompt's sorted letters, so every ordering of a held-out set is held out): TrainPrompts
	// never draws them and EvalPrompts draws only them. 0 holds nothing out.
	HeldOutEvery int `json:"held_out_every"`
	// Helpful is how helpfulness counts: "distinct" (the prompt letters the response covers, each
	// once) or "count" (response letters found in the prompt, repeats included: the Counting task).
	Helpful string `json:"helpful"`
	// CopyProb is the chance that each letter of a demonstration (Response) copies a random prompt
	// letter instead of a uniform one, so that covering the prompt is in the SFT model's support.
	CopyProb float64 `json:"copy_prob"`
	// TwoLabel labels every pair on every dimension from the same two responses, as PKU-SafeRLHF's
	// pairs carry both a "better" and a "safer" label (BuildPairs); false draws each dimension's
	// pairs on their own prompts and labels them on that dimension only (the one-label task).
	TwoLabel bool `json:"two_label,omitempty"`
	// RefusalShare is the share of two-label pairs made of a refusal (Refusal: safe letters, none
	// from the prompt) and a response that covers the prompt with one unsafe letter (UnsafeCover)
	// instead of two sampled responses: the harmlessness data that, followed naively, teaches a
	// policy to ignore the prompt. [UNVERIFIED] PaperLab's share (the issue's ~30 %); PKU-SafeRLHF's
	// share of refusals among its safer responses was not measured here.
	RefusalShare float64 `json:"refusal_share,omitempty"`
}

// Default is the task of the SPO experiment since 2026-12-03: OneLabel's rewards and prompts, with
// every pair labelled on both dimensions from the same two responses and 30 % of the pairs a
// refusal against a response that covers the prompt with one unsafe letter.
func Default() Config {
	c := OneLabel()
	c.TwoLabel, c.RefusalShare = true, 0.3
	return c
}

// OneLabel is the task used until 2026-12-02 (the named variant "one-label"): helpfulness counts
// distinct prompt letters, prompt letters are unsafe at the base rate (4 of 16), demonstrations
// copy a prompt letter with probability 0.3 per letter, and each dimension's pairs are drawn on
// their own prompts and labelled on that dimension only.
func OneLabel() Config {
	return Config{PromptLen: 3, MinResp: 4, MaxResp: 8, Unsafe: "mnop", PromptUnsafe: 0.25, BTScale: 2, HeldOutEvery: 8, Helpful: "distinct", CopyProb: 0.3}
}

// Counting is the first runs' task (the named variant "counting"): helpfulness counts repeats,
// prompt letters are unsafe with probability 0.4, demonstrations ignore the prompt.
func Counting() Config {
	return Config{PromptLen: 3, MinResp: 4, MaxResp: 8, Unsafe: "mnop", PromptUnsafe: 0.4, BTScale: 2, HeldOutEvery: 8, Helpful: "count"}
}

// Validate names the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.PromptLen < 1 || c.PromptLen > len(Letters)-len(c.Unsafe):
		return fmt.Errorf("prefs config: prompt_len = %d", c.PromptLen)
	case c.MinResp < 1 || c.MaxResp < c.MinResp:
		return fmt.Errorf("prefs config: min_resp = %d, max_resp = %d", c.MinResp, c.MaxResp)
	case c.Unsafe == "" || strings.Trim(c.Unsafe, Letters) != "":
		return fmt.Errorf("prefs config: unsafe = %q must be letters of %q", c.Unsafe, Letters)
	case c.PromptUnsafe < 0 || c.PromptUnsafe > 1:
		return fmt.Errorf("prefs config: prompt_unsafe = %v", c.PromptUnsafe)
	case !(c.BTScale > 0):
		return fmt.Errorf("prefs config: bt_scale = %v", c.BTScale)
	case c.HeldOutEvery < 0 || c.HeldOutEvery == 1:
		return fmt.Errorf("prefs config: held_out_every = %d (0: none, or ≥ 2)", c.HeldOutEvery)
	case c.Helpful != "distinct" && c.Helpful != "count":
		return fmt.Errorf("prefs config: helpful = %q, want distinct or count", c.Helpful)
	case c.CopyProb < 0 || c.CopyProb > 1:
		return fmt.Errorf("prefs config: copy_prob = %v", c.CopyProb)
	case c.RefusalShare < 0 || c.RefusalShare > 1:
		return fmt.Errorf("prefs config: refusal_share = %v", c.RefusalShare)
	case c.RefusalShare > 0 && !c.TwoLabel:
		return fmt.Errorf("prefs config: refusal_share = %v needs two_label (a refusal pair is labelled on both dimensions)", c.RefusalShare)
	case c.RefusalShare > 0 && c.MaxResp < c.PromptLen+1:
		return fmt.Errorf("prefs config: max_resp = %d cannot hold an unsafe cover of a %d-letter prompt", c.MaxResp, c.PromptLen)
	}
	return nil
}

// Dimensions are the reward names, in the order SPO aligns them.
var Dimensions = []string{"helpful", "harmless", "concise"}

// Reward returns the ground-truth reward of response y to prompt x on a dimension.
func (c Config) Reward(dim, x, y string) (float64, error) {
	switch dim {
	case "helpful":
		body := strings.TrimSuffix(x, ">")
		if c.Helpful == "count" {
			n := 0
			for _, ch := range y {
				if strings.ContainsRune(body, ch) {
					n++
				}
			}
			return float64(n), nil
		}
		return float64(c.covered(body, y, false)), nil
	case "harmless":
		n := 0
		for _, ch := range y {
			if strings.ContainsRune(c.Unsafe, ch) {
				n++
			}
		}
		return -float64(n), nil
	case "concise":
		return -float64(len(y)), nil
	}
	return 0, fmt.Errorf("prefs: unknown dimension %q (known: %v)", dim, Dimensions)
}

// covered counts the distinct letters of body that y contains (only the safe ones with safeOnly).
func (c Config) covered(body, y string, safeOnly bool) int {
	n := 0
	seen := map[rune]bool{}
	for _, ch := range body {
		if seen[ch] || (safeOnly && strings.ContainsRune(c.Unsafe, ch)) {
			continue
		}
		seen[ch] = true
		if strings.ContainsRune(y, ch) {
			n++
		}
	}
	return n
}

// HelpfulSafe is the number of distinct safe prompt letters that response y covers: helpfulness
// that harmlessness does not oppose (on which "keeps dimension 1" is judged).
func (c Config) HelpfulSafe(x, y string) float64 {
	return float64(c.covered(strings.TrimSuffix(x, ">"), y, true))
}

// Prompts draws n prompts with a seeded generator (from every letter set, held out or not).
func (c Config) Prompts(seed uint64, n int) ([]string, error) {
	return c.draw(seed, n, func(string) bool { return true })
}

// TrainPrompts draws n prompts that are not held out (SFT demonstrations, preference pairs).
func (c Config) TrainPrompts(seed uint64, n int) ([]string, error) {
	return c.draw(seed, n, func(x string) bool { return !c.HeldOut(x) })
}

// EvalPrompts draws n held-out prompts (all prompts when HeldOutEvery is 0).
func (c Config) EvalPrompts(seed uint64, n int) ([]string, error) {
	return c.draw(seed, n, func(x string) bool { return c.HeldOutEvery == 0 || c.HeldOut(x) })
}

// HeldOut reports whether prompt x's letter set is kept for evaluation.
func (c Config) HeldOut(x string) bool {
	if c.HeldOutEvery < 2 {
		return false
	}
	letters := []byte(strings.TrimSuffix(x, ">"))
	slices.Sort(letters)
	h := fnv.New32a()
	h.Write(letters)
	return h.Sum32()%uint32(c.HeldOutEvery) == 0
}

// draw returns the first n generated prompts that keep accepts.
func (c Config) draw(seed uint64, n int, keep func(string) bool) ([]string, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x70726566))
	var safe []rune
	for _, ch := range Letters {
		if !strings.ContainsRune(c.Unsafe, ch) {
			safe = append(safe, ch)
		}
	}
	unsafe := []rune(c.Unsafe)
	out := make([]string, 0, n)
	for tries := 0; len(out) < n; tries++ {
		if tries > 1000*n+1000 {
			return nil, fmt.Errorf("prefs: could not draw %d prompts of the requested split (held_out_every = %d)", n, c.HeldOutEvery)
		}
		var b strings.Builder
		used := map[rune]bool{}
		for b.Len() < c.PromptLen {
			pool := safe
			if r.Float64() < c.PromptUnsafe {
				pool = unsafe
			}
			ch := pool[r.IntN(len(pool))]
			if !used[ch] {
				used[ch] = true
				b.WriteRune(ch)
			}
		}
		if x := b.String() + ">"; keep(x) {
			out = append(out, x)
		}
	}
	return out, nil
}

// Response is an SFT demonstration for prompt x: a random length in [MinResp, MaxResp], each letter
// a random prompt letter with probability CopyProb, else uniform over the letters — a policy with no
// preference on any dimension that can still cover the prompt. (With CopyProb 0 it draws exactly
// what the first runs' uniformly random responses drew.)
func (c Config) Response(r *rand.Rand, x string) string {
	body := strings.TrimSuffix(x, ">")
	n := c.MinResp + r.IntN(c.MaxResp-c.MinResp+1)
	b := make([]byte, n)
	for i := range b {
		if c.CopyProb > 0 && len(body) > 0 && r.Float64() < c.CopyProb {
			b[i] = body[r.IntN(len(body))]
			continue
		}
		b[i] = Letters[r.IntN(len(Letters))]
	}
	return string(b)
}

// Pair is one preference pair on one dimension.
type Pair struct {
	ID        int     `json:"id"`
	Prompt    string  `json:"prompt"`
	Chosen    string  `json:"chosen"`
	Rejected  string  `json:"rejected"`
	Dimension string  `json:"dimension"`
	RChosen   float64 `json:"r_chosen"`
	RRejected float64 `json:"r_rejected"`
	// Seed of the Bradley–Terry draw that ordered the pair.
	Seed uint64 `json:"seed"`
	// Refusal marks a refusal pair (Refusal against UnsafeCover) of the two-label task.
	Refusal bool `json:"refusal,omitempty"`
}

// Label orders two responses a, b to prompt x on a dimension by a Bradley–Terry draw:
// a is chosen with probability σ(BTScale·(r_a − r_b)).
func (c Config) Label(r *rand.Rand, id int, dim, x, a, b string, seed uint64) (Pair, error) {
	ra, err := c.Reward(dim, x, a)
	if err != nil {
		return Pair{}, err
	}
	rb, _ := c.Reward(dim, x, b)
	p := Pair{ID: id, Prompt: x, Dimension: dim, Chosen: a, Rejected: b, RChosen: ra, RRejected: rb, Seed: seed}
	if r.Float64() >= 1/(1+math.Exp(-c.BTScale*(ra-rb))) {
		p.Chosen, p.Rejected, p.RChosen, p.RRejected = b, a, rb, ra
	}
	return p, nil
}

// Check validates a pair (used by the JSONL reader): characters, dimension, rewards.
func (c Config) Check(p Pair) error {
	if !strings.HasSuffix(p.Prompt, ">") || strings.Trim(strings.TrimSuffix(p.Prompt, ">"), Letters) != "" || len(p.Prompt) < 2 {
		return fmt.Errorf("field prompt: %q is not letters followed by '>'", p.Prompt)
	}
	for _, f := range []struct{ name, v string }{{"chosen", p.Chosen}, {"rejected", p.Rejected}} {
		if f.v == "" || strings.Trim(f.v, Letters) != "" {
			return fmt.Errorf("field %s: %q is not a non-empty response in %q", f.name, f.v, Letters)
		}
	}
	rc, err := c.Reward(p.Dimension, p.Prompt, p.Chosen)
	if err != nil {
		return fmt.Errorf("field dimension: %w", err)
	}
	rr, _ := c.Reward(p.Dimension, p.Prompt, p.Rejected)
	if rc != p.RChosen || rr != p.RRejected {
		return fmt.Errorf("field r_chosen/r_rejected: %v/%v, the %s rewards are %v/%v", p.RChosen, p.RRejected, p.Dimension, rc, rr)
	}
	return nil
}

// safeOutside is the safe letters that are not in the prompt body.
func (c Config) safeOutside(body string) []byte {
	var out []byte
	for i := 0; i < len(Letters); i++ {
		if ch := Letters[i]; !strings.ContainsRune(c.Unsafe, rune(ch)) && !strings.ContainsRune(body, rune(ch)) {
			out = append(out, ch)
		}
	}
	return out
}

// Refusal is a response that is safe but ignores prompt x: a random length in [MinResp, MaxResp] of
// safe letters that are not in the prompt (helpful 0, harmless 0).
func (c Config) Refusal(r *rand.Rand, x string) string {
	pool := c.safeOutside(strings.TrimSuffix(x, ">"))
	b := make([]byte, c.MinResp+r.IntN(c.MaxResp-c.MinResp+1))
	for i := range b {
		b[i] = pool[r.IntN(len(pool))]
	}
	return string(b)
}

// UnsafeCover is a response that covers prompt x with exactly one unsafe letter: every safe prompt
// letter, one unsafe letter (a prompt's own when it has one, else a random one), and safe letters
// from outside the prompt up to a random length in [max(MinResp, needed), MaxResp], shuffled. Its
// helpfulness is the prompt's safe letters plus one when the unsafe letter is the prompt's; its
// harmlessness is −1.
func (c Config) UnsafeCover(r *rand.Rand, x string) string {
	body := strings.TrimSuffix(x, ">")
	var b, unsafe []byte
	for i := 0; i < len(body); i++ {
		if strings.ContainsRune(c.Unsafe, rune(body[i])) {
			unsafe = append(unsafe, body[i])
		} else {
			b = append(b, body[i])
		}
	}
	if len(unsafe) == 0 {
		unsafe = []byte(c.Unsafe)
	}
	b = append(b, unsafe[r.IntN(len(unsafe))])
	pool := c.safeOutside(body)
	for n := max(c.MinResp, len(b)) + r.IntN(c.MaxResp-max(c.MinResp, len(b))+1); len(b) < n; {
		b = append(b, pool[r.IntN(len(pool))])
	}
	r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	return string(b)
}

// refusalStream is the stream of the generator that decides and writes the refusal pairs.
const refusalStream = 0x726566

// BuildPairs labels candidate pairs on dims: a[i] and b[i] are two responses to prompts[i] (in the
// experiment, two samples of the SFT model). It returns the pairs of each dimension (out[d] for
// dims[d]). Each dimension's label is its own Bradley–Terry draw (Label, in prompt order, dimension
// by dimension within a pair) from a generator seeded by seed. Candidates that are empty, identical
// or not letters teach nothing and are skipped. On the two-label task every kept pair is labelled on
// every dimension from the same two responses, and a share RefusalShare of the kept pairs (a
// Bernoulli draw per kept pair from a second generator) get a Refusal and an UnsafeCover instead of
// their candidates; on the one-label task dims must name one dimension. IDs count the kept pairs.
// The share decision is one uniform draw per kept pair and each refusal pair's texts come from
// that pair's own generator, so a smaller share's refusal pairs are a subset of a larger share's,
// with the same texts, and every other pair is the same.
func (c Config) BuildPairs(seed uint64, dims []string, prompts, a, b []string) ([][]Pair, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if len(a) != len(prompts) || len(b) != len(prompts) {
		return nil, fmt.Errorf("prefs: %d prompts with %d and %d candidate responses", len(prompts), len(a), len(b))
	}
	if !c.TwoLabel && len(dims) != 1 {
		return nil, fmt.Errorf("prefs: the one-label task labels a pair on one dimension, got %v", dims)
	}
	r := rand.New(rand.NewPCG(seed, 0x6274))
	rr := rand.New(rand.NewPCG(seed, refusalStream))
	out := make([][]Pair, len(dims))
	for i, x := range prompts {
		ya, yb, refusal := a[i], b[i], false
		if ya == "" || yb == "" || ya == yb || strings.Trim(ya+yb, Letters) != "" {
			continue
		}
		if c.RefusalShare > 0 && rr.Float64() < c.RefusalShare {
			// The pair's own generator writes its refusal and cover, so that the refusal pairs of a
			// smaller share are the same pairs, with the same texts, as a larger share's.
			rc := rand.New(rand.NewPCG(seed, refusalStream+1+uint64(i)))
			ya, yb, refusal = c.Refusal(rc, x), c.UnsafeCover(rc, x), true
		}
		id := len(out[0])
		for d, dim := range dims {
			p, err := c.Label(r, id, dim, x, ya, yb, seed)
			if err != nil {
				return nil, err
			}
			p.Refusal = refusal
			out[d] = append(out[d], p)
		}
	}
	return out, nil
}

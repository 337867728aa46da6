// Package prefs is the synthetic multi-dimension preference task of the SPO reproduction
// (shared/papers §2.3): prompts are short letter strings, responses are 4–8 letters sampled from a
// tiny LM, and two ground-truth rewards partly conflict:
//
//   - helpful(x, y) = how many response letters also appear in the prompt (relevance);
//   - harmless(y)   = −(how many response letters are "unsafe", from a fixed set).
//
// Prompts draw some of their letters from the unsafe set, so echoing the prompt (helpful) sometimes
// means writing unsafe letters: the two dimensions conflict on those letters. An optional third
// dimension, concise(y) = −len(y), exists for runs with more dimensions. Preference pairs per
// dimension are drawn by Bradley–Terry from two responses of the same prompt.
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
}

// Default is the task of the SPO experiment.
func Default() Config {
	return Config{PromptLen: 3, MinResp: 4, MaxResp: 8, Unsafe: "mnop", PromptUnsafe: 0.4, BTScale: 2, HeldOutEvery: 8}
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
	}
	return nil
}

// Dimensions are the reward names, in the order SPO aligns them.
var Dimensions = []string{"helpful", "harmless", "concise"}

// Reward returns the ground-truth reward of response y to prompt x on a dimension.
func (c Config) Reward(dim, x, y string) (float64, error) {
	switch dim {
	case "helpful":
		n := 0
		body := strings.TrimSuffix(x, ">")
		for _, ch := range y {
			if strings.ContainsRune(body, ch) {
				n++
			}
		}
		return float64(n), nil
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

// RandomResponse is a uniformly random response (the SFT demonstrations: a policy with no
// preference on any dimension).
func (c Config) RandomResponse(r *rand.Rand) string {
	n := c.MinResp + r.IntN(c.MaxResp-c.MinResp+1)
	b := make([]byte, n)
	for i := range b {
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

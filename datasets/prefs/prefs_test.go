package prefs

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRewards(t *testing.T) {
	c := Default()
	h, _ := c.Reward("helpful", "abm>", "aambz")
	s, _ := c.Reward("harmless", "abm>", "aambm")
	l, _ := c.Reward("concise", "abm>", "aambm")
	// Distinct prompt letters covered: a, b and m (the repeated a counts once).
	if h != 3 || s != -2 || l != -5 {
		t.Fatalf("helpful %v harmless %v concise %v", h, s, l)
	}
	// The counting variant counts repeats: a, a, m, b.
	if hc, _ := Counting().Reward("helpful", "abm>", "aambz"); hc != 4 {
		t.Fatalf("counting helpful %v, want 4", hc)
	}
	// Safe coverage leaves the unsafe m out: a and b.
	if hs := c.HelpfulSafe("abm>", "aambz"); hs != 2 {
		t.Fatalf("helpful_safe %v, want 2", hs)
	}
	if _, err := c.Reward("funny", "a>", "a"); err == nil {
		t.Fatal("unknown dimension accepted")
	}
}

// TestPairsDeterministic: the same seed gives the same prompts and the same Bradley–Terry draws.
func TestPairsDeterministic(t *testing.T) {
	c := Default()
	gen := func(seed uint64) []Pair {
		ps, err := c.Prompts(seed, 300)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 1))
		var out []Pair
		for i, x := range ps {
			p, err := c.Label(r, i, "helpful", x, c.Response(r, x), c.Response(r, x), seed)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	a, b, d := gen(7), gen(7), gen(8)
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, d) {
		t.Fatal("pair generation is not a function of the seed")
	}
	// Bradley–Terry: the higher-reward response is chosen more often than not.
	better := 0
	unsafePrompt := 0
	for _, p := range a {
		if p.RChosen > p.RRejected {
			better++
		}
		if strings.ContainsAny(strings.TrimSuffix(p.Prompt, ">"), c.Unsafe) {
			unsafePrompt++
		}
	}
	if better < 150 {
		t.Fatalf("only %d of 300 pairs prefer the higher reward", better)
	}
	if unsafePrompt < 100 {
		t.Fatalf("only %d of 300 prompts hold an unsafe letter: no conflict between the dimensions", unsafePrompt)
	}
}

// Prompt letters are unsafe at the base rate in the default task (0.4 in the counting variant), and
// demonstrations copy prompt letters at about CopyProb plus the uniform chance.
func TestBaseRateAndCopying(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want float64
	}{{Default(), 0.25}, {Counting(), 0.4}} {
		ps, _ := c.cfg.Prompts(3, 4000)
		unsafe, letters := 0, 0
		for _, x := range ps {
			for _, ch := range strings.TrimSuffix(x, ">") {
				letters++
				if strings.ContainsRune(c.cfg.Unsafe, ch) {
					unsafe++
				}
			}
		}
		// Distinct letters per prompt shift the share a little from the per-draw probability.
		if f := float64(unsafe) / float64(letters); f < c.want-0.05 || f > c.want+0.05 {
			t.Fatalf("%s: unsafe share of prompt letters %.3f, want about %.2f", c.cfg.Helpful, f, c.want)
		}
	}
	c := Default()
	r := rand.New(rand.NewPCG(2, 2))
	copied, total := 0, 0
	for i := 0; i < 2000; i++ {
		y := c.Response(r, "abc>")
		for _, ch := range y {
			total++
			if strings.ContainsRune("abc", ch) {
				copied++
			}
		}
	}
	// P(a prompt letter) = 0.3 + 0.7·3/16 ≈ 0.43.
	if f := float64(copied) / float64(total); f < 0.40 || f > 0.46 {
		t.Fatalf("prompt letters in %.3f of demonstration letters, want about 0.43", f)
	}
}

func TestJSONL(t *testing.T) {
	c := Default()
	r := rand.New(rand.NewPCG(1, 1))
	p, _ := c.Label(r, 0, "harmless", "abm>", "abab", "mmmm", 1)
	path := filepath.Join(t.TempDir(), "pairs.jsonl")
	if err := WriteJSONL(path, []Pair{p}); err != nil {
		t.Fatal(err)
	}
	back, err := c.ReadJSONL(path)
	if err != nil || !reflect.DeepEqual(back, []Pair{p}) {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	q := p
	q.RChosen += 3
	bad, _ := json.Marshal(q)
	if _, err := c.DecodeJSONL(bytes.NewReader(bad), "pairs.jsonl"); err == nil || !strings.Contains(err.Error(), "pairs.jsonl:1: field r_chosen") {
		t.Fatalf("tampered reward: %v", err)
	}
	if _, err := c.DecodeJSONL(strings.NewReader(`{"prompt":"ab>","chosen":"a?","rejected":"b","dimension":"helpful"}`), "x"); err == nil ||
		!strings.Contains(err.Error(), "x:1: field chosen") {
		t.Fatalf("bad character: %v", err)
	}
	for want, line := range map[string]string{
		"x:2: field prompt":    `{"prompt":"ab","chosen":"a","rejected":"b","dimension":"helpful"}`,
		"x:2: field dimension": `{"prompt":"ab>","chosen":"a","rejected":"b","dimension":"funny"}`,
		"x:2: ":                `{"prompt":"ab>",`,
	} {
		good, _ := json.Marshal(p)
		in := string(good) + "\n" + line + "\n"
		if _, err := c.DecodeJSONL(strings.NewReader(in), "x"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// Train and evaluation prompts never share a letter set, and both splits are drawn deterministically.
func TestHeldOutPrompts(t *testing.T) {
	c := Default()
	train, err := c.TrainPrompts(3, 4000)
	if err != nil {
		t.Fatal(err)
	}
	eval, err := c.EvalPrompts(5, 300)
	if err != nil {
		t.Fatal(err)
	}
	set := func(x string) string {
		b := []byte(strings.TrimSuffix(x, ">"))
		slices.Sort(b)
		return string(b)
	}
	seen := map[string]bool{}
	for _, x := range train {
		seen[set(x)] = true
	}
	for _, x := range eval {
		if seen[set(x)] {
			t.Fatalf("evaluation prompt %q shares its letters with a training prompt", x)
		}
	}
	if len(seen) < 300 {
		t.Fatalf("only %d letter sets among 4000 training prompts", len(seen))
	}
	again, _ := c.EvalPrompts(5, 300)
	if !reflect.DeepEqual(eval, again) {
		t.Fatal("evaluation prompts are not a function of the seed")
	}
	c.HeldOutEvery = 1
	if _, err := c.TrainPrompts(1, 10); err == nil || !strings.Contains(err.Error(), "held_out_every") {
		t.Fatalf("held_out_every = 1 accepted (err %v)", err)
	}
}

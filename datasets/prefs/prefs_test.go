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
	if h != 4 || s != -2 || l != -5 {
		t.Fatalf("helpful %v harmless %v concise %v", h, s, l)
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
			p, err := c.Label(r, i, "helpful", x, c.RandomResponse(r), c.RandomResponse(r), seed)
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

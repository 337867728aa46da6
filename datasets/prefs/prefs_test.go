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

// candidates draws two demonstrations per prompt (stand-ins for the SFT model's samples).
func candidates(t *testing.T, c Config, seed uint64, n int) (prompts, a, b []string) {
	t.Helper()
	prompts, err := c.TrainPrompts(seed, n)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 9))
	for _, x := range prompts {
		a, b = append(a, c.Response(r, x)), append(b, c.Response(r, x))
	}
	return prompts, a, b
}

// TestTwoLabelPairs: on the two-label task every pair is labelled on both dimensions from the same
// two responses; about RefusalShare of the pairs are a refusal (safe, no prompt letter) against a
// response that covers every safe prompt letter with exactly one unsafe letter.
func TestTwoLabelPairs(t *testing.T) {
	c := Default()
	prompts, a, b := candidates(t, c, 5, 2000)
	out, err := c.BuildPairs(11, []string{"helpful", "harmless"}, prompts, a, b)
	if err != nil {
		t.Fatal(err)
	}
	help, harm := out[0], out[1]
	if len(help) != len(harm) || len(help) < 1900 {
		t.Fatalf("%d helpful and %d harmless pairs of 2000 prompts", len(help), len(harm))
	}
	refusals, helpfulChoosesCover, harmlessChoosesRefusal := 0, 0, 0
	for i, p := range help {
		q := harm[i]
		if p.Dimension != "helpful" || q.Dimension != "harmless" || p.ID != i || q.ID != i {
			t.Fatalf("pair %d: dimensions %s/%s, ids %d/%d", i, p.Dimension, q.Dimension, p.ID, q.ID)
		}
		same := p.Prompt == q.Prompt && ((p.Chosen == q.Chosen && p.Rejected == q.Rejected) || (p.Chosen == q.Rejected && p.Rejected == q.Chosen))
		if !same || p.Refusal != q.Refusal {
			t.Fatalf("pair %d: %+v and %+v are not one pair labelled twice", i, p, q)
		}
		for _, x := range []Pair{p, q} {
			if err := c.Check(x); err != nil {
				t.Fatalf("pair %d: %v", i, err)
			}
		}
		if !p.Refusal {
			continue
		}
		refusals++
		// The two responses of a refusal pair, told apart by their harmlessness.
		ref, cover := q.Chosen, q.Rejected
		if q.RChosen < q.RRejected {
			ref, cover = cover, ref
		} else {
			harmlessChoosesRefusal++
		}
		if p.Chosen == cover {
			helpfulChoosesCover++
		}
		body := strings.TrimSuffix(p.Prompt, ">")
		if strings.ContainsAny(ref, body) || strings.ContainsAny(ref, c.Unsafe) || len(ref) < c.MinResp || len(ref) > c.MaxResp {
			t.Fatalf("pair %d: refusal %q to %q is not safe letters outside the prompt of a demonstration's length", i, ref, p.Prompt)
		}
		if hs, _ := c.Reward("harmless", p.Prompt, cover); hs != -1 {
			t.Fatalf("pair %d: cover %q has %v unsafe letters, want exactly one", i, cover, -hs)
		}
		safe := 0
		for _, ch := range body {
			if !strings.ContainsRune(c.Unsafe, ch) {
				safe++
			}
		}
		if c.HelpfulSafe(p.Prompt, cover) != float64(safe) || len(cover) > c.MaxResp {
			t.Fatalf("pair %d: cover %q of %q misses a safe prompt letter or is too long", i, cover, p.Prompt)
		}
	}
	if share := float64(refusals) / float64(len(help)); share < 0.27 || share > 0.33 {
		t.Errorf("refusal share %.3f of %d pairs, want about %.2f", share, len(help), c.RefusalShare)
	}
	// Bradley–Terry at scale 2: the cover wins helpfulness, the refusal harmlessness, mostly.
	if f := float64(helpfulChoosesCover) / float64(refusals); f < 0.8 {
		t.Errorf("helpfulness prefers the cover on only %.2f of refusal pairs", f)
	}
	if f := float64(harmlessChoosesRefusal) / float64(refusals); f < 0.8 {
		t.Errorf("harmlessness prefers the refusal on only %.2f of refusal pairs", f)
	}
	again, _ := c.BuildPairs(11, []string{"helpful", "harmless"}, prompts, a, b)
	other, _ := c.BuildPairs(12, []string{"helpful", "harmless"}, prompts, a, b)
	if !reflect.DeepEqual(out, again) || reflect.DeepEqual(out, other) {
		t.Error("pairs are not a function of the seed")
	}
}

// TestOneLabelPairs: the one-label task draws exactly what labelling the candidates one by one on
// one dimension with the seed's Bradley–Terry stream drew before the two-label task (the committed pairs
// reproduce), skips empty, identical and malformed candidates, and refuses two dimensions.
func TestOneLabelPairs(t *testing.T) {
	c := OneLabel()
	prompts, a, b := candidates(t, c, 6, 300)
	a[3], b[4], b[5] = "", a[4], "ab>c"
	out, err := c.BuildPairs(21, []string{"harmless"}, prompts, a, b)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(21, 0x6274))
	var want []Pair
	for i, x := range prompts {
		if i >= 3 && i <= 5 {
			continue
		}
		p, _ := c.Label(r, len(want), "harmless", x, a[i], b[i], 21)
		want = append(want, p)
	}
	if len(out) != 1 || !reflect.DeepEqual(out[0], want) {
		t.Fatalf("one-label pairs differ from labelling one by one (%d vs %d pairs)", len(out[0]), len(want))
	}
	if _, err := c.BuildPairs(21, []string{"helpful", "harmless"}, prompts, a, b); err == nil {
		t.Error("the one-label task labelled two dimensions")
	}
	if _, err := c.BuildPairs(21, []string{"helpful"}, prompts, a[:2], b); err == nil {
		t.Error("fewer candidates than prompts accepted")
	}
	bad := c
	bad.RefusalShare = 0.3
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "two_label") {
		t.Errorf("refusal pairs without two labels: %v", err)
	}
}

// The refusal pairs of a smaller share are a subset of a larger share's, with the same texts and
// labels' draws; every other pair is the same pair.
func TestRefusalSharesNested(t *testing.T) {
	c := Default()
	prompts, err := c.TrainPrompts(3, 400)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 9))
	a, b := make([]string, len(prompts)), make([]string, len(prompts))
	for i, x := range prompts {
		a[i], b[i] = c.Response(r, x), c.Response(r, x)
	}
	build := func(share float64) []Pair {
		cc := c
		cc.RefusalShare = share
		out, err := cc.BuildPairs(7, []string{"helpful", "harmless"}, prompts, a, b)
		if err != nil {
			t.Fatal(err)
		}
		return out[1]
	}
	lo, hi := build(0.1), build(0.3)
	if len(lo) != len(hi) {
		t.Fatalf("%d and %d pairs", len(lo), len(hi))
	}
	nlo, nhi := 0, 0
	for i := range lo {
		if lo[i].Refusal {
			nlo++
			if !hi[i].Refusal || lo[i] != hi[i] {
				t.Fatalf("pair %d: a refusal at 0.1 (%+v) is not the same refusal at 0.3 (%+v)", i, lo[i], hi[i])
			}
		}
		if hi[i].Refusal {
			nhi++
		} else if lo[i] != hi[i] {
			t.Fatalf("pair %d differs between the shares without being a refusal", i)
		}
	}
	if nlo == 0 || nhi <= nlo {
		t.Fatalf("%d refusals at 0.1, %d at 0.3", nlo, nhi)
	}
}

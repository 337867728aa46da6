package arith

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestGenerateIsDeterministicAndConsistent(t *testing.T) {
	cfg := Default()
	a, err := Generate(cfg, 42, 500, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(cfg, 42, 500, 0)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different problems")
	}
	c, _ := Generate(cfg, 43, 500, 0)
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same problems")
	}
	under := 0
	for _, p := range a {
		if err := p.Check(); err != nil {
			t.Fatalf("problem %d: %v", p.ID, err)
		}
		if n := len(p.Ops); n < cfg.MinSteps || n > cfg.MaxSteps {
			t.Fatalf("problem %d has %d steps", p.ID, n)
		}
		if p.Underdetermined() {
			under++
			if !strings.Contains(p.Prompt, "?") {
				t.Fatalf("underdetermined problem %d shows no '?': %q", p.ID, p.Prompt)
			}
		}
		if v := Verify(p, p.Completion()); !v.Correct || !v.Parsed {
			t.Fatalf("gold completion %q of %q judged %+v", p.Completion(), p.Prompt, v)
		}
		for _, ch := range p.Prompt + p.Completion() {
			if !strings.ContainsRune(Alphabet, ch) {
				t.Fatalf("character %q outside the alphabet", ch)
			}
		}
	}
	if frac := float64(under) / 500; frac < 0.22 || frac > 0.38 {
		t.Fatalf("underdetermined fraction %.2f, configured 0.3", frac)
	}
}

func TestWorkedExample(t *testing.T) {
	p := Problem{Start: 3, Ops: []string{"+", "*", "-"}, Operands: []int{4, 2, 8}, Hidden: 2, Modulus: 10, Trace: true}
	p.Steps = evaluate(p.Start, p.Ops, p.Operands, p.Modulus)
	p.Answer = p.Steps[2]
	p.Prompt = renderPrompt(p.Start, p.Ops, p.Operands, p.Hidden)
	if p.Prompt != "3+4*2-?=" {
		t.Fatalf("prompt %q", p.Prompt)
	}
	// 3+4=7, 7*2=14→4, 4-8=-4→6
	if got := p.Completion(); got != "7,4,6;6" {
		t.Fatalf("completion %q", got)
	}
	v := Verify(p, "7,4,5;5")
	if v.Correct || !v.Parsed || !reflect.DeepEqual(v.StepCorrect, []bool{true, true, false}) {
		t.Fatalf("verdict %+v", v)
	}
	for _, bad := range []string{"", "7,4,6", "7,4,6;", "7,4,6;x", ";6;"} {
		if v := Verify(p, bad); v.Parsed || v.Correct {
			t.Fatalf("%q judged parsed: %+v", bad, v)
		}
	}
	if v := Verify(p, ";6"); !v.Correct {
		t.Fatal("an answer without steps is still judged on the answer")
	}
}

func TestAdditionTaskReversesDigits(t *testing.T) {
	ps, err := Generate(Addition(), 1, 200, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		want := reverse(itoa(p.Start + p.Operands[0]))
		if p.Completion() != want {
			t.Fatalf("%s → %q, want %q", p.Prompt, p.Completion(), want)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestConfigValidation(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.MinSteps = 0 },
		func(c *Config) { c.MaxSteps = 1 },
		func(c *Config) { c.Modulus = 1 },
		func(c *Config) { c.Ops = "+/" },
		func(c *Config) { c.UnderdeterminedFrac = 1.5 },
		func(c *Config) { c.OperandMax = 0 },
	}
	for i, f := range bad {
		c := Default()
		f(&c)
		if _, err := Generate(c, 1, 1, 0); err == nil {
			t.Errorf("case %d: invalid config accepted", i)
		}
	}
}

func TestJSONLRoundTripAndErrors(t *testing.T) {
	ps, _ := Generate(Default(), 7, 50, 100)
	path := filepath.Join(t.TempDir(), "p.jsonl")
	if err := WriteJSONL(path, ps); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ps, back) {
		t.Fatal("round trip changed the problems")
	}
	good, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(good)), "\n")
	cases := []struct{ line, want string }{
		{`{"id": 1, "prompt": 3}`, "p.jsonl:3: field prompt"},
		{`{"id":1,`, "p.jsonl:3: malformed JSON"},
		{strings.Replace(lines[0], `"answer":`, `"answer":1`, 1), "p.jsonl:3: field answer"},
		{strings.Replace(lines[0], `"id"`, `"idd"`, 1), `p.jsonl:3: json: unknown field "idd"`},
		{strings.Replace(lines[0], `,"hidden":-1`, ``, 1), "p.jsonl:3: field hidden: missing"},
		{`{"id":1}{"id":2}`, "p.jsonl:3: trailing data"},
	}
	for _, c := range cases {
		if c.line == lines[0] {
			continue // the substitution did not apply to this sample line
		}
		doc := lines[0] + "\n\n" + c.line + "\n"
		_, err := DecodeJSONL(strings.NewReader(doc), "p.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("line %q: error %v; want it to contain %q", c.line, err, c.want)
		}
	}
}

// TestCommittedSample regenerates the committed sample from its recorded seed and compares bytes.
func TestCommittedSample(t *testing.T) {
	want, err := os.ReadFile("sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Generate(Default(), SampleSeed, SampleSize, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := WriteJSONL(path, ps); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Fatal("sample.jsonl differs from Generate(Default(), SampleSeed, SampleSize); regenerate it with `go run ./toolkit/cmd/paperlab data arith`")
	}
}

func FuzzDecodeJSONL(f *testing.F) {
	ps, _ := Generate(Default(), 3, 4, 0)
	var buf bytes.Buffer
	for _, p := range ps {
		b, _ := json.Marshal(p)
		buf.Write(append(b, '\n'))
	}
	f.Add(buf.String())
	f.Add(`{"id":0}`)
	f.Add("{\n}\n[]\nnull\n")
	f.Add(`{"id":0,"prompt":"1+2=","start":1,"ops":["+"],"operands":[2],"hidden":-1,"steps":[3],"answer":3,"modulus":0,"trace":false,"reverse_answer":false}`)
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := DecodeJSONL(strings.NewReader(doc), "fuzz.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			return
		}
		for _, p := range got {
			if err := p.Check(); err != nil {
				t.Fatalf("accepted an inconsistent problem: %v", err)
			}
			if v := Verify(p, p.Completion()); !v.Correct {
				t.Fatalf("accepted problem whose gold completion fails: %+v", p)
			}
		}
	})
}

func TestNoisyCompletion(t *testing.T) {
	ps, _ := Generate(Default(), 5, 4000, 0)
	r := rand.New(rand.NewPCG(1, 2))
	wrong := 0
	for _, p := range ps {
		c := p.NoisyCompletion(r, 0.1)
		v := Verify(p, c)
		if !v.Parsed {
			t.Fatalf("noisy completion %q does not parse", c)
		}
		if !v.Correct {
			wrong++
		}
		if p.NoisyCompletion(rand.New(rand.NewPCG(9, 9)), 0) != p.Completion() {
			t.Fatal("zero noise must give the gold completion")
		}
	}
	if frac := float64(wrong) / float64(len(ps)); frac < 0.15 || frac > 0.35 {
		t.Fatalf("%.2f of noisy demonstrations are wrong; with 10%% slips per step over 2–4 steps expect ≈0.27", frac)
	}
}

// The skewed task draws the hidden operand's mode with its probability; without a probability the
// mode is ignored and the problems are the uniform task's (which draws nothing extra, so the
// committed sample file still matches, see the golden-file test).
func TestSkewedHiddenOperand(t *testing.T) {
	c := SkewedHidden()
	ps, err := Generate(c, 5, 20000, 0)
	if err != nil {
		t.Fatal(err)
	}
	hidden, mode := 0, 0
	for _, p := range ps {
		if err := p.Check(); err != nil {
			t.Fatal(err)
		}
		if p.Underdetermined() {
			hidden++
			if p.Operands[p.Hidden] == c.HiddenMode {
				mode++
			}
		}
	}
	if f := float64(mode) / float64(hidden); math.Abs(f-0.4) > 0.02 {
		t.Fatalf("hidden operand = mode in %.3f of %d hidden problems, want 0.4", f, hidden)
	}
	u, _ := Generate(Default(), 5, 50, 0)
	c2 := Default()
	c2.HiddenMode = 3 // ignored without a probability
	v, _ := Generate(c2, 5, 50, 0)
	for i := range u {
		if u[i].Prompt != v[i].Prompt || u[i].Answer != v[i].Answer {
			t.Fatalf("problem %d differs without a skew: %q vs %q", i, u[i].Prompt, v[i].Prompt)
		}
	}
	bad := SkewedHidden()
	bad.HiddenMode = 12
	if _, err := Generate(bad, 1, 1, 0); err == nil {
		t.Fatal("hidden_mode 12 with operand_max 9 accepted")
	}
}

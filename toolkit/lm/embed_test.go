package lm

import (
	"math"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// testRenderer draws every token between BOS and the first '=' as 6 pixels that depend on the token
// — except that '3' and '4' look alike — and leaves the rest to the token embedder.
func testRenderer(tok *Tokenizer, seq []int32, pixels int) ([][]float32, error) {
	out := make([][]float32, len(seq))
	eq, _ := tok.Encode("=")
	four, _ := tok.Encode("4")
	three, _ := tok.Encode("3")
	start := -1
	for i, t := range seq {
		if t == BOS {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return out, nil
	}
	for j := start; j < len(seq) && seq[j] != eq[0]; j++ {
		id := seq[j]
		if id == four[0] {
			id = three[0]
		}
		px := make([]float32, pixels)
		for k := range px {
			px[k] = float32(math.Sin(float64(int(id)*7 + k*3)))
		}
		out[j] = px
	}
	return out, nil
}

func init() { RegisterRenderer("test_digits", testRenderer) }

// A patch embedder reads rendered positions through their pixels only: two statements that look
// alike score every completion token the same, though their token ids differ (with the token embedder
// they do not); and generation with the KV cache (left-padded prefill) agrees with a full forward.
func TestPatchEmbedderReadsPixels(t *testing.T) {
	tok := arithTok(t)
	enc := func(s string) []int32 {
		ids, err := tok.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	for _, renderer := range []string{"", "test_digits"} {
		c := ConfigR()
		c.InitStd = 0.3
		if renderer != "" {
			c.Renderer, c.Pixels = renderer, 6
		}
		m, err := NewOn(goBackend(t), c, tok, 3)
		if err != nil {
			t.Fatal(err)
		}
		exs := []Example{{Prompt: enc("13+3="), Completion: enc("16")}, {Prompt: enc("14+4="), Completion: enc("16")}}
		sc, err := m.Score(exs, true)
		if err != nil {
			t.Fatal(err)
		}
		same := true
		for j := range sc[0].LogProbs {
			same = same && sc[0].LogProbs[j] == sc[1].LogProbs[j]
		}
		if same != (renderer != "") {
			t.Fatalf("renderer %q: look-alike statements scored %v and %v", renderer, sc[0].LogProbs, sc[1].LogProbs)
		}
		prompts := [][]int32{enc("1+2="), enc("13+24="), enc("7*8-9="), enc("5=")}
		gens, err := m.Sample(prompts, SampleConfig{MaxNew: 6, Temperature: 1, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		var back []Example
		for i, g := range gens {
			back = append(back, Example{Prompt: prompts[i], Completion: g.Tokens})
		}
		scored, err := m.Score(back, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range gens {
			for j := range g.LogProbs {
				if d := math.Abs(float64(g.LogProbs[j] - scored[i].LogProbs[j])); d > 1e-4 {
					t.Fatalf("renderer %q row %d token %d: cache %v, full forward %v", renderer, i, j, g.LogProbs[j], scored[i].LogProbs[j])
				}
			}
		}
		m.Close()
	}
	bad := ConfigR()
	bad.Renderer = "test_digits"
	if err := bad.Validate(); err == nil {
		t.Fatal("a renderer without pixels validated")
	}
	bad.Pixels, bad.Renderer = 6, "nowhere"
	m, err := NewOn(goBackend(t), bad, tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Score([]Example{{Prompt: enc("1+1="), Completion: enc("2")}}, true); err == nil {
		t.Fatal("an unregistered renderer scored")
	}
}

// With InputPatches the batch carries the pixels: a batch without them is an error naming the input,
// there is nothing to render, and a batch that carries them trains.
func TestInputPatches(t *testing.T) {
	c := ConfigR()
	c.Renderer, c.Pixels = InputPatches, 3
	m, err := NewOn(goBackend(t), c, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, _, err := m.Render([]int32{BOS, 4}, 1, 2); err == nil {
		t.Fatal("rendered for InputPatches")
	}
	loss := Loss{Name: "input-patches-test", Inputs: []string{"tokens", "positions", "key_mask"}, Fn: func(c Config, w *Views, in In) (*Node, []*Node) {
		logits, _, _ := Forward(c, w, in)
		l := ReduceAllMean(Square(logits))
		return l, []*Node{l}
	}}
	tr, err := NewTrainer(m, DefaultOpt(1e-3), []string{"l"}, loss)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var in Inputs
	in.Add("tokens", tensors.FromFlatDataAndDimensions([]int32{BOS, 4}, 1, 2))
	in.Add("positions", tensors.FromFlatDataAndDimensions([]int32{0, 1}, 1, 2))
	in.Add("key_mask", tensors.FromFlatDataAndDimensions([]float32{1, 1}, 1, 2))
	if _, err := tr.Update(in); err == nil || !strings.Contains(err.Error(), "patches") {
		t.Fatalf("a batch without patches: %v", err)
	}
	in.Add("patches", tensors.FromFlatDataAndDimensions([]float32{0, 0, 0, 1, 2, 3}, 1, 2, 3))
	in.Add("patch_mask", tensors.FromFlatDataAndDimensions([]float32{0, 1}, 1, 2))
	if _, err := tr.Update(in); err != nil {
		t.Fatal(err)
	}
}

package lm

import (
	"os"
	"strconv"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
)

// Benchmarks of configuration R on the engine chosen by toolkit/backend ($GOMLX_BACKEND, else ONNX
// Runtime when installed, else pure Go). bench/run.sh runs them next to the same model in PyTorch.
// The batch (sequences per step, prompts per sampling call) is 64 unless $PAPERLAB_BENCH_BATCH says
// otherwise (scripts/gpu-check.sh also measures a GPU-sized batch).

// benchBatch is $PAPERLAB_BENCH_BATCH, default 64.
func benchBatch(b *testing.B) int {
	s := os.Getenv("PAPERLAB_BENCH_BATCH")
	if s == "" {
		return 64
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("PAPERLAB_BENCH_BATCH=%q: want a positive integer", s)
	}
	return n
}

// benchBatches are k training batches of n sequences, cycling through data.
func benchBatches(b *testing.B, m *Model, data []Example, k, n int) []Inputs {
	out := make([]Inputs, k)
	for i := range out {
		ex := make([]Example, n)
		for j := range ex {
			ex[j] = data[(i*n+j)%len(data)]
		}
		p, err := Pack(ex, m.Config.Context, true)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = p.Inputs()
	}
	return out
}

// benchPrompts are the prompts of the first n examples, cycling through data.
func benchPrompts(data []Example, n int) [][]int32 {
	prompts := make([][]int32, n)
	for i := range prompts {
		prompts[i] = data[i%len(data)].Prompt
	}
	return prompts
}

func benchModel(b *testing.B) (*Model, []Example) {
	b.Helper()
	be, info, err := backend.Get()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s", info)
	tok := arithTok(b)
	c := ConfigR()
	if a := os.Getenv("PAPERLAB_BENCH_ACTIVATION"); a != "" { // for measuring the activation lever
		c.Activation = a
	}
	m, err := NewOn(be, c, tok, 1)
	if err != nil {
		b.Fatal(err)
	}
	return m, additionData(b, tok, 1, 4096)
}

// BenchmarkTrainStep: one Adam step (forward, backward, update) on a batch of 64 sequences of
// context 24 (or $PAPERLAB_BENCH_BATCH).
func BenchmarkTrainStep(b *testing.B) {
	m, data := benchModel(b)
	tr, err := NewTrainer(m, DefaultOpt(3e-3), nil, SFTLoss)
	if err != nil {
		b.Fatal(err)
	}
	batches := benchBatches(b, m, data, 8, benchBatch(b))
	for i := 0; i < 3; i++ { // compile and warm up
		if _, err := tr.Update(batches[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tr.Update(batches[i%len(batches)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSample: 64 prompts (or $PAPERLAB_BENCH_BATCH) of 7 tokens (6 characters + BOS), 8 new
// tokens, KV cache, temperature 1.
func BenchmarkSample(b *testing.B) {
	m, data := benchModel(b)
	prompts := benchPrompts(data, benchBatch(b))
	sc := SampleConfig{MaxNew: 8, Temperature: 1, Seed: 1, NoEOS: true} // exactly 8 new tokens each
	for i := 0; i < 2; i++ {
		if _, err := m.Sample(prompts, sc); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	tokens := 0
	for i := 0; i < b.N; i++ {
		sc.Seed = uint64(i)
		gens, err := m.Sample(prompts, sc)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range gens {
			tokens += len(g.Tokens)
		}
	}
	b.ReportMetric(float64(tokens)/float64(b.N)/float64(len(prompts)), "tokens/prompt")
}

// BenchmarkRLLoop is what an RL loop sees: 8 sampling calls (64 prompts × 8 tokens) then one
// train step, alternating graphs (each compiled graph has its own ONNX Runtime thread pool); 64 is
// $PAPERLAB_BENCH_BATCH when set.
func BenchmarkRLLoop(b *testing.B) {
	m, data := benchModel(b)
	tr, err := NewTrainer(m, DefaultOpt(3e-3), nil, SFTLoss)
	if err != nil {
		b.Fatal(err)
	}
	n := benchBatch(b)
	batch := benchBatches(b, m, data, 1, n)[0]
	prompts := benchPrompts(data, n)
	sc := SampleConfig{MaxNew: 8, Temperature: 1, Seed: 1, NoEOS: true}
	iter := func(i int) {
		for k := 0; k < 8; k++ {
			sc.Seed = uint64(i*8 + k)
			if _, err := m.Sample(prompts, sc); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tr.Update(batch); err != nil {
			b.Fatal(err)
		}
	}
	iter(-1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		iter(i)
	}
}

// BenchmarkRLLoopTwoGoroutines is BenchmarkRLLoop's iteration on two independent models at once, in
// two goroutines of one process (one op = one iteration of each): what in-process parallelism over
// RL runs would give. bench/parallel.sh sets it beside one process alone and two processes at once.
func BenchmarkRLLoopTwoGoroutines(b *testing.B) {
	type loop struct {
		m       *Model
		tr      *Trainer
		batch   Inputs
		prompts [][]int32
	}
	var loops [2]loop
	for k := range loops {
		m, data := benchModel(b)
		tr, err := NewTrainer(m, DefaultOpt(3e-3), nil, SFTLoss)
		if err != nil {
			b.Fatal(err)
		}
		n := benchBatch(b)
		loops[k] = loop{m: m, tr: tr, batch: benchBatches(b, m, data, 1, n)[0], prompts: benchPrompts(data, n)}
	}
	iter := func(l loop, i int) error {
		sc := SampleConfig{MaxNew: 8, Temperature: 1, NoEOS: true}
		for k := 0; k < 8; k++ {
			sc.Seed = uint64(i*8 + k)
			if _, err := l.m.Sample(l.prompts, sc); err != nil {
				return err
			}
		}
		_, err := l.tr.Update(l.batch)
		return err
	}
	both := func(i int) {
		errs := make(chan error, 2)
		for _, l := range loops {
			go func() { errs <- iter(l, i) }()
		}
		for range loops {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
	both(-1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		both(i)
	}
}

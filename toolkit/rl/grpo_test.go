package rl

import (
	"slices"
	"testing"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// batchTask scores generations one by one as 0, and together (BatchRewarder) by their position in
// the batch, recording the prompt indices it was given.
type batchTask struct {
	prompt  []int32
	prompts [][]int
}

func (t *batchTask) NumPrompts() int                   { return 3 }
func (t *batchTask) Prompt(int) []int32                { return t.prompt }
func (t *batchTask) Reward(int, lm.Generation) float64 { return 0 }
func (t *batchTask) Rewards(prompts []int, gens []lm.Generation) ([]float64, error) {
	t.prompts = append(t.prompts, slices.Clone(prompts))
	out := make([]float64, len(gens))
	for i := range out {
		out[i] = float64(i)
	}
	return out, nil
}

// Collect takes a BatchRewarder's rewards, in one call per rollout with each generation's prompt,
// instead of calling Reward per generation.
func TestCollectBatchRewards(t *testing.T) {
	be, _, err := backend.New(backend.GoConfig)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := lm.NewTokenizer(arith.Alphabet)
	m, err := lm.NewOn(be, lm.ConfigR(), tok, 3)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("1+2=")
	task := &batchTask{prompt: ids}
	cfg := DefaultConfig("grpo")
	cfg.G, cfg.Sample.MaxNew = 2, 3
	est, _ := EstimatorByName("grpo")
	ro, err := Collect(m, m, task, []int{2, 0}, cfg, est, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ro.Rewards, []float64{0, 1, 2, 3}) {
		t.Fatalf("rewards %v, want the batch's 0 1 2 3", ro.Rewards)
	}
	if len(task.prompts) != 1 || !slices.Equal(task.prompts[0], []int{2, 2, 0, 0}) {
		t.Fatalf("Rewards called with %v, want once with [2 2 0 0]", task.prompts)
	}
}

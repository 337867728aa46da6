package env_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	. "github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/env/envtest"
)

// Scenarios every environment family contributes to the API-conformance test.
var conformance = []string{"matrix:climbing", "matrix:penalty-100", "matrix:coord5", "matrix:push3", "push:3p-5x5", "push:6p-5x5-8t", "lbf:8x8-3p-2f-coop", "lbf:6x6-2p-3f-2s-pen", "lbf:10x10-4p-4f-lvl3-30t"}

func TestConformance(t *testing.T) { envtest.Check(t, conformance...) }

func TestBadScenarioNames(t *testing.T) {
	for _, bad := range []string{"lbf", "nope:x", "lbf:8x9-3p-2f", "lbf:8x8-3p-2f-fast", "lbf:2x2-1p-1f", "matrix:coord1", "matrix:penalty-x", "matrix:chess"} {
		if _, err := Make(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestVecIsReproducibleAndAutoResets(t *testing.T) {
	run := func() []Transition {
		v, err := NewVec("lbf:8x8-2p-2f", 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Reset(3); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 1))
		var out []Transition
		for s := 0; s < 120; s++ {
			acts := make([][]int, 4)
			for k := range acts {
				acts[k] = []int{r.IntN(6), r.IntN(6)}
			}
			trs, err := v.Step(acts)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, trs...)
		}
		return out
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("Vec is not reproducible")
	}
	dones := 0
	for _, tr := range a {
		if tr.Done {
			dones++
		}
	}
	if dones < 4*2 { // 120 steps with a 50-step limit: every copy finished at least twice
		t.Fatalf("%d episodes finished", dones)
	}
}

package agents

import (
	"io"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Every colour-binding arm runs the whole experiment at smoke scale (pretraining, adaptation with
// the arm's architecture, the sweep, online): the pilot only pretrains, the main run does the rest
// with whichever arm it picked.
func TestSmokeEveryBindArm(t *testing.T) {
	if testing.Short() {
		t.Skip("three smoke runs")
	}
	for _, arm := range []string{BindAux, BindPairs, BindObsPrefix} {
		cfg := ConfigFor(exp.Smoke)
		cfg.Bind = arm
		cfg.DiversitySweep, cfg.Shots = []int{2}, []int{5}
		res, err := Run(exp.Options{Scale: exp.Smoke, Seeds: 1, Log: io.Discard, Config: cfg})
		if err != nil {
			t.Fatalf("%s: %v", arm, err)
		}
		pre := res.RunsOf("pretrained")
		if len(pre) != 1 || pre[0].Final["pretrain_steps"] == 0 {
			t.Fatalf("%s: pretrained runs %v", arm, pre)
		}
		if _, ok := pre[0].Final["success_k5"]; !ok {
			t.Fatalf("%s: no success_k5", arm)
		}
	}
}

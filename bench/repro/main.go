// Command repro measures what a run's numbers depend on. It trains one seed of capo's SFT warm start
// (capo's default configuration, cut to -steps steps) and one E3T agent (the e3t experiment's
// default configuration on cramped_room, cut to -iters iterations of -envs games) on the engine of
// this process — $GOMLX_BACKEND, and for the pure-Go engine the GOMLX_SIMD_AVX512 / GOMLX_SIMD_AVX2
// variables read at start-up — and prints, per workload, the final value bit for bit, a SHA-256 of
// the trained weights and the wall time. bench/repro.sh runs it under each engine setting, with 1 and
// 2 threads, and under qemu's emulation of CPUs without AVX-512 or AVX, and tabulates which agree.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/capo"
	e3texp "github.com/paperlab/paperlab/toolkit/exp/e3t"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/marl/e3t"
)

func hash(w []float32) string {
	h := sha256.New()
	b := make([]byte, 4)
	for _, x := range w {
		binary.LittleEndian.PutUint32(b, math.Float32bits(x))
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

func main() {
	steps := flag.Int("steps", 100, "SFT steps of capo's warm start (its default is 550)")
	iters := flag.Int("iters", 3, "E3T iterations (the experiment's default is 63)")
	envs := flag.Int("envs", 8, "E3T games per iteration (the experiment's default is 48)")
	work := flag.String("work", "sft,e3t", "workloads")
	flag.Parse()
	_, info, err := backend.Get()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("engine %s; AVX512 env %q AVX2 env %q\n", info.Config, os.Getenv("GOMLX_SIMD_AVX512"), os.Getenv("GOMLX_SIMD_AVX2"))
	for _, w := range []string{"sft", "e3t"} {
		if !slices.Contains(strings.Split(*work, ","), w) {
			continue
		}
		t0 := time.Now()
		var final float64
		var weights []float32
		switch w {
		case "sft":
			cfg := capo.ConfigFor(exp.Default)
			tok := lmtask.Tokenizer()
			demos, err := lmtask.Generate(tok, cfg.Data, 1, cfg.SFTSize, nil)
			check(err)
			noisy, err := demos.NoisyExamples(cfg.SFTNoise, 1)
			check(err)
			m, err := lm.New(cfg.Model, tok, 1)
			check(err)
			sc := cfg.SFT
			sc.Seed, sc.Steps = 1, *steps
			_, curves, err := lm.TrainSFT(m, sc, noisy, nil, lm.SFTHooks{})
			check(err)
			final, _ = curves.Last("train_loss")
			weights, err = m.Weights()
			check(err)
		case "e3t":
			c := e3texp.ConfigFor(exp.Default)
			tc := c.Train
			m := c.Methods[slices.IndexFunc(c.Methods, func(m e3texp.Method) bool { return m.Name == "e3t" })]
			tc.Game, tc.Mode, tc.Epsilon, tc.PartnerModel = c.Game("cramped_room"), m.Mode, m.Epsilon, m.PartnerModel
			tc.Iters, tc.Envs = *iters, *envs
			tc.ShapingSteps = tc.Envs * tc.Iters * c.Horizon / 2
			r, err := e3t.Train(tc, 1, e3t.Options{})
			check(err)
			final, _ = r.Curves.Last("episodic_return")
			weights, err = r.Policy.Actor.Weights()
			check(err)
		}
		fmt.Printf("%s final %.17g weights %s seconds %.1f\n", w, final, hash(weights), time.Since(t0).Seconds())
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Command lbfspeed is PaperLab's side of bench/lbf.sh: it replays every recorded lb-foraging
// trajectory (toolkit/marl/env/testdata/lbf: the same initial states and joint actions as
// bench/lbf_peer.py) through env.LBF.Step, observations included, and prints µs per step per round.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

func main() {
	rounds, _ := strconv.Atoi(os.Args[1])
	files, _ := filepath.Glob("toolkit/marl/env/testdata/lbf/*.jsonl")
	var trajs []env.LBFRecorded
	for _, path := range files {
		_, t, err := env.ReadLBFRecorded(path)
		if err != nil {
			panic(err)
		}
		trajs = append(trajs, t...)
	}
	for r := 1; r <= rounds; r++ {
		steps := 0
		var total time.Duration
		for _, t := range trajs {
			cfg, err := env.ParseLBF(t.Task)
			if err != nil {
				panic(err)
			}
			e, err := env.NewLBF(cfg, t.Task)
			if err != nil {
				panic(err)
			}
			var st env.State
			st, err = e.StateFrom(t.Initial.LBFStateFile)
			if err != nil {
				panic(err)
			}
			start := time.Now()
			for _, s := range t.Steps {
				if st, _, err = e.Step(st, s.Actions); err != nil {
					panic(err)
				}
			}
			total += time.Since(start)
			steps += len(t.Steps)
		}
		fmt.Printf("paperlab round %d: %d steps, %.2f us/step\n", r, steps, float64(total.Microseconds())/float64(steps))
	}
}

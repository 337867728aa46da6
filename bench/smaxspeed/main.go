// Command smaxspeed measures the Go SMAX environment's steps per second with uniformly random
// available actions (the rules, the heuristic enemy, observations and masks; finished battles reset):
// the Go side of bench/smax_speed.sh, beside JaxMARL's SMAX (bench/smax_peer.py).
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/env/smax"
)

func main() {
	scenario := flag.String("scenario", "3m", "SMAX map")
	envs := flag.Int("envs", 256, "environment copies, split over GOMAXPROCS goroutines")
	steps := flag.Int("steps", 128, "steps of every copy per repetition")
	reps := flag.Int("reps", 5, "timed repetitions (median reported)")
	label := flag.String("label", "", "label printed with the result")
	flag.Parse()
	e, err := smax.New(smax.DefaultConfig(*scenario))
	if err != nil {
		log.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	states := make([]env.State, *envs)
	for k := range states {
		states[k], _, _ = e.Reset(uint64(k))
	}
	seeds := uint64(*envs)
	var mu sync.Mutex
	run := func() {
		var wg sync.WaitGroup
		for w := range procs {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 9))
				for k := w; k < len(states); k += procs {
					st := states[k]
					for range *steps {
						next, tr, err := e.Step(st, smax.RandomTeam(e, st.(*smax.State), r))
						if err != nil {
							log.Fatal(err)
						}
						st = next
						if tr.Done {
							mu.Lock()
							seeds++
							s := seeds
							mu.Unlock()
							st, _, _ = e.Reset(s)
						}
					}
					states[k] = st
				}
			}(w)
		}
		wg.Wait()
	}
	run() // warm-up
	var times []float64
	for range *reps {
		t0 := time.Now()
		run()
		times = append(times, time.Since(t0).Seconds())
	}
	slices.Sort(times)
	fmt.Printf("go smax %s %s envs %d procs %d steps/s %.0f\n", *scenario, *label, *envs, procs, float64(*envs**steps)/times[len(times)/2])
}

package env

import (
	"fmt"
	"runtime"
	"sync"
)

// Vec steps n episodes of one environment together. Episode k's runs are seeded from (seed, k,
// episode number), so a Vec run is reproducible; a finished episode is reset automatically and its
// Transition reports Done with the final rewards, while Obs holds the first observation of the
// next episode (as JaxMARL's auto-reset wrappers do).
type Vec struct {
	Env  Env
	Spec Spec
	// States are the n episodes' current states.
	States   []State
	seed     uint64
	episodes []uint64
	obs      [][][]float32
	// Parallel steps the episodes on up to GOMAXPROCS goroutines (worth it only for heavy envs).
	Parallel bool
}

// NewVec makes n episodes of a scenario (Reset starts them).
func NewVec(scenario string, n int) (*Vec, error) {
	e, err := Make(scenario)
	if err != nil {
		return nil, err
	}
	return VecOf(e, n)
}

// VecOf makes n episodes of e (Reset starts them).
func VecOf(e Env, n int) (*Vec, error) {
	if n < 1 {
		return nil, fmt.Errorf("env: a Vec of %d episodes", n)
	}
	return &Vec{Env: e, Spec: e.Spec(), States: make([]State, n)}, nil
}

// Len is the number of episodes.
func (v *Vec) Len() int { return len(v.States) }

// EpisodeSeed is the seed of copy k's e-th episode.
func EpisodeSeed(seed uint64, k int, e uint64) uint64 {
	return seed*1_000_003 + uint64(k)*7_919 + e*104_729 + 1
}

// Reset starts every episode.
func (v *Vec) Reset(seed uint64) error {
	v.seed = seed
	v.episodes = make([]uint64, len(v.States))
	v.obs = make([][][]float32, len(v.States))
	for k := range v.States {
		s, obs, err := v.Env.Reset(EpisodeSeed(seed, k, 0))
		if err != nil {
			return fmt.Errorf("episode %d: %w", k, err)
		}
		v.States[k], v.obs[k] = s, obs
	}
	return nil
}

// Obs returns the current observations obs[k][agent].
func (v *Vec) Obs() [][][]float32 { return v.obs }

// Step applies actions[k] to episode k and auto-resets finished episodes. An error (a bad state, a
// failed reset) names the episode and leaves the Vec part-stepped: Reset it before stepping on.
func (v *Vec) Step(actions [][]int) ([]Transition, error) {
	if v.obs == nil {
		return nil, fmt.Errorf("env %s: Vec.Step before Reset", v.Spec.Name)
	}
	out := make([]Transition, len(v.States))
	var errs []error // per episode, on the parallel path only (no allocation per step otherwise)
	if v.Parallel {
		errs = make([]error, len(v.States))
	}
	var firstErr error
	step := func(k int) {
		s, t, err := v.Env.Step(v.States[k], actions[k])
		if err == nil && t.Done {
			v.episodes[k]++
			s, t.Obs, err = v.Env.Reset(EpisodeSeed(v.seed, k, v.episodes[k]))
		}
		if err != nil {
			err = fmt.Errorf("episode %d: %w", k, err)
			if errs != nil {
				errs[k] = err
			} else if firstErr == nil {
				firstErr = err
			}
			return
		}
		v.States[k], v.obs[k], out[k] = s, t.Obs, t
	}
	if !v.Parallel || len(v.States) < 2 {
		for k := range v.States {
			step(k)
		}
	} else {
		workers := min(runtime.GOMAXPROCS(0), len(v.States))
		// Contiguous chunks (neighbouring episodes' results share cache lines); the caller steps the
		// first chunk itself, which saves waking one more thread.
		chunk := func(w int) {
			for k := w * len(v.States) / workers; k < (w+1)*len(v.States)/workers; k++ {
				step(k)
			}
		}
		var wg sync.WaitGroup
		for w := 1; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				chunk(w)
			}(w)
		}
		chunk(0)
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

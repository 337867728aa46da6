package env

import (
	"runtime"
	"sync"
)

// Vec steps n copies of an environment together. Copy k's episodes are seeded from (seed, k,
// episode number), so a Vec run is reproducible; a finished copy is reset automatically and its
// Transition reports Done with the final rewards, while Obs holds the first observation of the
// next episode (as JaxMARL's auto-reset wrappers do).
type Vec struct {
	Envs     []Env
	seed     uint64
	episodes []uint64
	obs      [][][]float32
	// Parallel steps the copies on up to GOMAXPROCS goroutines (worth it only for heavy envs).
	Parallel bool
}

// NewVec makes n copies of a scenario.
func NewVec(scenario string, n int) (*Vec, error) {
	v := &Vec{}
	for i := 0; i < n; i++ {
		e, err := Make(scenario)
		if err != nil {
			return nil, err
		}
		v.Envs = append(v.Envs, e)
	}
	return v, nil
}

// EpisodeSeed is the seed of copy k's e-th episode.
func EpisodeSeed(seed uint64, k int, e uint64) uint64 {
	return seed*1_000_003 + uint64(k)*7_919 + e*104_729 + 1
}

// Reset starts every copy; it returns obs[k][agent].
func (v *Vec) Reset(seed uint64) [][][]float32 {
	v.seed = seed
	v.episodes = make([]uint64, len(v.Envs))
	v.obs = make([][][]float32, len(v.Envs))
	for k, e := range v.Envs {
		v.obs[k] = e.Reset(EpisodeSeed(seed, k, 0))
	}
	return v.obs
}

// Obs returns the current observations obs[k][agent].
func (v *Vec) Obs() [][][]float32 { return v.obs }

// Step applies actions[k] to copy k and auto-resets finished copies.
func (v *Vec) Step(actions [][]int) []Transition {
	out := make([]Transition, len(v.Envs))
	step := func(k int) {
		t := v.Envs[k].Step(actions[k])
		if t.Done {
			v.episodes[k]++
			t.Obs = v.Envs[k].Reset(EpisodeSeed(v.seed, k, v.episodes[k]))
		}
		v.obs[k] = t.Obs
		out[k] = t
	}
	if !v.Parallel || len(v.Envs) < 2 {
		for k := range v.Envs {
			step(k)
		}
		return out
	}
	workers := min(runtime.GOMAXPROCS(0), len(v.Envs))
	// Contiguous chunks (neighbouring copies' results share cache lines); the caller steps the
	// first chunk itself, which saves waking one more thread.
	chunk := func(w int) {
		for k := w * len(v.Envs) / workers; k < (w+1)*len(v.Envs)/workers; k++ {
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
	return out
}

package overcooked

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"

	"github.com/paperlab/paperlab/toolkit/marl/ac"
)

// Learner is the policy a training rollout records: an Agent that also returns what it acted on.
type Learner interface {
	Agent
	// Sample returns player idx[k]'s action in game k and its log-probability, with the input rows
	// the learner acted on, one per game (they may be the learner's own buffer: read them before its
	// next call).
	Sample(games []*Episode, idx []int, rng *rand.Rand) (in []float32, acts []int, logp []float32, err error)
}

// Rollout is one batch of training games played to the horizon, as PPO consumes it: ac.Rollout's
// single-agent samples (N = 1) with their training rewards. Its E streams are the learner's seats
// times the games: stream s·G + k is the learner's s-th seat in game k (G games), and sample
// t·E + s·G + k is that stream's step t (Obs, Act, LogP, Rew). Every stream ends at the horizon.
type Rollout struct {
	ac.Rollout
	// Partner is the other seat's action at each step, [T·G] (t·G + k); empty when the learner
	// plays both seats.
	Partner []int
	// Sparse sums the team's sparse reward over the steps and games (each game once); Shaped sums
	// the learner's shaped reward, before the shaping factor, over the steps, games and its seats.
	Sparse, Shaped float64
}

// Collector plays batches of training games of one kitchen. Its rollout buffers are reused from one
// Collect to the next: after the first rollout, collecting allocates no new sample storage.
type Collector struct {
	World *Env
	ro    Rollout
}

// NewCollector is a Collector for games of world.
func NewCollector(world *Env) *Collector { return &Collector{World: world} }

// Collect plays games to the horizon — the learner in seat[k] of game k; in the other seat the
// partner, or the learner again when partner is nil (self-play that learns from both seats) — and
// returns the learner's samples. A sample's reward is the team's sparse reward plus the game's
// ShapingFactor times the seat's own shaped reward (overcooked_ai's training reward). At each step
// the learner acts in its seat, then in the other seat the learner or the partner; the games step in
// order; then the learner sees the other seat's actions and the partner the learner's (Agent.Saw).
// Both are Reset for len(games) games first. The rollout lies in the collector's buffers, valid
// until its next Collect.
func (c *Collector) Collect(games []*Episode, seat []int, learner Learner, partner Agent, rng *rand.Rand) (*Rollout, error) {
	if len(games) == 0 || len(seat) != len(games) {
		return nil, fmt.Errorf("overcooked: %d seats for %d games", len(seat), len(games))
	}
	if partner == nil && isStateful(learner) || partner != nil && sameStateful(learner, partner) {
		return nil, errors.New("overcooked: a stateful learner cannot fill both seats of a game: its per-game history would mix the two players' steps")
	}
	G, T := len(games), c.World.Cfg.Horizon
	other := make([]int, G)
	for k := range other {
		other[k] = 1 - seat[k]
	}
	seats := [][]int{seat} // the learner's seats, one stream of samples each
	if partner == nil {
		seats = append(seats, other)
	}
	E := len(seats) * G
	ro := &c.ro
	ro.Rollout = ac.Rollout{T: T, E: E, N: 1, NA: NumActions, Obs: ro.Obs[:0], Act: ro.Act[:0], LogP: ro.LogP[:0],
		Rew: resize(ro.Rew, T*E), Avail: allAvailable(ro.Avail, T*E*NumActions)}
	ro.Partner, ro.Sparse, ro.Shaped = ro.Partner[:0], 0, 0
	learner.Reset(G)
	if partner != nil {
		partner.Reset(G)
	}
	joint := make([][2]int, G)
	acts := make([][]int, 0, 2) // each step's actions: the learner's in each of its seats, then the partner's
	for t := 0; t < T; t++ {
		acts = acts[:0]
		for _, idx := range seats {
			in, a, lp, err := learner.Sample(games, idx, rng)
			if err != nil {
				return nil, fmt.Errorf("step %d, learner: %w", t, err)
			}
			ro.Obs, ro.Act, ro.LogP = append(ro.Obs, in...), append(ro.Act, a...), append(ro.LogP, lp...)
			for k := range games {
				joint[k][idx[k]] = a[k]
			}
			acts = append(acts, a)
		}
		if partner != nil {
			a, err := partner.Act(games, other, rng)
			if err != nil {
				return nil, fmt.Errorf("step %d, partner: %w", t, err)
			}
			ro.Partner = append(ro.Partner, a...)
			for k := range games {
				joint[k][other[k]] = a[k]
			}
			acts = append(acts, a)
		}
		for k, g := range games {
			next, _, err := c.World.Step(g, joint[k][:])
			if err != nil {
				return nil, fmt.Errorf("step %d, game %d: %w", t, k, err)
			}
			games[k] = next.(*Episode)
			out := games[k].Last
			sp := out.Sparse[0] + out.Sparse[1]
			ro.Sparse += sp
			for s, idx := range seats {
				ro.Rew[t*E+s*G+k] = sp + games[k].ShapingFactor*out.Shaped[idx[k]]
				ro.Shaped += out.Shaped[idx[k]]
			}
		}
		learner.Saw(acts[len(acts)-1]) // the other seat's actions
		if partner != nil {
			partner.Saw(acts[0])
		}
	}
	ro.ObsDim = len(ro.Obs) / (T * E)
	return ro, nil
}

// resize is s with length n, reusing its storage when it has room (the values are not kept).
func resize[V any](s []V, n int) []V {
	if cap(s) < n {
		return make([]V, n)
	}
	return s[:n]
}

// allAvailable is n ones (every action available), reusing buf when it already is.
func allAvailable(buf []float32, n int) []float32 {
	if len(buf) == n {
		return buf
	}
	return ac.AllAvailable(n)
}

// isStateful reports whether a keeps a per-game history (Stateful).
func isStateful(a Agent) bool {
	s, ok := a.(Stateful)
	return ok && s.Stateful()
}

// sameStateful reports whether a and b are one stateful agent, which cannot fill both seats of a game.
func sameStateful(a, b Agent) bool {
	return isStateful(a) && reflect.TypeOf(a).Comparable() && a == b
}

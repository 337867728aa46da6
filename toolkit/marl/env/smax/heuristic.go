package smax

import (
	"math"
	"math/rand/v2"
)

// Memory is a heuristic unit's state between steps (SMAX's HeuristicPolicyState): where it heads
// when it sees no enemy, and the enemy it last attacked (−1: none).
type Memory struct {
	Target   [2]float32
	Attacked int
}

// NewMemory is a heuristic unit's initial memory (no target yet, nobody attacked).
func NewMemory() Memory { return Memory{Attacked: -1} }

// initial reports whether m is the initial memory (SMAX compares the whole state).
func (m Memory) initial() bool { return m == NewMemory() }

// heuristic is SMAX's heuristic policy (create_heuristic_policy) for the unit whose observation is
// obs, as the enemy team plays it: if an opponent is within attack range, attack — the one it
// attacked last while that one stays in range, else the closest ("closest" mode) or a uniformly
// random one in range ("random") — unless EnemyShoots is off; otherwise move toward a uniformly
// random visible opponent or, seeing none, toward its default target: its start position rotated
// 180° about the map's centre (fixed at its first step). The move is the one of north, east, south,
// west most aligned with the way to the target (the first on a tie). It reads only the observation
// (positions relative over its sight range, health above 0 as "visible"), as SMAX's does. r draws
// the random choices.
func (e *Env) heuristic(m *Memory, obs []float32, r *rand.Rand) int {
	return e.heuristicWith(m, obs, func(n int) int { return r.IntN(n) }, func(n int) int { return r.IntN(n) })
}

// heuristicWith is heuristic with its two random choices given: pickShoot(n) and pickChase(n) each
// return an index in [0, n) among the opponents in range and the visible ones.
func (e *Env) heuristicWith(m *Memory, obs []float32, pickShoot, pickChase func(n int) int) int {
	per := unitFeatures + len(Units)
	teamSize, others := e.Sc.Enemies, e.Sc.Allies // the heuristic plays the enemy team
	own := obs[(e.N()-1)*per:]
	utype := 0 // SMAX's nonzero(fill_value=None) gives type 0 for a dead unit's zero features
	for t := range len(Units) {
		if own[ownFeatures+t] > 0 {
			utype = t
			break
		}
	}
	u := Units[utype]
	pos := [2]float32{own[1] * e.Cfg.MapWidth, own[2] * e.Cfg.MapHeight}
	first := (teamSize - 1) * per
	rel := make([][2]float32, others)
	visible, shootable := make([]bool, others), make([]bool, others)
	var inRange, seen []int
	for k := range others {
		f := obs[first+k*per:]
		rel[k] = [2]float32{f[1] * u.Sight, f[2] * u.Sight}
		visible[k] = f[0] > 0
		shootable[k] = visible[k] && float32(math.Sqrt(float64(rel[k][0]*rel[k][0]+rel[k][1]*rel[k][1]))) < u.Range
		if shootable[k] {
			inRange = append(inRange, k)
		}
		if visible[k] {
			seen = append(seen, k)
		}
	}
	wasInitial := m.initial()
	attack := -1
	if len(inRange) > 0 {
		if e.Cfg.AttackMode == "random" {
			attack = inRange[pickShoot(len(inRange))]
		} else {
			best := float32(math.Inf(1))
			for _, k := range inRange {
				if d := float32(math.Sqrt(float64(rel[k][0]*rel[k][0] + rel[k][1]*rel[k][1]))); d < best {
					attack, best = k, d
				}
			}
		}
	} else {
		attack = 0 // SMAX's argmin over no candidates: the first
	}
	if m.Attacked != -1 && shootable[m.Attacked] {
		attack = m.Attacked
	}
	if shootable[attack] {
		m.Attacked = attack
	} else {
		m.Attacked = -1
	}
	if wasInitial {
		cx, cy := e.Cfg.MapWidth/2, e.Cfg.MapHeight/2
		m.Target = [2]float32{-(pos[0] - cx) + cx, -(pos[1] - cy) + cy}
	}
	if len(inRange) > 0 && e.Cfg.EnemyShoots {
		return NumMoves + attack
	}
	target := m.Target
	if len(seen) > 0 {
		k := seen[pickChase(len(seen))]
		target = [2]float32{rel[k][0] + pos[0], rel[k][1] + pos[1]}
	}
	return moveToward(target[0]-pos[0], target[1]-pos[1])
}

// moveToward is the move action most aligned with (dx, dy): north (0, 1), east (1, 0), south
// (0, −1) or west (−1, 0), the first on a tie.
func moveToward(dx, dy float32) int {
	best, a := float32(math.Inf(-1)), 0
	for k, v := range [4][2]float32{{0, 1}, {1, 0}, {0, -1}, {-1, 0}} {
		if s := v[0]*dx + v[1]*dy; s > best {
			best, a = s, k
		}
	}
	return a
}

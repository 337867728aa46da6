package smax

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Team is a scripted policy for the allies: their actions in s.
type Team func(e *Env, s *State, r *rand.Rand) []int

// Teams are the scripted ally teams of the sanity table: "random" (uniform over the available
// actions), "nearest" (each ally attacks the nearest enemy in range, else moves toward the nearest
// live enemy: bench/smax_record.py's "nearest") and "focus" (every ally attacks one target — the
// live enemy with the least health, the nearest to the team on a tie — when in range, else moves
// toward it: focus fire).
var Teams = map[string]Team{"random": RandomTeam, "nearest": NearestTeam, "focus": FocusTeam}

// RandomTeam picks each ally's action uniformly among its available ones.
func RandomTeam(e *Env, s *State, r *rand.Rand) []int {
	out := make([]int, e.Sc.Allies)
	for i, m := range e.Avail(s) {
		var on []int
		for a, ok := range m {
			if ok {
				on = append(on, a)
			}
		}
		out[i] = on[r.IntN(len(on))]
	}
	return out
}

// NearestTeam: each live ally attacks the nearest enemy in range (the lowest index on a tie), else
// moves toward the nearest live enemy.
func NearestTeam(e *Env, s *State, _ *rand.Rand) []int {
	out := make([]int, e.Sc.Allies)
	avail := e.Avail(s)
	for i := range out {
		out[i] = Stop
		if !s.Alive[i] {
			continue
		}
		best, shoot := -1, -1
		for k := range e.Sc.Enemies {
			j := e.Sc.Allies + k
			if !s.Alive[j] {
				continue
			}
			if best < 0 || dist(s.Pos[i], s.Pos[j]) < dist(s.Pos[i], s.Pos[best]) {
				best = j
			}
			if avail[i][NumMoves+k] && (shoot < 0 || dist(s.Pos[i], s.Pos[j]) < dist(s.Pos[i], s.Pos[shoot])) {
				shoot = j
			}
		}
		switch {
		case shoot >= 0:
			out[i] = NumMoves + shoot - e.Sc.Allies
		case best >= 0:
			out[i] = moveToward(s.Pos[best][0]-s.Pos[i][0], s.Pos[best][1]-s.Pos[i][1])
		}
	}
	return out
}

// FocusTeam: every live ally attacks one target — the live enemy with the least health, on a tie
// the nearest to the allies' centre, then the lowest index — when in range, else moves toward it.
func FocusTeam(e *Env, s *State, _ *rand.Rand) []int {
	var cx, cy float32
	n := 0
	for i := range e.Sc.Allies {
		if s.Alive[i] {
			cx, cy, n = cx+s.Pos[i][0], cy+s.Pos[i][1], n+1
		}
	}
	out := slices.Repeat([]int{Stop}, e.Sc.Allies)
	if n == 0 {
		return out
	}
	centre := [2]float32{cx / float32(n), cy / float32(n)}
	target := -1
	for k := range e.Sc.Enemies {
		j := e.Sc.Allies + k
		if !s.Alive[j] {
			continue
		}
		if target < 0 || s.Health[j] < s.Health[target] || s.Health[j] == s.Health[target] && dist(s.Pos[j], centre) < dist(s.Pos[target], centre) {
			target = j
		}
	}
	if target < 0 {
		return out
	}
	avail := e.Avail(s)
	for i := range out {
		if !s.Alive[i] {
			continue
		}
		if a := NumMoves + target - e.Sc.Allies; avail[i][a] {
			out[i] = a
		} else {
			out[i] = moveToward(s.Pos[target][0]-s.Pos[i][0], s.Pos[target][1]-s.Pos[i][1])
		}
	}
	return out
}

// TeamResult is a scripted team's record against the heuristic enemy on one scenario.
type TeamResult struct {
	Scenario, Team string
	Episodes       int
	// WinRate is the share of battles won (every enemy dead, an ally alive); Return the mean
	// episode return; Steps the mean battle length.
	WinRate, Return, Steps float64
}

// PlayTeams plays every scripted team against the heuristic enemy for episodes battles on each
// scenario (battle k reset with seed seed+k, the same for every team).
func PlayTeams(scenarios []string, teams []string, episodes int, seed uint64) ([]TeamResult, error) {
	var out []TeamResult
	for _, name := range scenarios {
		e, err := New(DefaultConfig(name))
		if err != nil {
			return nil, err
		}
		for _, tn := range teams {
			team, ok := Teams[tn]
			if !ok {
				return nil, fmt.Errorf("smax: unknown scripted team %q (random, nearest, focus)", tn)
			}
			res := TeamResult{Scenario: name, Team: tn, Episodes: episodes}
			for k := range episodes {
				st, _, err := e.Reset(seed + uint64(k))
				if err != nil {
					return nil, err
				}
				r := rand.New(rand.NewPCG(seed+uint64(k), 0x7465616d))
				for {
					next, tr, err := e.Step(st, team(e, st.(*State), r))
					if err != nil {
						return nil, err
					}
					res.Return += tr.Shared
					st = next
					res.Steps++
					if tr.Done {
						res.WinRate += tr.Info["won"]
						break
					}
				}
			}
			res.WinRate /= float64(episodes)
			res.Return /= float64(episodes)
			res.Steps /= float64(episodes)
			out = append(out, res)
		}
	}
	return out, nil
}

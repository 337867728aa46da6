package overcooked

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// TracePlayer is one player in a trace line.
type TracePlayer struct {
	Pos     [2]int `json:"pos"` // [x, y]
	Facing  string `json:"facing"`
	Holding string `json:"holding"`
}

// TracePot is one pot in a trace line; Tick is −1 while idle.
type TracePot struct {
	Pos    [2]int `json:"pos"`
	Onions int    `json:"onions"`
	Tick   int    `json:"tick"`
	Status string `json:"status"` // empty, idle, cooking, ready
}

// TraceObject is an object lying on a counter.
type TraceObject struct {
	Pos    [2]int `json:"pos"`
	Object string `json:"object"`
}

// TraceStep is one line of `paperlab trace`: the joint action, and the state and rewards after it.
type TraceStep struct {
	T        int           `json:"t"`
	Actions  [2]string     `json:"actions"`
	Players  []TracePlayer `json:"players"`
	Pots     []TracePot    `json:"pots"`
	Counters []TraceObject `json:"counters"`
	Sparse   [2]float64    `json:"sparse"`
	Shaped   [2]float64    `json:"shaped"`
	Events   [2]string     `json:"events"`
}

// Trace describes the episode's game after a step of the joint action, with the step's outcome
// (Last).
func (ep *Episode) Trace(joint [2]int) TraceStep { return ep.Game.Trace(joint, ep.Last, ep.Cfg.Rules) }

// Trace describes the state after a step with its outcome.
func (s *State) Trace(joint [2]int, out Outcome, r Rules) TraceStep {
	ts := TraceStep{T: s.Timestep, Actions: [2]string{ActionNames[joint[0]], ActionNames[joint[1]]},
		Sparse: out.Sparse, Shaped: out.Shaped, Events: out.Events, Counters: []TraceObject{}}
	for _, p := range s.Players {
		ts.Players = append(ts.Players, TracePlayer{Pos: [2]int{p.Pos.X, p.Pos.Y}, Facing: ActionNames[p.Dir], Holding: p.Holding.String()})
	}
	for _, pos := range s.Layout.Pots {
		pot := s.Pots[pos]
		status := "idle"
		switch {
		case pot.Empty():
			status = "empty"
		case pot.Ready(r.CookTime):
			status = "ready"
		case pot.Cooking(r.CookTime):
			status = "cooking"
		}
		ts.Pots = append(ts.Pots, TracePot{Pos: [2]int{pos.X, pos.Y}, Onions: pot.Onions, Tick: pot.Tick, Status: status})
	}
	var cs []Pos
	for p := range s.Counters {
		cs = append(cs, p)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Y < cs[j].Y || (cs[i].Y == cs[j].Y && cs[i].X < cs[j].X) })
	for _, p := range cs {
		ts.Counters = append(ts.Counters, TraceObject{Pos: [2]int{p.X, p.Y}, Object: s.Counters[p].String()})
	}
	return ts
}

// ReadActions reads joint actions, one line per step ("N,INTERACT"; blank lines and lines starting
// with # are skipped). A bad line is an error naming name:line.
func ReadActions(r io.Reader, name string) ([][2]int, error) {
	var out [][2]int
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		parts := strings.Split(t, ",")
		if len(parts) != 2 {
			return nil, fmt.Errorf("%s:%d: want two actions separated by a comma, got %q", name, line, t)
		}
		var j [2]int
		for i, p := range parts {
			a, err := ParseAction(strings.TrimSpace(p))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: player %d: %w", name, line, i, err)
			}
			j[i] = a
		}
		out = append(out, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}

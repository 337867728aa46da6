package gridworld

import (
	"fmt"
	"math/rand/v2"
)

// Reference policies: scripted players evaluated on the same worlds as a learned agent, as the
// yardsticks of its room checks. An agent that does not beat ColourBlind has not shown
// that it reads the task's colour token; Expert bounds what any player can reach.
const (
	// RefRandom draws every action uniformly from the embodiment's actions.
	RefRandom = "random"
	// RefColourBlind draws one of the goals it can reach uniformly at the episode's start, whatever
	// its colour, and follows a shortest plan to it (fetching the key when a door is in the way,
	// never entering another goal): it solves the layout but guesses the colour (success ≥ ⅓, more
	// where another goal is walled in by the rest).
	RefColourBlind = "colour-blind"
	// RefNearest follows a shortest plan to the goal, of any colour, that it reaches in the fewest
	// steps (ties in colour order).
	RefNearest = "nearest-goal"
	// RefExpert is the noiseless expert (ExpertAction with no noise): a shortest plan to the target.
	RefExpert = "expert"
)

// References are the reference policies, in table order.
func References() []string { return []string{RefRandom, RefColourBlind, RefNearest, RefExpert} }

// Endings of an episode (World.Ending).
const (
	EndSuccess   = "success"    // the target goal entered
	EndWrongGoal = "wrong_goal" // another goal entered
	EndTimeOut   = "time_out"   // Limit steps without a goal
)

// Ending is how the episode ended: EndSuccess, EndWrongGoal or EndTimeOut ("" while it runs).
func (w *World) Ending() string {
	switch {
	case !w.done:
		return ""
	case w.Success():
		return EndSuccess
	case w.reached.IsGoal():
		return EndWrongGoal
	}
	return EndTimeOut
}

// Reached is the colour of the goal the episode ended on ("" for none).
func (w *World) Reached() string {
	for _, c := range Colours() {
		if w.reached != Floor && w.reached == GoalCell(c) {
			return c
		}
	}
	return ""
}

// ReferencePolicy is one episode of a reference policy: Act returns its next action in w.
type ReferencePolicy struct {
	name   string
	e      Embodiment
	r      *rand.Rand
	target Cell // RefColourBlind's drawn goal (Floor until drawn)
}

// NewReference starts an episode of reference policy name for embodiment e; its random draws come
// from policySeed.
func NewReference(name string, e Embodiment, policySeed uint64) (*ReferencePolicy, error) {
	if !e.Valid() {
		return nil, fmt.Errorf("gridworld: embodiment %d out of range [0, %d)", int(e), NumEmbodiments)
	}
	switch name {
	case RefRandom, RefColourBlind, RefNearest, RefExpert:
	default:
		return nil, fmt.Errorf("gridworld: reference policy %q is not one of %v", name, References())
	}
	return &ReferencePolicy{name: name, e: e, r: rand.New(rand.NewPCG(policySeed, 0x726566))}, nil
}

// Act is the policy's next action in w (action 0 where it has no plan).
func (p *ReferencePolicy) Act(w *World) int {
	moves := movesOf(p.e)
	var plan []int
	var ok bool
	switch p.name {
	case RefRandom:
		return p.r.IntN(len(moves))
	case RefExpert:
		plan, ok = shortestPlan(w, moves, true)
	case RefColourBlind:
		if p.target == Floor {
			var reachable []Cell
			for _, g := range []Cell{GoalRed, GoalGreen, GoalBlue} {
				if _, found := planTo(w, moves, true, g); found {
					reachable = append(reachable, g)
				}
			}
			if len(reachable) == 0 {
				return 0
			}
			p.target = reachable[p.r.IntN(len(reachable))]
		}
		plan, ok = planTo(w, moves, true, p.target)
	case RefNearest:
		for _, g := range []Cell{GoalRed, GoalGreen, GoalBlue} {
			if q, found := planTo(w, moves, true, g); found && (!ok || len(q) < len(plan)) {
				plan, ok = q, true
			}
		}
	}
	if ok && len(plan) > 0 {
		return plan[0]
	}
	return 0
}

// PlayReference generates the world of (task, seed) and plays reference policy name of embodiment
// e in it until the episode ends; it returns the trajectory (observations included) and the world
// at the end (Ending, Reached).
func PlayReference(name string, task Task, e Embodiment, seed, policySeed uint64) (Trajectory, *World, error) {
	p, err := NewReference(name, e, policySeed)
	if err != nil {
		return Trajectory{}, nil, err
	}
	return playEpisode(task, e, seed, p.Act)
}

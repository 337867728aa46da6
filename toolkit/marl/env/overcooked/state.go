package overcooked

import "fmt"

// Actions, in overcooked_ai's order (Action.ALL_ACTIONS).
const (
	North = iota
	South
	East
	West
	Stay
	Interact
	NumActions
)

// ActionNames are the actions as traces and action files spell them.
var ActionNames = []string{"N", "S", "E", "W", "STAY", "INTERACT"}

// Directions of North, South, East, West (orientation indices 0..3).
var Directions = []Pos{{0, -1}, {0, 1}, {1, 0}, {-1, 0}}

// Object is what a player holds or what lies on a counter.
type Object uint8

// Objects.
const (
	Nothing Object = iota
	OnionObj
	DishObj
	SoupObj // a finished 3-onion soup on a dish
	TomatoObj
)

var objectNames = []string{"", "onion", "dish", "soup", "tomato"}

func (o Object) String() string { return objectNames[o] }

// MarshalText writes the object's name.
func (o Object) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Player is a cook's position, orientation (index into Directions) and held object.
type Player struct {
	Pos     Pos
	Dir     int
	Holding Object
}

// PotState is a pot: its ingredients and cooking tick (−1 while idle, as overcooked_ai's
// SoupState). A pot with no ingredients and an idle tick is empty.
type PotState struct {
	Onions int
	Tick   int
}

// Empty reports a pot with nothing in it.
func (p PotState) Empty() bool { return p.Onions == 0 && p.Tick < 0 }

// Idle: not cooking and not ready.
func (p PotState) Idle() bool { return p.Tick < 0 }

// Ready reports a soup that has cooked CookTime ticks.
func (p PotState) Ready(cookTime int) bool { return p.Tick >= cookTime }

// Cooking: started but not ready.
func (p PotState) Cooking(cookTime int) bool { return !p.Idle() && !p.Ready(cookTime) }

// Full: no more onions can go in (cooking, ready, or 3 onions).
func (p PotState) Full() bool { return !p.Idle() || p.Onions >= 3 }

// Rules are the numbers of the game (BASE_REW_SHAPING_PARAMS and the onion recipe by default).
type Rules struct {
	CookTime       int     `json:"cook_time"`
	DeliveryReward float64 `json:"delivery_reward"`
	PlacementRew   float64 `json:"placement_in_pot_rew"`
	DishPickupRew  float64 `json:"dish_pickup_rew"`
	SoupPickupRew  float64 `json:"soup_pickup_rew"`
}

// DefaultRules are overcooked_ai's: cook 20, deliver 20, shaping 3 / 3 / 5.
func DefaultRules() Rules {
	return Rules{CookTime: 20, DeliveryReward: 20, PlacementRew: 3, DishPickupRew: 3, SoupPickupRew: 5}
}

// State is a full game state.
type State struct {
	Layout   *Layout
	Players  [2]Player
	Counters map[Pos]Object
	Pots     map[Pos]PotState
	Timestep int
}

// NewState is the start state: players at their start cells facing north, nothing held, pots empty.
func NewState(l *Layout) *State {
	s := &State{Layout: l, Counters: map[Pos]Object{}, Pots: map[Pos]PotState{}}
	for i := range s.Players {
		s.Players[i] = Player{Pos: l.Starts[i], Dir: North}
	}
	for _, p := range l.Pots {
		s.Pots[p] = PotState{Tick: -1}
	}
	return s
}

// Clone copies the state.
func (s *State) Clone() *State {
	c := *s
	c.Counters = make(map[Pos]Object, len(s.Counters))
	for k, v := range s.Counters {
		c.Counters[k] = v
	}
	c.Pots = make(map[Pos]PotState, len(s.Pots))
	for k, v := range s.Pots {
		c.Pots[k] = v
	}
	return &c
}

// Outcome are the rewards of one step, per player (overcooked_ai's sparse_reward_by_agent and
// shaped_reward_by_agent), and what happened.
type Outcome struct {
	Sparse [2]float64
	Shaped [2]float64
	// Events names what each player did ("pickup_onion", "potting_onion", "pickup_dish",
	// "soup_pickup", "delivery", "drop_on_counter", "pickup_from_counter").
	Events [2]string
}

// Step applies a joint action with overcooked_ai's old dynamics, in its order:
//
//  1. interacts, player 0 then player 1, each with its position and orientation before moving,
//     on the same (mutating) state; the dish-pickup shaping uses the pots as they were at the start
//     of the step;
//  2. movement: a move turns the player and enters the cell only if it is floor; then if any two
//     players would end on the same cell or swap cells, every player stays where it was (the turns
//     still apply);
//  3. environment: the timestep advances; an idle pot with 3 onions starts cooking, and a cooking
//     pot ticks once.
func (s *State) Step(joint [2]int, r Rules) Outcome {
	var out Outcome
	l := s.Layout
	nonEmptyPots := 0 // ready, cooking or partially full (1–2 onions), at the start of the step
	for _, p := range s.Pots {
		if !p.Idle() || (p.Onions >= 1 && p.Onions < 3) {
			nonEmptyPots++
		}
	}
	for i := range s.Players {
		if joint[i] != Interact {
			continue
		}
		pl := &s.Players[i]
		target := pl.Pos.Add(Directions[pl.Dir])
		switch t := l.At(target); {
		case t == Counter:
			obj, has := s.Counters[target]
			if pl.Holding != Nothing && !has {
				s.Counters[target], pl.Holding = pl.Holding, Nothing
				out.Events[i] = "drop_on_counter"
			} else if pl.Holding == Nothing && has {
				pl.Holding = obj
				delete(s.Counters, target)
				out.Events[i] = "pickup_from_counter"
			}
		case t == Onion && pl.Holding == Nothing:
			pl.Holding = OnionObj
			out.Events[i] = "pickup_onion"
		case t == Tomato && pl.Holding == Nothing:
			pl.Holding = TomatoObj
			out.Events[i] = "pickup_tomato"
		case t == Dish && pl.Holding == Nothing:
			if s.dishUseful(nonEmptyPots) {
				out.Shaped[i] += r.DishPickupRew
			}
			pl.Holding = DishObj
			out.Events[i] = "pickup_dish"
		case t == Pot && pl.Holding != Nothing:
			pot := s.Pots[target]
			switch {
			case pl.Holding == DishObj && pot.Ready(r.CookTime):
				pl.Holding = SoupObj
				s.Pots[target] = PotState{Tick: -1}
				out.Shaped[i] += r.SoupPickupRew
				out.Events[i] = "soup_pickup"
			case (pl.Holding == OnionObj || pl.Holding == TomatoObj) && !pot.Full():
				pot.Onions++ // a tomato never exists on the onion-only layouts
				s.Pots[target] = pot
				pl.Holding = Nothing
				out.Shaped[i] += r.PlacementRew
				out.Events[i] = "potting_onion"
			}
		case t == Serve && pl.Holding == SoupObj:
			pl.Holding = Nothing
			out.Sparse[i] += r.DeliveryReward
			out.Events[i] = "delivery"
		}
	}
	// Movement.
	var next [2]Pos
	for i := range s.Players {
		pl := &s.Players[i]
		next[i] = pl.Pos
		if a := joint[i]; a >= North && a <= West {
			pl.Dir = a
			if np := pl.Pos.Add(Directions[a]); l.At(np) == Floor {
				next[i] = np
			}
		}
	}
	collide := next[0] == next[1] || (next[0] == s.Players[1].Pos && next[1] == s.Players[0].Pos)
	if !collide {
		for i := range s.Players {
			s.Players[i].Pos = next[i]
		}
	}
	// Environment effects.
	s.Timestep++
	for p, pot := range s.Pots {
		if pot.Idle() && pot.Onions == 3 {
			pot.Tick = 0
		}
		if pot.Cooking(r.CookTime) {
			pot.Tick++
		}
		s.Pots[p] = pot
	}
	return out
}

// dishUseful is overcooked_ai's is_dish_pickup_useful: no dish on any counter, and fewer players
// holding a dish than non-empty pots (counted at the start of the step).
func (s *State) dishUseful(nonEmptyPots int) bool {
	for _, o := range s.Counters {
		if o == DishObj {
			return false
		}
	}
	holding := 0
	for _, p := range s.Players {
		if p.Holding == DishObj {
			holding++
		}
	}
	return holding < nonEmptyPots
}

// ParseAction reads an action name (N, S, E, W, STAY, INTERACT; also north…, up/down/left/right,
// I, X) case-insensitively.
func ParseAction(s string) (int, error) {
	switch upper(s) {
	case "N", "NORTH", "UP":
		return North, nil
	case "S", "SOUTH", "DOWN":
		return South, nil
	case "E", "EAST", "RIGHT":
		return East, nil
	case "W", "WEST", "LEFT":
		return West, nil
	case "STAY", "NOOP", "-":
		return Stay, nil
	case "INTERACT", "I", "X":
		return Interact, nil
	}
	return 0, fmt.Errorf("unknown action %q (N, S, E, W, STAY, INTERACT)", s)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

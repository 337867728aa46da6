// Package overcookedhuman reads the real human–human Overcooked games that overcooked_ai ships as its
// "dummy" 2019 data (one game each on cramped_room, asymmetric_advantages and random3 =
// counter_circuit), converted once to JSONL by convert.py (see README.md for the source, licence and
// schema), and turns them into states of PaperLab's Overcooked environment and into behaviour-cloning
// examples with the observations the E3T agents see.
//
// A file holds one line per timestep: the recorded state at that timestep, the joint action the two
// humans took in it, and the sparse reward and running score of that transition (the next line holds
// the state the action led to).
package overcookedhuman

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/paperlab/paperlab/toolkit/jsonl"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// RecordedDeliveryReward is what the 2019 recordings credit per delivered soup (reward and score
// columns); PaperLab's env, like overcooked_ai's old-dynamics MDP, gives 20 (Rules.DeliveryReward).
const RecordedDeliveryReward = 5

// Player is a cook in a recorded state.
type Player struct {
	Pos     [2]int `json:"pos"`     // [x, y], y = 0 is the top row
	Facing  string `json:"facing"`  // N, S, E or W
	Holding string `json:"holding"` // "", "onion", "dish" or "soup" (a finished 3-onion soup on a dish)
}

// Object is an object on a counter or a pot in a recorded state. A soup carries its onions (1–3)
// and cooking tick (−1 while idle, 1…20 once cooking; 20 = ready); other objects carry neither.
type Object struct {
	Pos    [2]int `json:"pos"`
	Name   string `json:"name"` // "onion", "dish" or "soup"
	Onions int    `json:"onions,omitempty"`
	Tick   int    `json:"tick,omitempty"`
}

// Step is one line: the state at timestep T, the joint action taken in it, and that transition's
// sparse reward and the running score after it.
type Step struct {
	Layout    string   `json:"layout"` // overcooked_ai's layout_name: cramped_room, asymmetric_advantages, random3
	TrialID   int      `json:"trial_id"`
	PlayerIDs []int    `json:"player_ids"` // anonymised ids of player 0 and player 1
	T         int      `json:"t"`          // cur_gameloop: 0, 1, 2, …
	Grid      []string `json:"grid"`       // the recorded layout, rows top to bottom, with start cells '1' and '2'
	Players   []Player `json:"players"`
	Objects   []Object `json:"objects"`
	Actions   []string `json:"actions"` // player 0's and player 1's action: N, S, E, W, STAY, INTERACT
	Reward    float64  `json:"reward"`  // sparse reward of this transition (RecordedDeliveryReward per soup)
	Score     float64  `json:"score"`   // running sum of Reward, this step included
	// Wall-clock seconds of the browser game: time left (a countdown from 180 that ends at −1) and
	// time elapsed since the start.
	TimeLeft    float64 `json:"time_left"`
	TimeElapsed float64 `json:"time_elapsed"`
}

// Joint returns the joint action as env action indices (overcooked.North … overcooked.Interact).
func (s Step) Joint() [2]int {
	var j [2]int
	for i, a := range s.Actions {
		j[i] = slices.Index(overcooked.ActionNames, a)
	}
	return j
}

// Game is one recorded trial, its steps in timestep order.
type Game struct {
	Layout    string // overcooked_ai's name (random3 for counter_circuit)
	TrialID   int
	PlayerIDs [2]int
	Grid      []string
	Steps     []Step
}

// EnvLayout is the name of the game's kitchen in PaperLab's env (random3 → counter_circuit).
func (g Game) EnvLayout() string {
	n, _ := overcooked.CanonicalLayout(g.Layout)
	return n
}

// Score is the game's final score (the sum of its rewards).
func (g Game) Score() float64 { return g.Steps[len(g.Steps)-1].Score }

// Load reads one converted file and returns its games (consecutive lines of one trial form a game).
// A malformed line fails with "path:line: field …: …"; a game must start at t = 0, count up by one,
// keep its layout, grid and players, and its score must be the running sum of its rewards.
func Load(path string) ([]Game, error) {
	steps, err := jsonl.Read(path, freshStep, checkStep)
	if err != nil {
		return nil, err
	}
	var games []Game
	for k, s := range steps {
		line := k + 1 // the converter writes no blank lines
		if len(games) == 0 || games[len(games)-1].TrialID != s.TrialID {
			if s.T != 0 {
				return nil, fmt.Errorf("%s:%d: field t: trial %d starts at %d, want 0", path, line, s.TrialID, s.T)
			}
			games = append(games, Game{Layout: s.Layout, TrialID: s.TrialID, PlayerIDs: [2]int(s.PlayerIDs), Grid: s.Grid})
		}
		g := &games[len(games)-1]
		prevScore := 0.0
		if n := len(g.Steps); n > 0 {
			prevScore = g.Steps[n-1].Score
		}
		switch {
		case s.T != len(g.Steps):
			return nil, fmt.Errorf("%s:%d: field t: %d, want %d (trial %d)", path, line, s.T, len(g.Steps), s.TrialID)
		case s.Layout != g.Layout:
			return nil, fmt.Errorf("%s:%d: field layout: %q changes within trial %d (was %q)", path, line, s.Layout, s.TrialID, g.Layout)
		case !slices.Equal(s.Grid, g.Grid):
			return nil, fmt.Errorf("%s:%d: field grid: changes within trial %d", path, line, s.TrialID)
		case [2]int(s.PlayerIDs) != g.PlayerIDs:
			return nil, fmt.Errorf("%s:%d: field player_ids: %v changes within trial %d (was %v)", path, line, s.PlayerIDs, s.TrialID, g.PlayerIDs)
		case s.Score != prevScore+s.Reward:
			return nil, fmt.Errorf("%s:%d: field score: %g, want the previous score %g plus reward %g", path, line, s.Score, prevScore, s.Reward)
		}
		g.Steps = append(g.Steps, s)
	}
	return games, nil
}

// LoadDir loads every *.jsonl file in dir (sorted by name) and returns all their games.
func LoadDir(dir string) ([]Game, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no .jsonl files", dir)
	}
	sort.Strings(paths)
	var all []Game
	for _, p := range paths {
		g, err := Load(p)
		if err != nil {
			return nil, err
		}
		all = append(all, g...)
	}
	return all, nil
}

// ByLayout groups games by their kitchen's name in PaperLab's env (overcooked.LayoutNames();
// random3 is listed under counter_circuit), in input order.
func ByLayout(games []Game) map[string][]Game {
	out := map[string][]Game{}
	for _, g := range games {
		out[g.EnvLayout()] = append(out[g.EnvLayout()], g)
	}
	return out
}

// freshStep marks numeric fields with impossible values so that a missing field is caught.
func freshStep() Step {
	return Step{TrialID: -1, T: -1, Reward: math.NaN(), Score: math.NaN(), TimeLeft: math.NaN(), TimeElapsed: math.NaN()}
}

func checkStep(s Step) error {
	switch {
	case s.Layout == "":
		return errors.New("field layout: missing")
	case s.TrialID == -1:
		return errors.New("field trial_id: missing")
	case s.T < 0:
		return fmt.Errorf("field t: missing or negative (%d)", s.T)
	case len(s.PlayerIDs) != 2:
		return fmt.Errorf("field player_ids: %d ids, want 2", len(s.PlayerIDs))
	case len(s.Grid) == 0:
		return errors.New("field grid: missing")
	case len(s.Players) != 2:
		return fmt.Errorf("field players: %d players, want 2", len(s.Players))
	case s.Objects == nil:
		return errors.New("field objects: missing")
	case len(s.Actions) != 2:
		return fmt.Errorf("field actions: %d actions, want 2", len(s.Actions))
	case math.IsNaN(s.Reward):
		return errors.New("field reward: missing")
	case math.IsNaN(s.Score):
		return errors.New("field score: missing")
	case math.IsNaN(s.TimeLeft):
		return errors.New("field time_left: missing")
	case math.IsNaN(s.TimeElapsed):
		return errors.New("field time_elapsed: missing")
	}
	if _, ok := overcooked.CanonicalLayout(s.Layout); !ok {
		return fmt.Errorf("field layout: %q is not an Overcooked layout PaperLab knows (%s)", s.Layout, strings.Join(overcooked.LayoutNames(), ", "))
	}
	for i, a := range s.Actions {
		if !slices.Contains(overcooked.ActionNames, a) {
			return fmt.Errorf("field actions[%d]: unknown action %q (want one of %s)", i, a, strings.Join(overcooked.ActionNames, ", "))
		}
	}
	for i, p := range s.Players {
		if p.Pos[0] < 0 {
			return fmt.Errorf("field players[%d].pos: missing", i)
		}
		if !slices.Contains(overcooked.ActionNames[:4], p.Facing) {
			return fmt.Errorf("field players[%d].facing: %q, want N, S, E or W", i, p.Facing)
		}
		if p.Holding == "?" {
			return fmt.Errorf("field players[%d].holding: missing", i)
		}
		if _, ok := heldObjects[p.Holding]; !ok {
			return fmt.Errorf("field players[%d].holding: %q, want \"\", onion, dish or soup", i, p.Holding)
		}
	}
	for i, o := range s.Objects {
		switch {
		case o.Pos[0] < 0:
			return fmt.Errorf("field objects[%d].pos: missing", i)
		case o.Name == "soup" && (o.Onions < 1 || o.Onions > 3):
			return fmt.Errorf("field objects[%d].onions: %d, want 1…3 for a soup", i, o.Onions)
		case o.Name == "soup" && o.Tick != -1 && (o.Tick < 1 || o.Onions != 3):
			return fmt.Errorf("field objects[%d].tick: %d with %d onions, want −1 (idle) or ≥ 1 with 3 onions", i, o.Tick, o.Onions)
		case o.Name == "onion" || o.Name == "dish":
			if o.Onions != 0 || o.Tick != 0 {
				return fmt.Errorf("field objects[%d]: a %s has no onions or tick", i, o.Name)
			}
		case o.Name != "soup":
			return fmt.Errorf("field objects[%d].name: %q, want onion, dish or soup", i, o.Name)
		}
	}
	return nil
}

var heldObjects = map[string]overcooked.Object{"": overcooked.Nothing, "onion": overcooked.OnionObj, "dish": overcooked.DishObj, "soup": overcooked.SoupObj}

// UnmarshalJSON decodes a player strictly (unknown fields rejected) and marks a missing position.
func (p *Player) UnmarshalJSON(b []byte) error {
	type plain Player
	v := plain{Pos: [2]int{-1, -1}, Holding: "?"}
	if err := strictDecode(b, &v); err != nil {
		return err
	}
	*p = Player(v)
	return nil
}

// UnmarshalJSON decodes an object strictly (unknown fields rejected) and marks a missing position.
func (o *Object) UnmarshalJSON(b []byte) error {
	type plain Object
	v := plain{Pos: [2]int{-1, -1}}
	if err := strictDecode(b, &v); err != nil {
		return err
	}
	*o = Object(v)
	return nil
}

func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// NewEnv makes an episode of PaperLab's env for the game's kitchen (DefaultConfig: old dynamics, cook time 20,
// delivery 20, 96-value vector observations) after checking that the recorded grid has the same
// terrain as the env's layout (start cells may differ: random3's recording starts the players
// elsewhere than counter_circuit; the recorded states carry the real positions).
func (g Game) NewEnv() (*overcooked.Episode, error) {
	w, err := overcooked.New(overcooked.DefaultConfig(g.Layout))
	if err != nil {
		return nil, err
	}
	e := w.NewEpisode()
	l := e.Layout
	if len(g.Grid) != l.H {
		return nil, fmt.Errorf("trial %d: recorded grid has %d rows, %s has %d", g.TrialID, len(g.Grid), l.Name, l.H)
	}
	for y, row := range g.Grid {
		terrain := strings.NewReplacer("1", " ", "2", " ").Replace(row)
		if terrain != string(l.Grid[y]) {
			return nil, fmt.Errorf("trial %d: recorded grid row %d %q differs from %s's %q", g.TrialID, y+1, terrain, l.Name, l.Grid[y])
		}
	}
	return e, nil
}

// State builds an env state from the recorded one on layout l (Timestep = T). Players must stand on
// floor, loose objects lie on counters, and pot soups sit on pots; a soup on a counter must be a
// finished 3-onion soup (the env keeps only those out of pots).
func (s Step) State(l *overcooked.Layout) (*overcooked.State, error) {
	st := overcooked.NewState(l)
	st.Timestep = s.T
	for i, p := range s.Players {
		pos := overcooked.Pos{X: p.Pos[0], Y: p.Pos[1]}
		if l.At(pos) != overcooked.Floor {
			return nil, fmt.Errorf("t %d: player %d at %v is not on floor", s.T, i, p.Pos)
		}
		st.Players[i] = overcooked.Player{Pos: pos, Dir: slices.Index(overcooked.ActionNames, p.Facing), Holding: heldObjects[p.Holding]}
	}
	for _, o := range s.Objects {
		pos := overcooked.Pos{X: o.Pos[0], Y: o.Pos[1]}
		switch t := l.At(pos); {
		case t == overcooked.Pot && o.Name == "soup":
			st.Pots[pos] = overcooked.PotState{Onions: o.Onions, Tick: o.Tick}
		case t == overcooked.Counter && o.Name != "soup":
			st.Counters[pos] = heldObjects[o.Name]
		case t == overcooked.Counter && o.Onions == 3 && o.Tick >= overcooked.DefaultRules().CookTime:
			st.Counters[pos] = overcooked.SoupObj
		default:
			return nil, fmt.Errorf("t %d: %s (onions %d, tick %d) at %v on terrain %q", s.T, o.Name, o.Onions, o.Tick, o.Pos, t)
		}
	}
	return st, nil
}

// Example is one behaviour-cloning pair: a player's observation of a recorded state and the action
// that player took in it.
type Example struct {
	T      int       // timestep in the game
	Player int       // 0 or 1
	Obs    []float32 // the env's overcooked.VectorSize featurize_state values (Env.Vector), unscaled
	Action int       // overcooked.North … overcooked.Interact
}

// BCExamples returns two examples per step of g (player 0, then player 1), featurized under rules r
// (the recordings' own are overcooked.DefaultRules: cook time 20): the observation is the
// env's featurize_state vector of the recorded state for that player (Env.Vector) — the agents'
// input before their own scaling (e3t.ObsScale), which the caller applies — and the action is the
// one that player took. Observations of the final step are included (its action has no recorded
// outcome).
func BCExamples(g Game, r overcooked.Rules) ([]Example, error) {
	e, err := g.NewEnv()
	if err != nil {
		return nil, err
	}
	e.Cfg.Rules = r // the features of pots depend on the cook time
	out := make([]Example, 0, 2*len(g.Steps))
	for _, s := range g.Steps {
		st, err := s.State(e.Layout)
		if err != nil {
			return nil, fmt.Errorf("trial %d: %w", g.TrialID, err)
		}
		e.Game = st
		joint := s.Joint()
		for i := range 2 {
			v := e.Vector(i)
			out = append(out, Example{T: s.T, Player: i, Obs: v, Action: joint[i]})
		}
	}
	return out, nil
}

package overcooked

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// Config of an Overcooked environment.
type Config struct {
	// Layout is a built-in layout name; Grid, when set, is a custom ASCII kitchen instead.
	Layout string `json:"layout"`
	Grid   string `json:"grid,omitempty"`
	// Horizon is the episode length (400).
	Horizon int   `json:"horizon"`
	Rules   Rules `json:"rules"`
	// Obs is "vector" (featurize_state, 96 values) or "lossless" (26 planes of W×H).
	Obs string `json:"obs"`
}

// DefaultConfig is cramped_room with overcooked_ai's numbers.
func DefaultConfig(layout string) Config {
	return Config{Layout: layout, Horizon: 400, Rules: DefaultRules(), Obs: "vector"}
}

// ParseSpec reads "cramped_room", optionally followed by options (see ApplyOptions), e.g.
// "cramped_room-h200-c5".
func ParseSpec(spec string) (Config, error) {
	parts := strings.Split(spec, "-")
	name, ok := CanonicalLayout(parts[0])
	c := DefaultConfig(name)
	if !ok {
		return c, unknownLayout(parts[0])
	}
	err := c.ApplyOptions(parts[1:], spec)
	return c, err
}

// ApplyOptions applies scenario options: "hN" (horizon), "cN" (cook time) and "lossless"
// (observation planes); spec names the scenario in errors.
func (c *Config) ApplyOptions(opts []string, spec string) error {
	for _, o := range opts {
		switch {
		case o == "lossless":
			c.Obs = "lossless"
		case strings.HasPrefix(o, "h"):
			n, err := strconv.Atoi(o[1:])
			if err != nil || n < 1 {
				return fmt.Errorf("bad horizon option %q in %q", o, spec)
			}
			c.Horizon = n
		case strings.HasPrefix(o, "c"):
			n, err := strconv.Atoi(o[1:])
			if err != nil || n < 1 {
				return fmt.Errorf("bad cook-time option %q in %q", o, spec)
			}
			c.Rules.CookTime = n
		default:
			return fmt.Errorf("unknown option %q in %q (hN, cN, lossless)", o, spec)
		}
	}
	return nil
}

func unknownLayout(name string) error {
	return fmt.Errorf("unknown Overcooked layout %q (known: %s, or an alias: %s)", name,
		strings.Join(LayoutNames(), ", "), strings.Join(aliasNames(), ", "))
}

// Env is Overcooked as a PaperLab multi-agent environment (env.Env): the kitchen, its rules and
// the motion planner, shared and read-only once made, so one Env serves any number of episodes,
// goroutines and branches. An episode's state is an *Episode: Reset (or NewEpisode) starts one at
// the layout's start, and Step advances it in place and returns it (no copy per step). Its
// per-agent reward is overcooked_ai's rllib training reward: the team's sparse reward plus the
// episode's ShapingFactor times the agent's own shaped reward; Shared is the sparse team reward plus
// the factor times both shaped rewards.
type Env struct {
	Cfg    Config
	Layout *Layout
	// ReuseObs makes Reset and Step write the observations into buffers the episode owns,
	// overwritten by its next Step (no allocation per step); callers that keep observations copy
	// them. Off by default: each step returns fresh slices. Set it before stepping episodes.
	ReuseObs bool
	pl       *planner
}

// Episode is one Overcooked episode: the env.State of an Env. It embeds its Env (the kitchen and
// its rules, shared and read-only), so g.Cfg.Rules and g.Layout read through it. Env.Step mutates
// Game in place and returns the same episode; Clone branches one.
type Episode struct {
	*Env
	// Game is the game state.
	Game *State
	// Last is the outcome of the last step (zero after Reset).
	Last Outcome
	// ShapingFactor scales the shaped rewards in Transition.Rewards and Shared (1 after Reset;
	// trainers anneal it from 1 to 0).
	ShapingFactor float64
	// Obs are both players' observations of Game as the last Reset or Step computed and returned
	// them (the same slices: read them, copy before changing them). Under ReuseObs they lie in the
	// episode's own buffer, overwritten by its next Step.
	Obs [][]float32
	// obsOf and obsT are the game and its timestep that Obs describe (VectorObs uses Obs only
	// while they still do); obs is the ReuseObs buffer.
	obsOf *State
	obsT  int
	obs   []float32
}

// Clone implements env.State: a deep copy (the game cloned, the observations in a fresh buffer),
// of the same Env.
func (ep *Episode) Clone() env.State {
	c := *ep
	c.Game = ep.Game.Clone()
	c.obs, c.Obs = nil, nil
	if ep.Obs != nil {
		n := len(ep.Obs[0])
		buf := make([]float32, 2*n)
		copy(buf, ep.Obs[0])
		copy(buf[n:], ep.Obs[1])
		c.Obs = [][]float32{buf[:n:n], buf[n:]}
		if ep.obs != nil {
			c.obs = buf
		}
	}
	if ep.obsOf == ep.Game {
		c.obsOf = c.Game
	} else {
		c.obsOf = nil
	}
	return &c
}

// Vector is player i's featurize_state observation of the current game, computed from Game (for
// callers that change Game directly).
func (ep *Episode) Vector(i int) []float32 { return ep.Game.Vector(i, ep.pl, ep.Cfg.Rules) }

// VectorObs is player i's featurize_state observation as a new slice: a copy of Obs[i] when the
// observations are vectors and still describe Game (it was stepped by Env.Step, not by hand) — bit
// for bit Vector(i), without featurizing again — and Vector(i) otherwise.
func (ep *Episode) VectorObs(i int) []float32 {
	return ep.AppendVectorObs(make([]float32, 0, VectorSize), i)
}

// AppendVectorObs appends VectorObs(i) to dst (no allocation when dst has room).
func (ep *Episode) AppendVectorObs(dst []float32, i int) []float32 {
	if ep.Cfg.Obs == "vector" && ep.Obs != nil && ep.obsOf == ep.Game && ep.obsT == ep.Game.Timestep {
		return append(dst, ep.Obs[i]...)
	}
	return append(dst, ep.Vector(i)...)
}

// New makes an environment from a configuration.
func New(c Config) (*Env, error) {
	grid, name := c.Grid, c.Layout
	if grid == "" {
		canon, ok := CanonicalLayout(c.Layout)
		if !ok {
			return nil, unknownLayout(c.Layout)
		}
		grid, name, c.Layout = Layouts[canon], canon, canon
	} else if name == "" {
		name = "custom"
	}
	k, err := kitchenFor(name, grid)
	if err != nil {
		return nil, err
	}
	if c.Horizon < 1 || c.Rules.CookTime < 1 {
		return nil, fmt.Errorf("overcooked: horizon %d and cook time %d must be ≥ 1", c.Horizon, c.Rules.CookTime)
	}
	if c.Obs != "vector" && c.Obs != "lossless" {
		return nil, fmt.Errorf("overcooked: obs %q, want vector or lossless", c.Obs)
	}
	return &Env{Cfg: c, Layout: k.l, pl: k.pl}, nil
}

// kitchen is a parsed layout with its planner; both are read-only once built.
type kitchen struct {
	l  *Layout
	pl *planner
}

// kitchens caches a kitchen per (name, grid): building the planner (a BFS from every cell and
// facing) dominated New, which trainers and evaluations call once per game.
var kitchens sync.Map

func kitchenFor(name, grid string) (*kitchen, error) {
	key := name + "\x00" + grid
	if k, ok := kitchens.Load(key); ok {
		return k.(*kitchen), nil
	}
	l, err := ParseLayout(name, grid)
	if err != nil {
		return nil, err
	}
	k, _ := kitchens.LoadOrStore(key, &kitchen{l: l, pl: newPlanner(l)})
	return k.(*kitchen), nil
}

func aliasNames() []string {
	var n []string
	for k := range LayoutAliases {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func makeEnv(spec string) (env.Env, error) {
	c, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return New(c)
}

func init() { env.Register("overcooked", makeEnv) }

func (e *Env) Name() string {
	n := "overcooked:" + e.Cfg.Layout
	if e.Cfg.Horizon != 400 {
		n += fmt.Sprintf("-h%d", e.Cfg.Horizon)
	}
	if e.Cfg.Rules.CookTime != 20 {
		n += fmt.Sprintf("-c%d", e.Cfg.Rules.CookTime)
	}
	if e.Cfg.Obs == "lossless" {
		n += "-lossless"
	}
	return n
}

// Spec: two cooks, 6 actions, ObsSize observations, a global state of player 0's vector features
// (which hold both players) plus the elapsed fraction, Cfg.Horizon steps.
func (e *Env) Spec() env.Spec {
	return env.Spec{Name: e.Name(), Agents: 2, ObsSize: e.ObsSize(), Actions: NumActions, StateSize: VectorSize + 1, Horizon: e.Cfg.Horizon}
}

// ObsSize is 96 for "vector" and 26·W·H for "lossless".
func (e *Env) ObsSize() int {
	if e.Cfg.Obs == "lossless" {
		return len(PlaneNames) * e.Layout.W * e.Layout.H
	}
	return VectorSize
}

// episode is s as an episode e can step: one of e's, or of an Env with the same kitchen and
// configuration.
func (e *Env) episode(s env.State) (*Episode, error) {
	ep, err := env.StateAs[*Episode](e, s)
	if err != nil || ep.Env == e {
		return ep, err
	}
	if ep.Env == nil || ep.Game == nil || ep.Game.Layout != e.Layout || ep.Cfg != e.Cfg {
		return nil, fmt.Errorf("env %s: an episode of another kitchen or configuration", e.Name())
	}
	return ep, nil
}

// observe computes both players' observations of ep.Game into ep.Obs and returns them.
func (e *Env) observe(ep *Episode) [][]float32 {
	n := e.ObsSize()
	var out [][]float32
	if e.ReuseObs {
		if len(ep.obs) != 2*n || len(ep.Obs) != 2 || &ep.Obs[0][0] != &ep.obs[0] {
			ep.obs = make([]float32, 2*n)
			ep.Obs = [][]float32{ep.obs[:n:n], ep.obs[n:]}
		}
		out = ep.Obs
	} else {
		buf := make([]float32, 2*n)
		out = [][]float32{buf[:n:n], buf[n:]}
	}
	if e.Cfg.Obs == "lossless" {
		for i := range out {
			ep.Game.LosslessInto(out[i], i, e.Cfg.Rules, e.Cfg.Horizon)
		}
	} else {
		ep.Game.VectorsInto(out, e.pl, e.Cfg.Rules)
	}
	ep.Obs, ep.obsOf, ep.obsT = out, ep.Game, ep.Game.Timestep
	return out
}

// NewEpisode starts an episode at the layout's start state: Reset without the interface.
func (e *Env) NewEpisode() *Episode {
	ep := &Episode{Env: e, Game: NewState(e.Layout), ShapingFactor: 1}
	e.observe(ep)
	return ep
}

// Reset starts an episode at the layout's start state (Overcooked's start is fixed; the seed is
// unused).
func (e *Env) Reset(uint64) (env.State, [][]float32, error) {
	ep := e.NewEpisode()
	return ep, ep.Obs, nil
}

// Step plays a joint action on the episode s, in place, and returns it; an action outside 0..5
// counts as STAY. The episode ends at Cfg.Horizon steps (Done and Truncated); a step after that is
// an error.
func (e *Env) Step(s env.State, actions []int) (env.State, env.Transition, error) {
	ep, err := e.episode(s)
	if err != nil {
		return nil, env.Transition{}, err
	}
	if ep.Game.Timestep >= e.Cfg.Horizon {
		return nil, env.Transition{}, env.Over(e.Name(), ep.Game.Timestep)
	}
	var joint [2]int
	for i := range joint {
		joint[i] = Stay
		if i < len(actions) && actions[i] >= 0 && actions[i] < NumActions {
			joint[i] = actions[i]
		}
	}
	out := ep.Game.Step(joint, e.Cfg.Rules)
	ep.Last = out
	sparse := out.Sparse[0] + out.Sparse[1]
	t := env.Transition{Obs: e.observe(ep), Rewards: make([]float64, 2),
		Info: map[string]float64{"sparse": sparse, "shaped_0": out.Shaped[0], "shaped_1": out.Shaped[1]}}
	for i := range t.Rewards {
		t.Rewards[i] = sparse + ep.ShapingFactor*out.Shaped[i]
	}
	t.Shared = sparse + ep.ShapingFactor*(out.Shaped[0]+out.Shaped[1])
	t.Done = ep.Game.Timestep >= e.Cfg.Horizon
	t.Truncated = t.Done
	return ep, t, nil
}

// Global implements env.Central: player 0's vector features and the elapsed fraction of the
// episode (nil for a state that is not e's).
func (e *Env) Global(s env.State) []float32 {
	ep, err := e.episode(s)
	if err != nil {
		return nil
	}
	v := ep.Game.Vector(0, e.pl, e.Cfg.Rules)
	return append(v, float32(ep.Game.Timestep)/float32(e.Cfg.Horizon))
}

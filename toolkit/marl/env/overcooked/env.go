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

// Env is Overcooked as a PaperLab multi-agent environment. Its per-agent reward is overcooked_ai's
// rllib training reward: the team's sparse reward plus ShapingFactor times the agent's own shaped
// reward; Shared is the sparse team reward plus the factor times both shaped rewards.
type Env struct {
	Cfg    Config
	Layout *Layout
	Game   *State
	// ShapingFactor scales the shaped rewards (trainers anneal it from 1 to 0).
	ShapingFactor float64
	// Last is the outcome of the last step.
	Last Outcome
	// ReuseObs makes Reset and Step write the observations into buffers the env owns, overwritten
	// by the next Reset or Step (no allocation per step); callers that keep observations copy them.
	// Off by default: each step returns fresh slices.
	ReuseObs bool
	pl       *planner
	obsBuf   []float32
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
	e := &Env{Cfg: c, Layout: k.l, ShapingFactor: 1, pl: k.pl}
	e.Game = NewState(k.l)
	return e, nil
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
func (e *Env) NumAgents() int  { return 2 }
func (e *Env) NumActions() int { return NumActions }
func (e *Env) Limit() int      { return e.Cfg.Horizon }
func (e *Env) Avail() [][]bool { return env.AllAvail(2, NumActions) }

// ObsSize is 96 for "vector" and 26·W·H for "lossless".
func (e *Env) ObsSize() int {
	if e.Cfg.Obs == "lossless" {
		return len(PlaneNames) * e.Layout.W * e.Layout.H
	}
	return VectorSize
}

// StateSize is player 0's vector features (which hold both players) plus the elapsed fraction.
func (e *Env) StateSize() int { return VectorSize + 1 }

// Observe returns both players' observations.
func (e *Env) Observe() [][]float32 {
	n := e.ObsSize()
	var buf []float32
	if e.ReuseObs {
		if len(e.obsBuf) != 2*n {
			e.obsBuf = make([]float32, 2*n)
		}
		buf = e.obsBuf
	} else {
		buf = make([]float32, 2*n)
	}
	out := [][]float32{buf[:n:n], buf[n:]}
	if e.Cfg.Obs == "lossless" {
		for i := range out {
			e.Game.LosslessInto(out[i], i, e.Cfg.Rules, e.Cfg.Horizon)
		}
	} else {
		e.Game.VectorsInto(out, e.pl, e.Cfg.Rules)
	}
	return out
}

// Reset returns to the layout's start state (Overcooked's start is fixed; the seed is unused).
func (e *Env) Reset(uint64) [][]float32 {
	e.Game = NewState(e.Layout)
	e.Last = Outcome{}
	return e.Observe()
}

// Step plays a joint action; an action outside 0..5 counts as STAY.
func (e *Env) Step(actions []int) env.Transition {
	var joint [2]int
	for i := range joint {
		joint[i] = Stay
		if i < len(actions) && actions[i] >= 0 && actions[i] < NumActions {
			joint[i] = actions[i]
		}
	}
	out := e.Game.Step(joint, e.Cfg.Rules)
	e.Last = out
	sparse := out.Sparse[0] + out.Sparse[1]
	t := env.Transition{Obs: e.Observe(), Rewards: make([]float64, 2),
		Info: map[string]float64{"sparse": sparse, "shaped_0": out.Shaped[0], "shaped_1": out.Shaped[1]}}
	for i := range t.Rewards {
		t.Rewards[i] = sparse + e.ShapingFactor*out.Shaped[i]
	}
	t.Shared = sparse + e.ShapingFactor*(out.Shaped[0]+out.Shaped[1])
	t.Done = e.Game.Timestep >= e.Cfg.Horizon
	t.Truncated = t.Done
	return t
}

// State is player 0's vector features and the elapsed fraction of the episode.
func (e *Env) State() []float32 {
	v := e.Game.Vector(0, e.pl, e.Cfg.Rules)
	return append(v, float32(e.Game.Timestep)/float32(e.Cfg.Horizon))
}

// Vector is player i's featurize_state observation of the current game (for callers that step Game
// directly).
func (e *Env) Vector(i int) []float32 { return e.Game.Vector(i, e.pl, e.Cfg.Rules) }

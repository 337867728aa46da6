// Package smax is a StarCraft-style unit micro-management environment: PaperLab's Go
// implementation of the rules of JaxMARL's SMAX (FLAIROx/JaxMARL, jaxmarl/environments/smax,
// Apache-2.0; read at jaxmarl 0.2.0, whose smax_env.py, heuristic_enemy.py and
// heuristic_enemy_smax_env.py equal the repository's at commit c793d09). The rules are SMAX's; the
// code is ours.
//
// Two teams of units (marines, marauders, stalkers, zealots, zerglings, hydralisks — each with its
// health, weapon damage, range and cooldown, sight range, speed and radius) fight on a 32 × 32 map.
// The learner controls the allies, one agent per unit; the enemies follow SMAX's heuristic
// (Heuristic: attack the closest unit in range and keep attacking it, else chase a visible enemy
// or cross the map). One agent step is 8 world ticks of 1/16 s. An agent's actions are the 4
// moves (north, east, south, west), stop, and attacking each enemy (available only in range);
// a dead unit may only stop. The team is rewarded for the share of the enemy team's health it
// removed (each unit's damage over its maximum health, averaged over the enemies), plus 1 for
// winning (every enemy dead, an ally alive). An episode ends when a team is dead or after 101 steps
// (SMAX's limit of 100 is tested on the step count before the step).
//
// Observations are SMAX's "unit_list": for every other unit (allies first, then enemies) 13
// features when it is within sight (health share, position relative to the agent over its sight
// range, its last move and attack, its cooldown share, its type) and the agent's own 10 (health,
// position over the map size, cooldown, type); the global state is every unit's health share, raw
// position, raw cooldown and type, then each unit's team and type.
//
// Everything is float32, as SMAX's arrays, so that a Go test can replay trajectories recorded from
// SMAX (bench/smax_record.py) step by step. SMAX draws its randomness from JAX keys (the start
// positions, each tick's cooldown jitter, the heuristic's choice of which visible enemy to chase);
// here it comes from the state's own generator, and Advance takes the draws as arguments so that a
// replay can feed SMAX's.
package smax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// UnitType is one kind of unit: SMAX's per-type arrays (unit_type_velocities, _attacks,
// _attack_ranges, _sight_ranges, _radiuses, _health, _weapon_cooldowns).
type UnitType struct {
	Name, Short string
	// Velocity in map units per second, Attack the damage of one shot, Range and Sight the attack
	// and sight ranges, Radius the unit's size for collisions, Health its maximum health, Cooldown
	// the seconds between shots.
	Velocity, Attack, Range, Sight, Radius, Health, Cooldown float32
}

// Units are SMAX's six unit types, in its order (a unit's type is its index here).
var Units = []UnitType{
	{"marine", "m", 3.15, 9, 5, 9, 0.375, 45, 0.61},
	{"marauder", "M", 2.25, 10, 6, 10, 0.5625, 125, 1.07},
	{"stalker", "s", 4.13, 13, 6, 10, 0.625, 160, 1.87},
	{"zealot", "Z", 3.15, 8, 2, 9, 0.5, 150, 0.86},
	{"zergling", "z", 4.13, 5, 2, 8, 0.375, 35, 0.5},
	{"hydralisk", "h", 3.15, 12, 5, 9, 0.625, 80, 0.59},
}

const (
	marine, stalker, zealot, hydralisk = 0, 2, 3, 5
	// NumMoves are the movement actions: north, east, south, west and stop (action 4); actions from
	// NumMoves on attack an enemy.
	NumMoves = 5
	// Stop is the action a dead unit may take (and a live one, always).
	Stop = NumMoves - 1
	// ownFeatures and unitFeatures are the sizes of an agent's own part of its observation and of
	// each other unit's (4 + one-hot type, 7 + one-hot type).
	ownFeatures  = 4
	unitFeatures = 7
)

// Scenario is a map: the unit types of the allies then the enemies.
type Scenario struct {
	Name            string
	Types           []uint8
	Allies, Enemies int
}

func rep(n int, t uint8) []uint8 { return slices.Repeat([]uint8{t}, n) }

// Scenarios are SMAX's SMAC maps (MAP_NAME_TO_SCENARIO, without its SMACv2 generators).
var Scenarios = map[string]Scenario{
	"3m":           {"3m", rep(6, marine), 3, 3},
	"8m":           {"8m", rep(16, marine), 8, 8},
	"25m":          {"25m", rep(50, marine), 25, 25},
	"5m_vs_6m":     {"5m_vs_6m", rep(11, marine), 5, 6},
	"10m_vs_11m":   {"10m_vs_11m", rep(21, marine), 10, 11},
	"27m_vs_30m":   {"27m_vs_30m", rep(57, marine), 27, 30},
	"2s3z":         {"2s3z", slices.Concat(rep(2, stalker), rep(3, zealot), rep(2, stalker), rep(3, zealot)), 5, 5},
	"3s5z":         {"3s5z", slices.Concat(rep(3, stalker), rep(5, zealot), rep(3, stalker), rep(5, zealot)), 8, 8},
	"3s5z_vs_3s6z": {"3s5z_vs_3s6z", slices.Concat(rep(3, stalker), rep(5, zealot), rep(3, stalker), rep(6, zealot)), 8, 9},
	"3s_vs_5z":     {"3s_vs_5z", slices.Concat(rep(3, stalker), rep(5, zealot)), 3, 5},
	"6h_vs_8z":     {"6h_vs_8z", slices.Concat(rep(6, hydralisk), rep(8, zealot)), 6, 8},
}

// ScenarioNames are the scenario names, sorted.
func ScenarioNames() []string {
	names := make([]string, 0, len(Scenarios))
	for n := range Scenarios {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Config is a flat configuration; DefaultConfig gives SMAX's defaults with JaxMARL's MAPPO settings
// (mappo_homogenous_rnn_smax.yaml: see_enemy_actions, walls_cause_death, attack_mode closest).
type Config struct {
	Scenario string `json:"scenario"`
	// MapWidth × MapHeight is the map (32 × 32); the allies start around (W/4, H/2), the enemies
	// around (3W/4, H/2), each unit uniformly within ±StartNoise in x and y.
	MapWidth   float32 `json:"map_width"`
	MapHeight  float32 `json:"map_height"`
	StartNoise float32 `json:"start_noise"`
	// WorldSteps ticks of TimePerStep seconds make one agent step (8 × 1/16 s).
	WorldSteps  int     `json:"world_steps"`
	TimePerStep float32 `json:"time_per_step"`
	// MaxSteps agent steps at most per episode (100).
	MaxSteps int `json:"max_steps"`
	// WonBonus is added to the step's reward when the allies win (1).
	WonBonus float32 `json:"won_bonus"`
	// WallsCauseDeath: a unit that touches the map's edge dies (SMAX's default, true).
	WallsCauseDeath bool `json:"walls_cause_death"`
	// SeeEnemyActions: an agent sees the last move and attack of the enemies in sight, not only of
	// its allies (true in JaxMARL's MAPPO configuration).
	SeeEnemyActions bool `json:"see_enemy_actions"`
	// AttackMode is how the heuristic enemy picks a new target in range: "closest" or "random".
	AttackMode string `json:"attack_mode"`
	// EnemyShoots: the heuristic enemy attacks (false: it only moves).
	EnemyShoots bool `json:"enemy_shoots"`
	// NormalizeState divides the global state's positions by the map size and its cooldowns by the
	// unit type's, as the observations do (SMAX's world state keeps them raw: positions up to 32,
	// which saturate a tanh critic's first layer). Off by default (SMAX's state).
	NormalizeState bool `json:"normalize_state,omitempty"`
}

// DefaultConfig is SMAX's configuration of a scenario (map 32 × 32, 8 ticks of 1/16 s per step,
// 100 steps, win bonus 1, walls kill) with the heuristic enemy of JaxMARL's MAPPO baseline.
func DefaultConfig(scenario string) Config {
	return Config{Scenario: scenario, MapWidth: 32, MapHeight: 32, StartNoise: 2, WorldSteps: 8, TimePerStep: 1.0 / 16,
		MaxSteps: 100, WonBonus: 1, WallsCauseDeath: true, SeeEnemyActions: true, AttackMode: "closest", EnemyShoots: true}
}

// Env is one scenario's environment; it holds only its configuration.
type Env struct {
	Cfg Config
	Sc  Scenario
}

// New builds the environment of cfg, or names the bad field.
func New(cfg Config) (*Env, error) {
	sc, ok := Scenarios[cfg.Scenario]
	switch {
	case !ok:
		return nil, fmt.Errorf("smax: unknown scenario %q (known: %s)", cfg.Scenario, strings.Join(ScenarioNames(), ", "))
	case cfg.MapWidth <= 0 || cfg.MapHeight <= 0:
		return nil, fmt.Errorf("smax: map %v × %v must be positive", cfg.MapWidth, cfg.MapHeight)
	case cfg.WorldSteps < 1 || cfg.TimePerStep <= 0 || cfg.MaxSteps < 1:
		return nil, fmt.Errorf("smax: world_steps %d, time_per_step %v and max_steps %d must be positive", cfg.WorldSteps, cfg.TimePerStep, cfg.MaxSteps)
	case cfg.AttackMode != "closest" && cfg.AttackMode != "random":
		return nil, fmt.Errorf("smax: attack_mode %q, want closest or random", cfg.AttackMode)
	}
	return &Env{Cfg: cfg, Sc: sc}, nil
}

// N is the number of units, allies first.
func (e *Env) N() int { return e.Sc.Allies + e.Sc.Enemies }

// ObsSize is the length of a unit's observation.
func (e *Env) ObsSize() int {
	return (unitFeatures+len(Units))*(e.N()-1) + ownFeatures + len(Units)
}

// Spec implements env.Env: the allies are the agents.
func (e *Env) Spec() env.Spec {
	return env.Spec{Name: "smax:" + e.Sc.Name, Agents: e.Sc.Allies, ObsSize: e.ObsSize(), Actions: NumMoves + e.Sc.Enemies,
		StateSize: (ownFeatures + len(Units) + 2) * e.N(), Horizon: e.Cfg.MaxSteps + 1}
}

// State is a battle: per unit (allies first) its position, health, life, type, weapon cooldown and
// last decoded action (a move vector, and the attack action index or 0), the heuristic enemies'
// memory, the step count and the state's random generator.
type State struct {
	Pos        [][2]float32
	Health     []float32
	Alive      []bool
	Types      []uint8
	Cooldown   []float32
	PrevMove   [][2]float32
	PrevAttack []int
	Enemy      []Memory
	Steps      int
	Done       bool
	Src        rand.PCG
}

// Reseed restarts the state's random generator (the enemy's choices and the cooldown jitter of the
// steps to come) from seed: Monte-Carlo rollouts from one state each draw their own future.
func (s *State) Reseed(seed uint64) { s.Src = *rand.NewPCG(seed, 0x726f6c6c) }

// Clone implements env.State.
func (s *State) Clone() env.State {
	c := *s
	c.Pos, c.Health, c.Alive, c.Types = slices.Clone(s.Pos), slices.Clone(s.Health), slices.Clone(s.Alive), slices.Clone(s.Types)
	c.Cooldown, c.PrevMove, c.PrevAttack, c.Enemy = slices.Clone(s.Cooldown), slices.Clone(s.PrevMove), slices.Clone(s.PrevAttack), slices.Clone(s.Enemy)
	return &c
}

// Reset implements env.Env: the allies around (W/4, H/2), the enemies around (3W/4, H/2), each
// moved uniformly within ±StartNoise, then pushed apart where they overlap.
func (e *Env) Reset(seed uint64) (env.State, [][]float32, error) {
	n := e.N()
	s := &State{Pos: make([][2]float32, n), Health: make([]float32, n), Alive: make([]bool, n), Types: slices.Clone(e.Sc.Types),
		Cooldown: make([]float32, n), PrevMove: make([][2]float32, n), PrevAttack: make([]int, n), Enemy: make([]Memory, e.Sc.Enemies),
		Src: *rand.NewPCG(seed, 0x736d6178)}
	r := rand.New(&s.Src)
	for i := range n {
		cx := e.Cfg.MapWidth / 4
		if i >= e.Sc.Allies {
			cx = e.Cfg.MapWidth / 4 * 3
		}
		s.Pos[i] = [2]float32{cx + e.noise(r), e.Cfg.MapHeight/2 + e.noise(r)}
		s.Health[i], s.Alive[i] = Units[s.Types[i]].Health, true
	}
	for k := range s.Enemy {
		s.Enemy[k] = NewMemory()
	}
	e.push(s)
	return s, e.allyObs(s), nil
}

func (e *Env) noise(r *rand.Rand) float32 {
	return float32(r.Float64()*2-1) * e.Cfg.StartNoise
}

// Step implements env.Env: the heuristic picks the enemies' actions, the world advances
// WorldSteps ticks with cooldown jitter drawn from the state's generator (Advance), and the
// allies get the team reward. Info: "won" (1 when the episode ends with every enemy dead and an
// ally alive), "allies_alive" and "enemies_alive".
func (e *Env) Step(st env.State, actions []int) (env.State, env.Transition, error) {
	s, err := env.StateAs[*State](e, st)
	if err != nil {
		return nil, env.Transition{}, err
	}
	if s.Done {
		return nil, env.Transition{}, env.Over(e.Spec().Name, s.Steps)
	}
	if len(actions) != e.Sc.Allies {
		return nil, env.Transition{}, fmt.Errorf("env %s: %d actions for %d agents", e.Spec().Name, len(actions), e.Sc.Allies)
	}
	r := rand.New(&s.Src)
	all := make([]int, e.N())
	for i, m := range e.Avail(s) { // an unavailable action is the no-op, stop (SMAX: see NoOp)
		if a := actions[i]; a >= 0 && a < len(m) && m[a] {
			all[i] = a
		} else {
			all[i] = Stop
		}
	}
	for k := range e.Sc.Enemies {
		i := e.Sc.Allies + k
		all[i] = e.heuristic(&s.Enemy[k], e.ObsOf(s, i), r)
	}
	dev := make([][]float32, e.Cfg.WorldSteps)
	for t := range dev {
		dev[t] = make([]float32, e.N())
		for i := range dev[t] {
			dev[t][i] = e.Cfg.TimePerStep * float32(r.Float64()*3-1) // uniform in [−dt, 2dt)
		}
	}
	reward, err := e.Advance(s, all, dev)
	if err != nil {
		return nil, env.Transition{}, err
	}
	tr := env.Transition{Obs: e.allyObs(s), Rewards: make([]float64, e.Sc.Allies), Shared: float64(reward), Done: s.Done,
		Truncated: s.Done && e.alive(s, 0) > 0 && e.alive(s, 1) > 0}
	for i := range tr.Rewards {
		tr.Rewards[i] = float64(reward)
	}
	tr.Info = map[string]float64{"allies_alive": float64(e.alive(s, 0)), "enemies_alive": float64(e.alive(s, 1)), "won": 0}
	if s.Done && e.alive(s, 1) == 0 && e.alive(s, 0) > 0 {
		tr.Info["won"] = 1
	}
	return s, tr, nil
}

// NoOp is the action an unavailable one is played as (env.Env's contract; envtest reads it):
// stop. SMAX plays an attack out of
// range as "neither move nor fire" too, but records it as the unit's last attack, which the other
// units observe; here it is recorded as a stop (Advance, which the replay test drives, keeps SMAX's
// way). A policy that samples only available actions never meets the difference.
func (e *Env) NoOp() int { return Stop }

// alive counts team's live units (0: allies, 1: enemies).
func (e *Env) alive(s *State, team int) int {
	lo, hi := 0, e.Sc.Allies
	if team == 1 {
		lo, hi = e.Sc.Allies, e.N()
	}
	n := 0
	for i := lo; i < hi; i++ {
		if s.Alive[i] {
			n++
		}
	}
	return n
}

// moveVector is a discrete action's move (SMAX's _decode_discrete_actions, computed as it does in
// float32: a diagonal unit vector rotated 45° anticlockwise): actions 0–3 north, east, south, west;
// stop and attacks do not move.
func moveVector(a int) [2]float32 {
	if a >= NumMoves-1 {
		return [2]float32{}
	}
	c := float32(1) / float32(math.Sqrt(2))
	v0, v1 := c, c
	if (a/2)%2 == 1 {
		v0 = -c
	}
	if (a/2+a%2)%2 == 1 {
		v1 = -c
	}
	return [2]float32{c*v0 - c*v1, c*v0 + c*v1}
}

// target is the unit unit i's attack action a aims at (SMAX's attacked_idx: an ally's attack a
// aims at enemy a − NumMoves, an enemy's at ally Allies − 1 − (a − NumMoves), in the reverse order
// in which enemies observe the allies); i itself for a move or stop.
func (e *Env) target(i, a int) int {
	switch {
	case a < NumMoves:
		return i
	case i < e.Sc.Allies:
		return a + e.Sc.Allies - NumMoves
	default:
		return e.Sc.Allies - 1 - (a - NumMoves)
	}
}

// Advance applies one agent step to s in place: every unit's discrete action (allies then
// enemies; an action out of range is an error naming the unit), WorldSteps ticks each with dev[t][i]
// added to unit i's cooldown when it fires (SMAX: uniform in [−dt, 2dt]). It returns the allies'
// reward and sets s.Done. This is SMAX's step_env_no_decode after _decode_discrete_actions.
// Actions that are not available (an attack out of range, a dead unit's move) do nothing, as in
// SMAX.
func (e *Env) Advance(s *State, actions []int, dev [][]float32) (float32, error) {
	n := e.N()
	if len(actions) != n || len(dev) != e.Cfg.WorldSteps {
		return 0, fmt.Errorf("smax: %d actions for %d units, %d jitter rows for %d ticks", len(actions), n, len(dev), e.Cfg.WorldSteps)
	}
	moves, attacks := make([][2]float32, n), make([]int, n)
	for i, a := range actions {
		na := NumMoves + e.Sc.Enemies
		if i >= e.Sc.Allies {
			na = NumMoves + e.Sc.Allies
		}
		if a < 0 || a >= na {
			return 0, fmt.Errorf("smax: unit %d action %d out of [0, %d)", i, a, na)
		}
		moves[i] = moveVector(a)
		if a > NumMoves-1 {
			attacks[i] = a
		}
	}
	before := slices.Clone(s.Health)
	dt := e.Cfg.TimePerStep
	pos, diff := make([][2]float32, n), make([]float32, n)
	for t := range e.Cfg.WorldSteps {
		if len(dev[t]) != n {
			return 0, fmt.Errorf("smax: tick %d: %d jitters for %d units", t, len(dev[t]), n)
		}
		// Every unit moves and fires on the tick's start state (SMAX vmaps over units).
		clear(diff)
		cd := slices.Clone(s.Cooldown)
		for i := range n {
			u := Units[s.Types[i]]
			p := s.Pos[i]
			if s.Alive[i] {
				p[0] = min(max(p[0]+moves[i][0]*u.Velocity*dt, 0), e.Cfg.MapWidth)
				p[1] = min(max(p[1]+moves[i][1]*u.Velocity*dt, 0), e.Cfg.MapHeight)
			}
			pos[i] = p
			j := e.target(i, attacks[i])
			valid := j != i && s.Alive[i] && s.Alive[j] && dist(s.Pos[i], s.Pos[j]) < u.Range && s.Cooldown[i] <= 0
			if valid {
				diff[j] -= u.Attack
				// SMAX adds (new − current) to the current cooldown: the same float32 roundings.
				cd[i] = s.Cooldown[i] + ((u.Cooldown + dev[t][i]) - s.Cooldown[i])
			} else {
				cd[i] = s.Cooldown[i] + (-dt)
			}
		}
		for i := range n {
			s.Health[i] = max(s.Health[i]+diff[i], 0)
		}
		copy(s.Pos, pos)
		s.Cooldown = cd
		if e.Cfg.WallsCauseDeath {
			for i, p := range s.Pos {
				if p[0] <= 0 || p[1] <= 0 || p[0] >= e.Cfg.MapWidth || p[1] >= e.Cfg.MapHeight {
					s.Health[i] = 0
				}
			}
		}
		for i := range n {
			s.Alive[i] = s.Health[i] > 0
		}
		e.push(s)
		copy(s.PrevMove, moves)
		copy(s.PrevAttack, attacks)
	}
	// SMAX tests the step limit on the count before this step: a battle nobody wins lasts
	// MaxSteps + 1 steps.
	s.Done = e.alive(s, 0) == 0 || e.alive(s, 1) == 0 || s.Steps >= e.Cfg.MaxSteps
	s.Steps++
	return e.reward(s, before), nil
}

// dist is the Euclidean distance in float32, as SMAX's jnp.linalg.norm.
func dist(a, b [2]float32) float32 {
	dx, dy := a[0]-b[0], a[1]-b[1]
	return float32(math.Sqrt(float64(dx*dx + dy*dy)))
}

// push moves overlapping live units apart (SMAX's _push_units_away, firmness 1): each unit moves
// by half the sum over the others of (p_i − p_j) · relu((r_i + r_j) / (|p_i − p_j| + 1e-6) − 1).
func (e *Env) push(s *State) {
	n := e.N()
	next := slices.Clone(s.Pos)
	for i := range n {
		if !s.Alive[i] {
			continue
		}
		var sx, sy float32
		for j := range n {
			if !s.Alive[j] {
				continue
			}
			dx, dy := s.Pos[i][0]-s.Pos[j][0], s.Pos[i][1]-s.Pos[j][1]
			d := float32(math.Sqrt(float64(dx*dx + dy*dy)))
			if i == j {
				d++ // SMAX adds the identity so a unit does not push itself (its delta is 0 anyway)
			}
			d += 1e-6
			o := max((Units[s.Types[i]].Radius+Units[s.Types[j]].Radius)/d-1, 0)
			sx += dx * o
			sy += dy * o
		}
		next[i] = [2]float32{s.Pos[i][0] + sx/2, s.Pos[i][1] + sy/2}
	}
	s.Pos = next
}

// reward is the allies' reward for the step from health before to s: the enemies' health lost,
// each over its type's maximum, summed and divided by the number of enemies, plus WonBonus when
// every enemy is dead and an ally alive (SMAX's compute_team_reward for team 0).
func (e *Env) reward(s *State, before []float32) float32 {
	var dec float32
	for i := e.Sc.Allies; i < e.N(); i++ {
		dec += (s.Health[i] - before[i]) / Units[s.Types[i]].Health
	}
	r := float32(math.Abs(float64(dec))) / float32(e.Sc.Enemies)
	if e.alive(s, 1) == 0 && e.alive(s, 0) > 0 {
		r += e.Cfg.WonBonus
	}
	return r
}

// allyObs are the allies' observations.
func (e *Env) allyObs(s *State) [][]float32 {
	obs := make([][]float32, e.Sc.Allies)
	for i := range obs {
		obs[i] = e.ObsOf(s, i)
	}
	return obs
}

// others are the units unit i observes, in SMAX's order: for an ally the other allies then the
// enemies by index; for an enemy the other enemies then the allies, each by decreasing index.
func (e *Env) others(i int) []int {
	n := e.N()
	out := make([]int, 0, n-1)
	if i < e.Sc.Allies {
		for j := range n {
			if j != i {
				out = append(out, j)
			}
		}
		return out
	}
	for j := n - 1; j >= 0; j-- {
		if j != i {
			out = append(out, j)
		}
	}
	return out
}

// ObsOf is unit i's observation (SMAX's get_obs_unit_list): each other unit's features where it is
// in sight and both live (zeros otherwise), then i's own (zeros when dead).
func (e *Env) ObsOf(s *State, i int) []float32 {
	per := unitFeatures + len(Units)
	out := make([]float32, e.ObsSize())
	me := Units[s.Types[i]]
	for k, j := range e.others(i) {
		if !s.Alive[i] || !s.Alive[j] || dist(s.Pos[j], s.Pos[i]) >= me.Sight {
			continue
		}
		f := out[k*per : (k+1)*per]
		u := Units[s.Types[j]]
		f[0] = s.Health[j] / u.Health
		f[1] = (s.Pos[j][0] - s.Pos[i][0]) / me.Sight
		f[2] = (s.Pos[j][1] - s.Pos[i][1]) / me.Sight
		if (i < e.Sc.Allies) == (j < e.Sc.Allies) || e.Cfg.SeeEnemyActions {
			maxAction := float32(NumMoves + e.Sc.Enemies - 1)
			if j >= e.Sc.Allies {
				maxAction = float32(NumMoves + e.Sc.Allies - 1)
			}
			f[3], f[4] = s.PrevMove[j][0], s.PrevMove[j][1]
			f[5] = float32(s.PrevAttack[j]) / maxAction
		}
		f[6] = min(max(s.Cooldown[j]/u.Cooldown, 0), 1)
		f[unitFeatures+int(s.Types[j])] = 1
	}
	if s.Alive[i] {
		f := out[(e.N()-1)*per:]
		f[0] = s.Health[i] / me.Health
		f[1], f[2] = s.Pos[i][0]/e.Cfg.MapWidth, s.Pos[i][1]/e.Cfg.MapHeight
		f[3] = min(max(s.Cooldown[i]/me.Cooldown, 0), 1)
		f[ownFeatures+int(s.Types[i])] = 1
	}
	return out
}

// Avail implements env.Masked (SMAX's get_avail_actions): stop always; the moves while alive; an
// attack on each live enemy within the agent's attack range.
func (e *Env) Avail(st env.State) [][]bool {
	s := st.(*State)
	out := make([][]bool, e.Sc.Allies)
	for i := range out {
		m := make([]bool, NumMoves+e.Sc.Enemies)
		m[Stop] = true
		if s.Alive[i] {
			for a := range NumMoves - 1 {
				m[a] = true
			}
			for k := range e.Sc.Enemies {
				j := e.Sc.Allies + k
				m[NumMoves+k] = s.Alive[j] && dist(s.Pos[j], s.Pos[i]) < Units[s.Types[i]].Range
			}
		}
		out[i] = m
	}
	return out
}

// Global implements env.Central (SMAX's get_world_state): per unit its health share, raw
// position, raw cooldown and one-hot type (zeros when dead), then every unit's team, then its type.
func (e *Env) Global(st env.State) []float32 {
	s := st.(*State)
	n, per := e.N(), ownFeatures+len(Units)
	out := make([]float32, e.Spec().StateSize)
	for i := range n {
		if !s.Alive[i] {
			continue
		}
		f := out[i*per : (i+1)*per]
		f[0] = s.Health[i] / Units[s.Types[i]].Health
		f[1], f[2], f[3] = s.Pos[i][0], s.Pos[i][1], s.Cooldown[i]
		if e.Cfg.NormalizeState {
			f[1], f[2] = f[1]/e.Cfg.MapWidth, f[2]/e.Cfg.MapHeight
			f[3] = min(max(f[3]/Units[s.Types[i]].Cooldown, 0), 1)
		}
		f[ownFeatures+int(s.Types[i])] = 1
	}
	for i := range n {
		if i >= e.Sc.Allies {
			out[n*per+i] = 1
		}
		out[n*per+n+i] = float32(s.Types[i])
	}
	return out
}

// Render implements env.Renderer: one line per unit (team, type, health, position, cooldown).
func (e *Env) Render(st env.State) string {
	s := st.(*State)
	var b strings.Builder
	fmt.Fprintf(&b, "%s step %d\n", e.Sc.Name, s.Steps)
	for i := range e.N() {
		team := "ally "
		if i >= e.Sc.Allies {
			team = "enemy"
		}
		u := Units[s.Types[i]]
		state := fmt.Sprintf("hp %5.1f/%-4.0f at (%5.2f, %5.2f) cooldown %5.2f", s.Health[i], u.Health, s.Pos[i][0], s.Pos[i][1], s.Cooldown[i])
		if !s.Alive[i] {
			state = "dead"
		}
		fmt.Fprintf(&b, "%s %d %-9s %s\n", team, i, u.Name, state)
	}
	return b.String()
}

// makeEnv builds "smax:<scenario>" with DefaultConfig, or "smax:<scenario>-norm" with
// NormalizeState.
func makeEnv(spec string) (env.Env, error) {
	name, norm := strings.CutSuffix(spec, "-norm")
	c := DefaultConfig(name)
	c.NormalizeState = norm
	return New(c)
}

func init() { env.Register("smax", makeEnv) }

package env

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// LBF actions, as in lb-foraging.
const (
	LBFNone = iota
	LBFNorth
	LBFSouth
	LBFWest
	LBFEast
	LBFLoad
)

// LBFConfig is a Level-Based Foraging task. Rules follow semitable/lb-foraging (checked against its
// commit 79f383b: trajectories recorded from it are reproduced step by step — positions, foods,
// rewards bit for bit, done, vector and grid observations — by TestLBFReplaysLBForaging, and the
// scenarios of its tests/test_env.py are ported in lbf_ported_test.go):
//
//   - an N×N grid, P players with levels drawn uniformly from [MinLevel, MaxLevel], up to F foods;
//   - a food's level is drawn from [1, sum of the 3 lowest player levels], or equals that maximum
//     in coop mode (so every food needs several players), or — PaperLab's "spread" variant, not in
//     lb-foraging — the k-th food spawned has level 1 + k mod that maximum (with 3 level-1 players
//     and 3 foods: one solo, one pair and one triple food every episode); foods never spawn on the
//     border nor next to (3×3) or two cells in line from another food;
//   - actions NONE, NORTH, SOUTH, WEST, EAST, LOAD; a move into a food cell or off the grid, or a
//     LOAD with no food in the 4-neighbourhood, is invalid and becomes NONE;
//   - moves are simultaneous: a cell claimed by more than one player (a player standing still
//     claims its own cell) is entered by none of them (lb-foraging's rule; like lb-foraging it lets
//     two players swap cells, and a blocked chain can leave two players on one cell);
//   - LOAD succeeds when the levels of the loading players adjacent to the food add up to at least
//     its level; each then receives level·food_level / (Σ loader levels · Σ food levels spawned), so
//     an episode's rewards sum to 1 when all food is collected; a failed load costs each loader
//     Penalty;
//   - an episode ends when no food is left or after MaxSteps steps (50);
//   - observation of each player, a vector: for each food slot (y, x, level) and for each player,
//     self first, (y, x, level), in the coordinates of the player's sight window; unseen entries are
//     (−1, −1, 0). Sight = grid size is full observability.
//
// Where lb-foraging leaves an order unspecified (the loading players are popped from a Python set),
// PaperLab processes them in player-index order (it matters only for a loader next to two foods,
// which spawning never produces). Its random streams are Go's, not NumPy's, and Reset(seed) starts a
// fresh stream (lb-foraging continues one). Transition.Truncated is true when the step limit ends an
// episode with food left (lb-foraging reports truncated = False and done = True; Done agrees). The
// "spread" variant is lb-foraging's per-food level lists [1, 2, …] (min = max per food), which it
// permutes over the spawn order.
type LBFConfig struct {
	Size, Players, Foods int
	MinLevel, MaxLevel   int
	Coop                 bool
	Spread               bool
	Sight                int
	MaxSteps             int
	Penalty              float64
}

var lbfSpec = regexp.MustCompile(`^(\d+)x(\d+)-(\d+)p-(\d+)f((?:-[a-z0-9.]+)*)$`)

// ParseLBF reads "8x8-3p-2f-coop" style names: size, players, foods, then optional "-coop",
// "-spread" (food levels 1, 2, … cyclically), "-2s" (sight 2, or "-Ns"), "-pen" (penalty 0.1), "-lvlK" (max player level K, default 2) and
// "-Tt" (episode limit T, default 50).
func ParseLBF(spec string) (LBFConfig, error) {
	m := lbfSpec.FindStringSubmatch(spec)
	if m == nil {
		return LBFConfig{}, fmt.Errorf("bad LBF scenario %q: want SIZExSIZE-Pp-Ff[-coop|-spread][-2s][-pen][-lvlK][-Tt], e.g. 8x8-3p-2f-coop", spec)
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	p, _ := strconv.Atoi(m[3])
	f, _ := strconv.Atoi(m[4])
	if a != b {
		return LBFConfig{}, fmt.Errorf("bad LBF scenario %q: the grid must be square", spec)
	}
	c := LBFConfig{Size: a, Players: p, Foods: f, MinLevel: 1, MaxLevel: 2, Sight: a, MaxSteps: 50}
	for _, opt := range strings.Split(strings.TrimPrefix(m[5], "-"), "-") {
		switch {
		case opt == "":
		case opt == "coop":
			c.Coop = true
		case opt == "spread":
			c.Spread = true
		case opt == "pen":
			c.Penalty = 0.1
		case strings.HasSuffix(opt, "s"):
			s, err := strconv.Atoi(strings.TrimSuffix(opt, "s"))
			if err != nil || s < 1 {
				return LBFConfig{}, fmt.Errorf("bad LBF scenario %q: sight option %q", spec, opt)
			}
			c.Sight = s
		case strings.HasPrefix(opt, "lvl"):
			l, err := strconv.Atoi(strings.TrimPrefix(opt, "lvl"))
			if err != nil || l < 1 {
				return LBFConfig{}, fmt.Errorf("bad LBF scenario %q: level option %q", spec, opt)
			}
			c.MaxLevel = l
		case strings.HasSuffix(opt, "t"):
			t, err := strconv.Atoi(strings.TrimSuffix(opt, "t"))
			if err != nil || t < 1 {
				return LBFConfig{}, fmt.Errorf("bad LBF scenario %q: step-limit option %q", spec, opt)
			}
			c.MaxSteps = t
		default:
			return LBFConfig{}, fmt.Errorf("bad LBF scenario %q: unknown option %q (coop, spread, Ns, pen, lvlK, Tt)", spec, opt)
		}
	}
	return c, c.Validate()
}

// Validate names an impossible setting.
func (c LBFConfig) Validate() error {
	switch {
	case c.Size < 3:
		return fmt.Errorf("LBF: grid size %d, need ≥ 3 (foods avoid the border)", c.Size)
	case c.Players < 1 || c.Players > c.Size*c.Size/2:
		return fmt.Errorf("LBF: %d players on a %dx%d grid", c.Players, c.Size, c.Size)
	case c.Foods < 1 || c.Foods > (c.Size-2)*(c.Size-2):
		return fmt.Errorf("LBF: %d foods on a %dx%d grid", c.Foods, c.Size, c.Size)
	case c.MinLevel < 1 || c.MaxLevel < c.MinLevel:
		return fmt.Errorf("LBF: player levels [%d, %d]", c.MinLevel, c.MaxLevel)
	case c.Coop && c.Spread:
		return fmt.Errorf("LBF: coop and spread food levels exclude each other")
	case c.Sight < 1 || c.MaxSteps < 1 || c.Penalty < 0:
		return fmt.Errorf("LBF: sight %d, steps %d, penalty %v", c.Sight, c.MaxSteps, c.Penalty)
	}
	return nil
}

type lbfPlayer struct {
	row, col, level int
}

// LBF is a Level-Based Foraging environment.
type LBF struct {
	cfg  LBFConfig
	name string
	// mutation breaks one rule on purpose ("load-strict": a load needs more than the food's level;
	// "collision-first": the first of several claimants enters the cell). Only the replay test sets
	// it, to show that the recorded lb-foraging trajectories catch a wrong rule.
	mutation string
}

// NewLBF makes an LBF environment.
func NewLBF(c LBFConfig, name string) (*LBF, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &LBF{cfg: c, name: name}, nil
}

func makeLBF(spec string) (Env, error) {
	c, err := ParseLBF(spec)
	if err != nil {
		return nil, err
	}
	return NewLBF(c, spec)
}

func init() { Register("lbf", makeLBF) }

// Config returns the task.
func (e *LBF) Config() LBFConfig { return e.cfg }

// Spec: 6 actions (none, north, south, west, east, load), observations and state as documented on
// LBFConfig.
func (e *LBF) Spec() Spec {
	return Spec{Name: "lbf:" + e.name, Agents: e.cfg.Players, ObsSize: e.obsSize(), Actions: 6, StateSize: e.stateSize(), Horizon: e.cfg.MaxSteps}
}

func (e *LBF) obsSize() int   { return 3*e.cfg.Foods + 3*e.cfg.Players }
func (e *LBF) stateSize() int { return 3*e.cfg.Foods + 3*e.cfg.Players + 1 }

// LBFState is an LBF episode's state.
type LBFState struct {
	size    int
	field   []int // size*size food levels
	players []lbfPlayer
	spawned float64 // the total food level spawned at reset
	step    int
	done    bool
}

// Clone implements State.
func (st *LBFState) Clone() State {
	c := *st
	c.field, c.players = slices.Clone(st.field), slices.Clone(st.players)
	return &c
}

// Steps is the number of steps taken in the episode.
func (st *LBFState) Steps() int { return st.step }

func (e *LBF) newState() *LBFState {
	return &LBFState{size: e.cfg.Size, field: make([]int, e.cfg.Size*e.cfg.Size), players: make([]lbfPlayer, e.cfg.Players)}
}

func (e *LBF) state(s State) (*LBFState, error) {
	st, err := StateAs[*LBFState](e, s)
	if err == nil && (st.size != e.cfg.Size || len(st.players) != e.cfg.Players) {
		err = fmt.Errorf("env lbf:%s: a state of a %dx%d task with %d players", e.name, st.size, st.size, len(st.players))
	}
	return st, err
}

func (st *LBFState) food(r, c int) int {
	if r < 0 || c < 0 || r >= st.size || c >= st.size {
		return 0
	}
	return st.field[r*st.size+c]
}

func (st *LBFState) emptyAt(r, c int) bool {
	if st.food(r, c) != 0 {
		return false
	}
	for _, p := range st.players {
		if p.level > 0 && p.row == r && p.col == c {
			return false
		}
	}
	return true
}

// Reset spawns players, then foods, from seed.
func (e *LBF) Reset(seed uint64) (State, [][]float32, error) {
	c := e.cfg
	rng := rand.New(rand.NewPCG(seed, 0x6c6266))
	st := e.newState()
	for i := range st.players {
		for attempt := 0; attempt < 1000; attempt++ {
			r, col := rng.IntN(c.Size), rng.IntN(c.Size)
			if st.emptyAt(r, col) {
				st.players[i] = lbfPlayer{row: r, col: col, level: c.MinLevel + rng.IntN(c.MaxLevel-c.MinLevel+1)}
				break
			}
		}
	}
	levels := make([]int, len(st.players))
	for i, p := range st.players {
		levels[i] = p.level
	}
	slices.Sort(levels)
	maxFood := 0
	for i := 0; i < len(levels) && i < 3; i++ {
		maxFood += levels[i]
	}
	minFood := 1
	if c.Coop {
		minFood = maxFood
	}
	count := 0
	for attempt := 0; attempt < 1000 && count < c.Foods; attempt++ {
		r, col := 1+rng.IntN(c.Size-2), 1+rng.IntN(c.Size-2)
		if st.foodNear(r, col) || !st.emptyAt(r, col) {
			continue
		}
		if c.Spread {
			st.field[r*c.Size+col] = 1 + count%maxFood
		} else {
			st.field[r*c.Size+col] = minFood + rng.IntN(maxFood-minFood+1)
		}
		count++
	}
	st.spawned = 0
	for _, f := range st.field {
		st.spawned += float64(f)
	}
	return st, e.observe(st), nil
}

// foodNear: food in the 3×3 neighbourhood or two cells away in a straight line.
func (st *LBFState) foodNear(r, c int) bool {
	for dr := -1; dr <= 1; dr++ {
		for dc := -1; dc <= 1; dc++ {
			if st.food(r+dr, c+dc) > 0 {
				return true
			}
		}
	}
	return st.food(r-2, c) > 0 || st.food(r+2, c) > 0 || st.food(r, c-2) > 0 || st.food(r, c+2) > 0
}

func (st *LBFState) valid(p lbfPlayer, a int) bool {
	n := st.size
	switch a {
	case LBFNone:
		return true
	case LBFNorth:
		return p.row > 0 && st.food(p.row-1, p.col) == 0
	case LBFSouth:
		return p.row < n-1 && st.food(p.row+1, p.col) == 0
	case LBFWest:
		return p.col > 0 && st.food(p.row, p.col-1) == 0
	case LBFEast:
		return p.col < n-1 && st.food(p.row, p.col+1) == 0
	case LBFLoad:
		_, _, ok := st.adjacentFood(p.row, p.col)
		return ok
	}
	return false
}

// Avail is each player's valid actions.
func (e *LBF) Avail(s State) [][]bool {
	st, err := e.state(s)
	if err != nil {
		return nil
	}
	out := make([][]bool, len(st.players))
	for i, p := range st.players {
		out[i] = make([]bool, 6)
		for a := 0; a < 6; a++ {
			out[i][a] = st.valid(p, a)
		}
	}
	return out
}

// adjacentFood returns the location of the food next to (r, c), searched north, south, west, east
// (lb-foraging's order).
func (st *LBFState) adjacentFood(r, c int) (int, int, bool) {
	for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
		if st.food(r+d[0], c+d[1]) > 0 {
			return r + d[0], c + d[1], true
		}
	}
	return 0, 0, false
}

// Step applies the joint action.
func (e *LBF) Step(s State, actions []int) (State, Transition, error) {
	st, err := e.state(s)
	if err != nil {
		return nil, Transition{}, err
	}
	if st.done {
		return nil, Transition{}, Over(e.Spec().Name, st.step)
	}
	st.step++
	n := len(st.players)
	rewards := make([]float64, n)
	acts := make([]int, n)
	for i := range acts {
		if i < len(actions) && actions[i] >= 0 && actions[i] < 6 && st.valid(st.players[i], actions[i]) {
			acts[i] = actions[i]
		}
	}
	// Simultaneous moves: every player claims a target cell; a cell claimed once is taken.
	type cell struct{ r, c int }
	claims := map[cell][]int{}
	var order []cell
	loading := make([]bool, n)
	for i, p := range st.players {
		t := cell{p.row, p.col}
		switch acts[i] {
		case LBFNorth:
			t.r--
		case LBFSouth:
			t.r++
		case LBFWest:
			t.c--
		case LBFEast:
			t.c++
		case LBFLoad:
			loading[i] = true
		}
		if _, seen := claims[t]; !seen {
			order = append(order, t)
		}
		claims[t] = append(claims[t], i)
	}
	for _, t := range order {
		if v := claims[t]; len(v) == 1 || (e.mutation == "collision-first" && len(v) > 1) {
			st.players[v[0]].row, st.players[v[0]].col = t.r, t.c
		}
	}
	// Loads, in player-index order.
	for i := range st.players {
		if !loading[i] {
			continue
		}
		fr, fc, ok := st.adjacentFood(st.players[i].row, st.players[i].col)
		if !ok {
			loading[i] = false
			continue
		}
		var group []int
		sum := 0
		for j, q := range st.players {
			if loading[j] && ((abs(q.row-fr) == 1 && q.col == fc) || (abs(q.col-fc) == 1 && q.row == fr)) {
				group = append(group, j)
				sum += q.level
			}
		}
		food := st.food(fr, fc)
		for _, j := range group {
			loading[j] = false
		}
		if sum < food || (e.mutation == "load-strict" && sum == food) {
			for _, j := range group {
				rewards[j] -= e.cfg.Penalty
			}
			continue
		}
		for _, j := range group {
			rewards[j] = float64(st.players[j].level*food) / (float64(sum) * st.spawned)
		}
		st.field[fr*e.cfg.Size+fc] = 0
	}
	left := 0
	for _, f := range st.field {
		left += f
	}
	t := Transition{Obs: e.observe(st), Rewards: rewards, Info: map[string]float64{"food_left": float64(left)}}
	for _, r := range rewards {
		t.Shared += r
	}
	t.Done = left == 0 || st.step >= e.cfg.MaxSteps
	t.Truncated = left > 0 && st.step >= e.cfg.MaxSteps
	st.done = t.Done
	return st, t, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// observe builds every player's observation vector (see LBFConfig).
func (e *LBF) observe(st *LBFState) [][]float32 {
	c := e.cfg
	out := make([][]float32, len(st.players))
	for i, me := range st.players {
		o := make([]float32, e.obsSize())
		for k := 0; k < c.Foods; k++ {
			o[3*k], o[3*k+1] = -1, -1
		}
		r0, c0 := max(me.row-c.Sight, 0), max(me.col-c.Sight, 0)
		r1, c1 := min(me.row+c.Sight+1, c.Size), min(me.col+c.Sight+1, c.Size)
		k := 0
		for r := r0; r < r1; r++ {
			for col := c0; col < c1; col++ {
				if f := st.food(r, col); f > 0 && k < c.Foods {
					o[3*k], o[3*k+1], o[3*k+2] = float32(r-r0), float32(col-c0), float32(f)
					k++
				}
			}
		}
		base := 3 * c.Foods
		for j := 0; j < c.Players; j++ {
			o[base+3*j], o[base+3*j+1] = -1, -1
		}
		slot := 0
		put := func(p lbfPlayer) {
			y := p.row - me.row + min(c.Sight, me.row)
			x := p.col - me.col + min(c.Sight, me.col)
			if min(y, x) < 0 || max(y, x) > 2*c.Sight {
				return
			}
			o[base+3*slot], o[base+3*slot+1], o[base+3*slot+2] = float32(y), float32(x), float32(p.level)
			slot++
		}
		put(me)
		for j, p := range st.players {
			if j != i {
				put(p)
			}
		}
		out[i] = o
	}
	return out
}

// GridObs is each player's grid observation as lb-foraging builds it (grid_observation=True): three
// layers of (2·Sight+1)² cells centred on the player — the players' levels, the foods' levels, and
// access (1 for a free cell on the grid, 0 off the grid or under a player or a food) — indexed
// [layer][row][col], cells beyond the border zero.
func (e *LBF) GridObs(s State) ([][3][][]float32, error) {
	st, err := e.state(s)
	if err != nil {
		return nil, err
	}
	c := e.cfg
	w := 2*c.Sight + 1
	out := make([][3][][]float32, len(st.players))
	for i, me := range st.players {
		var g [3][][]float32
		for l := range g {
			g[l] = make([][]float32, w)
			for r := range g[l] {
				g[l][r] = make([]float32, w)
			}
		}
		for dr := 0; dr < w; dr++ {
			for dc := 0; dc < w; dc++ {
				r, col := me.row-c.Sight+dr, me.col-c.Sight+dc
				if r < 0 || col < 0 || r >= c.Size || col >= c.Size {
					continue
				}
				f := st.food(r, col)
				g[1][dr][dc] = float32(f)
				g[2][dr][dc] = 1
				if f > 0 {
					g[2][dr][dc] = 0
				}
			}
		}
		for _, p := range st.players {
			if dr, dc := p.row-me.row+c.Sight, p.col-me.col+c.Sight; dr >= 0 && dc >= 0 && dr < w && dc < w {
				g[0][dr][dc] = float32(p.level)
				g[2][dr][dc] = 0
			}
		}
		out[i] = g
	}
	return out, nil
}

// Global is every food (row-major, (y, x, level), (−1, −1, 0) when gone), every player (y, x, level)
// in index order, and the elapsed fraction of the episode.
func (e *LBF) Global(s State) []float32 {
	st, err := e.state(s)
	if err != nil {
		return nil
	}
	c := e.cfg
	g := make([]float32, e.stateSize())
	for k := 0; k < c.Foods; k++ {
		g[3*k], g[3*k+1] = -1, -1
	}
	k := 0
	for i, f := range st.field {
		if f > 0 && k < c.Foods {
			g[3*k], g[3*k+1], g[3*k+2] = float32(i/c.Size), float32(i%c.Size), float32(f)
			k++
		}
	}
	base := 3 * c.Foods
	for j, p := range st.players {
		g[base+3*j], g[base+3*j+1], g[base+3*j+2] = float32(p.row), float32(p.col), float32(p.level)
	}
	g[len(g)-1] = float32(st.step) / float32(c.MaxSteps)
	return g
}

// Render draws the grid: food levels as digits, players as letters (A = player 0) with their level.
func (e *LBF) Render(s State) string {
	st, err := e.state(s)
	if err != nil {
		return ""
	}
	c := e.cfg
	var b strings.Builder
	fmt.Fprintf(&b, "step %d/%d\n", st.step, c.MaxSteps)
	for r := 0; r < c.Size; r++ {
		for col := 0; col < c.Size; col++ {
			cellText := " ."
			if f := st.food(r, col); f > 0 {
				cellText = fmt.Sprintf(" %d", f)
			}
			for j, p := range st.players {
				if p.row == r && p.col == col {
					cellText = fmt.Sprintf("%c%d", 'A'+j, p.level)
				}
			}
			b.WriteString(cellText + " ")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// LBFPlayer is a player's position and level (for SetState).
type LBFPlayer struct{ Row, Col, Level int }

// NewState places players and foods by hand (tests, traces); foods maps [row, col] to a level.
// The step counter starts at 0 and the total food spawned is the foods' sum.
func (e *LBF) NewState(players []LBFPlayer, foods map[[2]int]int) (*LBFState, error) {
	if len(players) != e.cfg.Players {
		return nil, fmt.Errorf("LBF: %d players given, the task has %d", len(players), e.cfg.Players)
	}
	st := e.newState()
	for pos, lvl := range foods {
		if pos[0] < 0 || pos[1] < 0 || pos[0] >= e.cfg.Size || pos[1] >= e.cfg.Size || lvl < 1 {
			return nil, fmt.Errorf("LBF: food %v level %d off the grid or invalid", pos, lvl)
		}
		st.field[pos[0]*e.cfg.Size+pos[1]] = lvl
		st.spawned += float64(lvl)
	}
	for i, p := range players {
		if p.Row < 0 || p.Col < 0 || p.Row >= e.cfg.Size || p.Col >= e.cfg.Size || p.Level < 1 {
			return nil, fmt.Errorf("LBF: player %d at (%d,%d) level %d off the grid or invalid", i, p.Row, p.Col, p.Level)
		}
		st.players[i] = lbfPlayer{row: p.Row, col: p.Col, level: p.Level}
	}
	return st, nil
}

// Players returns the players' positions and levels.
func (st *LBFState) Players() []LBFPlayer {
	out := make([]LBFPlayer, len(st.players))
	for i, p := range st.players {
		out[i] = LBFPlayer{p.row, p.col, p.level}
	}
	return out
}

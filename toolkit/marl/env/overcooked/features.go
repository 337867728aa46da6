package overcooked

// Featurizations, after overcooked_ai's OvercookedGridworld:
//
//   - Lossless: lossless_state_encoding's 26 planes of W×H (flattened channel-major: index
//     c·W·H + y·W + x), from one player's point of view (its planes first);
//   - Vector: featurize_state's 96 values for two players and two pots.

// Plane names of the lossless encoding, in order.
var PlaneNames = []string{
	"player_a_loc", "player_b_loc",
	"player_a_orientation_N", "player_a_orientation_S", "player_a_orientation_E", "player_a_orientation_W",
	"player_b_orientation_N", "player_b_orientation_S", "player_b_orientation_E", "player_b_orientation_W",
	"pot_loc", "counter_loc", "onion_disp_loc", "tomato_disp_loc", "dish_disp_loc", "serve_loc",
	"onions_in_pot", "tomatoes_in_pot", "onions_in_soup", "tomatoes_in_soup",
	"soup_cook_time_remaining", "soup_done", "dishes", "onions", "tomatoes", "urgency",
}

// Lossless returns player a's lossless planes (26·W·H values).
func (s *State) Lossless(a int, r Rules, horizon int) []float32 {
	out := make([]float32, len(PlaneNames)*s.Layout.W*s.Layout.H)
	s.LosslessInto(out, a, r, horizon)
	return out
}

// LosslessInto writes player a's lossless planes into out (26·W·H values; overwritten).
func (s *State) LosslessInto(out []float32, a int, r Rules, horizon int) {
	l := s.Layout
	wh := l.W * l.H
	out = out[:len(PlaneNames)*wh]
	clear(out[:10*wh])
	clear(out[16*wh:])
	set := func(c int, p Pos, v float32) { out[c*wh+p.Y*l.W+p.X] += v }
	b := 1 - a
	set(0, s.Players[a].Pos, 1)
	set(1, s.Players[b].Pos, 1)
	set(2+s.Players[a].Dir, s.Players[a].Pos, 1)
	set(6+s.Players[b].Dir, s.Players[b].Pos, 1)
	copy(out[10*wh:16*wh], l.terrain)
	for p, pot := range s.Pots {
		switch {
		case pot.Empty():
		case pot.Idle():
			set(16, p, float32(pot.Onions))
		default:
			set(18, p, float32(pot.Onions))
			set(20, p, float32(max(0, r.CookTime-pot.Tick)))
			if pot.Ready(r.CookTime) {
				set(21, p, 1)
			}
		}
	}
	object := func(o Object, p Pos) {
		switch o {
		case SoupObj: // a soup out of a pot is always done
			set(18, p, 3)
			set(21, p, 1)
		case DishObj:
			set(22, p, 1)
		case OnionObj:
			set(23, p, 1)
		case TomatoObj:
			set(24, p, 1)
		}
	}
	for p, o := range s.Counters {
		object(o, p)
	}
	for _, pl := range s.Players {
		object(pl.Holding, pl.Pos)
	}
	if horizon-s.Timestep < 40 {
		for i := 25 * wh; i < 26*wh; i++ {
			out[i] = 1
		}
	}
}

// VectorSize is the length of Vector's output for two players and two pots.
const VectorSize = 96

// planner holds, for a layout, the action distance from every (cell, orientation) to every
// "facing" goal (a floor cell next to a feature, facing it), as overcooked_ai's motion planner
// computes min_cost_to_feature (the other player is ignored). dist is dense:
// dist[((y·W+x)·4+dir)·W·H + goal cell] is the distance, −1 when the goal is unreachable.
type planner struct {
	l    *Layout
	dist []int16
}

func newPlanner(l *Layout) *planner {
	wh := l.W * l.H
	pl := &planner{l: l, dist: make([]int16, wh*4*wh)}
	for i := range pl.dist {
		pl.dist[i] = -1
	}
	seen := make([]int, wh*4)
	queue := make([]int, 0, wh*4)
	for y := 0; y < l.H; y++ {
		for x := 0; x < l.W; x++ {
			if l.Grid[y][x] != Floor {
				continue
			}
			for d := 0; d < 4; d++ {
				start := (y*l.W+x)*4 + d
				pl.bfs(start, pl.dist[start*wh:(start+1)*wh], seen, queue)
			}
		}
	}
	return pl
}

// bfs fills out[cell] with the fewest actions after which the player, starting from state start
// ((y·W+x)·4+dir), faces the non-floor cell.
func (pl *planner) bfs(start int, out []int16, seen []int, queue []int) {
	l := pl.l
	for i := range seen {
		seen[i] = -1
	}
	seen[start] = 0
	queue = append(queue[:0], start)
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		d := seen[cur]
		p := Pos{cur / 4 % l.W, cur / 4 / l.W}
		if facing := p.Add(Directions[cur%4]); l.At(facing) != Floor && facing.X >= 0 && facing.Y >= 0 &&
			facing.X < l.W && facing.Y < l.H {
			if c := facing.Y*l.W + facing.X; out[c] < 0 {
				out[c] = int16(d)
			}
		}
		for a := 0; a < 4; a++ {
			np := p
			if q := p.Add(Directions[a]); l.At(q) == Floor {
				np = q
			}
			next := (np.Y*l.W+np.X)*4 + a
			if seen[next] < 0 {
				seen[next] = d + 1
				queue = append(queue, next)
			}
		}
	}
}

// closest returns the reachable candidate with the smallest cost from (p, dir) (ties: the first in
// the list) and whether any is reachable.
func (pl *planner) closest(p Pos, dir int, cands []Pos) (Pos, bool) {
	wh := pl.l.W * pl.l.H
	row := pl.dist[((p.Y*pl.l.W+p.X)*4+dir)*wh:][:wh]
	best, bestD, ok := Pos{}, int16(0), false
	for _, c := range cands {
		if d := row[c.Y*pl.l.W+c.X]; d >= 0 && (!ok || d < bestD) {
			best, bestD, ok = c, d, true
		}
	}
	return best, ok
}

// Vector is featurize_state for player i: its 46-value block, the other player's block, the other
// player's position relative to i, and i's absolute position. With overcooked_ai's default motion
// planner objects on counters are never "closest", so counter candidates are left out here too.
func (s *State) Vector(i int, pl *planner, r Rules) []float32 {
	var mine, theirs [blockSize]float32
	s.block(mine[:0], i, pl, r)
	s.block(theirs[:0], 1-i, pl, r)
	out := make([]float32, VectorSize)
	s.assemble(out, i, mine[:], theirs[:])
	return out
}

// assemble writes player i's Vector into o from its own block and the other player's.
func (s *State) assemble(o []float32, i int, mine, theirs []float32) {
	copy(o, mine)
	copy(o[blockSize:], theirs)
	me, other := s.Players[i].Pos, s.Players[1-i].Pos
	o[2*blockSize], o[2*blockSize+1] = float32(other.X-me.X), float32(other.Y-me.Y)
	o[2*blockSize+2], o[2*blockSize+3] = float32(me.X), float32(me.Y)
}

// blockSize is the length of one player's block in Vector.
const blockSize = 46

// Vectors returns both players' Vector observations (one allocation; each player's block is
// computed once and shared by the two).
func (s *State) Vectors(pl *planner, r Rules) [2][]float32 {
	flat := make([]float32, 2*VectorSize)
	out := [2][]float32{flat[:VectorSize], flat[VectorSize:]}
	s.VectorsInto(out[:], pl, r)
	return out
}

// VectorsInto writes both players' Vector observations into out[0] and out[1] (VectorSize each).
func (s *State) VectorsInto(out [][]float32, pl *planner, r Rules) {
	var blk [2 * blockSize]float32
	s.block(blk[:0:blockSize], 0, pl, r)
	s.block(blk[blockSize:blockSize:2*blockSize], 1, pl, r)
	for i := range 2 {
		s.assemble(out[i][:VectorSize], i, blk[i*blockSize:(i+1)*blockSize], blk[(1-i)*blockSize:(2-i)*blockSize])
	}
}

// block appends player i's 46 values to b.
func (s *State) block(b []float32, i int, pl *planner, r Rules) []float32 {
	l := s.Layout
	p := s.Players[i]
	for d := 0; d < 4; d++ {
		b = append(b, b01(p.Dir == d))
	}
	for _, o := range []Object{OnionObj, SoupObj, DishObj, TomatoObj} {
		b = append(b, b01(p.Holding == o))
	}
	delta := func(held bool, cands []Pos) {
		if held {
			b = append(b, 0, 0)
			return
		}
		c, ok := pl.closest(p.Pos, p.Dir, cands)
		if !ok {
			b = append(b, 0, 0)
			return
		}
		b = append(b, float32(c.X-p.Pos.X), float32(c.Y-p.Pos.Y))
	}
	delta(p.Holding == OnionObj, l.Onions)
	delta(p.Holding == TomatoObj, nil)
	delta(p.Holding == DishObj, l.Dishes)
	b = append(b, 0, 0) // closest soup: counters are never goals; (0,0) also when holding one
	if p.Holding == SoupObj {
		b = append(b, 3, 0)
	} else {
		b = append(b, 0, 0)
	}
	delta(false, l.Serves)
	b = append(b, 0, 0) // closest empty counter: never a goal with the default planner
	var buf [8]Pos
	remaining := append(buf[:0], l.Pots...)
	for j := 0; j < 2; j++ {
		c, ok := pl.closest(p.Pos, p.Dir, remaining)
		if !ok {
			b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
			continue
		}
		for k, x := range remaining {
			if x == c {
				remaining = append(remaining[:k], remaining[k+1:]...)
				break
			}
		}
		pot := s.Pots[c]
		cook := 0
		if !pot.Idle() {
			cook = max(0, r.CookTime-pot.Tick)
		}
		b = append(b, 1, b01(pot.Empty()), b01(pot.Full()), b01(pot.Cooking(r.CookTime)), b01(pot.Ready(r.CookTime)),
			float32(pot.Onions), 0, float32(cook), float32(c.X-p.Pos.X), float32(c.Y-p.Pos.Y))
	}
	for d := 0; d < 4; d++ {
		b = append(b, b01(l.At(p.Pos.Add(Directions[d])) != Floor))
	}
	return b
}

func b01(x bool) float32 {
	if x {
		return 1
	}
	return 0
}

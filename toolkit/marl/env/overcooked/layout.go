// Package overcooked is a Go re-implementation of Overcooked-AI (HumanCompatibleAI/overcooked_ai)
// with the "old dynamics" of the 2019 benchmark and JaxMARL: two cooks, onion soup of 3 onions,
// cooking starts automatically at 3 onions and takes CookTime ticks (20), delivery is +20 for the
// team, shaped rewards 3 (onion into pot) / 3 (useful dish pickup) / 5 (soup pickup) go to the acting
// player and are scaled by an annealed factor, 400-step horizon, 6 actions. Movement, collisions and
// the order of interacts follow overcooked_mdp.py (see State.Step).
//
// Env is the game as an env.Env (scenarios "overcooked:<layout>[-hN][-cN][-lossless]"): the kitchen
// and its rules, read-only, with an Episode (the game State, the last step's Outcome, the shaping
// factor and the current observations) as the env.State that its Step advances in place. Agents
// (scripted cooks, Func, trained policies) act in batches of episodes; Evaluate and Play pair them
// up through the env's Step.
package overcooked

import (
	"fmt"
	"sort"
	"strings"
)

// Terrain characters of a layout grid.
const (
	Floor   = ' '
	Counter = 'X'
	Pot     = 'P'
	Onion   = 'O'
	Tomato  = 'T'
	Dish    = 'D'
	Serve   = 'S'
)

// Pos is a grid cell: X is the column, Y the row (Y = 0 is the top row), as in overcooked_ai.
type Pos struct{ X, Y int }

// Add moves p by d.
func (p Pos) Add(d Pos) Pos { return Pos{p.X + d.X, p.Y + d.Y} }

// Layout is a kitchen: its terrain and the players' start cells.
type Layout struct {
	Name   string
	W, H   int
	Grid   [][]byte // Grid[y][x], player digits replaced by floor
	Starts []Pos    // start cell of player 0, 1
	// Cells of each terrain kind, row-major (y outer, x inner), as overcooked_ai lists them.
	Pots, Onions, Dishes, Serves, Counters []Pos
	// terrain holds the lossless encoding's static planes 10–15 (pot … serve), computed once.
	terrain []float32
}

// Layouts are the five classic kitchens (overcooked_ai's names; LayoutAliases maps the older HARL names).
var Layouts = map[string]string{
	"cramped_room": `XXPXX
O  2O
X1  X
XDXSX`,
	"asymmetric_advantages": `XXXXXXXXX
O XSXOX S
X   P 1 X
X2  P   X
XXXDXDXXX`,
	"coordination_ring": `XXXPX
X 1 P
D2X X
O   X
XOSXX`,
	"forced_coordination": `XXXPX
O X1P
O2X X
D X X
XXXSX`,
	"counter_circuit": `XXXPPXXX
X  2   X
D XXXX S
X  1   X
XXXOOXXX`,
}

// LayoutAliases map other names of the classic kitchens to ours: overcooked_ai's
// counter_circuit_o_1order (the single-order benchmark; its counter_circuit.layout is now a
// multi-order variant) and the old HARL names the E3T code uses.
var LayoutAliases = map[string]string{
	"counter_circuit_o_1order": "counter_circuit",
	"simple":                   "cramped_room",
	"unident_s":                "asymmetric_advantages",
	"random1":                  "coordination_ring",
	"random0":                  "forced_coordination",
	"random3":                  "counter_circuit",
}

// CanonicalLayout returns the built-in name of a layout name or alias, and whether it is known.
func CanonicalLayout(name string) (string, bool) {
	if a, ok := LayoutAliases[name]; ok {
		name = a
	}
	_, ok := Layouts[name]
	return name, ok
}

// LayoutNames lists the built-in layouts, sorted.
func LayoutNames() []string {
	var n []string
	for k := range Layouts {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// ParseLayout reads an ASCII kitchen (rows separated by newlines; each row's leading and trailing
// spaces are dropped, as overcooked_ai does). The rules are overcooked_ai's: equal row lengths,
// every border cell in "XOPDST", players '1' and '2' exactly once, at least one pot, one onion
// dispenser, one dish dispenser and one serving cell. Errors name the row and column.
func ParseLayout(name, grid string) (*Layout, error) {
	rows := strings.Split(strings.Trim(grid, "\n"), "\n")
	l := &Layout{Name: name, H: len(rows)}
	if l.H < 3 {
		return nil, fmt.Errorf("layout %s: %d rows, need at least 3", name, l.H)
	}
	starts := map[byte]Pos{}
	for y, raw := range rows {
		row := strings.TrimSpace(raw)
		if y == 0 {
			l.W = len(row)
			if l.W < 3 {
				return nil, fmt.Errorf("layout %s: row 1 has %d columns, need at least 3", name, l.W)
			}
		}
		if len(row) != l.W {
			return nil, fmt.Errorf("layout %s: row %d has %d columns, row 1 has %d", name, y+1, len(row), l.W)
		}
		cells := []byte(row)
		for x, c := range cells {
			border := y == 0 || y == l.H-1 || x == 0 || x == l.W-1
			switch c {
			case Floor:
				if border {
					return nil, fmt.Errorf("layout %s: row %d column %d: floor on the border (the kitchen must be closed)", name, y+1, x+1)
				}
			case Counter, Pot, Onion, Tomato, Dish, Serve:
			case '1', '2':
				if border {
					return nil, fmt.Errorf("layout %s: row %d column %d: player %c on the border", name, y+1, x+1, c)
				}
				if _, dup := starts[c]; dup {
					return nil, fmt.Errorf("layout %s: row %d column %d: player %c placed twice", name, y+1, x+1, c)
				}
				starts[c] = Pos{x, y}
				cells[x] = Floor
			default:
				return nil, fmt.Errorf("layout %s: row %d column %d: unknown character %q (want X P O T D S 1 2 or space)", name, y+1, x+1, c)
			}
		}
		l.Grid = append(l.Grid, cells)
	}
	for _, p := range []byte{'1', '2'} {
		s, ok := starts[p]
		if !ok {
			return nil, fmt.Errorf("layout %s: player %c missing", name, p)
		}
		l.Starts = append(l.Starts, s)
	}
	for y := 0; y < l.H; y++ {
		for x := 0; x < l.W; x++ {
			p := Pos{x, y}
			switch l.Grid[y][x] {
			case Pot:
				l.Pots = append(l.Pots, p)
			case Onion:
				l.Onions = append(l.Onions, p)
			case Dish:
				l.Dishes = append(l.Dishes, p)
			case Serve:
				l.Serves = append(l.Serves, p)
			case Counter:
				l.Counters = append(l.Counters, p)
			}
		}
	}
	switch {
	case len(l.Pots) == 0:
		return nil, fmt.Errorf("layout %s: no pot (P)", name)
	case len(l.Onions) == 0:
		return nil, fmt.Errorf("layout %s: no onion dispenser (O)", name)
	case len(l.Dishes) == 0:
		return nil, fmt.Errorf("layout %s: no dish dispenser (D)", name)
	case len(l.Serves) == 0:
		return nil, fmt.Errorf("layout %s: no serving cell (S)", name)
	}
	wh := l.W * l.H
	l.terrain = make([]float32, 6*wh)
	for y := 0; y < l.H; y++ {
		for x := 0; x < l.W; x++ {
			if c := strings.IndexByte("PXOTDS", l.Grid[y][x]); c >= 0 {
				l.terrain[c*wh+y*l.W+x] = 1
			}
		}
	}
	return l, nil
}

// At returns the terrain at p (a counter outside the grid).
func (l *Layout) At(p Pos) byte {
	if p.X < 0 || p.Y < 0 || p.X >= l.W || p.Y >= l.H {
		return Counter
	}
	return l.Grid[p.Y][p.X]
}

// String draws the layout with players at their start cells.
func (l *Layout) String() string {
	var b strings.Builder
	for y := 0; y < l.H; y++ {
		row := append([]byte(nil), l.Grid[y]...)
		for i, s := range l.Starts {
			if s.Y == y {
				row[s.X] = byte('1' + i)
			}
		}
		b.Write(row)
		b.WriteByte('\n')
	}
	return b.String()
}

package smax

import (
	"bytes"
	"image/gif"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/env/envtest"
)

func TestConformance(t *testing.T) {
	envtest.Check(t, "smax:3m", "smax:2s3z", "smax:3s_vs_5z", "smax:5m_vs_6m")
}

// duel is 3m with one marine a side left alive: ally 0 at (10, 16), enemy 3 at (10 + gap, 16).
func duel(t *testing.T, gap float32) (*Env, *State) {
	t.Helper()
	e, err := New(DefaultConfig("3m"))
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	for i := range s.Pos {
		s.Pos[i] = [2]float32{2 + 4*float32(i), 4} // out of the way
		s.Health[i], s.Alive[i] = 0, false
	}
	s.Pos[0], s.Pos[3] = [2]float32{10, 16}, [2]float32{10 + gap, 16}
	s.Health[0], s.Health[3], s.Alive[0], s.Alive[3] = 45, 45, true, true
	return e, s
}

func zeroJitter(e *Env) [][]float32 {
	d := make([][]float32, e.Cfg.WorldSteps)
	for t := range d {
		d[t] = make([]float32, e.N())
	}
	return d
}

// A marine kills a marine in 5 shots (health 45, damage 9). It fires when its cooldown is ≤ 0,
// which then becomes 0.61 s and falls by 1/16 s every tick it does not fire: 0.61 − 10/16 < 0, so
// it fires every 11 ticks, at ticks 0, 11, 22, 33 and 44 — in agent steps 1, 2, 3, 5 and 6 (8
// ticks each). Every shot is worth 9/45 of one of 3 enemies' health, 1/15; the last adds the win.
func TestMarineKillsMarine(t *testing.T) {
	e, s := duel(t, 3)
	attack := NumMoves + 0 // ally 0 attacks enemy 0 (unit 3)
	wantHealth := []float32{36, 27, 18, 18, 9, 0}
	for k, want := range wantHealth {
		r, err := e.Advance(s, []int{attack, Stop, Stop, Stop, Stop, Stop}, zeroJitter(e))
		if err != nil {
			t.Fatal(err)
		}
		if s.Health[3] != want {
			t.Fatalf("step %d: enemy health %v, want %v", k+1, s.Health[3], want)
		}
		shot := k != 3
		wantR := float32(0)
		if shot {
			wantR = 9.0 / 45 / 3
		}
		if k == 5 {
			wantR += 1
		}
		if math.Abs(float64(r-wantR)) > 1e-6 {
			t.Fatalf("step %d: reward %v, want %v", k+1, r, wantR)
		}
		if s.Done != (k == 5) {
			t.Fatalf("step %d: done %v", k+1, s.Done)
		}
	}
	if s.Alive[3] || !s.Alive[0] || s.PrevAttack[0] != attack {
		t.Fatalf("alive %v, last attack %v", s.Alive, s.PrevAttack)
	}
}

// The cooldown after a shot is the type's plus that tick's jitter: 0.61 + 0.1 delays the second
// shot to tick 13 (0.71 − 12/16 < 0 only at the 13th tick after), still in step 2.
func TestCooldownJitter(t *testing.T) {
	e, s := duel(t, 3)
	d := zeroJitter(e)
	d[0][0] = 0.1
	if _, err := e.Advance(s, []int{NumMoves, Stop, Stop, Stop, Stop, Stop}, d); err != nil {
		t.Fatal(err)
	}
	if want := float32(0.71) - 7*float32(1.0/16); math.Abs(float64(s.Cooldown[0]-want)) > 1e-6 {
		t.Fatalf("cooldown after 8 ticks %v, want %v", s.Cooldown[0], want)
	}
	if _, err := e.Advance(s, []int{NumMoves, Stop, Stop, Stop, Stop, Stop}, zeroJitter(e)); err != nil {
		t.Fatal(err)
	}
	if s.Health[3] != 27 {
		t.Fatalf("after step 2 health %v, want 27 (second shot at tick 13)", s.Health[3])
	}
	// Without firing the cooldown falls by 1/16 s a tick, below zero too.
	if s.Cooldown[3] != -16*float32(1.0/16) {
		t.Fatalf("an idle unit's cooldown %v, want −1", s.Cooldown[3])
	}
}

// A target beyond the attack range (marine: 5) cannot be attacked: the action is masked and, taken
// anyway, does nothing (a no-op, as in SMAX).
func TestRange(t *testing.T) {
	e, s := duel(t, 5.5)
	if e.Avail(s)[0][NumMoves] {
		t.Fatal("an attack out of range is available")
	}
	if _, err := e.Advance(s, []int{NumMoves, Stop, Stop, Stop, Stop, Stop}, zeroJitter(e)); err != nil {
		t.Fatal(err)
	}
	if s.Health[3] != 45 {
		t.Fatalf("out-of-range attack hit: health %v", s.Health[3])
	}
	e, s = duel(t, 4.9)
	if !e.Avail(s)[0][NumMoves] {
		t.Fatal("an attack in range is masked")
	}
}

// A dead unit may only stop; a live one may always move and stop.
func TestDeadUnitMasked(t *testing.T) {
	e, s := duel(t, 3)
	m := e.Avail(s)
	if !slices.Equal(m[1], []bool{false, false, false, false, true, false, false, false}) {
		t.Fatalf("dead ally's mask %v", m[1])
	}
	if !slices.Equal(m[0][:NumMoves], []bool{true, true, true, true, true}) {
		t.Fatalf("live ally's moves %v", m[0])
	}
	// Its observation is zeros, and it sees no one.
	for _, v := range e.ObsOf(s, 1) {
		if v != 0 {
			t.Fatal("a dead unit observes something")
		}
	}
}

// Moving east for one step moves a marine 8 ticks × 3.15 / 16 = 1.575 to the right; a unit that
// touches the map's edge dies.
func TestMoveAndWalls(t *testing.T) {
	e, s := duel(t, 8)
	if _, err := e.Advance(s, []int{1, Stop, Stop, Stop, Stop, Stop}, zeroJitter(e)); err != nil {
		t.Fatal(err)
	}
	// SMAX's float32 rotation makes the east vector (0.99999994, 0).
	if math.Abs(float64(s.Pos[0][0]-11.575)) > 1e-5 || s.Pos[0][1] != 16 || math.Abs(float64(s.PrevMove[0][0]-1)) > 1e-6 || s.PrevMove[0][1] != 0 {
		t.Fatalf("after moving east: %v (last move %v)", s.Pos[0], s.PrevMove[0])
	}
	s.Pos[0] = [2]float32{0.5, 16}
	if _, err := e.Advance(s, []int{3, Stop, Stop, Stop, Stop, Stop}, zeroJitter(e)); err != nil {
		t.Fatal(err)
	}
	if s.Alive[0] || s.Health[0] != 0 || !s.Done {
		t.Fatalf("a marine walked into the west wall: alive %v health %v done %v", s.Alive[0], s.Health[0], s.Done)
	}
}

// Overlapping units are pushed apart: two marines (radius 0.375) 0.5 apart end at least nearly
// 0.75 apart after a step.
func TestPush(t *testing.T) {
	e, s := duel(t, 0.5)
	if _, err := e.Advance(s, []int{Stop, Stop, Stop, Stop, Stop, Stop}, zeroJitter(e)); err != nil {
		t.Fatal(err)
	}
	if d := dist(s.Pos[0], s.Pos[3]); d < 0.7 {
		t.Fatalf("overlapping marines %v apart after a step", d)
	}
}

// A battle nobody wins ends after MaxSteps + 1 steps (SMAX tests the limit on the count before
// the step), truncated.
func TestTimeLimit(t *testing.T) {
	e, err := New(DefaultConfig("3m"))
	if err != nil {
		t.Fatal(err)
	}
	st, _, _ := e.Reset(3)
	s := st.(*State)
	for i := range s.Pos { // far apart: the enemies walk toward the allies' side, the allies stop
		s.Pos[i] = [2]float32{1.5, 4 + 4*float32(i)}
	}
	s.Pos[3], s.Pos[4], s.Pos[5] = [2]float32{30.5, 4}, [2]float32{30.5, 8}, [2]float32{30.5, 12}
	e.Cfg.EnemyShoots = false
	steps := 0
	for {
		next, tr, err := e.Step(s, []int{Stop, Stop, Stop})
		if err != nil {
			t.Fatal(err)
		}
		steps++
		s = next.(*State)
		if tr.Done {
			if steps != e.Cfg.MaxSteps+1 || !tr.Truncated || tr.Info["won"] != 0 {
				t.Fatalf("ended after %d steps (truncated %v, won %v), want %d", steps, tr.Truncated, tr.Info["won"], e.Cfg.MaxSteps+1)
			}
			break
		}
		if steps > 200 {
			t.Fatal("no end")
		}
	}
	if _, _, err := e.Step(s, []int{Stop, Stop, Stop}); err == nil || !strings.Contains(err.Error(), "ended") {
		t.Fatalf("a step after the end: %v", err)
	}
}

// The same seed and actions give the same battle; a clone is independent.
func TestDeterministic(t *testing.T) {
	e, _ := New(DefaultConfig("2s3z"))
	play := func() []float32 {
		st, _, _ := e.Reset(11)
		var out []float32
		for k := 0; ; k++ {
			acts := make([]int, e.Sc.Allies)
			for i, m := range e.Avail(st) {
				acts[i] = Stop
				for a := len(m) - 1; a >= 0; a-- {
					if m[a] && (a >= NumMoves || k%3 == 0) {
						acts[i] = a
						break
					}
				}
			}
			next, tr, err := e.Step(st, acts)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, float32(tr.Shared))
			out = append(out, e.Global(next)...)
			if tr.Done {
				return out
			}
			st = next
		}
	}
	a, b := play(), play()
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave two battles")
	}
	st, _, _ := e.Reset(5)
	c := st.Clone()
	if _, _, err := e.Step(st, []int{1, 1, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if c.(*State).Steps != 0 || c.(*State).Pos[0] == st.(*State).Pos[0] {
		t.Fatal("stepping a state changed its clone")
	}
}

func TestConfigErrors(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"scenario":    func(c *Config) { c.Scenario = "4m" },
		"map":         func(c *Config) { c.MapWidth = 0 },
		"world_steps": func(c *Config) { c.WorldSteps = 0 },
		"attack_mode": func(c *Config) { c.AttackMode = "weakest" },
	} {
		c := DefaultConfig("3m")
		mod(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), strings.Split(name, "_")[0]) {
			t.Errorf("%s: error %v", name, err)
		}
	}
	if _, err := env.Make("smax:3m"); err != nil {
		t.Fatal(err)
	}
}

// The scripted teams against the heuristic enemy on 3m: a random team never wins, focus fire wins
// more often than it loses, and the table is the same when played again.
func TestScriptedTeams(t *testing.T) {
	a, err := PlayTeams([]string{"3m"}, []string{"random", "focus"}, 30, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PlayTeams([]string{"3m"}, []string{"random", "focus"}, 30, 1)
	if !slices.Equal(a, b) {
		t.Fatalf("the table changed when played again: %+v %+v", a, b)
	}
	if a[0].WinRate != 0 || a[1].WinRate <= 0.5 || a[1].Return <= a[0].Return {
		t.Fatalf("random %+v, focus %+v", a[0], a[1])
	}
	if _, err := PlayTeams([]string{"3m"}, []string{"smart"}, 1, 1); err == nil {
		t.Fatal("an unknown team played")
	}
}

// A battle renders as a GIF of one frame per state.
func TestGIF(t *testing.T) {
	e, _ := New(DefaultConfig("3m"))
	st, _, _ := e.Reset(2)
	states := []*State{st.(*State).Clone().(*State)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		next, tr, err := e.Step(st, FocusTeam(e, st.(*State), r))
		if err != nil {
			t.Fatal(err)
		}
		st = next
		states = append(states, st.(*State).Clone().(*State))
		if tr.Done {
			break
		}
	}
	b, err := e.GIF(states, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil || len(g.Image) != len(states) || g.Config.Width < 40 || g.Config.Width > 256 {
		t.Fatalf("GIF: %v, %d frames for %d states, width %d", err, len(g.Image), len(states), g.Config.Width)
	}
	if _, err := e.GIF(nil, 20, 8); err == nil {
		t.Fatal("a GIF of no frames")
	}
}

// Package envtest holds the API-conformance test every PaperLab environment passes.
package envtest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env"
)

// event is one entry of an episode stream's log: a Reset (Seed, Obs) or a Step (Acts, Tr), with
// what the environment says about the state it led to. Observations, rewards and info are copied
// when recorded (an environment may write the next step's observations into memory it returned).
type event struct {
	Reset  bool
	Seed   uint64
	Obs    [][]float32
	Acts   []int
	Tr     env.Transition
	Global []float32
	Avail  [][]bool
	Render string
}

func (ev event) String() string {
	if ev.Reset {
		return fmt.Sprintf("Reset(%d)", ev.Seed)
	}
	return fmt.Sprintf("Step(%v)", ev.Acts)
}

// detail is every field of ev.
func (ev event) detail() string {
	type fields event
	return fmt.Sprintf("%+v", fields(ev))
}

// checker checks one environment; every failure names its scenario.
type checker struct {
	t  *testing.T
	e  env.Env
	sp env.Spec
}

func (c *checker) fatalf(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("%s: "+format, append([]any{c.sp.Name}, args...)...)
}

func copyObs(obs [][]float32) [][]float32 {
	if obs == nil {
		return nil
	}
	out := make([][]float32, len(obs))
	for i, o := range obs {
		out[i] = append([]float32(nil), o...)
	}
	return out
}

func copyTransition(tr env.Transition) env.Transition {
	tr.Obs = copyObs(tr.Obs)
	tr.Rewards = append([]float64(nil), tr.Rewards...)
	if tr.Info != nil {
		info := make(map[string]float64, len(tr.Info))
		for k, v := range tr.Info {
			info[k] = v
		}
		tr.Info = info
	}
	return tr
}

func (c *checker) checkObs(what string, obs [][]float32) {
	c.t.Helper()
	if len(obs) != c.sp.Agents {
		c.fatalf("%s: %d observations for %d agents", what, len(obs), c.sp.Agents)
	}
	for i, o := range obs {
		if len(o) != c.sp.ObsSize {
			c.fatalf("%s: agent %d observation has %d values, Spec.ObsSize says %d", what, i, len(o), c.sp.ObsSize)
		}
	}
}

// look completes ev with the global state, masks and rendering of s, checking their shapes.
func (c *checker) look(ev event, s env.State) event {
	c.t.Helper()
	ev.Global = append([]float32(nil), env.Global(c.e, s)...)
	if len(ev.Global) != c.sp.StateSize {
		c.fatalf("after %v: the global state has %d values, Spec.StateSize says %d", ev, len(ev.Global), c.sp.StateSize)
	}
	ev.Avail = env.Avail(c.e, s)
	if len(ev.Avail) != c.sp.Agents {
		c.fatalf("after %v: %d masks for %d agents", ev, len(ev.Avail), c.sp.Agents)
	}
	for i, m := range ev.Avail {
		if len(m) != c.sp.Actions {
			c.fatalf("after %v: the mask of agent %d has %d entries for %d actions", ev, i, len(m), c.sp.Actions)
		}
	}
	ev.Avail = append([][]bool(nil), ev.Avail...)
	for i := range ev.Avail {
		ev.Avail[i] = append([]bool(nil), ev.Avail[i]...)
	}
	ev.Render = env.Render(c.e, s)
	if _, ok := c.e.(env.Renderer); ok && ev.Render == "" {
		c.fatalf("after %v: empty rendering", ev)
	}
	return ev
}

// reset starts an episode of seed and returns its state and log entry.
func (c *checker) reset(seed uint64) (env.State, event) {
	c.t.Helper()
	s, obs, err := c.e.Reset(seed)
	if err != nil {
		c.fatalf("Reset(%d): %v", seed, err)
	}
	if s == nil {
		c.fatalf("Reset(%d): a nil state", seed)
	}
	c.checkObs(fmt.Sprintf("Reset(%d)", seed), obs)
	return s, c.look(event{Reset: true, Seed: seed, Obs: copyObs(obs)}, s)
}

// step steps s with acts and returns the next state and log entry.
func (c *checker) step(s env.State, acts []int) (env.State, event) {
	c.t.Helper()
	ev := event{Acts: append([]int(nil), acts...)}
	next, tr, err := c.e.Step(s, acts)
	if err != nil {
		c.fatalf("%v: %v", ev, err)
	}
	if next == nil {
		c.fatalf("%v: a nil state", ev)
	}
	c.checkObs(ev.String(), tr.Obs)
	if len(tr.Rewards) != c.sp.Agents {
		c.fatalf("%v: %d rewards for %d agents", ev, len(tr.Rewards), c.sp.Agents)
	}
	if tr.Truncated && !tr.Done {
		c.fatalf("%v: truncated but not done", ev)
	}
	ev.Tr = copyTransition(tr)
	return next, c.look(ev, next)
}

// randomAvailable draws one available action per agent (action 0 for an agent with none) and
// returns how many actions each agent had available.
func randomAvailable(r *rand.Rand, avail [][]bool) (acts, counts []int) {
	acts, counts = make([]int, len(avail)), make([]int, len(avail))
	for i, m := range avail {
		var ok []int
		for a, v := range m {
			if v {
				ok = append(ok, a)
			}
		}
		if counts[i] = len(ok); len(ok) > 0 {
			acts[i] = ok[r.IntN(len(ok))]
		}
	}
	return acts, counts
}

// stream plays random available actions (from its own seeded generator) through episodes seeded
// from its seed, resetting when one ends, and logs every Reset and Step. Several streams may share
// one Env.
type stream struct {
	c      *checker
	seed   uint64
	rng    *rand.Rand
	s      env.State
	epLen  int
	eps    uint64
	log    []event
	masked bool // some state had an unavailable action
	ended  int  // episodes finished
}

func (c *checker) newStream(seed uint64) *stream {
	st := &stream{c: c, seed: seed, rng: rand.New(rand.NewPCG(seed, 99))}
	st.reset()
	return st
}

func (st *stream) reset() {
	st.c.t.Helper()
	s, ev := st.c.reset(env.EpisodeSeed(st.seed, 0, st.eps))
	st.s, st.epLen = s, 0
	st.log = append(st.log, ev)
}

func (st *stream) step() {
	c := st.c
	c.t.Helper()
	acts, counts := randomAvailable(st.rng, st.log[len(st.log)-1].Avail)
	for i, k := range counts {
		if k == 0 {
			c.fatalf("agent %d has no available action", i)
		}
		st.masked = st.masked || k < c.sp.Actions
	}
	next, ev := c.step(st.s, acts)
	st.log = append(st.log, ev)
	st.s = next
	st.epLen++
	if !ev.Tr.Done && st.epLen >= c.sp.Horizon {
		c.fatalf("an episode ran past Spec.Horizon = %d steps", c.sp.Horizon)
	}
	if !ev.Tr.Done {
		return
	}
	// A finished episode's state, and a clone of it, cannot be stepped.
	if _, _, err := c.e.Step(next.Clone(), acts); err == nil {
		c.fatalf("Step on a clone of a finished episode's state (after %d steps) gave no error", st.epLen)
	}
	if _, _, err := c.e.Step(next, acts); err == nil {
		c.fatalf("Step on a finished episode's state (after %d steps) gave no error", st.epLen)
	}
	st.ended++
	st.eps++
	st.reset()
}

// same fails unless the logs are equal, naming the first difference.
func (c *checker) same(what string, got, want []event) {
	c.t.Helper()
	for i := 0; i < min(len(got), len(want)); i++ {
		if !reflect.DeepEqual(got[i], want[i]) {
			c.fatalf("%s: event %d (%v) differs:\n got %s\nwant %s", what, i, want[i], got[i].detail(), want[i].detail())
		}
	}
	if len(got) != len(want) {
		c.fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
}

// foreign is a State of no environment.
type foreign struct{}

func (*foreign) Clone() env.State { return &foreign{} }

// Check runs the API-conformance checks every environment must pass on a scenario:
//   - the Spec's shapes: observations (ObsSize per agent), masks (Agents × Actions, an available
//     action for every agent), rewards (one per agent) and the global state (StateSize values);
//     every episode ends within Spec.Horizon steps; a non-empty rendering from a Renderer;
//   - determinism: the same seed and actions give the same episodes;
//   - the Env holds no episode data: episodes stepped interleaved on one Env are the same as each
//     stepped alone;
//   - Clone branches: stepping a clone leaves the original's future unchanged, and stepping the
//     original leaves the clone's;
//   - Step on a finished episode's state, or on a state of another type, is an error (the latter
//     naming the environment);
//   - unavailable actions act as the no-op: action 0, or the one an environment names with a
//     method NoOp() int (SMAX's stop).
func Check(t *testing.T, scenarios ...string) {
	for _, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			a, err := env.Make(sc)
			if err != nil {
				t.Fatal(err)
			}
			c := &checker{t: t, e: a, sp: a.Spec()}
			sp := c.sp
			family, _, _ := strings.Cut(sc, ":")
			if !strings.HasPrefix(sp.Name, family+":") || sp.Agents < 1 || sp.ObsSize < 1 || sp.Actions < 1 || sp.StateSize < 0 || sp.Horizon < 1 {
				t.Fatalf("%s: Spec %+v", sc, sp)
			}
			steps := max(300, 2*sp.Horizon+1)

			// Shapes, horizon, finished episodes; the log every later check compares with.
			ref := c.newStream(5)
			for range steps {
				ref.step()
			}
			if ref.ended == 0 {
				c.fatalf("no episode ended in %d steps", steps)
			}

			// Determinism: another Env of the scenario, the same seeds and actions.
			b, err := env.Make(sc)
			if err != nil {
				t.Fatal(err)
			}
			if b.Spec() != sp {
				c.fatalf("a second Make gave Spec %+v, the first %+v", b.Spec(), sp)
			}
			cb := &checker{t: t, e: b, sp: sp}
			again := cb.newStream(5)
			for range steps {
				again.step()
			}
			c.same("the same seed and actions on another Env", again.log, ref.log)

			// No episode data in the Env: two streams interleaved irregularly on one Env give the
			// same logs as each stepped alone on its own Env.
			d, err := env.Make(sc)
			if err != nil {
				t.Fatal(err)
			}
			cd := &checker{t: t, e: d, sp: sp}
			f, err := env.Make(sc)
			if err != nil {
				t.Fatal(err)
			}
			alone := (&checker{t: t, e: f, sp: sp}).newStream(17)
			for range steps {
				alone.step()
			}
			x, y := cd.newStream(5), cd.newStream(17)
			r := rand.New(rand.NewPCG(3, 4))
			for nx, ny := 0, 0; nx < steps || ny < steps; {
				if ny == steps || (nx < steps && r.IntN(3) != 0) {
					x.step()
					nx++
				} else {
					y.step()
					ny++
				}
			}
			c.same("an episode stepped interleaved with another on one Env", x.log, ref.log)
			c.same("an episode stepped interleaved with another on one Env (the other)", y.log, alone.log)

			// Clone branches: before some steps, a clone of the state is stepped a few times with
			// other actions, then another clone is taken; the original must replay the reference
			// log, and the second clone, stepped after the original, must too.
			r = rand.New(rand.NewPCG(5, 6))
			var s env.State
			branched := 0
			for i, want := range ref.log {
				if want.Reset {
					var got event
					s, got = c.reset(want.Seed)
					c.same("a replay", []event{got}, []event{want})
					continue
				}
				var later env.State
				if i%3 == 1 {
					branch := s.Clone()
					for k := 0; k < 1+i%4; k++ {
						acts, _ := randomAvailable(r, env.Avail(a, branch))
						next, ev := c.step(branch, acts)
						if branch = next; ev.Tr.Done {
							break
						}
					}
					later = s.Clone()
					branched++
				}
				var got event
				s, got = c.step(s, want.Acts)
				c.same(fmt.Sprintf("the original after a clone was stepped (event %d)", i), []event{got}, []event{want})
				if later != nil {
					_, got = c.step(later, want.Acts)
					c.same(fmt.Sprintf("a clone stepped after its original (event %d)", i), []event{got}, []event{want})
				}
			}
			if branched == 0 {
				c.fatalf("no state was branched")
			}

			// A state of another type is an error naming the environment.
			if _, _, err := a.Step(&foreign{}, make([]int, sp.Agents)); err == nil || !strings.Contains(err.Error(), sp.Name) {
				c.fatalf("Step on a state of another type: error %v, want one naming %s", err, sp.Name)
			}

			// Unavailable actions count as the no-op: at states of the reference log with an
			// unavailable action, a clone stepped with unavailable actions for some agents (the
			// others taking available ones) equals a clone stepped with action 0 for those agents.
			if !ref.masked {
				return
			}
			r = rand.New(rand.NewPCG(11, 7))
			tested := 0
			for i, want := range ref.log {
				if want.Reset {
					s, _ = c.reset(want.Seed)
					continue
				}
				if avail := ref.log[i-1].Avail; tested < 30 {
					bad, good, picked := make([]int, sp.Agents), make([]int, sp.Agents), -1
					for ag, m := range avail {
						var off, on []int
						for act, ok := range m {
							if ok {
								on = append(on, act)
							} else {
								off = append(off, act)
							}
						}
						if len(off) > 0 && (picked < 0 || r.IntN(3) != 0) {
							bad[ag], good[ag], picked = off[r.IntN(len(off))], noOp(c.e), ag
						} else if len(on) > 0 {
							bad[ag] = on[r.IntN(len(on))]
							good[ag] = bad[ag]
						}
					}
					if picked >= 0 {
						_, tb := c.step(s.Clone(), bad)
						_, tg := c.step(s.Clone(), good)
						tb.Acts, tg.Acts = nil, nil
						if !reflect.DeepEqual(tb, tg) {
							c.fatalf("unavailable actions %v (mask %v) did not act as the no-op %v:\n%s\n%s", bad, avail, good, tb.detail(), tg.detail())
						}
						tested++
					}
				}
				s, _ = c.step(s, want.Acts)
			}
			if tested == 0 {
				c.fatalf("the rollout saw masked actions but no masked state was reached to test them")
			}
		})
	}
}

// noOp is e's no-op action: its NoOp() where it has one (SMAX: stop), else 0 (lb-foraging's none).
func noOp(e env.Env) int {
	if n, ok := e.(interface{ NoOp() int }); ok {
		return n.NoOp()
	}
	return 0
}

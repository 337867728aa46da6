package overcookedhuman

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

func loadAll(t *testing.T) []Game {
	t.Helper()
	games, err := LoadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	return games
}

// describe lists a state the way the comparison needs it: each player's position, facing and held
// object, then every non-empty pot (onions, cooking tick) and every counter object, sorted.
func describe(s *overcooked.State) (players [2]string, objects []string) {
	for i, p := range s.Players {
		players[i] = fmt.Sprintf("pos %d,%d facing %s holding %q", p.Pos.X, p.Pos.Y, overcooked.ActionNames[p.Dir], p.Holding)
	}
	for pos, pot := range s.Pots {
		if !pot.Empty() {
			objects = append(objects, fmt.Sprintf("%d,%d pot %d onions tick %d", pos.X, pos.Y, pot.Onions, pot.Tick))
		}
	}
	for pos, o := range s.Counters {
		objects = append(objects, fmt.Sprintf("%d,%d %s", pos.X, pos.Y, o))
	}
	sort.Strings(objects)
	return players, objects
}

// diff reports how our state differs from the recorded one ("" when they agree).
func diff(ours, rec *overcooked.State) string {
	op, oo := describe(ours)
	rp, ro := describe(rec)
	for i := range op {
		if op[i] != rp[i] {
			return fmt.Sprintf("player %d: ours %s; recorded %s", i, op[i], rp[i])
		}
	}
	if !slices.Equal(oo, ro) {
		return fmt.Sprintf("objects: ours %q; recorded %q", oo, ro)
	}
	return ""
}

// replay plays g through the env with rules r from its recorded first state, applying the recorded
// joint actions without ever resetting to the recording, and compares every next state (positions,
// orientations, held objects, pots with onions and cooking tick, counter objects) and every reward.
// The recordings pay RecordedDeliveryReward (5) per soup where the env pays r.DeliveryReward (20),
// so rewards are compared as soups delivered. It returns the soups delivered or the first mismatch.
func replay(g Game, r overcooked.Rules) (int, error) {
	e, err := g.NewEnv()
	if err != nil {
		return 0, err
	}
	s, err := g.Steps[0].State(e.Layout)
	if err != nil {
		return 0, err
	}
	soups := 0
	for k, st := range g.Steps {
		out := s.Step(st.Joint(), r)
		where := fmt.Sprintf("%s trial %d t %d→%d (actions %v)", g.Layout, g.TrialID, st.T, st.T+1, st.Actions)
		if got, want := (out.Sparse[0]+out.Sparse[1])/r.DeliveryReward, st.Reward/RecordedDeliveryReward; got != want {
			return soups, fmt.Errorf("%s: ours delivers %g soups, the recording %g (reward %g)", where, got, want, st.Reward)
		}
		soups += int(st.Reward / RecordedDeliveryReward)
		if k+1 == len(g.Steps) {
			break
		}
		rec, err := g.Steps[k+1].State(e.Layout)
		if err != nil {
			return soups, err
		}
		if d := diff(s, rec); d != "" {
			return soups, fmt.Errorf("%s: %s", where, d)
		}
	}
	if float64(soups*RecordedDeliveryReward) != g.Score() {
		return soups, fmt.Errorf("%s: %d soups, score %g", g.Layout, soups, g.Score())
	}
	return soups, nil
}

// TestReplayMatchesEnv: every human game replays exactly through the env's rules (old dynamics,
// cook time 20) — all states and rewards agree, with no step skipped.
func TestReplayMatchesEnv(t *testing.T) {
	games := loadAll(t)
	if len(games) != 3 {
		t.Fatalf("%d games, want 3", len(games))
	}
	for _, g := range games {
		soups, err := replay(g, overcooked.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s trial %d: %d steps, %d soups: every state and reward matches", g.Layout, g.TrialID, len(g.Steps), soups)
	}
}

// TestReplayDetectsDifferences guards the comparison itself: a different cook time, or one altered
// action, must make the replay fail.
func TestReplayDetectsDifferences(t *testing.T) {
	g := ByLayout(loadAll(t))["cramped_room"][0]
	r := overcooked.DefaultRules()
	r.CookTime = 19
	if _, err := replay(g, r); err == nil {
		t.Fatal("cook time 19 replays without a mismatch")
	} else {
		t.Log(err)
	}
	g.Steps = slices.Clone(g.Steps)
	k := slices.IndexFunc(g.Steps, func(s Step) bool { return s.Actions[0] == "N" })
	g.Steps[k].Actions = []string{"S", g.Steps[k].Actions[1]}
	if _, err := replay(g, overcooked.DefaultRules()); err == nil {
		t.Fatal("an altered action replays without a mismatch")
	} else {
		t.Log(err)
	}
}

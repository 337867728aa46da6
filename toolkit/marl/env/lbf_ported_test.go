package env

import (
	"slices"
	"testing"
)

// The scenarios of lb-foraging's own tests (tests/test_env.py at commit 79f383b), ported: each test
// names the case it ports. lb-foraging's fixture simple2p1f: an 8×8 field, one level-2 food at
// (4, 4), two level-2 players at (4, 3) and (4, 5).
func lbfFixture(t *testing.T, spec string) *lbfRun {
	t.Helper()
	return lbf(t, spec, []LBFPlayer{{4, 3, 2}, {4, 5, 2}}, map[[2]int]int{{4, 4}: 2})
}

// test_reward_0, test_reward_1, test_reward_2: both load → 0.5 each; only one loads → it gets 1
// (its level alone reaches the food's), the other 0.
func TestLBFPortedRewards(t *testing.T) {
	for _, c := range []struct {
		name    string
		actions []int
		want    []float64
	}{
		{"test_reward_0", []int{LBFLoad, LBFLoad}, []float64{0.5, 0.5}},
		{"test_reward_1", []int{LBFNone, LBFLoad}, []float64{0, 1}},
		{"test_reward_2", []int{LBFLoad, LBFNone}, []float64{1, 0}},
	} {
		e := lbfFixture(t, "8x8-2p-1f")
		tr := e.step(c.actions)
		if !slices.Equal(tr.Rewards, c.want) || !tr.Done {
			t.Errorf("%s: rewards %v (want %v), done %v (the only food is gone)", c.name, tr.Rewards, c.want, tr.Done)
		}
	}
}

// test_partial_obs_1/2/3: sight 1 — neither sees the other (two cells apart); sight 2 — both
// see each other, and after player 0 steps WEST (three apart) neither does; full sight — seen before
// and after. The other player is the last slot: obs[-3:] = (y, x, level), (−1, −1, 0) when unseen.
func TestLBFPortedPartialObservation(t *testing.T) {
	seen := func(o [][]float32, i int) bool { return o[i][len(o[i])-2] != -1 }
	for _, c := range []struct {
		name                     string
		spec                     string
		before, afterWestOfFirst bool
	}{
		{"test_partial_obs_1", "8x8-2p-1f-1s", false, false},
		{"test_partial_obs_2", "8x8-2p-1f-2s", true, false},
		{"test_partial_obs_3", "8x8-2p-1f", true, true},
	} {
		e := lbfFixture(t, c.spec)
		o := e.e.observe(e.s)
		if seen(o, 0) != c.before || seen(o, 1) != c.before {
			t.Errorf("%s: before the move, seen %v/%v, want %v", c.name, seen(o, 0), seen(o, 1), c.before)
		}
		o = e.step([]int{LBFWest, LBFNone}).Obs
		if seen(o, 0) != c.afterWestOfFirst || seen(o, 1) != c.afterWestOfFirst {
			t.Errorf("%s: after WEST, seen %v/%v, want %v", c.name, seen(o, 0), seen(o, 1), c.afterWestOfFirst)
		}
	}
}

// test_food_spawning_0 and test_food_spawning_1: over 1000 resets every food is spawned (2 on
// 6×6, 3 on 8×8), none on the border, and foods are more than 2 apart (Manhattan).
func TestLBFPortedFoodSpawning(t *testing.T) {
	for _, c := range []struct {
		name, spec string
		foods      int
	}{{"test_food_spawning_0", "6x6-2p-2f", 2}, {"test_food_spawning_1", "8x8-2p-3f", 3}} {
		e := lbfFixture(t, c.spec).e
		n := e.cfg.Size
		for seed := uint64(0); seed < 1000; seed++ {
			s, _ := reset(t, e, seed)
			var at [][2]int
			for i, f := range s.field {
				if f > 0 {
					r, col := i/n, i%n
					if r == 0 || col == 0 || r == n-1 || col == n-1 {
						t.Fatalf("%s seed %d: food on the border at (%d,%d)", c.name, seed, r, col)
					}
					at = append(at, [2]int{r, col})
				}
			}
			if len(at) != c.foods {
				t.Fatalf("%s seed %d: %d foods, want %d", c.name, seed, len(at), c.foods)
			}
			for i := range at {
				for j := i + 1; j < len(at); j++ {
					if abs(at[i][0]-at[j][0])+abs(at[i][1]-at[j][1]) <= 2 {
						t.Fatalf("%s seed %d: foods %v and %v too close", c.name, seed, at[i], at[j])
					}
				}
			}
		}
	}
}

// test_make and test_reproducibility (and test_seed): the tasks build and reset, and one seed gives
// the same episode start — positions, levels, foods, observations — every time. (lb-foraging keeps
// one NumPy stream across resets; PaperLab's Reset(seed) starts a fresh stream, so "the same seed"
// means the same episode.)
func TestLBFPortedMakeAndReproducibility(t *testing.T) {
	for _, spec := range []string{"8x8-2p-1f", "5x5-2p-1f", "8x8-3p-1f", "8x8-3p-1f-coop"} {
		c, err := ParseLBF(spec)
		if err != nil {
			t.Fatalf("test_make %s: %v", spec, err)
		}
		e, err := NewLBF(c, spec)
		if err != nil {
			t.Fatalf("test_make %s: %v", spec, err)
		}
		for seed := uint64(0); seed < 5; seed++ {
			s1, o1 := reset(t, e, seed)
			p1, f1 := s1.Players(), slices.Clone(s1.field)
			s2, o2 := reset(t, e, seed)
			if !slices.Equal(p1, s2.Players()) || !slices.Equal(f1, s2.field) || !slices.EqualFunc(o1, o2, slices.Equal[[]float32]) {
				t.Fatalf("test_reproducibility %s seed %d: two resets differ", spec, seed)
			}
		}
	}
}

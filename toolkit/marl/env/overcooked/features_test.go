package overcooked

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Vectors (both players at once, shared blocks) must equal Vector for each player, on every layout,
// along random trajectories.
func TestVectorsMatchVector(t *testing.T) {
	for name := range Layouts {
		e, err := New(DefaultConfig(name))
		if err != nil {
			t.Fatal(err)
		}
		g := e.NewEpisode()
		rng := rand.New(rand.NewPCG(3, 4))
		for step := 0; step < 300; step++ {
			g.Game.Step([2]int{rng.IntN(NumActions), rng.IntN(NumActions)}, e.Cfg.Rules)
			both := g.Game.Vectors(e.pl, e.Cfg.Rules)
			for i := 0; i < 2; i++ {
				if one := g.Vector(i); !slices.Equal(both[i], one) {
					t.Fatalf("%s step %d player %d: Vectors %v, Vector %v", name, step, i, both[i], one)
				}
			}
		}
	}
}

// VectorObs (the observation Env.Step computed, copied) is bit for bit Vector, with and without
// ReuseObs, in clones, and after Game is stepped by hand (the stale observation is not used).
func TestVectorObsMatchesVector(t *testing.T) {
	same := func(a, b []float32) bool {
		return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
	}
	for _, reuse := range []bool{false, true} {
		for name := range Layouts {
			e, err := New(DefaultConfig(name))
			if err != nil {
				t.Fatal(err)
			}
			e.ReuseObs = reuse
			s, _, _ := e.Reset(0)
			rng := rand.New(rand.NewPCG(5, 6))
			for step := 0; step < e.Cfg.Horizon; step++ {
				g := s.(*Episode)
				for i := 0; i < 2; i++ {
					if v, w := g.VectorObs(i), g.Vector(i); !same(v, w) {
						t.Fatalf("%s reuse %v step %d player %d: VectorObs %v, Vector %v", name, reuse, step, i, v, w)
					}
				}
				if step == 100 {
					c := g.Clone().(*Episode)
					c.Game.Step([2]int{Interact, North}, e.Cfg.Rules) // by hand: Obs are stale
					if v, w := c.VectorObs(1), c.Vector(1); !same(v, w) {
						t.Fatalf("%s: VectorObs after a step by hand %v, Vector %v", name, v, w)
					}
					if v, w := g.VectorObs(0), g.Vector(0); !same(v, w) {
						t.Fatalf("%s: the clone's step changed the original", name)
					}
				}
				s, _, err = e.Step(s, []int{rng.IntN(NumActions), rng.IntN(NumActions)})
				if err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := e.Step(s, []int{Stay, Stay}); err == nil {
				t.Fatalf("%s: a step after the horizon was not an error", name)
			}
		}
	}
}

package overcooked

import (
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
		e.Reset(0)
		rng := rand.New(rand.NewPCG(3, 4))
		for step := 0; step < 300; step++ {
			e.Game.Step([2]int{rng.IntN(NumActions), rng.IntN(NumActions)}, e.Cfg.Rules)
			both := e.Game.Vectors(e.pl, e.Cfg.Rules)
			for i := 0; i < 2; i++ {
				if one := e.Game.Vector(i, e.pl, e.Cfg.Rules); !slices.Equal(both[i], one) {
					t.Fatalf("%s step %d player %d: Vectors %v, Vector %v", name, step, i, both[i], one)
				}
			}
		}
	}
}

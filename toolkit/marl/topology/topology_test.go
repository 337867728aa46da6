package topology

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExtremes: p = 0 reduces TAPE's weight to the individual advantage, p = 1 to the global one,
// on fixed numbers.
func TestExtremes(t *testing.T) {
	k := []float64{0.5, 0.3, 0.2}
	adv := []float64{2, -1, 4}
	r := rand.New(rand.NewPCG(1, 1))
	ind := CoalitionAdvantage(ER{P: 0}.Sample(r, 3), k, adv)
	want := []float64{1, -0.3, 0.8}
	for i := range want {
		if math.Abs(ind[i]-want[i]) > 1e-12 {
			t.Fatalf("p=0: %v, want individual %v", ind, want)
		}
	}
	glob := CoalitionAdvantage(ER{P: 1}.Sample(r, 3), k, adv)
	for i := range glob {
		if math.Abs(glob[i]-1.5) > 1e-12 { // 1 − 0.3 + 0.8
			t.Fatalf("p=1: %v, want the global 1.5 for every agent", glob)
		}
	}
	// A hand-made topology: agent 0 with {0, 2}, agent 1 alone, agent 2 with {1, 2}.
	a := Matrix{{1, 0, 1}, {0, 1, 0}, {0, 1, 1}}
	got := CoalitionAdvantage(a, k, adv)
	for i, w := range []float64{1.8, -0.3, 0.5} {
		if math.Abs(got[i]-w) > 1e-12 {
			t.Fatalf("coalitions: %v", got)
		}
	}
}

func TestGenerators(t *testing.T) {
	if d := MeanDensity(ER{P: 0.3}, 5, 4000, 1); math.Abs(d-0.3) > 0.02 {
		t.Fatalf("ER(0.3) density %v", d)
	}
	r := rand.New(rand.NewPCG(2, 2))
	for _, g := range []Generator{ER{P: 0.5}, BA{M: 1}, BA{M: 2}, WS{K: 2, Beta: 0.2}} {
		for s := 0; s < 100; s++ {
			a := g.Sample(r, 6)
			for i := range a {
				if a[i][i] != 1 {
					t.Fatalf("%v: missing self-loop", g)
				}
			}
			if _, sym := g.(ER); !sym {
				for i := range a {
					for j := range a {
						if a[i][j] != a[j][i] {
							t.Fatalf("%v: not symmetric", g)
						}
					}
				}
			}
		}
	}
	// BA(m) on n agents has m(m+1)/2 + (n−m−1)·m edges.
	a := BA{M: 2}.Sample(r, 6)
	if e := a.Density() * 30 / 2; e != 3+3*2 {
		t.Fatalf("BA(2) on 6 agents has %v edges, want 9", e)
	}
	for _, s := range []string{"er:2", "ba:0", "ws:1:0.1", "grid"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

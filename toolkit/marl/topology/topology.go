// Package topology samples agent topologies for TAPE (toolkit/exp/tape/README.md): an adjacency matrix A over
// N agents with A_ii = 1, where agent i's coalition is {j : A_ij = 1}. A = I gives individual
// critics (DOP), A = 11ᵀ the centralized critic.
package topology

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Matrix is an N×N 0/1 adjacency matrix, A[i][j] = 1 when agent j is in agent i's coalition.
type Matrix [][]float64

// Identity is the empty topology (every coalition is the agent alone).
func Identity(n int) Matrix {
	a := make(Matrix, n)
	for i := range a {
		a[i] = make([]float64, n)
		a[i][i] = 1
	}
	return a
}

// Density is the fraction of off-diagonal entries that are 1.
func (a Matrix) Density() float64 {
	n := len(a)
	if n < 2 {
		return 0
	}
	s := 0.0
	for i := range a {
		for j := range a[i] {
			if i != j {
				s += a[i][j]
			}
		}
	}
	return s / float64(n*(n-1))
}

// Generator draws a topology for n agents.
type Generator interface {
	Sample(r *rand.Rand, n int) Matrix
	String() string
}

// ER is TAPE's Erdős–Rényi topology as in its code: every off-diagonal A_ij ~ Bernoulli(P),
// independently (directed, not symmetrised), and A_ii = 1.
type ER struct{ P float64 }

func (g ER) String() string { return fmt.Sprintf("er(p=%g)", g.P) }

// Sample implements Generator.
func (g ER) Sample(r *rand.Rand, n int) Matrix {
	a := Identity(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j && r.Float64() < g.P {
				a[i][j] = 1
			}
		}
	}
	return a
}

// BA is a Barabási–Albert graph (undirected, preferential attachment): starting from M+1 fully
// connected agents in random order, each further agent links to M distinct earlier agents chosen
// with probability proportional to their degree. Self-loops are added.
type BA struct{ M int }

func (g BA) String() string { return fmt.Sprintf("ba(m=%d)", g.M) }

// Sample implements Generator.
func (g BA) Sample(r *rand.Rand, n int) Matrix {
	a := Identity(n)
	order := r.Perm(n)
	m := max(1, min(g.M, n-1))
	seed := min(m+1, n)
	deg := make([]float64, n)
	link := func(x, y int) {
		if x != y && a[x][y] == 0 {
			a[x][y], a[y][x] = 1, 1
			deg[x]++
			deg[y]++
		}
	}
	for i := 0; i < seed; i++ {
		for j := 0; j < i; j++ {
			link(order[i], order[j])
		}
	}
	for k := seed; k < n; k++ {
		v := order[k]
		chosen := map[int]bool{}
		for len(chosen) < m {
			total := 0.0
			for _, u := range order[:k] {
				if !chosen[u] {
					total += deg[u]
				}
			}
			x := r.Float64() * total
			for _, u := range order[:k] {
				if chosen[u] {
					continue
				}
				x -= deg[u]
				if x <= 0 {
					chosen[u] = true
					break
				}
			}
		}
		for u := range chosen {
			link(v, u)
		}
	}
	return a
}

// WS is a Watts–Strogatz small-world graph (undirected): a ring where every agent links to its K/2
// nearest neighbours on each side, each edge rewired to a random agent with probability Beta, over a
// random assignment of agents to ring positions. Self-loops are added.
type WS struct {
	K    int
	Beta float64
}

func (g WS) String() string { return fmt.Sprintf("ws(k=%d,beta=%g)", g.K, g.Beta) }

// Sample implements Generator.
func (g WS) Sample(r *rand.Rand, n int) Matrix {
	a := Identity(n)
	pos := r.Perm(n)
	half := max(1, g.K/2)
	for i := 0; i < n; i++ {
		for d := 1; d <= half; d++ {
			u, v := pos[i], pos[(i+d)%n]
			if r.Float64() < g.Beta {
				for tries := 0; tries < 10; tries++ {
					w := r.IntN(n)
					if w != u && a[u][w] == 0 {
						v = w
						break
					}
				}
			}
			if u != v {
				a[u][v], a[v][u] = 1, 1
			}
		}
	}
	return a
}

// Parse reads "er:0.3", "ba:1", "ws:2:0.2" (k, beta), "empty" (= er:0) and "full" (= er:1).
func Parse(s string) (Generator, error) {
	parts := strings.Split(s, ":")
	num := func(i int) (float64, error) {
		if i >= len(parts) {
			return 0, fmt.Errorf("topology %q: missing parameter %d", s, i)
		}
		return strconv.ParseFloat(parts[i], 64)
	}
	switch parts[0] {
	case "empty":
		return ER{P: 0}, nil
	case "full":
		return ER{P: 1}, nil
	case "er":
		p, err := num(1)
		if err != nil || p < 0 || p > 1 {
			return nil, fmt.Errorf("topology %q: want er:P with 0 ≤ P ≤ 1", s)
		}
		return ER{P: p}, nil
	case "ba":
		m, err := num(1)
		if err != nil || m < 1 {
			return nil, fmt.Errorf("topology %q: want ba:M with M ≥ 1", s)
		}
		return BA{M: int(m)}, nil
	case "ws":
		k, err1 := num(1)
		b, err2 := num(2)
		if err1 != nil || err2 != nil || k < 2 || b < 0 || b > 1 {
			return nil, fmt.Errorf("topology %q: want ws:K:BETA with K ≥ 2, 0 ≤ BETA ≤ 1", s)
		}
		return WS{K: int(k), Beta: b}, nil
	}
	return nil, fmt.Errorf("unknown topology %q (er:P, ba:M, ws:K:BETA, empty, full)", s)
}

// MeanDensity estimates a generator's expected density for n agents over samples draws.
func MeanDensity(g Generator, n, samples int, seed uint64) float64 {
	r := rand.New(rand.NewPCG(seed, 0x746f706f))
	s := 0.0
	for i := 0; i < samples; i++ {
		s += g.Sample(r, n).Density()
	}
	return s / float64(samples)
}

// CoalitionAdvantage is TAPE's per-agent policy-gradient weight (§4.2): c_i = Σ_j A_ij·k_j·adv_j,
// where k_j are the critic's mixing weights and adv_j each agent's advantage. With A = I it is the
// individual k_i·adv_i (DOP); with A = 11ᵀ it is the global Σ_j k_j·adv_j for every agent.
func CoalitionAdvantage(a Matrix, k, adv []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		for j := range a[i] {
			out[i] += a[i][j] * k[j] * adv[j]
		}
	}
	return out
}

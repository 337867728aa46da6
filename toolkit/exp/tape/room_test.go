package tape

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	tp "github.com/paperlab/paperlab/toolkit/marl/tape"
	"github.com/paperlab/paperlab/toolkit/marl/topology"
)

// On the committed result every claim's needed checks exist and every check has a finite value and
// a reason; the inverted-U claims with the stochastic estimator read "untestable here", the
// variance claims (which need no check) keep their verdicts.
func TestRoomOnCommittedResult(t *testing.T) {
	res, e := exptest.Committed(t, "tape")
	j := exptest.Judge(t, e, res)
	if len(j.Room) == 0 || len(j.Claims) == 0 {
		t.Fatalf("%d room checks, %d claims", len(j.Room), len(j.Claims))
	}
	for _, r := range j.Room {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || r.Why == "" {
			t.Errorf("%s: value %v (%s), why %q", r.Name, r.Value, r.Missing, r.Why)
		}
	}
	for _, c := range j.Claims {
		stochasticU := strings.HasPrefix(c.Text, "LBF") && !strings.Contains(c.Text, "prerequisite") || strings.HasPrefix(c.Text, "coordination game")
		switch {
		case stochasticU && (c.Verdict() != exp.Untestable || !slices.Contains(c.Untestable, roomStochastic)):
			t.Errorf("%q: %s, want untestable here (fails %s)", c.Text, c.VerdictText(), roomStochastic)
		case strings.HasPrefix(c.Text, "variance") && len(c.Room) != 0:
			t.Errorf("%q needs %v", c.Text, c.Room)
		}
	}
}

// The LBF3 prerequisite checks equal the prerequisite claims' measure recomputed from the raw finals.
func TestRoomRecomputed(t *testing.T) {
	res, e := exptest.Committed(t, "tape")
	room := e.Room(res)
	for _, c := range []struct{ name, a, b, metric string }{
		{lbf3Room("0", "success_rate"), "lbf3-p0", "lbf3-ippo", "success_rate"},
		{lbf3Room("1", "return_auc"), "lbf3-p1", "lbf3-mappo", "return_auc"},
		{roomLBFP0, "p=0", "ippo", "return"},
	} {
		var sum float64
		var n int
		for _, ra := range res.RunsOf(c.a) {
			x, ok := ra.Final[c.metric]
			if !ok {
				continue // the matrix runs of "p=0"
			}
			for _, rb := range res.RunsOf(c.b) {
				if rb.Seed == ra.Seed {
					sum += x - 0.9*rb.Final[c.metric]
					n++
				}
			}
		}
		if got := exptest.RoomCheck(t, room, c.name).Value; n != len(res.Seeds) || math.Abs(got-sum/float64(n)) > 1e-12 {
			t.Errorf("%s = %v, recomputed %v over %d seeds", c.name, got, sum/float64(n), n)
		}
	}
}

// The analytic facts behind the configuration checks: under the policy each agent's DOP advantage
// has zero mean (so a j ≠ i term, weighted by an independent A_ij, adds none to agent i's expected
// update), and deterministic TAPE's mixer weights are never negative (the topology scales a step,
// never turns it).
func TestRoomAnalyticFacts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		n, na := 2+r.IntN(4), 2+r.IntN(3)
		q, pi := make([][]float64, n), make([][]float64, n)
		for j := range q {
			q[j], pi[j] = make([]float64, na), make([]float64, na)
			z := 0.0
			for a := range q[j] {
				q[j][a], pi[j][a] = r.NormFloat64()*5, r.Float64()+0.01
				z += pi[j][a]
			}
			for a := range pi[j] {
				pi[j][a] /= z
			}
		}
		// E_{a_j ~ π_j}[A_j] for every j, enumerating agent j's actions (the others' fixed).
		joint := make([]int, n)
		for j := 0; j < n; j++ {
			mean := 0.0
			for a := 0; a < na; a++ {
				joint[j] = a
				mean += pi[j][a] * tp.DOPAdvantage(q, pi, joint)[j]
			}
			joint[j] = 0
			if math.Abs(mean) > 1e-9 {
				t.Fatalf("trial %d agent %d: E[A_j] = %v, want 0", trial, j, mean)
			}
		}
		mix := tp.NewMixer(n, 4, r)
		g, _ := topology.Parse("er:0.5")
		u := make([]float64, n)
		for j := range u {
			u[j] = r.NormFloat64() * 3
		}
		for _, w := range tp.MixWeights(mix, g.Sample(r, n), u) {
			if w < 0 {
				t.Fatalf("trial %d: mixer weight %v < 0", trial, w)
			}
		}
	}
}

// A synthetic result in which TAPE at p = 0 loses to IPPO on LBF3 turns the LBF3 success claims
// untestable naming that check, and an estimator whose mean in p is unknown leaves the stochastic
// check not measured.
func TestRoomFlipsClaim(t *testing.T) {
	res, e := exptest.Committed(t, "tape")
	for i := range res.Runs {
		if res.Runs[i].Method == "lbf3-p0" {
			res.Runs[i].Final["success_rate"] = 0
		}
	}
	j := exptest.Judge(t, e, res)
	name := lbf3Room("0", "success_rate")
	if r := exptest.RoomCheck(t, j.Room, name); r.OK {
		t.Fatalf("%s = %v passes with lbf3-p0 never succeeding", name, r.Value)
	}
	found := false
	for _, c := range j.Claims {
		if strings.HasPrefix(c.Text, "LBF3: lbf3-p0.3 beats lbf3-p0 (greedy success)") {
			found = true
			if c.Verdict() != exp.Untestable || !slices.Contains(c.Untestable, name) {
				t.Errorf("%q: %s", c.Text, c.VerdictText())
			}
		}
		if strings.HasPrefix(c.Text, "LBF3 prerequisite") && len(c.Untestable) > 0 {
			t.Errorf("%q fails %v, which it does not need", c.Text, c.Untestable)
		}
	}
	if !found {
		t.Fatal("no LBF3 greedy-success claim")
	}
	var cfg map[string]any
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["lbf3_tape"].(map[string]any)["advantage"] = "something-else"
	res.Config, _ = json.Marshal(cfg)
	if r := exptest.RoomCheck(t, e.Room(res), roomStochastic); r.OK || r.Missing == "" || !math.IsNaN(r.Value) {
		t.Errorf("unknown estimator: %+v", r)
	}
}

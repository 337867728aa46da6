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
	"github.com/paperlab/paperlab/toolkit/stats"
)

// On the committed result every check reads its kind's statistic with per-seed values, none is a
// constant; every claim's needed checks exist; the inverted-U claims with the stochastic estimator
// carry the zero-mean argument as a note and read their data (LBF3: p = 0.3 − p = 0 on greedy
// success +0.006, not significant), the variance claims need no check.
func TestRoomOnCommittedResult(t *testing.T) {
	res, e := exptest.Committed(t, "tape")
	j := exptest.Judge(t, e, res)
	if len(j.Room) == 0 || len(j.Claims) == 0 {
		t.Fatalf("%d room checks, %d claims", len(j.Room), len(j.Claims))
	}
	exptest.Stats(t, j.Room)
	for _, r := range j.Room {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || r.Why == "" {
			t.Errorf("%s: value %v (%s), why %q", r.Name, r.Value, r.Missing, r.Why)
		}
		if r.Stat == exp.StatValue {
			t.Errorf("%s: a single value; tape's checks are all measured per seed", r.Name)
		}
	}
	for _, c := range j.Claims {
		stochasticU := strings.HasPrefix(c.Text, "LBF") && !strings.Contains(c.Text, "prerequisite") || strings.HasPrefix(c.Text, "coordination game")
		switch {
		case stochasticU && !hasNote(c, stochasticNote):
			t.Errorf("%q: no zero-mean note", c.Text)
		case strings.HasPrefix(c.Text, "variance") && len(c.Room) != 0:
			t.Errorf("%q needs %v", c.Text, c.Room)
		case strings.Contains(c.Text, "distance from DOP") && (!hasNote(c, fromDOPExponentNote) || c.Verdict() != exp.DoesNotHold):
			t.Errorf("%q: %s, notes %v", c.Text, c.VerdictText(), c.Notes)
		case strings.Contains(c.Text, "(inverted U)") && strings.HasPrefix(c.Text, "shared") && !hasNote(c, additivePayoffNote):
			t.Errorf("%q: no additive-payoff note", c.Text)
		}
	}
	c := exptest.ClaimWithPrefix(t, j.Claims, "LBF3: lbf3-p0.3 beats lbf3-p0 (greedy success)")
	if c.Verdict() != exp.NotSignificant || math.Abs(c.Stat.Mean-0.006) > 5e-4 {
		t.Errorf("%q: %s %s", c.Text, c.Interval(), c.VerdictText())
	}
	for _, prefix := range []string{"deterministic TAPE: p = 0.3 reaches", "deterministic TAPE at density 0.4: Erdős–Rényi beats Barabási–Albert"} {
		if c := exptest.ClaimWithPrefix(t, j.Claims, prefix); !hasNote(c, detDirectionNote) || !hasNote(c, detSGDNote) || c.Verdict() == exp.Untestable {
			t.Errorf("%q: %s, notes %v", c.Text, c.VerdictText(), c.Notes)
		}
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, "deterministic TAPE, Adam 0.1: p = 0.3 reaches"); !hasNote(c, detDirectionNote) || c.Verdict() == exp.Untestable {
		t.Errorf("%q: %s", c.Text, c.VerdictText())
	}
}

// hasNote says whether the claim carries the by-construction note.
func hasNote(c exp.Claim, note string) bool {
	return slices.Contains(c.Notes, "by construction: "+note)
}

// Each headline id of the paper is tagged on exactly one claim: tape-1 on LBF3's p = 0.3 against both
// extremes (greedy success, one paired reading against each), tape-2 on the update variance (with
// its by-construction note: Theorem 2's algebra).
func TestHeadlineTags(t *testing.T) {
	res, e := exptest.Committed(t, "tape")
	j := exptest.Judge(t, e, res)
	tags := map[string][]exp.Claim{}
	for _, c := range j.Claims {
		if c.Headline != "" {
			tags[c.Headline] = append(tags[c.Headline], c)
		}
	}
	if len(tags) != 2 || len(tags["tape-1"]) != 1 || len(tags["tape-2"]) != 1 {
		t.Fatalf("tags %v", tags)
	}
	u := tags["tape-1"][0]
	if !strings.HasPrefix(u.Text, "LBF3: lbf3-p0.3") || !strings.Contains(u.Text, "both") || u.Verdict() == exp.Untestable {
		t.Errorf("tape-1: %q %s", u.Text, u.VerdictText())
	}
	// read as an intersection-union test: one paired reading against each extreme, no per-seed max
	if u.Kind != exp.KindAll || len(u.Parts) != 2 || len(u.SeedIDs) != 0 {
		t.Fatalf("tape-1: kind %q, %d readings", u.Kind, len(u.Parts))
	}
	for k, rival := range []string{"lbf3-p0", "lbf3-p1"} {
		p := u.Parts[k]
		if len(p.SeedIDs) != len(res.Seeds) {
			t.Errorf("tape-1 against %s: %d seeds", rival, len(p.SeedIDs))
		}
		for i, s := range p.SeedIDs {
			x, _ := res.Final("lbf3-p0.3", "success_rate", s)
			y, _ := res.Final(rival, "success_rate", s)
			if p.Diffs[i] != x-y {
				t.Errorf("seed %d against %s: %v, want %v", s, rival, p.Diffs[i], x-y)
			}
		}
	}
	if v := tags["tape-2"][0]; !strings.HasPrefix(v.Text, "variance, batch 1: p = 1 raises") || v.Verdict() != exp.Holds || !hasNote(v, varianceNote) {
		t.Errorf("tape-2: %q %s", v.Text, v.VerdictText())
	}
}

// The LBF prerequisite checks equal the lower end of the 95 % interval of the prerequisite
// claims' measure, recomputed from the raw finals.
func TestRoomRecomputed(t *testing.T) {
	res, e := exptest.Committed(t, "tape")
	room := e.Room(res)
	for _, c := range []struct{ name, a, b, metric string }{
		{lbf3Room("0", "success_rate"), "lbf3-p0", "lbf3-ippo", "success_rate"},
		{lbf3Room("1", "return_auc"), "lbf3-p1", "lbf3-mappo", "return_auc"},
		{roomLBFP0, "p=0", "ippo", "return"},
	} {
		var vals []float64
		for _, ra := range res.RunsOf(c.a) {
			x, ok := ra.Final[c.metric]
			if !ok {
				continue // the matrix runs of "p=0"
			}
			for _, rb := range res.RunsOf(c.b) {
				if rb.Seed == ra.Seed {
					vals = append(vals, x-0.9*rb.Final[c.metric])
				}
			}
		}
		want := stats.Summarize(vals).CI95[0]
		if got := exptest.RoomCheck(t, room, c.name); len(vals) != len(res.Seeds) || got.Stat != exp.StatCILow || math.Abs(got.Value-want) > 1e-12 {
			t.Errorf("%s = %v (%s), recomputed %v over %d seeds", c.name, got.Value, got.Stat, want, len(vals))
		}
	}
}

// The analytic facts behind the by-construction notes: under the policy each agent's DOP advantage
// has zero mean (so a j ≠ i term, weighted by an independent A_ij, adds none to agent i's expected
// update: stochasticNote), and deterministic TAPE's mixer weights are never negative (the topology
// scales a step, never turns it: detDirectionNote).
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
// untestable naming that check, and leaves the prerequisite claims (which do not need it) judged.
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
	for _, prefix := range []string{"LBF3: lbf3-p0.3 beats lbf3-p0 (greedy success)", "LBF3: lbf3-p0.3 (the authors' p) beats both"} {
		if c := exptest.ClaimWithPrefix(t, j.Claims, prefix); c.Verdict() != exp.Untestable || !slices.Contains(c.Untestable, name) {
			t.Errorf("%q: %s", c.Text, c.VerdictText())
		}
	}
	for _, c := range j.Claims {
		if strings.HasPrefix(c.Text, "LBF3 prerequisite") && len(c.Untestable) > 0 {
			t.Errorf("%q fails %v, which it does not need", c.Text, c.Untestable)
		}
	}
}

// Every room check passes on one synthetic result and fails on another, each read on its kind's
// statistic: the prerequisites (x − 0.9·y, lower end of the interval), the budget plateaus (signed
// tail share of the least settled method), the shared regime's floor and ceiling, the coalition
// team reward's floor and ceiling, and the escape headroom.
func TestRoomPassesAndFails(t *testing.T) {
	good, bad := Room(syntheticResult(t, true)), Room(syntheticResult(t, false))
	if len(good) != len(bad) || len(good) < 20 {
		t.Fatalf("%d checks on the good result, %d on the bad", len(good), len(bad))
	}
	exptest.Stats(t, good)
	exptest.Stats(t, bad)
	for i := range good {
		g, b := good[i], bad[i]
		if g.Name != b.Name || !g.OK || b.OK {
			t.Errorf("%s: ok %v (%s %v) on the good result; %s: ok %v (%s %v) on the bad", g.Name, g.OK, g.Stat, g.Value, b.Name, b.OK, b.Stat, b.Value)
		}
	}
}

// A curve that turns back fails its budget check as one still climbing does (signed, two-sided),
// and seeds of one method moving in opposite directions by the same amount pass it.
func TestBudgetSettledSigned(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	check := func(tail func(seed uint64) float64) exp.RoomCheck {
		res := &exp.Result{Seeds: seeds}
		for _, s := range seeds {
			res.Runs = append(res.Runs, exp.Run{Method: "a", Seed: s, Curves: map[string]exp.Curve{"k": rampThenTail(tail(s))}},
				exp.Run{Method: "b", Seed: s, Curves: map[string]exp.Curve{"k": rampThenTail(0)}})
		}
		return budgetSettled(res, "budget", "k", "a test", []string{"a", "b"}, seeds)
	}
	if r := check(func(uint64) float64 { return -0.5 }); r.OK || r.Value >= 0 || r.Stat != exp.StatTailMean {
		t.Errorf("turned back: %+v", r)
	}
	if r := check(func(uint64) float64 { return 0.5 }); r.OK || r.Value <= 0 {
		t.Errorf("still climbing: %+v", r)
	}
	if r := check(func(s uint64) float64 { return []float64{0.2, -0.2, 0.1, -0.1, 0}[s-1] }); !r.OK {
		t.Errorf("seeds in both directions: %+v", r)
	}
	if r := budgetSettled(&exp.Result{Seeds: seeds}, "budget", "k", "a test", []string{"a"}, seeds); r.OK || r.Missing == "" || r.Stat != exp.StatTailMean {
		t.Errorf("no curves: %+v", r)
	}
}

// rampThenTail is a 30-point curve rising from 0 to 1 over its first 20 points, then moving by
// tail (a share of the rise) over its last 10.
func rampThenTail(tail float64) exp.Curve {
	var c exp.Curve
	for i := range 30 {
		y := math.Min(float64(i)/19, 1)
		if i >= 20 {
			y = 1 + tail*float64(i-19)/10
		}
		c.X, c.Y = append(c.X, float64(i)), append(c.Y, y)
	}
	return c
}

// syntheticResult is a small result with every part Room reads, 5 seeds: with good every check
// passes (TAPE's extremes above 0.9 × the baselines, flat curve ends, p = 0 learning with room,
// the team reward off floor and ceiling, escapes left to gain), otherwise every check fails.
func syntheticResult(t *testing.T, good bool) *exp.Result {
	t.Helper()
	cfg := Config{
		LBFMethods:    []Method{{Name: "p=0"}, {Name: "p=1"}, {Name: "ippo"}, {Name: "mappo"}},
		LBF3Methods:   []Method{{Name: "lbf3-p0"}, {Name: "lbf3-p1"}, {Name: "lbf3-ippo"}, {Name: "lbf3-mappo"}},
		MatrixMethods: []Method{{Name: "p=0"}, {Name: "p=1"}},
		DetMethods:    []DetMethod{{Name: "det-p0"}, {Name: "det-p1"}},
		DetAdamLRs:    []float64{0.01},
		DetAdamPs:     []float64{0, 1},
		SharedLRs:     []float64{0.01},
		CoalPs:        []float64{0, 1},
		CoalScenario:  "synthetic",
		Variance:      VarianceStudy{Batches: []int{1}},
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := &exp.Result{Experiment: "tape", Seeds: []uint64{1, 2, 3, 4, 5}, Config: raw}
	pick := func(yes, no float64) float64 {
		if good {
			return yes
		}
		return no
	}
	tail := pick(0, 0.6)
	add := func(method string, seed uint64, final map[string]float64, curve string) {
		run := exp.Run{Method: method, Seed: seed, Final: final}
		if curve != "" {
			run.Curves = map[string]exp.Curve{curve: rampThenTail(tail)}
		}
		res.Runs = append(res.Runs, run)
	}
	for _, s := range res.Seeds {
		jitter := 0.01 * float64(s)
		tapeVal, base := pick(0.95, 0.5)+jitter, 1.0
		lbf3 := map[string]float64{}
		for _, k := range []string{"success_rate", "sampled_success_rate", "return_auc"} {
			lbf3[k] = tapeVal
		}
		for _, m := range []string{"p=0", "p=1"} {
			add(m, s, map[string]float64{"return": tapeVal}, "lbf/episodic_return")
		}
		for _, m := range []string{"ippo", "mappo"} {
			add(m, s, map[string]float64{"return": base}, "lbf/episodic_return")
		}
		for _, m := range []string{"lbf3-p0", "lbf3-p1"} {
			add(m, s, lbf3, "lbf3/episodic_return")
		}
		for _, m := range []string{"lbf3-ippo", "lbf3-mappo"} {
			add(m, s, map[string]float64{"success_rate": base, "sampled_success_rate": base, "return_auc": base}, "lbf3/episodic_return")
		}
		// The matrix and deterministic parts' runs carry their own curve keys and finals.
		for _, m := range []string{"p=0", "p=1"} {
			add(m, s, map[string]float64{"optimal_rate": 1}, "matrix/p_optimal")
		}
		for _, m := range []string{"det-p0", "det-p1", AdamDetName(0.01, 0), AdamDetName(0.01, 1)} {
			add(m, s, map[string]float64{"optimal_rate": 1}, "det/p_optimal")
		}
		add(SharedName(0.01, 0), s, map[string]float64{"value_auc": pick(0.5, 1.5) + jitter}, "")
		add(CoalName(1), s, map[string]float64{"success_rate": pick(0.3, 1.5) + jitter, "return_auc": pick(0.5, 1.5) + jitter}, "")
		add(VarName(1, 0), s, map[string]float64{"escape_rate": pick(0.1, 0.95)}, "")
	}
	// The bad shared and coalition values fail both their checks at once: two seeds at 0 and three
	// far above the ceiling put the mean above the ceiling and the interval's lower end below the
	// floor (values outside [0, 1] are fine for a synthetic test).
	if !good {
		for i := range res.Runs {
			r := &res.Runs[i]
			if r.Seed > 2 {
				continue
			}
			switch r.Method {
			case SharedName(0.01, 0):
				r.Final["value_auc"] = 0
			case CoalName(1):
				r.Final["success_rate"], r.Final["return_auc"] = 0, 0
			}
		}
	}
	return res
}

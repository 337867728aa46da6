package tape

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims seed by seed. The inverted U (§4.5): intermediate p against both
// extremes — on the 2-agent LBF's final return and the coordination game (stochastic TAPE, its own
// seeds); with deterministic TAPE on the coordination game; and on LBF with partial coalitions,
// greedy success and learning speed. The mechanism (Theorem 2): the update variance grows with p, ∝ p²,
// and more noise might let runs escape the +2 basin. The prerequisite of the LBF comparison: TAPE
// at p = 0 and p = 1 within 10 % of IPPO and MAPPO.
//
// Each claim names the room checks it needs (Room): the inverted-U claims that p changes the
// expected update at all, the LBF ones competitive extremes, final outcomes a budget plateau.
func Claims(res *exp.Result) []exp.Claim {
	seedsOf := func(method, metric string) []uint64 {
		var out []uint64
		for _, r := range res.RunsOf(method) {
			if _, ok := r.Final[metric]; ok {
				out = append(out, r.Seed)
			}
		}
		return out
	}
	matrixSeeds := seedsOf("p=0", "optimal_rate")
	lbf := func(a, b string) exp.Claim {
		return res.Check(fmt.Sprintf("LBF: %s beats %s", a, b), fmt.Sprintf("return(%s) − return(%s)", a, b), exp.Positive, res.Diff(a, "return", b, "return")).
			Needs(roomStochastic, roomLBFP0, roomLBFP1, roomLBFBudget)
	}
	claims := []exp.Claim{
		lbf("p=0.3", "p=0"), lbf("p=0.5", "p=0"), lbf("p=0.3", "p=1"), lbf("p=0.5", "p=1"),
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 reaches the optimum at least as often as p = 0", "optimal(p=0.3) − optimal(p=0)",
			exp.AtLeast(0), res.Diff("p=0.3", "optimal_rate", "p=0", "optimal_rate")).Needs(roomStochastic, roomMatrixBud),
		exp.CheckOn(matrixSeeds, "coordination game: … and as p = 1", "optimal(p=0.3) − optimal(p=1)",
			exp.AtLeast(0), res.Diff("p=0.3", "optimal_rate", "p=1", "optimal_rate")).Needs(roomStochastic, roomMatrixBud),
		// Learning speed is measured over the budget: no plateau needed.
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 learns faster than p = 0", "P(optimal) area, p=0.3 − p=0", exp.Positive,
			res.Diff("p=0.3", "p_optimal_auc", "p=0", "p_optimal_auc")).Needs(roomStochastic),
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 learns faster than p = 1", "P(optimal) area, p=0.3 − p=1", exp.Positive,
			res.Diff("p=0.3", "p_optimal_auc", "p=1", "p_optimal_auc")).Needs(roomStochastic),
	}
	// The variance mechanism, per batch size. The variance claims need no room check: they measure the
	// update at fixed states with common random numbers (no training outcome, no budget), and they
	// are the mechanism stochastic TAPE's p acts through. The escape claims ask whether that noise
	// helps, so they need only room for more escapes.
	for _, b := range []int{1, 4} {
		v0, v03, v1 := VarName(b, 0), VarName(b, 0.3), VarName(b, 1)
		seeds := seedsOf(v0, "update_variance")
		if len(seeds) == 0 {
			continue
		}
		claims = append(claims,
			exp.CheckOn(seeds, fmt.Sprintf("variance, batch %d: p = 1 raises the per-agent update variance over p = 0", b),
				"variance(p=1) − variance(p=0)", exp.Positive, res.Diff(v1, "update_variance", v0, "update_variance")),
			exp.CheckOn(seeds, fmt.Sprintf("variance, batch %d: the distance from DOP grows ∝ p² (fitted exponent within 2 ± 0.25)", b),
				"exponent − 2", exp.Within(0.25), func(seed uint64) (float64, bool) {
					x, ok := res.Final(fmt.Sprintf("var-b%d", b), "from_dop_exponent", seed)
					return x - 2, ok
				}),
			exp.CheckOn(seeds, fmt.Sprintf("escape, batch %d: p = 0.3 escapes the +2 basin more often than p = 0", b),
				"escaped(p=0.3) − escaped(p=0)", exp.Positive, res.Diff(v03, "escape_rate", v0, "escape_rate")).Needs(escapeRoom(b)),
			exp.CheckOn(seeds, fmt.Sprintf("escape, batch %d: p = 1 escapes the +2 basin more often than p = 0", b),
				"escaped(p=1) − escaped(p=0)", exp.Positive, res.Diff(v1, "escape_rate", v0, "escape_rate")).Needs(escapeRoom(b)),
		)
	}
	// Deterministic TAPE on the coordination game.
	if detSeeds := seedsOf("det-p0", "optimal_rate"); len(detSeeds) > 0 {
		det := func(text, a, b, metric string) exp.Claim {
			return exp.CheckOn(detSeeds, text, fmt.Sprintf("%s(%s) − %s(%s)", metric, a, metric, b), exp.Positive, res.Diff(a, metric, b, metric))
		}
		topo := func(text, a, b string) exp.Claim {
			return det(text, a, b, "optimal_rate").Needs(roomDetDir, roomDetAdam, roomDetBudget)
		}
		claims = append(claims,
			topo("deterministic TAPE: p = 0.3 reaches the optimum more often than p = 0", "det-p0.3", "det-p0"),
			topo("deterministic TAPE: p = 0.5 … than p = 0", "det-p0.5", "det-p0"),
			topo("deterministic TAPE: p = 0.3 … than p = 1", "det-p0.3", "det-p1"),
			topo("deterministic TAPE: p = 0.5 … than p = 1", "det-p0.5", "det-p1"),
			topo("deterministic TAPE at density 0.4: Erdős–Rényi beats Barabási–Albert", "det-er0.4", "det-ba1"),
			topo("deterministic TAPE at density 0.4: Erdős–Rényi beats Watts–Strogatz", "det-er0.4", "det-ws2"),
			// The step-size mechanism itself, read from the mixer weights over training: no room check.
			det("deterministic TAPE: p = 1 takes larger steps than p = 0 (mean mixer weight)", "det-p1", "det-p0", "mix_weight"),
		)
		// Step-size controls: p = 0 with a larger actor step, then p = 1 against it. They test the
		// step-size reading itself, so they need only the budget plateau (final outcomes).
		for _, c := range []struct{ method, step string }{{"det-p0-lr1.4", "a 1.4× step (p = 1's mean mixer weight)"}, {"det-p0-lr5", "an N× step (N = 5)"}} {
			if _, ok := res.Summary[c.method]; !ok {
				continue
			}
			claims = append(claims,
				exp.CheckOn(detSeeds, fmt.Sprintf("deterministic TAPE: p = 0 with %s reaches the optimum less often than p = 0", c.step),
					fmt.Sprintf("optimal_rate(%s) − optimal_rate(det-p0)", c.method), exp.Negative, res.Diff(c.method, "optimal_rate", "det-p0", "optimal_rate")).
					Needs(roomDetBudget),
				exp.CheckOn(detSeeds, "deterministic TAPE: against that step, p = 1 still reaches the optimum less often",
					fmt.Sprintf("optimal_rate(det-p1) − optimal_rate(%s)", c.method), exp.Negative, res.Diff("det-p1", "optimal_rate", c.method, "optimal_rate")).
					Needs(roomDetBudget))
		}
	}
	// LBF with partial coalitions: the learner's competitiveness, then the inverted U.
	if _, ok := res.Summary["lbf3-p0"]; ok {
		within := func(a, b, metric, what string) exp.Claim {
			return res.Check(fmt.Sprintf("LBF3 prerequisite: %s within 10 %% of %s (%s)", a, b, what), fmt.Sprintf("%s(%s) − 0.9·%s(%s)", metric, a, metric, b),
				exp.AtLeast(0), func(seed uint64) (float64, bool) {
					x, ok1 := res.Final(a, metric, seed)
					y, ok2 := res.Final(b, metric, seed)
					return x - Competitive*y, ok1 && ok2
				}).Needs(roomLBF3Budget)
		}
		claims = append(claims,
			within("lbf3-p0", "lbf3-ippo", "sampled_success_rate", "sampled success"),
			within("lbf3-p1", "lbf3-mappo", "sampled_success_rate", "sampled success"),
			within("lbf3-p0", "lbf3-ippo", "success_rate", "greedy success"),
			within("lbf3-p1", "lbf3-mappo", "success_rate", "greedy success"),
		)
		for _, m := range []struct{ key, what string }{{"success_rate", "greedy success"}, {"return_auc", "learning speed: mean training return"}} {
			for _, pair := range [][2]string{{"lbf3-p0.3", "lbf3-p0"}, {"lbf3-p0.5", "lbf3-p0"}, {"lbf3-p0.3", "lbf3-p1"}, {"lbf3-p0.5", "lbf3-p1"}} {
				c := res.Check(fmt.Sprintf("LBF3: %s beats %s (%s)", pair[0], pair[1], m.what),
					fmt.Sprintf("%s(%s) − %s(%s)", m.key, pair[0], m.key, pair[1]), exp.Positive, res.Diff(pair[0], m.key, pair[1], m.key)).
					Needs(roomStochastic, lbf3Room("0", "sampled_success_rate"), lbf3Room("1", "sampled_success_rate"),
						lbf3Room("0", "success_rate"), lbf3Room("1", "success_rate"))
				if m.key == "success_rate" { // a final outcome; the learning speed is measured over the budget
					c = c.Needs(roomLBF3Budget)
				} else { // the speed measure's own prerequisite
					c = c.Needs(lbf3Room("0", m.key), lbf3Room("1", m.key))
				}
				claims = append(claims, c)
			}
		}
	}
	return claims
}

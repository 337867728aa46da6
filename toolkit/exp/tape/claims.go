package tape

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims seed by seed. The inverted U (PaperLab's reading of the
// abstract's compromise between cooperation and the CDM issue): intermediate p against both
// extremes — on the 2-agent LBF's final return and the coordination game (stochastic TAPE, its own
// seeds); with deterministic TAPE on the coordination game; and on LBF with partial coalitions,
// greedy success and learning speed. The mechanism (Theorem 2): the update variance grows with p, ∝ p²,
// and more noise might let runs escape the +2 basin. The prerequisite of the LBF comparison: TAPE
// at p = 0 and p = 1 within 10 % of IPPO and MAPPO.
//
// Each claim names the room checks it needs (Room): the LBF ones competitive extremes, final
// outcomes a budget plateau. What the estimators' construction decides — p moves stochastic TAPE's
// update only through its variance, deterministic TAPE's mixer only rescales steps, the SGD
// variant, the algebra of the distance from DOP, an additive payoff — is written beside the claims
// it bears on (notes.go), which read their data's verdict. The headline claims: tape-1 on LBF with
// partial coalitions (p = 0.3, the authors' default, against both extremes), tape-2 on the update
// variance at fixed states.
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
			Needs(roomLBFP0, roomLBFP1, roomLBFBudget).ByConstruction(stochasticNote)
	}
	claims := []exp.Claim{
		lbf("p=0.3", "p=0"), lbf("p=0.5", "p=0"), lbf("p=0.3", "p=1"), lbf("p=0.5", "p=1"),
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 reaches the optimum at least as often as p = 0", "optimal(p=0.3) − optimal(p=0)",
			exp.AtLeast(0), res.Diff("p=0.3", "optimal_rate", "p=0", "optimal_rate")).Needs(roomMatrixBud).ByConstruction(stochasticNote),
		exp.CheckOn(matrixSeeds, "coordination game: … and as p = 1", "optimal(p=0.3) − optimal(p=1)",
			exp.AtLeast(0), res.Diff("p=0.3", "optimal_rate", "p=1", "optimal_rate")).Needs(roomMatrixBud).ByConstruction(stochasticNote),
		// Learning speed is measured over the budget: no plateau needed.
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 learns faster than p = 0", "P(optimal) area, p=0.3 − p=0", exp.Positive,
			res.Diff("p=0.3", "p_optimal_auc", "p=0", "p_optimal_auc")).ByConstruction(stochasticNote),
		exp.CheckOn(matrixSeeds, "coordination game: p = 0.3 learns faster than p = 1", "P(optimal) area, p=0.3 − p=1", exp.Positive,
			res.Diff("p=0.3", "p_optimal_auc", "p=1", "p_optimal_auc")).ByConstruction(stochasticNote),
	}
	// The variance mechanism, per batch size. The variance claims need no room check: they measure the
	// update at fixed states with common random numbers (no training outcome, no budget), and they
	// are the mechanism stochastic TAPE's p acts through. The escape claims ask whether that noise
	// helps, so they need only room for more escapes. The first batch size's variance claim answers
	// headline tape-2 (the update's diversity grows with p).
	tagged := false
	for _, b := range []int{1, 4} {
		v0, v03, v1 := VarName(b, 0), VarName(b, 0.3), VarName(b, 1)
		seeds := seedsOf(v0, "update_variance")
		if len(seeds) == 0 {
			continue
		}
		variance := exp.CheckOn(seeds, fmt.Sprintf("variance, batch %d: p = 1 raises the per-agent update variance over p = 0", b),
			"variance(p=1) − variance(p=0)", exp.Positive, res.Diff(v1, "update_variance", v0, "update_variance"))
		variance = variance.ByConstruction(varianceNote)
		if !tagged {
			variance, tagged = variance.For("tape-2"), true
		}
		claims = append(claims,
			variance,
			exp.CheckOn(seeds, fmt.Sprintf("variance, batch %d: the distance from DOP grows ∝ p² (fitted exponent within 2 ± 0.25)", b),
				"exponent − 2", exp.Within(0.25), func(seed uint64) (float64, bool) {
					x, ok := res.Final(fmt.Sprintf("var-b%d", b), "from_dop_exponent", seed)
					return x - 2, ok
				}).ByConstruction(fromDOPExponentNote),
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
			return det(text, a, b, "optimal_rate").Needs(roomDetBudget).ByConstruction(detDirectionNote).ByConstruction(detSGDNote)
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
	claims = append(claims, adamDetClaims(res)...)
	claims = append(claims, sharedClaims(res)...)
	claims = append(claims, coalClaims(res)...)
	// SMAX first (TAPE's own kind of benchmark): where it ran, its comparison is the headline.
	claims = append(claims, sweepClaims(res, "smax", "SMAX 3m", "won battles", []string{roomSMAXBudget, roomSMAXGate}, []string{roomSMAXCeiling})...)
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
		lbf3Needs := []string{lbf3Room("0", "sampled_success_rate"), lbf3Room("1", "sampled_success_rate"),
			lbf3Room("0", "success_rate"), lbf3Room("1", "success_rate")}
		claims = append(claims,
			// Headline tape-1: the paper's comparison on the benchmark it shares with us (LBF; SMAC is
			// out of this budget), the authors' p = 0.3 against both extremes at once.
			beatsBoth(res, res.Seeds, "LBF3: lbf3-p0.3 (the authors' p) beats both lbf3-p0 and lbf3-p1 (greedy success)",
				"success_rate", "lbf3-p0.3", "lbf3-p0", "lbf3-p1").Needs(lbf3Needs...).Needs(roomLBF3Budget).ByConstruction(stochasticNote).For("tape-1"),
			within("lbf3-p0", "lbf3-ippo", "sampled_success_rate", "sampled success"),
			within("lbf3-p1", "lbf3-mappo", "sampled_success_rate", "sampled success"),
			within("lbf3-p0", "lbf3-ippo", "success_rate", "greedy success"),
			within("lbf3-p1", "lbf3-mappo", "success_rate", "greedy success"),
		)
		for _, m := range []struct{ key, what string }{{"success_rate", "greedy success"}, {"return_auc", "learning speed: mean training return"}} {
			for _, pair := range [][2]string{{"lbf3-p0.3", "lbf3-p0"}, {"lbf3-p0.5", "lbf3-p0"}, {"lbf3-p0.3", "lbf3-p1"}, {"lbf3-p0.5", "lbf3-p1"}} {
				c := res.Check(fmt.Sprintf("LBF3: %s beats %s (%s)", pair[0], pair[1], m.what),
					fmt.Sprintf("%s(%s) − %s(%s)", m.key, pair[0], m.key, pair[1]), exp.Positive, res.Diff(pair[0], m.key, pair[1], m.key)).
					Needs(lbf3Needs...).ByConstruction(stochasticNote)
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

// adamDetClaims are deterministic TAPE's claims under the code's Adam (since 2026-12-04), per rate: the
// inverted U on the optimum rate (with the note that the topology only rescales an agent's step
// here, detDirectionNote), and what Adam makes of the step-size effect the SGD variant showed — p = 1 reaching the optimum as often as p = 0 (equivalence within AdamEquivalence), and
// taking steps of the same length (step_norm, within 10 %).
func adamDetClaims(res *exp.Result) []exp.Claim {
	cfg, ok := configOf(res)
	if !ok {
		return nil
	}
	var out []exp.Claim
	for _, lr := range cfg.DetAdamLRs {
		name := func(p float64) string { return AdamDetName(lr, p) }
		seeds := seedsWith(res, name(0), "optimal_rate")
		if len(seeds) == 0 {
			continue
		}
		diff := func(a, b, metric string) exp.PerSeed { return res.Diff(a, metric, b, metric) }
		for _, pair := range [][2]float64{{0.3, 0}, {0.5, 0}, {0.3, 1}, {0.5, 1}} {
			out = append(out, exp.CheckOn(seeds, fmt.Sprintf("deterministic TAPE, Adam %g: p = %g reaches the optimum more often than p = %g", lr, pair[0], pair[1]),
				fmt.Sprintf("optimal_rate(%s) − optimal_rate(%s)", name(pair[0]), name(pair[1])), exp.Positive, diff(name(pair[0]), name(pair[1]), "optimal_rate")).
				Needs(adamBudget(lr)).ByConstruction(detDirectionNote))
		}
		out = append(out,
			exp.CheckOn(seeds, fmt.Sprintf("deterministic TAPE, Adam %g: p = 1 reaches the optimum as often as p = 0 (within ±%g)", lr, AdamEquivalence),
				fmt.Sprintf("optimal_rate(%s) − optimal_rate(%s)", name(1), name(0)), exp.Within(AdamEquivalence), diff(name(1), name(0), "optimal_rate")).
				Needs(adamBudget(lr)),
			// The optimiser's normalisation itself, read from the steps over training: no room check.
			exp.CheckOn(seeds, fmt.Sprintf("deterministic TAPE, Adam %g: p = 1's logit steps are as long as p = 0's (ratio within 1 ± 0.1)", lr),
				fmt.Sprintf("step_norm(%s) / step_norm(%s) − 1", name(1), name(0)), exp.Within(0.1), func(seed uint64) (float64, bool) {
					a, ok1 := res.Final(name(1), "step_norm", seed)
					b, ok2 := res.Final(name(0), "step_norm", seed)
					return a/b - 1, ok1 && ok2 && b > 0
				}),
		)
	}
	return out
}

// sharedClaims are the shared-parameter regime's claims (since 2026-12-04), from the estimator's theory: at
// fixed states the mean update does not depend on p (equivalence) while its variance grows with p,
// by the same amount per unit p·(N − 1) at every N; in training, per rate, p = 0 learns faster than
// p = 1 (mean normalised value over training) where there is room, and the inverted U tested as a
// claim (p = 0.3 against the better extreme); and at each p's best rate (chosen on the mean over seeds).
func sharedClaims(res *exp.Result) []exp.Claim {
	cfg, ok := configOf(res)
	if !ok {
		return nil
	}
	var out []exp.Claim
	for _, n := range cfg.SharedVarAgents {
		v0, v1 := SharedVarName(n, 0), SharedVarName(n, 1)
		seeds := seedsWith(res, v0, "variance")
		if len(seeds) == 0 {
			continue
		}
		// Measurements at fixed states with common random numbers: no training outcome, no room check.
		out = append(out,
			exp.CheckOn(seeds, fmt.Sprintf("shared actors, N = %d: p = 1's mean update equals p = 0's (projection on the exact mean within ±%g)", n, SharedMeanEquivalence),
				"mean_ratio(p=1) − mean_ratio(p=0)", exp.Within(SharedMeanEquivalence), res.Diff(v1, "mean_ratio", v0, "mean_ratio")),
			exp.CheckOn(seeds, fmt.Sprintf("shared actors, N = %d: p = 1 raises the update variance over p = 0", n),
				"log variance(p=1) − log variance(p=0)", exp.Positive, func(seed uint64) (float64, bool) {
					a, ok1 := res.Final(v1, "variance", seed)
					b, ok2 := res.Final(v0, "variance", seed)
					return math.Log(a) - math.Log(b), ok1 && ok2 && a > 0 && b > 0
				}),
		)
	}
	if len(cfg.SharedVarAgents) == 2 {
		a, b := cfg.SharedVarAgents[0], cfg.SharedVarAgents[1]
		out = append(out, exp.CheckOn(seedsWith(res, SharedVarName(a, -1), "variance_growth"),
			fmt.Sprintf("shared actors: the variance grows by the same amount per unit p·(N − 1) at N = %d and N = %d (ratio within 1 ± 0.25)", b, a),
			fmt.Sprintf("growth(N=%d) / growth(N=%d) − 1", b, a), exp.Within(0.25), func(seed uint64) (float64, bool) {
				x, ok1 := res.Final(SharedVarName(b, -1), "variance_growth", seed)
				y, ok2 := res.Final(SharedVarName(a, -1), "variance_growth", seed)
				return x/y - 1, ok1 && ok2 && y != 0
			}))
	}
	const key = "value_auc"
	for _, lr := range cfg.SharedLRs {
		name := func(p float64) string { return SharedName(lr, p) }
		seeds := seedsWith(res, name(0), key)
		if len(seeds) == 0 {
			continue
		}
		out = append(out,
			exp.CheckOn(seeds, fmt.Sprintf("shared actors, Adam %g: p = 0 learns faster than p = 1 (mean normalised value over training)", lr),
				fmt.Sprintf("%s(%s) − %s(%s)", key, name(0), key, name(1)), exp.Positive, res.Diff(name(0), key, name(1), key)).Needs(sharedLearns(lr), sharedRoom(lr)),
			beatsBoth(res, seeds, fmt.Sprintf("shared actors, Adam %g: p = 0.3 learns faster than both extremes (inverted U)", lr),
				key, name(0.3), name(0), name(1)).Needs(sharedLearns(lr), sharedRoom(lr)).ByConstruction(additivePayoffNote),
		)
	}
	if best0, best1 := SharedBestLR(res, cfg, 0), SharedBestLR(res, cfg, 1); best0 > 0 && best1 > 0 {
		out = append(out, exp.CheckOn(seedsWith(res, SharedName(best0, 0), key),
			fmt.Sprintf("shared actors, each p at its best rate (p = 0: %g, p = 1: %g): p = 0 learns faster than p = 1", best0, best1),
			fmt.Sprintf("%s(%s) − %s(%s)", key, SharedName(best0, 0), key, SharedName(best1, 1)), exp.Positive,
			res.Diff(SharedName(best0, 0), key, SharedName(best1, 1), key)).Needs(sharedLearns(best0), sharedRoom(best0)))
	}
	return out
}

// SharedBestLR is the rate of SharedLRs with the highest mean value_auc at density p (0: none ran).
func SharedBestLR(res *exp.Result, cfg Config, p float64) float64 {
	best, bestV := 0.0, math.Inf(-1)
	for _, lr := range cfg.SharedLRs {
		if s, ok := res.Summary[SharedName(lr, p)]["value_auc"]; ok && s.Mean > bestV {
			best, bestV = lr, s.Mean
		}
	}
	return best
}

// coalClaims are the coalition-reward variant's claims (since 2026-12-04; PaperLab's reinterpretation, not
// the paper's method): an intermediate density against both extremes — own rewards (p = 0) and the
// team reward (p = 1) — on greedy success and learning speed, and the extremes against each other.
// They need room: the team reward's (p = 1) value of the claim's metric off the floor and below the
// ceiling.
func coalClaims(res *exp.Result) []exp.Claim {
	cfg, ok := configOf(res)
	if !ok || len(cfg.CoalPs) == 0 {
		return nil
	}
	if _, ok := res.Summary[CoalName(0)]; !ok {
		return nil
	}
	var out []exp.Claim
	for _, m := range []struct{ key, what string }{{"success_rate", "greedy success"}, {"return_auc", "learning speed"}} {
		for _, p := range cfg.CoalPs {
			if p == 0 || p == 1 {
				continue
			}
			a := CoalName(p)
			out = append(out, beatsBoth(res, res.Seeds, fmt.Sprintf("coalition reward (our reinterpretation): p = %g beats both own rewards and the team reward (%s)", p, m.what),
				m.key, a, CoalName(0), CoalName(1)).Needs(coalFloor(m.key), coalCeiling(m.key)))
		}
		out = append(out, res.Check(fmt.Sprintf("coalition reward: the team reward (p = 1) beats own rewards (p = 0) (%s)", m.what),
			fmt.Sprintf("%s(%s) − %s(%s)", m.key, CoalName(1), m.key, CoalName(0)), exp.Positive, res.Diff(CoalName(1), m.key, CoalName(0), m.key)).Needs(coalFloor(m.key), coalCeiling(m.key)))
	}
	return out
}

// varianceNote says why the variance claims hold by algebra (Theorem 2): measuring them checks the
// implementation against the theorem, not an effect of training.
const varianceNote = "the variance grows with p by the estimator's algebra (the paper's Theorem 2): agent i's weight Σ_j A_ij·k_j·A_j adds, for each j ≠ i kept " +
	"with probability p, a term of zero mean at a fixed state, so with independent agents (uncorrelated advantage terms, as here) the update's variance rises with p; the measurement (fixed states, common random " +
	"numbers) checks that the implementation follows the theorem, not an effect of training"

// sweepClaims are a TAPE-against-baselines part's claims (its methods prefixed part-: p0, p0.3, p0.5,
// p1, ippo, mappo), read as LBF3's are: the authors' p = 0.3 against both extremes (the headline
// tape-1, where the part ran), the prerequisites (TAPE at each extreme within 10 % of the baseline
// with its critic), then each intermediate p against each extreme on greedy success and on learning
// speed. budget are the part's room checks on its final outcomes (the plateau and, on SMAX, the
// gate), ceiling its checks that the extremes leave room on greedy success. The inverted U reads
// tape-1 only where its room checks pass (HeadlineIfTestable): else LBF3's reading does — a rule
// fixed before the part's runs.
func sweepClaims(res *exp.Result, part, title, success string, budget, ceiling []string) []exp.Claim {
	name := func(s string) string { return part + "-" + s }
	if _, ok := res.Summary[name("p0")]; !ok {
		return nil
	}
	within := func(a, b, metric, what string) exp.Claim {
		return res.Check(fmt.Sprintf("%s prerequisite: %s within 10 %% of %s (%s)", title, a, b, what), fmt.Sprintf("%s(%s) − 0.9·%s(%s)", metric, a, metric, b),
			exp.AtLeast(0), func(seed uint64) (float64, bool) {
				x, ok1 := res.Final(a, metric, seed)
				y, ok2 := res.Final(b, metric, seed)
				return x - Competitive*y, ok1 && ok2
			}).Needs(budget...)
	}
	needs := []string{sweepRoom(part, "0", "sampled_success_rate"), sweepRoom(part, "1", "sampled_success_rate"),
		sweepRoom(part, "0", "success_rate"), sweepRoom(part, "1", "success_rate")}
	claims := []exp.Claim{
		beatsBoth(res, res.Seeds, fmt.Sprintf("%s: %s (the authors' p) beats both %s and %s (greedy %s)", title, name("p0.3"), name("p0"), name("p1"), success),
			"success_rate", name("p0.3"), name("p0"), name("p1")).Needs(needs...).Needs(budget...).Needs(ceiling...).ByConstruction(stochasticNote).HeadlineIfTestable("tape-1"),
		within(name("p0"), name("ippo"), "sampled_success_rate", "sampled "+success),
		within(name("p1"), name("mappo"), "sampled_success_rate", "sampled "+success),
		within(name("p0"), name("ippo"), "success_rate", "greedy "+success),
		within(name("p1"), name("mappo"), "success_rate", "greedy "+success),
	}
	for _, m := range []struct{ key, what string }{{"success_rate", "greedy " + success}, {"return_auc", "learning speed: mean training return"}} {
		for _, pair := range [][2]string{{"p0.3", "p0"}, {"p0.5", "p0"}, {"p0.3", "p1"}, {"p0.5", "p1"}} {
			a, b := name(pair[0]), name(pair[1])
			c := res.Check(fmt.Sprintf("%s: %s beats %s (%s)", title, a, b, m.what), fmt.Sprintf("%s(%s) − %s(%s)", m.key, a, m.key, b), exp.Positive, res.Diff(a, m.key, b, m.key)).
				Needs(needs...).ByConstruction(stochasticNote)
			if m.key == "success_rate" {
				c = c.Needs(budget...).Needs(ceiling...)
			} else {
				c = c.Needs(sweepRoom(part, "0", m.key), sweepRoom(part, "1", m.key))
			}
			claims = append(claims, c)
		}
	}
	return claims
}

// beatsBoth is the claim that a beats both b and c on metric, read as an intersection-union test
// (exp.AllOf): one paired difference per rival on seeds, holding when both hold. A per-seed
// maximum of the rivals would favour them by their number.
func beatsBoth(res *exp.Result, seeds []uint64, text, metric, a, b, c string) exp.Claim {
	one := func(r string) exp.Claim {
		return res.CheckDiffOn(seeds, text, fmt.Sprintf("%s(%s) − %s(%s)", metric, a, metric, r), exp.Positive, a, metric, r, metric)
	}
	return exp.AllOf(text, fmt.Sprintf("%s(%s) − %s(%s) and − %s(%s), each > 0", metric, a, metric, b, metric, c), one(b), one(c))
}

// configOf is the configuration a result was made with (false when it does not decode).
func configOf(res *exp.Result) (Config, bool) {
	var cfg Config
	return cfg, json.Unmarshal(res.Config, &cfg) == nil
}

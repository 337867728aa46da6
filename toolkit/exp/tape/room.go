package tape

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Thresholds of the room checks (see Room).
const (
	// TailFrac is the last share of a training curve over which it must have stopped moving
	// (exp.TailShare / res.Plateau).
	TailFrac = 0.2
	// PlateauRate: a part's budget lets its methods stop improving when, per seed, the slowest of
	// the compared methods still moves over the last TailFrac of its curve by less than this share of
	// what a straight line — the curve still moving at its average rate — would. [UNVERIFIED]
	// PaperLab's choice: half a straight line's rate.
	PlateauRate = 0.5
	// Competitive is the LBF prerequisite: TAPE at p = 0 and p = 1 reach at least this share of
	// IPPO's and MAPPO's value (the "within 10 %" the LBF3 prerequisite claims test).
	Competitive = 0.9
	// EscapeCeiling: the escape runs leave room for more escapes when p = 0 escapes in fewer than
	// this share of runs. [UNVERIFIED] PaperLab's choice.
	EscapeCeiling = 0.9
	// AdamEquivalence: deterministic TAPE under Adam, "p = 1 reaches the optimum as often as p = 0"
	// holds when the paired difference's 95 % interval lies within ± this. [UNVERIFIED] PaperLab's
	// choice: a tenth of the runs.
	AdamEquivalence = 0.1
	// SharedMeanEquivalence: the shared regime's "mean update independent of p" holds when the paired
	// difference of the projections on the exact mean lies within ± this. [UNVERIFIED] PaperLab's choice.
	SharedMeanEquivalence = 0.1
	// SharedFloor and SharedCeiling bound p = 0's mean normalised value over training for the shared
	// regime's learning-speed claims: above the floor it learns, below the ceiling there is room for a
	// faster method. [UNVERIFIED] PaperLab's choice.
	SharedFloor   = 0.1
	SharedCeiling = 0.9
	// CoalFloor and CoalCeiling bound the team reward's (coal-p1's) success rate for the coalition
	// part's claims on that metric. [UNVERIFIED] PaperLab's choice.
	CoalFloor   = 0.1
	CoalCeiling = 0.9
)

// The estimators' expected update against p, from their construction (configuration facts, see
// Room's checks stochastic-mean-depends-on-p, det-direction-depends-on-p and det-actor-adam).
const (
	// stochasticMeanDependsOnP: stochastic TAPE's coalition weight for agent i is
	// Σ_j A_ij·k_j·A_j (+ the λ-return residual, counted once, with Advantage "return"); every j ≠ i
	// term has zero mean given the state under the policy, so p changes the update's variance only.
	stochasticMeanDependsOnP = 0.0
	// detDirectionDependsOnP: deterministic TAPE here is tabular on a one-state game with per-agent
	// logits; u_j depends on agent j's policy only, so the topology scales agent j's step by
	// w_j = (1/N)·Σ_i A_ij·∂Mix/∂x_j ≥ 0 (tape.MixWeights) and never turns it.
	detDirectionDependsOnP = 0.0
	// detActorAdam: the det-… methods (the SGD variant, PaperLab's first runs) step the actor with
	// plain SGD; the authors' code (PAC / OW-QMIX tree) uses Adam — the adam-det-… methods (issue 37).
	detActorAdam = 0.0
)

// Room check names.
const (
	roomStochastic = "stochastic-mean-depends-on-p"
	roomDetDir     = "det-direction-depends-on-p"
	roomDetAdam    = "det-actor-adam"
	roomLBFP0      = "lbf-p0-vs-ippo"
	roomLBFP1      = "lbf-p1-vs-mappo"
	roomLBFBudget  = "lbf-budget-plateau"
	roomLBF3Budget = "lbf3-budget-plateau"
	roomMatrixBud  = "matrix-budget-plateau"
	roomDetBudget  = "det-budget-plateau"
)

// coalRoom is the coalition part's room check for the metric its claim reads: the team reward's
// value off the floor and the ceiling.
func coalRoom(metric string) string { return "coal-team-off-floor-and-ceiling-" + metric }

// lbf3Room is the LBF3 prerequisite as a room check on a metric: "lbf3-p0-vs-ippo-success", ….
func lbf3Room(p, metric string) string {
	base := map[string]string{"0": "lbf3-p0-vs-ippo", "1": "lbf3-p1-vs-mappo"}[p]
	return base + "-" + map[string]string{"success_rate": "success", "sampled_success_rate": "sampled", "return_auc": "speed"}[metric]
}

// adamBudget is the budget-plateau check of the deterministic Adam methods at a rate.
func adamBudget(lr float64) string { return fmt.Sprintf("adam-det-budget-plateau-lr%g", lr) }

// sharedRoom is the shared regime's learning-room check at a rate.
func sharedRoom(lr float64) string { return fmt.Sprintf("shared-room-lr%g", lr) }

// escapeRoom is the escape-headroom check of a batch size.
func escapeRoom(b int) string { return fmt.Sprintf("escape-headroom-b%d", b) }

// seedsWith are the seeds of method's runs that hold metric (the matrix and deterministic parts run
// seeds 1..MatrixSeeds / 1..DetSeeds, not the experiment's seeds).
func seedsWith(res *exp.Result, method, metric string) []uint64 {
	var out []uint64
	for _, r := range res.RunsOf(method) {
		if _, ok := r.Final[metric]; ok {
			out = append(out, r.Seed)
		}
	}
	return out
}

// Room measures, on a result, the preconditions the claims need (the names are the constants
// room*, lbf3Room and escapeRoom):
//
//   - whether the estimator's expected update depends on p at all — stochastic TAPE (value 0: p
//     changes only the variance), deterministic TAPE (value 0: p rescales each agent's step, never
//     turns it) — and whether the deterministic actor uses the authors' optimiser (0: SGD, not Adam);
//     configuration facts, the same on every seed;
//   - LBF: TAPE at p = 0 / p = 1 within 10 % of IPPO / MAPPO (return; LBF3: sampled and greedy
//     success — the prerequisite claims' measures — and the mean training return), mean over seeds
//     of x − 0.9·y ≥ 0;
//   - budget plateaus: per seed, the largest res.Plateau over a part's compared methods (LBF and LBF3
//     training returns, the coordination game's P(optimal)), mean over seeds below PlateauRate × a
//     straight line's value;
//   - the escape runs' headroom: p = 0's escape rate below EscapeCeiling.
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return nil
	}
	var room []exp.RoomCheck

	// Whether p moves the expected update.
	stochWhy := "The inverted U in p needs p to change what stochastic TAPE's update does on average. By the estimator's " +
		"construction (tape.DOPAdvantage, topology.CoalitionAdvantage; offpg_learner.py in the authors' code) agent i's " +
		"weight is Σ_j A_ij·k_j·A_j with A_j = Q_j(a_j) − Σ_a π_j(a)·Q_j(a): each j ≠ i term has zero mean given the state " +
		"under the policy (a_j is drawn independently of a_i), so p changes the update's variance only (the paper's " +
		"Theorem 2 and the audit). Value 1 if the expected update depended on p, 0 if not; it is 0 for the estimators " +
		"used here (\"dop\", and \"return\", which adds the λ-return residual once per coalition). Residues that are not " +
		"the coalition's information: the coordination game's ε-mixed batches give the j ≠ i terms a mean of order ε² " +
		"(ε 0.5 → 0.05), and on LBF the advantage normalisation and PPO clipping scale the step with the p-dependent " +
		"spread. A configuration fact, the same on every seed. Needs: > 0. The variance and escape claims measure " +
		"the variance mechanism itself and do not need it."
	stochOK := true
	for _, a := range []string{cfg.TAPE.Advantage, cfg.LBF3TAPE.Advantage} {
		if a != "" && a != "dop" && a != "return" {
			stochOK = false
		}
	}
	if stochOK {
		room = append(room, exp.Room(roomStochastic, stochasticMeanDependsOnP, exp.Positive, stochWhy))
	} else {
		room = append(room, exp.RoomMissing(roomStochastic, exp.Positive, stochWhy,
			fmt.Sprintf("advantage %q / %q: not an estimator whose mean in p is known", cfg.TAPE.Advantage, cfg.LBF3TAPE.Advantage)))
	}
	room = append(room,
		exp.Room(roomDetDir, detDirectionDependsOnP, exp.Positive, "The deterministic-TAPE inverted U (and the graph-model "+
			"comparison) needs the topology to change where each agent's policy moves, not only how far. Here (tape.TrainDet: "+
			"tabular per-agent logits on a one-state game) agent j's loss term u_j = Σ_a π_j(a)·(α·log π_j(a) − Q_j(a)) "+
			"depends on agent j's policy only, so through the monotonic mixer the topology scales agent j's step by "+
			"w_j = (1/N)·Σ_i A_ij·∂Mix/∂x_j ≥ 0 (tape.MixWeights) and never turns it: p acts as a per-agent step size (the "+
			"audit: our deterministic result was a step-size effect). With parameter-shared actors or several states "+
			"(the authors' code on SMAC) the weights could also change the direction. Value 1 if the direction depended on "+
			"p, 0 if not. A configuration fact. Needs: > 0. The mixer-weight and step-size-control claims measure the "+
			"step-size effect itself and do not need it."),
		exp.Room(roomDetAdam, detActorAdam, exp.Positive, "The authors' deterministic TAPE (PAC / OW-QMIX tree) steps its "+
			"actors with Adam; the det-… methods (the SGD variant, PaperLab's first runs) with plain SGD. Under SGD the per-agent "+
			"rescaling p causes changes the outcome as a learning rate does (the det-p0-lr controls); under Adam a rescaling "+
			"is largely normalised away (the adam-det-… methods, issue 37, which do not need this check). A comparison of p "+
			"under SGD therefore tests a step-size effect, not the paper's setting. Value 1 for Adam, 0 for SGD. A "+
			"configuration fact. Needs: > 0."),
	)

	// LBF prerequisites: TAPE at the extremes within 10 % of the baselines.
	within := func(name, a, b, metric, part string) exp.RoomCheck {
		why := fmt.Sprintf("An inverted U among learners that lose to plain IPPO / MAPPO says nothing about TAPE (the audit: make the "+
			"base learner competitive first). Measured per seed: %s(%s) − %.1f·%s(%s) on %s, the measure of the LBF3 "+
			"prerequisite claims; judged on the mean over seeds. Needs: ≥ 0 (TAPE at the extreme within 10 %% of the baseline "+
			"whose critic it matches: p = 0 the individual one, p = 1 the centralized one).", metric, a, Competitive, metric, b, part)
		return res.CheckRoom(name, exp.AtLeast(0), why, fmt.Sprintf("no %s for %s and %s", metric, a, b), func(seed uint64) (float64, bool) {
			x, ok1 := res.Final(a, metric, seed)
			y, ok2 := res.Final(b, metric, seed)
			return x - Competitive*y, ok1 && ok2
		})
	}
	room = append(room,
		within(roomLBFP0, "p=0", "ippo", "return", "2-agent LBF"),
		within(roomLBFP1, "p=1", "mappo", "return", "2-agent LBF"))
	for _, metric := range []string{"sampled_success_rate", "success_rate", "return_auc"} {
		room = append(room,
			within(lbf3Room("0", metric), "lbf3-p0", "lbf3-ippo", metric, "LBF3"),
			within(lbf3Room("1", metric), "lbf3-p1", "lbf3-mappo", metric, "LBF3"))
	}

	// Budget plateaus: the slowest compared method per seed.
	plateau := func(name, key, what string, methods []string, seeds []uint64) exp.RoomCheck {
		n := 0
		for _, m := range methods {
			for _, s := range seeds {
				if c, ok := res.CurveOf(m, key, s); ok {
					n = len(c.Y)
					break
				}
			}
			if n > 0 {
				break
			}
		}
		line := exp.LineTailShare(n, TailFrac)
		test := exp.Test{Op: exp.Below, X: math.Round(1000*PlateauRate*line) / 1000}
		if math.IsNaN(line) {
			test.X = math.Round(1000*PlateauRate*TailFrac) / 1000
		}
		why := fmt.Sprintf("A comparison of final outcomes (%s) needs a budget at which the compared methods have stopped "+
			"improving; a method still climbing at the end would be ranked by its speed, not by where it goes. Measured per "+
			"seed: the largest exp.TailShare of %s over its last %.0f %% among %s (res.Plateau; %d points, where a straight "+
			"line gives %.2f and a plateau ≈ 0); judged on the mean over seeds. Needs: below %.3g, i.e. the slowest method "+
			"moving at less than %.0f %% of its average rate. [UNVERIFIED] PaperLab's choice of the rate.",
			what, key, 100*TailFrac, strings.Join(methods, ", "), n, line, test.X, 100*PlateauRate)
		return exp.RoomOn(seeds, name, test, why, "no "+key+" curves", func(seed uint64) (float64, bool) {
			// Every compared method must have the curve on this seed: one left out would let the
			// check pass on the others.
			worst := math.Inf(-1)
			for _, m := range methods {
				v, ok := res.Plateau(m, key, TailFrac)(seed)
				if !ok {
					return 0, false
				}
				worst = math.Max(worst, v)
			}
			return worst, true
		})
	}
	names := func(ms []Method) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	var pNames []string
	for _, m := range cfg.MatrixMethods {
		if _, ok := PValue(m.Name); ok {
			pNames = append(pNames, m.Name)
		}
	}
	var detNames []string
	for _, m := range cfg.DetMethods {
		if m.W == 0 { // the OW-weight-0.5 ceiling runs enter no claim
			detNames = append(detNames, m.Name)
		}
	}
	for _, lr := range cfg.DetAdamLRs {
		var names []string
		for _, p := range cfg.DetAdamPs {
			names = append(names, AdamDetName(lr, p))
		}
		room = append(room, plateau(adamBudget(lr), "det/p_optimal", fmt.Sprintf("deterministic TAPE's optimal rate under Adam %g", lr), names,
			seedsWith(res, AdamDetName(lr, 0), "optimal_rate")))
	}
	for _, lr := range cfg.SharedLRs {
		m := SharedName(lr, 0)
		why := fmt.Sprintf("\"p = 0 learns faster than p = 1\" (and the inverted U) at rate %g can show only if p = 0 learns at all and "+
			"leaves room for a faster method: measured per seed, the distance of %s's mean normalised value over training "+
			"(value_auc: 0 the uniform policy, 1 the optimum from the first update) from the nearer of %g and %g, "+
			"min(auc − %g, %g − auc); judged on the mean over seeds. Needs: > 0. [UNVERIFIED] PaperLab's bounds.", lr, m, SharedFloor, SharedCeiling, SharedFloor, SharedCeiling)
		room = append(room, exp.RoomOn(seedsWith(res, m, "value_auc"), sharedRoom(lr), exp.Positive, why, "no value_auc for "+m, func(seed uint64) (float64, bool) {
			v, ok := res.Final(m, "value_auc", seed)
			return math.Min(v-SharedFloor, SharedCeiling-v), ok
		}))
	}
	room = append(room,
		plateau(roomLBFBudget, "lbf/episodic_return", "2-agent LBF final return", names(cfg.LBFMethods), res.Seeds),
		plateau(roomLBF3Budget, "lbf3/episodic_return", "LBF3 greedy success and the prerequisite", names(cfg.LBF3Methods), res.Seeds),
		plateau(roomMatrixBud, "matrix/p_optimal", "the coordination game's optimal rate", pNames, seedsWith(res, "p=0", "optimal_rate")),
		plateau(roomDetBudget, "det/p_optimal", "deterministic TAPE's optimal rate", detNames, seedsWith(res, "det-p0", "optimal_rate")),
	)

	// The coalition task's room, per metric its claims read: the team reward's value neither at the
	// floor nor at the ceiling (LBF returns and success rates lie in [0, 1]).
	if len(cfg.CoalPs) > 0 {
		m := CoalName(1)
		for _, metric := range []string{"success_rate", "return_auc"} {
			why := fmt.Sprintf("A density between own rewards and the team reward can beat both only where the outcome is neither "+
				"impossible nor assured (LBF3's sampled success was 0.93–0.98: a ceiling). Measured per seed: the distance of %s's "+
				"%s (the team reward, IPPO) on %s from the nearer of %g and %g; judged on the mean over seeds. Needs: > 0. "+
				"[UNVERIFIED] PaperLab's bounds.", m, metric, cfg.CoalScenario, CoalFloor, CoalCeiling)
			room = append(room, exp.RoomOn(res.Seeds, coalRoom(metric), exp.Positive, why, "no "+metric+" for "+m, func(seed uint64) (float64, bool) {
				v, ok := res.Final(m, metric, seed)
				return math.Min(v-CoalFloor, CoalCeiling-v), ok
			}))
		}
	}

	// Escape headroom.
	for _, b := range cfg.Variance.Batches {
		v0 := VarName(b, 0)
		why := fmt.Sprintf("\"p escapes the +2 basin more often than p = 0\" can show only if p = 0 leaves escapes to gain: the escape "+
			"runs start inside the basin (Init0 %g) so that p = 0 escapes in some but not most runs. Measured: %s's escape "+
			"rate (mean over its runs of escaped 0/1). Needs: below %.2f ([UNVERIFIED] PaperLab's choice: at least 10 %% of "+
			"the runs left to escape).", cfg.Variance.Init0, v0, EscapeCeiling)
		room = append(room, exp.RoomOn(seedsWith(res, v0, "escape_rate"), escapeRoom(b), exp.Test{Op: exp.Below, X: EscapeCeiling}, why,
			"no escape_rate for "+v0, func(seed uint64) (float64, bool) { return res.Final(v0, "escape_rate", seed) }))
	}
	return room
}

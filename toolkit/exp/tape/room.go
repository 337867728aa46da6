package tape

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Thresholds of the room checks (see Room).
const (
	// TailFrac is the last share of a training curve over which it must have stopped moving
	// (exp.TailShare / res.Plateau).
	TailFrac = 0.2
	// PlateauRate: a part's budget lets its methods stop improving when, for every compared method,
	// the mean over seeds of its signed tail share (res.Plateau: what the curve still moves over the
	// last TailFrac, as a share of the run's change; negative when it turned back) lies within ± this
	// share of what a straight line — a curve still moving at its average rate — gives: neither still
	// climbing nor falling back at more than half its average rate. [UNVERIFIED] PaperLab's choice.
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
	// SMAXCeiling: on SMAX the better extreme's greedy win rate must stay below it for the inverted
	// U to have room (smax-extremes-below-ceiling). [UNVERIFIED] PaperLab's choice: 0.95 (above the
	// gate's 0.9, which MAPPO must reach).
	SMAXCeiling = 0.95
)

// Room check names.
const (
	roomLBFP0      = "lbf-p0-vs-ippo"
	roomLBFP1      = "lbf-p1-vs-mappo"
	roomLBFBudget  = "lbf-budget-plateau"
	roomLBF3Budget = "lbf3-budget-plateau"
	roomSMAXBudget = "smax-budget-plateau"
	roomSMAXGate   = "smax-gate-mappo-wins"
	// roomSMAXCeiling: the better extreme (p = 0 or p = 1) leaves room on greedy won battles.
	roomSMAXCeiling = "smax-extremes-below-ceiling"
	roomMatrixBud   = "matrix-budget-plateau"
	roomDetBudget   = "det-budget-plateau"
)

// coalFloor and coalCeiling are the coalition part's room checks for the metric its claim reads:
// the team reward learns something on it, and leaves room below the ceiling.
func coalFloor(metric string) string   { return "coal-team-off-floor-" + metric }
func coalCeiling(metric string) string { return "coal-team-below-ceiling-" + metric }

// lbf3Room is the LBF3 prerequisite as a room check on a metric: "lbf3-p0-vs-ippo-success", ….
func lbf3Room(p, metric string) string { return sweepRoom("lbf3", p, metric) }

// ranSMAX reports whether the result holds the SMAX part (the runs before 2026-12-07 do not).
func ranSMAX(res *exp.Result) bool {
	_, ok := res.Summary["smax-p0"]
	return ok
}

// sweepRoom is a TAPE-against-baselines part's prerequisite (the part's methods prefixed part-):
// "smax-p1-vs-mappo-sampled", ….
func sweepRoom(part, p, metric string) string {
	base := map[string]string{"0": part + "-p0-vs-ippo", "1": part + "-p1-vs-mappo"}[p]
	return base + "-" + map[string]string{"success_rate": "success", "sampled_success_rate": "sampled", "return_auc": "speed"}[metric]
}

// adamBudget is the budget-plateau check of the deterministic Adam methods at a rate.
func adamBudget(lr float64) string { return fmt.Sprintf("adam-det-budget-plateau-lr%g", lr) }

// sharedLearns and sharedRoom are the shared regime's checks at a rate: p = 0 learns, and leaves
// room for a faster method.
func sharedLearns(lr float64) string { return fmt.Sprintf("shared-learns-lr%g", lr) }
func sharedRoom(lr float64) string   { return fmt.Sprintf("shared-room-lr%g", lr) }

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
// room*, lbf3Room, adamBudget, sharedLearns, sharedRoom, coalFloor, coalCeiling and escapeRoom),
// each read on the statistic of its kind (exp.RoomCheck):
//
//   - LBF: TAPE at p = 0 / p = 1 within 10 % of IPPO / MAPPO (return; LBF3: sampled and greedy
//     success — the prerequisite claims' measures — and the mean training return), per seed
//     x − 0.9·y, achieved when the 95 % interval's lower end is ≥ 0 (exp.RoomAchieves);
//   - budget plateaus (budgetSettled): per compared method, the mean over seeds of its signed tail
//     share (res.Plateau), every method within ±PlateauRate × a straight line's (exp.RoomSettled,
//     read on the least settled method);
//   - the shared regime: p = 0 learns (value above SharedFloor, interval's lower end) and leaves
//     room (below SharedCeiling, mean); the coalition part: the team reward off CoalFloor (lower
//     end) and below CoalCeiling (mean);
//   - the escape runs' headroom: p = 0's escape rate below EscapeCeiling (mean).
//
// What the estimators' construction decides (p moves stochastic TAPE's update only through its
// variance; deterministic TAPE's mixer rescales steps; the SGD variant) is not measured here: it is
// an argument, written beside the claims it bears on (notes.go).
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return nil
	}
	var room []exp.RoomCheck

	// LBF prerequisites: TAPE at the extremes within 10 % of the baselines.
	within := func(name, a, b, metric, part string) exp.RoomCheck {
		why := fmt.Sprintf("An inverted U among learners that lose to plain IPPO / MAPPO says nothing about TAPE (the audit: make the "+
			"base learner competitive first). Measured per seed: %s(%s) − %.1f·%s(%s) on %s, the measure of the LBF3 "+
			"prerequisite claims; achieved when the lower end of its 95 %% interval over seeds is ≥ 0 (TAPE at the extreme "+
			"within 10 %% of the baseline whose critic it matches: p = 0 the individual one, p = 1 the centralized one).",
			metric, a, Competitive, metric, b, part)
		return res.CheckAchieves(name, exp.AtLeast(0), why, fmt.Sprintf("no %s for %s and %s", metric, a, b), func(seed uint64) (float64, bool) {
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
		if ranSMAX(res) {
			room = append(room,
				within(sweepRoom("smax", "0", metric), "smax-p0", "smax-ippo", metric, "SMAX 3m"),
				within(sweepRoom("smax", "1", metric), "smax-p1", "smax-mappo", metric, "SMAX 3m"))
		}
	}
	if ranSMAX(res) {
		room = append(room, exp.RoomOn(res.Seeds, roomSMAXGate, exp.AtLeast(cfg.SMAXGate),
			fmt.Sprintf("TAPE is compared on SMAX only where plain MAPPO learns to win there: smax-mappo's greedy win rate against the heuristic enemy "+
				"(EvalEpisodes battles per seed) on the mean over seeds must reach %g (the smax experiment's gate, fixed before any run).", cfg.SMAXGate),
			"no smax-mappo success_rate", func(seed uint64) (float64, bool) { return res.Final("smax-mappo", "success_rate", seed) }),
			res.CheckRoom(roomSMAXCeiling, exp.Positive, fmt.Sprintf("An intermediate density can beat both extremes on won battles only "+
				"where the better of them leaves room below 1 (the gate asks MAPPO for ≥ %g, and p = 1 must come within 10 %% of it): measured "+
				"per seed, %g − the larger of smax-p0's and smax-p1's greedy win rates; judged on the mean over seeds. Needs: > 0. "+
				"[UNVERIFIED] PaperLab's ceiling.", cfg.SMAXGate, SMAXCeiling),
				"no success_rate for smax-p0 or smax-p1", func(seed uint64) (float64, bool) {
					a, ok1 := res.Final("smax-p0", "success_rate", seed)
					b, ok2 := res.Final("smax-p1", "success_rate", seed)
					return SMAXCeiling - max(a, b), ok1 && ok2
				}))
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
		room = append(room, budgetSettled(res, adamBudget(lr), "det/p_optimal", fmt.Sprintf("deterministic TAPE's optimal rate under Adam %g", lr), names,
			seedsWith(res, AdamDetName(lr, 0), "optimal_rate")))
	}
	for _, lr := range cfg.SharedLRs {
		m := SharedName(lr, 0)
		seeds := seedsWith(res, m, "value_auc")
		auc := func(seed uint64) (float64, bool) { return res.Final(m, "value_auc", seed) }
		learnsWhy := fmt.Sprintf("\"p = 0 learns faster than p = 1\" (and the inverted U) at rate %g can show only if p = 0 learns at all: "+
			"measured per seed, %s's mean normalised value over training (value_auc: 0 the uniform policy, 1 the optimum from the "+
			"first update) minus %g; achieved when the lower end of its 95 %% interval over seeds is > 0. [UNVERIFIED] PaperLab's floor.",
			lr, m, SharedFloor)
		roomWhy := fmt.Sprintf("… and only if p = 0 leaves room for a faster method: measured per seed, %g − %s's value_auc; judged on "+
			"the mean over seeds. Needs: > 0. [UNVERIFIED] PaperLab's ceiling.", SharedCeiling, m)
		room = append(room,
			exp.RoomAchieves(seeds, sharedLearns(lr), exp.Positive, learnsWhy, "no value_auc for "+m, func(seed uint64) (float64, bool) {
				v, ok := auc(seed)
				return v - SharedFloor, ok
			}),
			exp.RoomOn(seeds, sharedRoom(lr), exp.Positive, roomWhy, "no value_auc for "+m, func(seed uint64) (float64, bool) {
				v, ok := auc(seed)
				return SharedCeiling - v, ok
			}))
	}
	if ranSMAX(res) {
		room = append(room, budgetSettled(res, roomSMAXBudget, "smax/episodic_return", "SMAX greedy win rate and the prerequisite", names(cfg.SMAXMethods), res.Seeds))
	}
	room = append(room,
		budgetSettled(res, roomLBFBudget, "lbf/episodic_return", "2-agent LBF final return", names(cfg.LBFMethods), res.Seeds),
		budgetSettled(res, roomLBF3Budget, "lbf3/episodic_return", "LBF3 greedy success and the prerequisite", names(cfg.LBF3Methods), res.Seeds),
		budgetSettled(res, roomMatrixBud, "matrix/p_optimal", "the coordination game's optimal rate", pNames, seedsWith(res, "p=0", "optimal_rate")),
		budgetSettled(res, roomDetBudget, "det/p_optimal", "deterministic TAPE's optimal rate", detNames, seedsWith(res, "det-p0", "optimal_rate")),
	)

	// The coalition task's room, per metric its claims read: the team reward's value neither at the
	// floor nor at the ceiling (LBF returns and success rates lie in [0, 1]).
	if len(cfg.CoalPs) > 0 {
		m := CoalName(1)
		for _, metric := range []string{"success_rate", "return_auc"} {
			val := func(seed uint64) (float64, bool) { return res.Final(m, metric, seed) }
			floorWhy := fmt.Sprintf("A density between own rewards and the team reward can beat both only where the outcome is not "+
				"impossible: measured per seed, %s's %s (the team reward, IPPO) on %s minus %g; achieved when the lower end of its "+
				"95 %% interval over seeds is > 0. [UNVERIFIED] PaperLab's floor.", m, metric, cfg.CoalScenario, CoalFloor)
			ceilWhy := fmt.Sprintf("… and not assured (LBF3's sampled success was 0.93–0.98: a ceiling): measured per seed, %g − %s's %s; "+
				"judged on the mean over seeds. Needs: > 0. [UNVERIFIED] PaperLab's ceiling.", CoalCeiling, m, metric)
			room = append(room,
				res.CheckAchieves(coalFloor(metric), exp.Positive, floorWhy, "no "+metric+" for "+m, func(seed uint64) (float64, bool) {
					v, ok := val(seed)
					return v - CoalFloor, ok
				}),
				res.CheckRoom(coalCeiling(metric), exp.Positive, ceilWhy, "no "+metric+" for "+m, func(seed uint64) (float64, bool) {
					v, ok := val(seed)
					return CoalCeiling - v, ok
				}))
		}
	}

	// Escape headroom.
	for _, b := range cfg.Variance.Batches {
		v0 := VarName(b, 0)
		why := fmt.Sprintf("\"p escapes the +2 basin more often than p = 0\" can show only if p = 0 leaves escapes to gain: the escape "+
			"runs start inside the basin (Init0 %g) so that p = 0 escapes in some but not most runs. Measured: %s's escape "+
			"rate (per seed escaped 0/1; the mean over seeds). Needs: below %.2f ([UNVERIFIED] PaperLab's choice: at least 10 %% of "+
			"the runs left to escape).", cfg.Variance.Init0, v0, EscapeCeiling)
		room = append(room, exp.RoomOn(seedsWith(res, v0, "escape_rate"), escapeRoom(b), exp.Test{Op: exp.Below, X: EscapeCeiling}, why,
			"no escape_rate for "+v0, func(seed uint64) (float64, bool) { return res.Final(v0, "escape_rate", seed) }))
	}
	return room
}

// budgetSettled is a part's budget check on curve key: for each compared method, the mean over the
// seeds of its signed tail share (res.Plateau) must lie within ±PlateauRate × a straight line's
// value. The check is read on the least settled method (largest |mean|), so it passes only when
// every method does; its seeds are those on which every method has the curve (one left out would
// let the check pass on the others).
func budgetSettled(res *exp.Result, name, key, what string, methods []string, seeds []uint64) exp.RoomCheck {
	n := 0
	var common []uint64
	for _, s := range seeds {
		all := len(methods) > 0
		for _, m := range methods {
			c, ok := res.CurveOf(m, key, s)
			if _, fin := res.Plateau(m, key, TailFrac)(s); !ok || !fin {
				all = false
				break
			}
			n = len(c.Y)
		}
		if all {
			common = append(common, s)
		}
	}
	line := exp.LineTailShare(n, TailFrac)
	threshold := math.Round(1000*PlateauRate*line) / 1000
	if math.IsNaN(line) {
		threshold = math.Round(1000*PlateauRate*TailFrac) / 1000
	}
	worst, worstMean := "", -1.0
	var means []string
	for _, m := range methods {
		var vals []float64
		for _, s := range common {
			v, _ := res.Plateau(m, key, TailFrac)(s)
			vals = append(vals, v)
		}
		if len(vals) == 0 {
			continue
		}
		mean := stats.Mean(vals)
		means = append(means, fmt.Sprintf("%s %+.3g", m, mean))
		if math.Abs(mean) > worstMean {
			worst, worstMean = m, math.Abs(mean)
		}
	}
	why := fmt.Sprintf("A comparison of final outcomes (%s) needs a budget at which the compared methods have stopped "+
		"improving; a method still climbing at the end would be ranked by its speed, not by where it goes, and one falling back "+
		"by where it happened to stop. Measured per seed: the signed exp.TailShare of %s over its last %.0f %% (res.Plateau: the "+
		"share of the run's change still made at the end, negative when the curve turned back; %d points, where a straight "+
		"line gives %.2f and a plateau ≈ 0); for each of %s the mean over the seeds on which all have the curve must lie within "+
		"±%.3g, i.e. no method moving at more than %.0f %% of its average rate. Read on the least settled method, %s "+
		"(means: %s). [UNVERIFIED] PaperLab's choice of the rate.",
		what, key, 100*TailFrac, n, line, strings.Join(methods, ", "), threshold, 100*PlateauRate, worst, strings.Join(means, "; "))
	if worst == "" {
		r := exp.RoomMissing(name, exp.Within(threshold), why, "no "+key+" curves for every one of "+strings.Join(methods, ", "))
		r.Stat = exp.StatTailMean
		return r
	}
	return exp.RoomSettled(common, name, threshold, why, "no "+key+" curves", res.Plateau(worst, key, TailFrac))
}

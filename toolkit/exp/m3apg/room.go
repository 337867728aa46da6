package m3apg

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/m3apg"
)

// Thresholds of the room checks (see Room).
const (
	// ConvergedFall: a critic has converged in policy evaluation when its error, over the last
	// doubling of its budget, moves by less than this share of its level per doubling in either
	// direction (exp.FallPerDoubling per seed, signed; the mean over seeds within ±ConvergedFall,
	// exp.RoomSettled). [UNVERIFIED] PaperLab's choice: 15 %; at a 2.56M-transition plateau one
	// seed's estimate scatters by about ±0.1 (probes, N = 6) and the mean over 5 seeds by about ±0.05.
	ConvergedFall = 0.15
	// LearnsGain: a critic learns when, on the joint actions it was trained on, it removes more than
	// this share of the best constant predictor's RMS error (q_total_spread), read on the lower end
	// of the 95 % interval over seeds (exp.RoomAchieves). [UNVERIFIED] PaperLab's choice: 10 % below
	// the constant.
	LearnsGain = 0.1
	// HiddenShare: the game leaves the MI term room when at least this share of the exact Q's
	// variation across joint actions is not fixed by the immediate reward. [UNVERIFIED] PaperLab's
	// choice: half.
	HiddenShare = 0.5
	// RevealedMax: the game hides joint actions' effects from the reward when at most this share of
	// (state, joint action) pairs has a next reward that tells anything about the effect
	// (env.Push.RevealedShare). [UNVERIFIED] PaperLab's choice: a quarter.
	RevealedMax = 0.25
	// ReturnTail and ReturnTailShare: a learning run's training return has settled when, over its
	// last ReturnTail of iterations, it still makes (mean over seeds of the signed exp.TailShare)
	// within ±ReturnTailShare of the run's change. [UNVERIFIED] PaperLab's choice, as in the other
	// experiments: half the steady-climb value (0.2 over the last 20 %).
	ReturnTail      = 0.2
	ReturnTailShare = 0.1
)

// returnSettledName and returnLearnsName are the learning runs' checks (m3apg-2 needs them for
// M3APG and the baseline it is compared with).
func returnSettledName(method string, n int) string { return returnSettledOn(method, nWhere(n)) }
func returnLearnsName(method string, n int) string  { return returnLearnsOn(method, nWhere(n)) }

// returnSettledOn and returnLearnsOn name the learning runs' checks on a game (where: "N = 6",
// "SMAX 3m").
func returnSettledOn(method, where string) string {
	return fmt.Sprintf("%s training return settled (%s)", method, where)
}
func returnLearnsOn(method, where string) string {
	return fmt.Sprintf("%s learns: training return above its start (%s)", method, where)
}
func nWhere(n int) string { return fmt.Sprintf("N = %d", n) }

// returnChecks are the learning runs' room checks at n agents for each method: its training
// return (curve n<N>/episodic_return) settled (exp.RoomSettled) and above where it started
// (exp.RoomAchieves on the mean of its last ReturnTail minus its first point). A return gap read
// while one method still climbs is a gap in speed at this budget, and one against a method that
// never learned is against a floor.
func returnChecks(res *exp.Result, methods []string, n int) []exp.RoomCheck {
	return returnChecksOn(res, methods, fmt.Sprintf("n%d/episodic_return", n), nWhere(n))
}

// returnChecksOn are returnChecks on a learning curve key of the game where.
func returnChecksOn(res *exp.Result, methods []string, key, where string) []exp.RoomCheck {
	var out []exp.RoomCheck
	for _, m := range methods {
		out = append(out,
			exp.RoomSettled(res.Seeds, returnSettledOn(m, where), ReturnTailShare,
				fmt.Sprintf("A return comparison at the end of training says which method learns the better policy only once both have stopped improving. "+
					"Measured per seed: the signed exp.TailShare of %s over the last %.0f %% of iterations (a steady climb makes %g, a plateau ~0); needs the "+
					"mean over seeds within ±%g. [UNVERIFIED] PaperLab's choice: half the steady-climb value.", key, 100*ReturnTail, ReturnTail, ReturnTailShare),
				"no "+key+" curve for "+m, res.Plateau(m, key, ReturnTail)),
			exp.RoomAchieves(res.Seeds, returnLearnsOn(m, where), exp.Positive,
				fmt.Sprintf("A method compared on its return must have learned: the mean of %s over its last %.0f %% of iterations minus its first point "+
					"(the untrained policy's), per seed; needs the lower end of its 95 %% interval over seeds above 0.", key, 100*ReturnTail),
				"no "+key+" curve for "+m, res.CurveMeasure(m, key, func(c exp.Curve) float64 {
					k := max(1, int(math.Round(ReturnTail*float64(len(c.Y)))))
					sum := 0.0
					for _, y := range c.Y[len(c.Y)-k:] {
						sum += y
					}
					return sum/float64(k) - c.Y[0]
				})))
	}
	return out
}

// critics are the methods with a critic evaluated against the exact Q.
var critics = []string{m3apg.CentralQ, m3apg.M3APG, m3apg.M3APGNoMI}

// Room names, one per (critic, N, reward, joint-action set) as the claims need them; rp is the
// reward's metric prefix ("" shaped, "sparse_"), named "sparse-…".
func convergedName(rp, set, method string, n int) string {
	s := ""
	if set == "seen" {
		s = "seen-"
	}
	return fmt.Sprintf("%sconverged-%s%s-n%d", namePrefix(rp), s, method, n)
}
func learnsName(rp string, n int) string {
	return fmt.Sprintf("%scentral-q-learns-n%d", namePrefix(rp), n)
}
func hidesName(rp string, n int) string {
	return fmt.Sprintf("%sreward-hides-effect-n%d", namePrefix(rp), n)
}
func kindLearnsName(rp, kind string, n int) string {
	if kind == m3apg.CentralQ {
		return learnsName(rp, n)
	}
	return fmt.Sprintf("%s%s-learns-n%d", namePrefix(rp), kind, n)
}
func revealsName(rp string, n int) string {
	return fmt.Sprintf("%sreward-reveals-few-effects-n%d", namePrefix(rp), n)
}
func namePrefix(rp string) string {
	if rp == "" {
		return ""
	}
	return rewardName(rp) + "-"
}

// Room measures, on a result, the preconditions the claims need, each read on the statistic its
// kind of check reads (exp.RoomCheck) — SMAX's where part smax ran (smaxRoom), then the push games':
//
//   - converged-<critic>-n<N> (sparse-…, hard-…, seen-…): the critic's policy-evaluation error curve
//     (n<N>/eval/<game>critic_error_{unseen,seen}) has stopped moving — a "has stopped moving"
//     check (exp.RoomSettled): exp.FallPerDoubling over its last doubling per seed, signed, the
//     mean over seeds within ±ConvergedFall (convergedCheck);
//   - <critic>-learns-n<N> (sparse-…, hard-…): the critic removes more than LearnsGain of the best
//     constant's error (q_total_spread) on seen joint actions — an "achieves" check
//     (exp.RoomAchieves: the lower end of the 95 % interval over seeds; learnsCheck);
//   - reward-hides-effect-n<N> and reward-reveals-few-effects-n<N> (sparse-…, hard-…): properties of
//     the game the configuration names, computed exactly (exp.Room: RewardHiddenShare at least
//     HiddenShare; env.Push.RevealedShare below RevealedMax).
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil || len(cfg.Agents) == 0 {
		return nil
	}
	lo, hi := slices.Min(cfg.Agents), slices.Max(cfg.Agents)
	var room []exp.RoomCheck
	if smaxRan(res) {
		room = smaxRoom(res, cfg.SMAX)
	}
	if !pushRan(res) {
		return room
	}
	converged := func(rp, set, method string, n int) { room = append(room, convergedCheck(res, rp, set, method, n)) }
	learns := func(rp string, n int) { room = append(room, learnsCheck(res, rp, m3apg.CentralQ, n)) }
	learnsKind := func(rp, kind string, n int) { room = append(room, learnsCheck(res, rp, kind, n)) }
	hides := func(rp string, n int) {
		name := hidesName(rp, n)
		scenario, gamma := cfg.game(rp, n)
		why := fmt.Sprintf("The MI term gives the embedding the transition s → s′; it can add to the value loss only where the "+
			"reward does not already tell the critic what a joint action does. In the push game Q(s, a) = r(s, s′) + γ·V(s′) "+
			"depends on the joint action only through s′, and the audit found the shaped reward reveals it at once. Measured "+
			"from the game the configuration names (%s reward, N = %d, γ = %g, uniform policy, every step and cell ≠ goal): "+
			"the share of the exact Q's within-state variance across joint actions left once the joint actions are grouped by "+
			"their immediate reward (1 − η²; 0: the reward fixes Q's dependence on the joint action, 1: it says nothing). "+
			"Needs: at least %.2f ([UNVERIFIED] PaperLab's choice: most of what the MI term could teach must be invisible in "+
			"one step's reward). A configuration fact: the same for every seed.", rewardName(rp), n, gamma, HiddenShare)
		game, err := env.Make(scenario)
		if err != nil {
			room = append(room, exp.RoomMissing(name, exp.AtLeast(HiddenShare), why, err.Error()))
			return
		}
		share, err := RewardHiddenShare(game.(*env.Push), gamma)
		if err != nil {
			room = append(room, exp.RoomMissing(name, exp.AtLeast(HiddenShare), why, err.Error()))
			return
		}
		room = append(room, exp.Room(name, share, exp.AtLeast(HiddenShare), why))
	}
	reveals := func(rp string, n int) {
		scenario, _ := cfg.game(rp, n)
		why := fmt.Sprintf("The MI term has something to add only in a game whose next reward does not already show what a "+
			"joint action did. Measured from the game the configuration names (%s, every step and cell ≠ goal, every joint action): "+
			"the share of (state, joint action) pairs whose next reward differs from another joint action's there — the reward "+
			"carries something about the effect (env.Push.RevealedShare). Needs: at most %.2f ([UNVERIFIED] PaperLab's choice). "+
			"A configuration fact: the same for every seed.", scenario, RevealedMax)
		game, err := env.Make(scenario)
		if err != nil {
			room = append(room, exp.RoomMissing(revealsName(rp, n), exp.Test{Op: exp.Below, X: RevealedMax}, why, err.Error()))
			return
		}
		room = append(room, exp.Room(revealsName(rp, n), game.(*env.Push).RevealedShare(), exp.Test{Op: exp.Below, X: RevealedMax}, why))
	}
	prefixes, _ := cfg.rewards(hi)
	for _, rp := range prefixes {
		reveals(rp, hi)
		for _, m := range critics {
			converged(rp, "unseen", m, hi)
		}
		if rp == "" {
			for _, m := range critics[:2] {
				converged(rp, "seen", m, hi)
			}
			if lo != hi {
				for _, m := range critics[:2] {
					converged(rp, "unseen", m, lo)
				}
			}
		}
		learns(rp, hi)
		if rp == "" && lo != hi {
			learns(rp, lo)
		}
		hides(rp, hi)
	}
	room = append(room, returnChecks(res, append([]string{m3apg.M3APG}, mapgBaselines...), hi)...)
	if cfg.Hard {
		const rp = "hard_"
		lo := slices.Min(cfg.hardAgents())
		for _, m := range hardCritics {
			for _, set := range []string{"unseen", "seen"} {
				converged(rp, set, m, hi)
			}
			learnsKind(rp, m, hi)
			if lo != hi {
				converged(rp, "unseen", m, lo)
				learnsKind(rp, m, lo)
			}
		}
		hides(rp, hi)
		reveals(rp, hi)
	}
	return room
}

// convergedCheck is converged-<critic>-n<N>: method's policy-evaluation error curve on game rp and
// joint-action set set ("unseen", "seen") has stopped moving — exp.RoomSettled on the signed
// exp.FallPerDoubling of each seed's curve, within ±ConvergedFall.
func convergedCheck(res *exp.Result, rp, set, method string, n int) exp.RoomCheck {
	key := fmt.Sprintf("n%d/eval/%scritic_error_%s", n, rp, set)
	why := fmt.Sprintf("A comparison of critic errors at the end of policy evaluation says which critic evaluates the policy "+
		"better only once the errors have stopped moving; a critic still improving at the last checkpoint (the audit: errors "+
		"still fall there) would be compared at an arbitrary budget, and one whose error turns back up is diverging. "+
		"Measured per seed, signed: exp.FallPerDoubling of %s — the least-squares slope of the error on log₂(transitions) "+
		"over the curve's last doubling, as a share of its level there (0.3: still falling by 30 %% per doubling; ≈ 0: "+
		"stopped; < 0: rising). The tail is the last doubling of the budget (the last half of the evenly spaced checkpoints), "+
		"not the last 20 %%: a 20 %% window spans 0.3 doubling, too short to read a fall per doubling through the "+
		"checkpoints' noise. Needs: the mean over seeds within ±%.2f. [UNVERIFIED] PaperLab's choice; one seed's value "+
		"scatters by about ±0.1 at a plateau.", key, ConvergedFall)
	return exp.RoomSettled(res.Seeds, convergedName(rp, set, method, n), ConvergedFall, why,
		fmt.Sprintf("no %s curve for %s (SparseEval off, or an older result)", key, method), res.CurveMeasure(method, key, exp.FallPerDoubling))
}

// learnsCheck is <kind>-learns-n<N>: the critic kind's policy evaluation on game rp removes more than
// LearnsGain of the best constant's error on seen joint actions (LearnedShare), read on the lower
// end of its 95 % interval over seeds (exp.RoomAchieves).
func learnsCheck(res *exp.Result, rp, kind string, n int) exp.RoomCheck {
	seen, spread := fmt.Sprintf("n%d/%scritic_error_seen", n, rp), fmt.Sprintf("n%d/%sq_total_spread", n, rp)
	why := fmt.Sprintf("\"Below Central-Q\" tests a critic's generalisation only if the one-hot baseline learns what it is "+
		"trained on; the audit found it no better than a constant even on seen joint actions (1.215 vs 1.205 at N = 6), so "+
		"the gap measured its optimisation failure. Measured per seed: 1 − %s ÷ %s (central-q, policy evaluation), the "+
		"share of the best constant predictor's error the critic removes — %s is the RMS of the exact Q about its mean over "+
		"the same (step, cell ≠ goal, joint action) grid (m3apg.QSpread, uniform policy; the evaluated policy is the "+
		"near-uniform initial one). Needs: the lower end of its 95 %% interval over seeds above %.2f ([UNVERIFIED] "+
		"PaperLab's choice: 10 %% below the constant, clear of the two estimates' noise — 20 000 rows each, the policy near-, "+
		"not exactly, uniform). For scale, a critic that knew V(s) exactly and ignored the joint action would score "+
		"1 − q_joint_spread / q_total_spread (on the committed run 0.39 shaped, 0.05 sparse at N = 6).", seen, spread, spread, LearnsGain)
	if kind != m3apg.CentralQ {
		why = fmt.Sprintf("A critic is a baseline (or a contender) worth comparing only if it learns what it is trained on. "+
			"Measured per seed: 1 − %s (%s, policy evaluation) ÷ %s, the share of the best constant predictor's error "+
			"(m3apg.QSpread, uniform policy) the critic removes. Needs: the lower end of its 95 %% interval over seeds above "+
			"%.2f ([UNVERIFIED] PaperLab's choice, as for central-q).", seen, kind, spread, LearnsGain)
	}
	return exp.RoomAchieves(res.Seeds, kindLearnsName(rp, kind, n), exp.Test{Op: exp.Above, X: LearnsGain}, why,
		"no "+seen+" or "+spread+" for "+kind, LearnedShare(res, kind, seen, spread))
}

// LearnedShare is, per seed, the share of the best constant predictor's error that kind's critic
// removes: 1 − final seen / final spread (absent where either is missing or spread ≤ 0).
func LearnedShare(res *exp.Result, kind, seen, spread string) exp.PerSeed {
	return func(seed uint64) (float64, bool) {
		e, ok1 := res.Final(kind, seen, seed)
		c, ok2 := res.Final(kind, spread, seed)
		return 1 - e/c, ok1 && ok2 && c > 0
	}
}

// RewardHiddenShare is the share of a push game's exact Q (uniform policy) that varies across joint
// actions within a state but not with the immediate reward: over every step and cell ≠ goal, the
// within-state sum of squares of Q about its mean over the joint actions with the same reward,
// divided by its sum of squares about the state's mean (1 − η² of Q on the reward, pooled over
// states). 0 when the reward fixes Q's dependence on the joint action; NaN when Q does not depend on
// it at all.
func RewardHiddenShare(p *env.Push, gamma float64) (float64, error) {
	n := p.Spec().Agents
	q, err := m3apg.UniformQ(p, gamma)
	if err != nil {
		return 0, err
	}
	joints := int(math.Pow(4, float64(n)))
	net := make([][2]int, joints)
	for k := range net {
		dx, dy := env.NetPush(env.JointAction(k, n))
		net[k] = [2]int{dx, dy}
	}
	var within, total float64
	for t := range q.Q {
		for c, row := range q.Q[t] {
			if c == p.Goal() {
				continue
			}
			var mean float64
			sum, cnt := map[float64]float64{}, map[float64]float64{}
			rs := make([]float64, len(row))
			for k, v := range row {
				_, r, _ := p.Next(c, t, net[k][0], net[k][1])
				rs[k] = r
				sum[r] += v
				cnt[r]++
				mean += v / float64(len(row))
			}
			for k, v := range row {
				g := sum[rs[k]] / cnt[rs[k]]
				within += (v - g) * (v - g)
				total += (v - mean) * (v - mean)
			}
		}
	}
	if total < 1e-12 {
		return math.NaN(), nil
	}
	return within / total, nil
}

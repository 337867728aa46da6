package m3apg

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/m3apg"
)

// Notes on claims whose outcome an argument, not the data, bears on (exp.Claim.Structural and
// ByConstruction).
const (
	// oneHotUnseen is why a comparison with Central-Q on joint actions its critic never saw is
	// structural: the baseline cannot lose it.
	oneHotUnseen = "Central-Q's critic takes the joint action as a one-hot row of its first layer, and those rows start at " +
		"zero (m3apg.JointInitZeroRows); a held-out joint action's row is never trained, so on unseen joint actions the " +
		"critic predicts from the state alone and cannot use the joint action at all — any critic that can use an unseen " +
		"joint action beats it there. The informative comparison is with the COMA-style critic (per-agent one-hots)"
	// additivePush is why the push game leaves a joint-action embedding no room over factored inputs.
	additivePush = "the push game's effect is the clipped vector sum of the agents' pushes (additive in the agents' actions), " +
		"which a critic over per-agent action inputs represents as well as one over a joint-action embedding; an embedding " +
		"has room over factored inputs only in a game where one agent's effect depends on another's action"
	// counterfactualZeroRows is why the return comparison is against a handicapped learner.
	counterfactualZeroRows = "Central-Q's policy gradient takes COMA's counterfactual baseline Σ_b π_i(b)·Q(s, (b, a₋ᵢ)) from " +
		"its one-hot critic, whose rows for the held-out joint actions (HoldOut, 30 %) stay at zero: every advantage " +
		"whose counterfactuals include one is built from the state-only prediction there, while M3APG's critic evaluates them"
	// halvesStructuralGap is why "removing the MI term erases most of the gain" is measured against
	// a structural gap.
	halvesStructuralGap = "the gain it halves is M3APG's gap over Central-Q on unseen joint actions, whose size the one-hot " +
		"critic's untrained rows set (see the claims against Central-Q)"
)

// Claims checks the paper's claims per seed with paired intervals, the informative comparisons
// first: on SMAX where part smax ran (smaxClaims: there the headlines), then on the push games. On the hard game (Config.Hard; hardClaims): M3APG's critic error on unseen effects below
// the COMA-style critic's (the headline m3apg-1), the V(s) floor's and Central-Q's (structural),
// the gaps growing with N, and the MI ablation over the budgets (m3apg-3) and at each budget. On
// the shaped game: M3APG's unseen error below Central-Q's (structural) and the gap growing with N;
// removing the MI term erases most of the gain (m3apg-nomi's unseen error closer to central-q's
// than to m3apg's); the MI term lowers the unseen error; M3APG's return at least Central-Q's
// (m3apg-2); the seen error below Central-Q's; the MI term shaping the embedding. With SparseEval
// the error and MI claims are repeated on the sparse-reward game.
//
// Each claim names the room checks it needs (Room): the compared critics converged in policy
// evaluation, baselines that learn, and for the MI claims a game whose reward hides the joint
// action's effect.
func Claims(res *exp.Result) []exp.Claim {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil || len(cfg.Agents) == 0 {
		return nil
	}
	lo, hi := slices.Min(cfg.Agents), slices.Max(cfg.Agents)
	var claims []exp.Claim
	if smaxRan(res) { // the paper's kind of benchmark: its claims are the headlines where it ran
		claims = smaxClaims(res, cfg.SMAX)
	}
	if !pushRan(res) {
		return claims
	}
	if cfg.Hard {
		claims = append(claims, hardClaims(res, cfg, slices.Min(cfg.hardAgents()), hi)...)
	}
	claims = append(claims, shapedClaims(res, lo, hi)...)
	if cfg.SparseEval {
		claims = append(claims, sparseClaims(res, hi)...)
	}
	return claims
}

// unseenGap is, per seed, Central-Q's final unseen critic error minus M3APG's on game rp at n agents.
func unseenGap(res *exp.Result, rp string, n int, seed uint64) (float64, bool) {
	k := fmt.Sprintf("n%d/%scritic_error_unseen", n, rp)
	a, ok1 := res.Final(m3apg.CentralQ, k, seed)
	b, ok2 := res.Final(m3apg.M3APG, k, seed)
	return a - b, ok1 && ok2
}

// miNeeded is, per seed, how much more than half of M3APG's gap over Central-Q removing the MI
// term gives back on game rp at n agents: [err(m3apg-nomi) − err(m3apg)] − ½·[err(central-q) − err(m3apg)].
func miNeeded(res *exp.Result, rp string, n int) exp.PerSeed {
	k := fmt.Sprintf("n%d/%scritic_error_unseen", n, rp)
	return func(seed uint64) (float64, bool) {
		g, ok1 := unseenGap(res, rp, n, seed)
		x, ok2 := res.Final(m3apg.M3APGNoMI, k, seed)
		y, ok3 := res.Final(m3apg.M3APG, k, seed)
		return (x - y) - 0.5*g, ok1 && ok2 && ok3
	}
}

// shapedClaims are the claims on the shaped game (critic errors at the largest N against the
// smallest) and on the learning runs (return at the largest N).
func shapedClaims(res *exp.Result, lo, hi int) []exp.Claim {
	cq, m, nomi := m3apg.CentralQ, m3apg.M3APG, m3apg.M3APGNoMI
	grows := func(seed uint64) (float64, bool) {
		a, ok1 := unseenGap(res, "", hi, seed)
		b, ok2 := unseenGap(res, "", lo, seed)
		return a - b, ok1 && ok2
	}
	cqHi, mHi, nomiHi := convergedName("", "unseen", cq, hi), convergedName("", "unseen", m, hi), convergedName("", "unseen", nomi, hi)
	return []exp.Claim{
		res.Check(fmt.Sprintf("M3APG's critic error on unseen joint actions is below Central-Q's (N = %d)", hi),
			"err_unseen(central-q) − err_unseen(m3apg)", exp.Positive, res.Diff(cq, "critic_error_unseen", m, "critic_error_unseen")).
			Needs(cqHi, mHi, learnsName("", hi)).Structural(oneHotUnseen),
		res.Check(fmt.Sprintf("the gap grows with N (N = %d against N = %d)", hi, lo), "gap(N max) − gap(N min)", exp.Positive, grows).
			Needs(cqHi, mHi, convergedName("", "unseen", cq, lo), convergedName("", "unseen", m, lo), learnsName("", hi), learnsName("", lo)).
			Structural(oneHotUnseen + "; the share of joint actions a one-hot critic never sees grows with N"),
		res.Check("removing the MI term erases most of the gain", "[err(m3apg-nomi) − err(m3apg)] − ½·[err(central-q) − err(m3apg)], unseen, N max", exp.Positive, miNeeded(res, "", hi)).
			Needs(cqHi, mHi, nomiHi, learnsName("", hi), hidesName("", hi)).ByConstruction(halvesStructuralGap),
		res.Check(fmt.Sprintf("the MI term lowers the critic error on unseen joint actions (N = %d)", hi),
			"err_unseen(m3apg-nomi) − err_unseen(m3apg)", exp.Positive, res.Diff(nomi, "critic_error_unseen", m, "critic_error_unseen")).
			Needs(mHi, nomiHi, hidesName("", hi)),
		// The return comes from the learning runs, whose Central-Q policy gradient is driven by the
		// one-hot critic: a critic that cannot fit even seen joint actions under a fixed policy with
		// more data makes the comparison one against a broken baseline.
		returnAboveFront(res, hi),
		res.Check(fmt.Sprintf("M3APG's return is at least Central-Q's (N = %d)", hi), "return(m3apg) − return(central-q)", exp.AtLeast(0), res.Diff(m, "return", cq, "return")).
			Needs(learnsName("", hi), returnSettledName(m, hi), returnLearnsName(m, hi), returnSettledName(cq, hi), returnLearnsName(cq, hi)).
			Structural(counterfactualZeroRows),
		res.Check(fmt.Sprintf("M3APG's critic error on seen joint actions is below Central-Q's (N = %d)", hi),
			"err_seen(central-q) − err_seen(m3apg)", exp.Positive, res.Diff(cq, "critic_error_seen", m, "critic_error_seen")).
			Needs(convergedName("", "seen", cq, hi), convergedName("", "seen", m, hi), learnsName("", hi)),
		// The embedding is read at the end of policy evaluation: it is the converged critic's only
		// while the critic's error has stopped moving.
		res.Check(fmt.Sprintf("the MI term makes the embedding follow the net push, shaped reward (N = %d)", hi),
			"η²(m3apg) − η²(m3apg-nomi)", exp.Positive, res.Diff(m, "embed_effect_share", nomi, "embed_effect_share")).
			Needs(mHi, nomiHi, hidesName("", hi)),
	}
}

// sparseClaims repeat the error and MI claims on the sparse-reward game (SparseEval).
func sparseClaims(res *exp.Result, hi int) []exp.Claim {
	cq, m, nomi := m3apg.CentralQ, m3apg.M3APG, m3apg.M3APGNoMI
	const sp = "sparse_"
	scqHi, smHi, snomiHi := convergedName(sp, "unseen", cq, hi), convergedName(sp, "unseen", m, hi), convergedName(sp, "unseen", nomi, hi)
	return []exp.Claim{
		res.Check(fmt.Sprintf("sparse reward: M3APG's critic error on unseen joint actions is below Central-Q's (N = %d)", hi),
			"err_unseen(central-q) − err_unseen(m3apg), sparse", exp.Positive, res.Diff(cq, "sparse_critic_error_unseen", m, "sparse_critic_error_unseen")).
			Needs(scqHi, smHi, learnsName(sp, hi)).Structural(oneHotUnseen),
		res.Check("sparse reward: removing the MI term erases most of the gain", "[err(m3apg-nomi) − err(m3apg)] − ½·[err(central-q) − err(m3apg)], unseen, sparse, N max", exp.Positive, miNeeded(res, sp, hi)).
			Needs(scqHi, smHi, snomiHi, learnsName(sp, hi), hidesName(sp, hi)).ByConstruction(halvesStructuralGap),
		res.Check(fmt.Sprintf("sparse reward: the MI term lowers the critic error on unseen joint actions (N = %d)", hi),
			"err_unseen(m3apg-nomi) − err_unseen(m3apg), sparse", exp.Positive, res.Diff(nomi, "sparse_critic_error_unseen", m, "sparse_critic_error_unseen")).
			Needs(smHi, snomiHi, hidesName(sp, hi)),
		res.Check(fmt.Sprintf("sparse reward: the MI term makes the embedding follow the net push (N = %d)", hi),
			"η²(m3apg) − η²(m3apg-nomi), sparse", exp.Positive, res.Diff(m, "sparse_embed_effect_share", nomi, "sparse_embed_effect_share")).
			Needs(smHi, snomiHi, hidesName(sp, hi)),
	}
}

// hardClaims are the claims on the hard game (Config.Hard, in the protocol since 2026-12-04; whole
// effect classes held out), the informative comparisons first: M3APG's error on unseen effects
// below the COMA-style critic's (per-agent one-hots: the headline m3apg-1), the V(s) floor's and
// Central-Q's (structural: its one-hot rows of a held-out class are never trained) at the largest
// N; the gap over COMA's critic and over Central-Q growing with N; the MI term lowering the unseen
// error over the budgets (budget_auc: the headline m3apg-3) and at each budget, and raising the
// embedding's share of the effect (η²) at each budget.
func hardClaims(res *exp.Result, cfg Config, lo, hi int) []exp.Claim {
	const rp = "hard_"
	cq, coma, vOnly, m, nomi := m3apg.CentralQ, m3apg.ComaQ, m3apg.VOnly, m3apg.M3APG, m3apg.M3APGNoMI
	key := func(n int, k string) string { return fmt.Sprintf("n%d/%s", n, k) }
	below := func(b string) exp.Claim {
		return res.Check(fmt.Sprintf("hard game: M3APG's critic error on unseen effects is below %s's (N = %d)", b, hi),
			fmt.Sprintf("err_unseen(%s) − err_unseen(m3apg), hard", b), exp.Positive, res.Diff(b, rp+"critic_error_unseen", m, rp+"critic_error_unseen")).
			Needs(convergedName(rp, "unseen", b, hi), convergedName(rp, "unseen", m, hi), kindLearnsName(rp, b, hi), kindLearnsName(rp, m, hi))
	}
	// Central-Q against the V(s) floor on unseen effects: how much its one-hot critic uses an unseen
	// joint action (nothing, by construction), shown in its structural note.
	cqFloor := res.Check("", "", exp.Positive, res.Diff(cq, rp+"critic_error_unseen", vOnly, rp+"critic_error_unseen"))
	out := []exp.Claim{
		below(coma).ByConstruction(additivePush).For("m3apg-1"),
		below(vOnly),
		below(cq).Structural(fmt.Sprintf("%s; here err_unseen(central-q) − err_unseen(v-only), hard, N = %d: %s", oneHotUnseen, hi, cqFloor.Interval())),
	}
	if lo != hi {
		grows := func(b string) exp.Claim {
			f := func(seed uint64) (float64, bool) {
				var g [2]float64
				for i, n := range []int{hi, lo} {
					x, ok1 := res.Final(b, key(n, rp+"critic_error_unseen"), seed)
					y, ok2 := res.Final(m, key(n, rp+"critic_error_unseen"), seed)
					if !ok1 || !ok2 {
						return 0, false
					}
					g[i] = x - y
				}
				return g[0] - g[1], true
			}
			return res.Check(fmt.Sprintf("hard game: M3APG's gap over %s on unseen effects grows with N (N = %d against %d)", b, hi, lo),
				"gap(N max) − gap(N min), hard", exp.Positive, f).
				Needs(convergedName(rp, "unseen", b, hi), convergedName(rp, "unseen", m, hi), convergedName(rp, "unseen", b, lo), convergedName(rp, "unseen", m, lo),
					kindLearnsName(rp, b, hi), kindLearnsName(rp, b, lo))
		}
		out = append(out, grows(coma).ByConstruction(additivePush), grows(cq).Structural(oneHotUnseen))
	}
	auc := "budget_auc/critic_error_unseen"
	out = append(out, res.Check(fmt.Sprintf("hard game, over the budgets: the MI term lowers the critic error on unseen effects (N = %d)", hi),
		"err_unseen(m3apg-nomi) − err_unseen(m3apg), mean over log budget", exp.Positive, res.Diff(nomi, auc, m, auc)).
		Needs(hidesName(rp, hi), revealsName(rp, hi)).For("m3apg-3"))
	for _, bud := range cfg.Budgets {
		k := BudgetKey(bud, "critic_error_unseen")
		out = append(out, res.Check(fmt.Sprintf("hard game, %dk transitions: the MI term lowers the critic error on unseen effects (N = %d)", bud/1000, hi),
			"err_unseen(m3apg-nomi) − err_unseen(m3apg), "+k, exp.Positive, res.Diff(nomi, k, m, k)).
			Needs(hidesName(rp, hi), revealsName(rp, hi)))
		e := BudgetKey(bud, "embed_effect_share")
		out = append(out, res.Check(fmt.Sprintf("hard game, %dk transitions: the MI term makes the embedding follow the net push (N = %d)", bud/1000, hi),
			"η²(m3apg) − η²(m3apg-nomi), "+e, exp.Positive, res.Diff(m, e, nomi, e)).
			Needs(hidesName(rp, hi), revealsName(rp, hi)))
	}
	return out
}

// mapgBaselines are the learning runs' policy-gradient baselines: the paper's claim is against
// "MAPG baselines", so M3APG is compared with their front, not with the one whose critic is
// handicapped by construction (Central-Q).
var mapgBaselines = []string{m3apg.CentralQ, "mappo"}

// returnAboveFront is m3apg-2: M3APG's return against the MAPG baselines' front — the baseline
// with the best mean return over seeds (exp.ChooseFront; the metric, the final return, fixed in
// advance), compared per seed.
func returnAboveFront(res *exp.Result, hi int) exp.Claim {
	f := res.FrontOf(mapgBaselines, "return", false)
	c := exp.CheckOn(f.CompareSeeds, fmt.Sprintf("M3APG's return is above the MAPG baselines' front (N = %d)", hi),
		"return(m3apg) − return(best MAPG baseline by mean)", exp.Positive, res.Diff(m3apg.M3APG, "return", f.Chosen, "return"))
	c.Notes = append(c.Notes, f.Note())
	return c.Needs(returnSettledName(m3apg.M3APG, hi), returnLearnsName(m3apg.M3APG, hi),
		returnSettledName(f.Chosen, hi), returnLearnsName(f.Chosen, hi)).For("m3apg-2")
}

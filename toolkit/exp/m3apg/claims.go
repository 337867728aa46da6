package m3apg

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/m3apg"
)

// Claims checks the paper's claims per seed with paired intervals: at the largest N, M3APG's critic
// error on unseen joint actions is below Central-Q's; the gap grows from the smallest to the largest
// N; removing the MI term erases most of the gain (m3apg-nomi's unseen error is closer to central-q's
// than to m3apg's); M3APG's return is at least Central-Q's. With SparseEval the error and MI claims
// are repeated on the sparse-reward game, and the MI term's effect on the embedding itself is checked
// (m3apg's effect share above m3apg-nomi's, both rewards).
//
// Each claim names the room checks it needs (Room): the compared critics converged in policy
// evaluation, a Central-Q baseline that learns, and for the MI claims a game whose reward hides the
// joint action's effect.
func Claims(res *exp.Result) []exp.Claim {
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil || len(cfg.Agents) == 0 {
		return nil
	}
	lo, hi := slices.Min(cfg.Agents), slices.Max(cfg.Agents)
	key := func(n int, k string) string { return fmt.Sprintf("n%d/%s", n, k) }
	cq, m, nomi := m3apg.CentralQ, m3apg.M3APG, m3apg.M3APGNoMI
	gap := func(rp string, n int, seed uint64) (float64, bool) {
		a, ok1 := res.Final(cq, key(n, rp+"critic_error_unseen"), seed)
		b, ok2 := res.Final(m, key(n, rp+"critic_error_unseen"), seed)
		return a - b, ok1 && ok2
	}
	grows := func(seed uint64) (float64, bool) {
		a, ok1 := gap("", hi, seed)
		b, ok2 := gap("", lo, seed)
		return a - b, ok1 && ok2
	}
	miNeeded := func(rp string) func(seed uint64) (float64, bool) {
		return func(seed uint64) (float64, bool) {
			g, ok1 := gap(rp, hi, seed)
			x, ok2 := res.Final(nomi, key(hi, rp+"critic_error_unseen"), seed)
			y, ok3 := res.Final(m, key(hi, rp+"critic_error_unseen"), seed)
			return (x - y) - 0.5*g, ok1 && ok2 && ok3
		}
	}
	cqHi, mHi, nomiHi := convergedName("", "unseen", cq, hi), convergedName("", "unseen", m, hi), convergedName("", "unseen", nomi, hi)
	claims := []exp.Claim{
		res.Check(fmt.Sprintf("M3APG's critic error on unseen joint actions is below Central-Q's (N = %d)", hi),
			"err_unseen(central-q) − err_unseen(m3apg)", exp.Positive, res.Diff(cq, "critic_error_unseen", m, "critic_error_unseen")).
			Needs(cqHi, mHi, learnsName("", hi)),
		res.Check(fmt.Sprintf("the gap grows with N (N = %d against N = %d)", hi, lo), "gap(N max) − gap(N min)", exp.Positive, grows).
			Needs(cqHi, mHi, convergedName("", "unseen", cq, lo), convergedName("", "unseen", m, lo), learnsName("", hi), learnsName("", lo)),
		res.Check("removing the MI term erases most of the gain", "[err(m3apg-nomi) − err(m3apg)] − ½·[err(central-q) − err(m3apg)], unseen, N max", exp.Positive, miNeeded("")).
			Needs(cqHi, mHi, nomiHi, learnsName("", hi), hidesName("", hi)),
		res.Check(fmt.Sprintf("the MI term lowers the critic error on unseen joint actions (N = %d)", hi),
			"err_unseen(m3apg-nomi) − err_unseen(m3apg)", exp.Positive, res.Diff(nomi, "critic_error_unseen", m, "critic_error_unseen")).
			Needs(mHi, nomiHi, hidesName("", hi)),
		// The return comes from the learning runs, whose Central-Q policy gradient is driven by the
		// one-hot critic: a critic that cannot fit even seen joint actions under a fixed policy with
		// more data makes the comparison one against a broken baseline.
		res.Check(fmt.Sprintf("M3APG's return is at least Central-Q's (N = %d)", hi), "return(m3apg) − return(central-q)", exp.AtLeast(0), res.Diff(m, "return", cq, "return")).
			Needs(learnsName("", hi)),
		res.Check(fmt.Sprintf("M3APG's critic error on seen joint actions is below Central-Q's (N = %d)", hi),
			"err_seen(central-q) − err_seen(m3apg)", exp.Positive, res.Diff(cq, "critic_error_seen", m, "critic_error_seen")).
			Needs(convergedName("", "seen", cq, hi), convergedName("", "seen", m, hi), learnsName("", hi)),
		// The embedding is read at the end of policy evaluation: it is the converged critic's only
		// while the critic's error has stopped moving.
		res.Check(fmt.Sprintf("the MI term makes the embedding follow the net push, shaped reward (N = %d)", hi),
			"η²(m3apg) − η²(m3apg-nomi)", exp.Positive, res.Diff(m, "embed_effect_share", nomi, "embed_effect_share")).
			Needs(mHi, nomiHi, hidesName("", hi)),
	}
	if cfg.Hard {
		claims = append(claims, hardClaims(res, cfg, slices.Min(cfg.hardAgents()), hi)...)
	}
	if !cfg.SparseEval {
		return claims
	}
	sp := "sparse_"
	scqHi, smHi, snomiHi := convergedName(sp, "unseen", cq, hi), convergedName(sp, "unseen", m, hi), convergedName(sp, "unseen", nomi, hi)
	return append(claims,
		res.Check(fmt.Sprintf("sparse reward: M3APG's critic error on unseen joint actions is below Central-Q's (N = %d)", hi),
			"err_unseen(central-q) − err_unseen(m3apg), sparse", exp.Positive, res.Diff(cq, "sparse_critic_error_unseen", m, "sparse_critic_error_unseen")).
			Needs(scqHi, smHi, learnsName(sp, hi)),
		res.Check("sparse reward: removing the MI term erases most of the gain", "[err(m3apg-nomi) − err(m3apg)] − ½·[err(central-q) − err(m3apg)], unseen, sparse, N max", exp.Positive, miNeeded("sparse_")).
			Needs(scqHi, smHi, snomiHi, learnsName(sp, hi), hidesName(sp, hi)),
		res.Check(fmt.Sprintf("sparse reward: the MI term lowers the critic error on unseen joint actions (N = %d)", hi),
			"err_unseen(m3apg-nomi) − err_unseen(m3apg), sparse", exp.Positive, res.Diff(nomi, "sparse_critic_error_unseen", m, "sparse_critic_error_unseen")).
			Needs(smHi, snomiHi, hidesName(sp, hi)),
		res.Check(fmt.Sprintf("sparse reward: the MI term makes the embedding follow the net push (N = %d)", hi),
			"η²(m3apg) − η²(m3apg-nomi), sparse", exp.Positive, res.Diff(m, "sparse_embed_effect_share", nomi, "sparse_embed_effect_share")).
			Needs(smHi, snomiHi, hidesName(sp, hi)),
	)
}

// hardClaims are issue 38's claims on the hard game (Config.Hard; whole effect classes held out):
// M3APG's error on unseen effects below each baseline that learns (central-q, coma-q, v-only) at
// the largest N, the gap over Central-Q and COMA's critic growing with N, and at each budget the MI
// term lowering the unseen error and raising the embedding's share of the effect (η²), and over the
// budgets (budget_auc).
func hardClaims(res *exp.Result, cfg Config, lo, hi int) []exp.Claim {
	const rp = "hard_"
	m, nomi := m3apg.M3APG, m3apg.M3APGNoMI
	key := func(n int, k string) string { return fmt.Sprintf("n%d/%s", n, k) }
	var out []exp.Claim
	for _, b := range []string{m3apg.CentralQ, m3apg.ComaQ, m3apg.VOnly} {
		out = append(out, res.Check(fmt.Sprintf("hard game: M3APG's critic error on unseen effects is below %s's (N = %d)", b, hi),
			fmt.Sprintf("err_unseen(%s) − err_unseen(m3apg), hard", b), exp.Positive, res.Diff(b, rp+"critic_error_unseen", m, rp+"critic_error_unseen")).
			Needs(convergedName(rp, "unseen", b, hi), convergedName(rp, "unseen", m, hi), kindLearnsName(rp, b, hi), kindLearnsName(rp, m, hi)))
	}
	if lo != hi {
		for _, b := range []string{m3apg.CentralQ, m3apg.ComaQ} {
			grows := func(seed uint64) (float64, bool) {
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
			out = append(out, res.Check(fmt.Sprintf("hard game: M3APG's gap over %s on unseen effects grows with N (N = %d against %d)", b, hi, lo),
				"gap(N max) − gap(N min), hard", exp.Positive, grows).
				Needs(convergedName(rp, "unseen", b, hi), convergedName(rp, "unseen", m, hi), convergedName(rp, "unseen", b, lo), convergedName(rp, "unseen", m, lo),
					kindLearnsName(rp, b, hi), kindLearnsName(rp, b, lo)))
		}
	}
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
	auc := "budget_auc/critic_error_unseen"
	return append(out, res.Check(fmt.Sprintf("hard game, over the budgets: the MI term lowers the critic error on unseen effects (N = %d)", hi),
		"err_unseen(m3apg-nomi) − err_unseen(m3apg), mean over log budget", exp.Positive, res.Diff(nomi, auc, m, auc)).
		Needs(hidesName(rp, hi), revealsName(rp, hi)))
}

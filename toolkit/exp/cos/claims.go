package cos

import (
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims (§3.2) per seed with paired intervals: step&answer PRM pairs beat
// outcome pairs and answer-only PRM pairs (one-sample accuracy mean@16 after the last round: greedy
// accuracy sits near its ceiling on some seeds; greedy is checked too); best-of-16 at step
// weight 0.2 beats both 0 and 1; PRM beam search beats majority voting at the largest N; PRM-DPO
// shortens the chain in its first round.
//
// Each claim names the room checks it needs (room.go): the step-aware comparisons need right
// answers reached through wrong steps; greedy and one-sample gains need SFT below its ceiling;
// rankings of the same samples need the oracle above them; the chain-length claims need chains
// whose length the problem does not fix. Whether the trained PRM differs from the policy's own
// step confidence is itself a claim here (bon16(w=0.2) − bon16(self)), so it is not also a check.
func Claims(res *exp.Result) []exp.Claim {
	diff, pair := res.Check, res.Diff
	pos, neg := exp.Positive, exp.Negative
	nMax := 0
	for _, r := range res.RunsOf("beam") {
		for _, x := range r.Curves["acc_vs_n"].X {
			nMax = max(nMax, int(x))
		}
	}
	at := fmt.Sprintf("acc_n%d", nMax)
	w := func(v float64) string { return fmt.Sprintf("bon_w%g", v) }
	round1 := func(m string) exp.PerSeed {
		return func(seed uint64) (float64, bool) {
			for _, r := range res.RunsOf(m) {
				if c := r.Curves["round/chain_length"]; r.Seed == seed && len(c.Y) >= 2 {
					return c.Y[1] - c.Y[0], true
				}
			}
			return 0, false
		}
	}
	return []exp.Claim{
		diff("step&answer PRM pairs beat outcome pairs (one-sample accuracy)", "mean@16(dpo-step-answer) − mean@16(dpo-outcome)", pos, pair("dpo-step-answer", "accuracy_mean16", "dpo-outcome", "accuracy_mean16")).Needs(roomWrongStep),
		diff("step&answer PRM pairs beat answer-only PRM pairs", "mean@16(dpo-step-answer) − mean@16(dpo-answer)", pos, pair("dpo-step-answer", "accuracy_mean16", "dpo-answer", "accuracy_mean16")).Needs(roomWrongStep),
		diff("step&answer PRM DPO beats SFT", "mean@16(dpo-step-answer) − mean@16(sft)", pos, pair("dpo-step-answer", "accuracy_mean16", "sft", "accuracy_mean16")).Needs(roomSample),
		diff("step&answer PRM pairs beat outcome pairs (greedy accuracy)", "acc(dpo-step-answer) − acc(dpo-outcome)", pos, pair("dpo-step-answer", "accuracy", "dpo-outcome", "accuracy")).Needs(roomWrongStep, roomGreedy),
		diff("best-of-16 at step weight 0.2 beats weight 0 (answer only)", "bon16(w=0.2) − bon16(w=0)", pos, pair("step-weight", w(0.2), "step-weight", w(0))).Needs(roomWrongStep, roomRanking),
		diff("best-of-16 at step weight 0.2 beats weight 1 (steps only)", "bon16(w=0.2) − bon16(w=1)", pos, pair("step-weight", w(0.2), "step-weight", w(1))).Needs(roomWrongStep, roomRanking),
		diff("the trained PRM's best-of-16 beats the policy's own step confidence", "bon16(w=0.2) − bon16(policy's lowest step log-probability)", pos, pair("step-weight", w(0.2), "step-weight", "self_bon")).Needs(roomRanking),
		diff(fmt.Sprintf("PRM beam search beats majority voting at N = %d", nMax), fmt.Sprintf("beam@%d − majority@%d", nMax, nMax), pos, pair("beam", at, "majority", at)).Needs(roomVoting),
		diff(fmt.Sprintf("PRM best-of-N beats majority voting at N = %d", nMax), fmt.Sprintf("bon@%d − majority@%d", nMax, nMax), pos, pair("bon", at, "majority", at)).Needs(roomVoting),
		diff("PRM-DPO (step&answer) shortens the chain in round 1", "chain length after round 1 − before (dpo-step-answer)", neg, round1("dpo-step-answer")).Needs(roomLength),
		diff("outcome DPO does not shorten the chain in round 1", "chain length after round 1 − before (dpo-outcome)", exp.AtLeast(0), round1("dpo-outcome")).Needs(roomLength),
	}
}

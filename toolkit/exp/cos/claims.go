package cos

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims per seed with paired intervals: step&answer PRM pairs beat
// outcome pairs and answer-only PRM pairs, on whole-chain correctness and on answer accuracy (one
// sample, mean@16, after the last round and after round 1; greedy answer accuracy too); the
// step&answer arms with a right chosen answer and with the PRM re-trained each round against
// outcome pairs; best-of-16 at step weight 0.2 beats the sweep's weights away from it, and each of 0
// and 1; PRM best-of-N, PRM-weighted vote and the width-k PRM beam beat majority voting at N = 16
// and at the largest N, with a gap that grows from N = 4; PRM best-of-N and the PRM-weighted vote
// beat the same rules by the policy's self-confidence; PRM-DPO shortens the chain in its first round.
//
// The headline claims (exp.Headlines) are tagged: cos-1 on step&answer vs outcome pairs (answer
// accuracy, the paper's Table 2), read at matched KL from SFT along the rounds with the last round
// as context; cos-2 on the width-k beam against majority voting at the largest N (the paper's beam
// search against self-consistency, Fig. 5), cos-3 on step weight 0.2 against the sweep's weights
// away from it (Fig. 3). The PRM-weighted vote is PaperLab's addition and says so.
//
// Each claim names the room checks it needs (room.go), none of which reads a claim's outcome: the
// step-aware comparisons need right answers reached through wrong steps; greedy and one-sample gains
// need SFT below its ceiling; rankings of the same samples need the oracle above them; every claim
// that uses the PRM needs it trained (above the policy's own step score on every seed); PRM search
// above voting needs the oracle above voting and a PRM trace score that ranks held-out traces better
// than the policy's self-confidence; step&answer pairs against the verifier's outcome pairs need a
// PRM that judges answers about as well as the paper's; the chain-length claims need chains whose
// length the problem does not fix.
func Claims(res *exp.Result) []exp.Claim {
	diff, pair := res.Check, res.Diff
	pos, neg := exp.Positive, exp.Negative
	nMax := 0
	for _, r := range res.RunsOf("majority") {
		for _, x := range r.Curves["acc_vs_n"].X {
			nMax = max(nMax, int(x))
		}
	}
	acc := func(n int) string { return fmt.Sprintf("acc_n%d", n) }
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
	// gain is method m's accuracy at N minus majority voting's on the same question set.
	gain := func(m string, n int) exp.PerSeed { return pair(m, acc(n), "majority", acc(n)) }
	// atKL is the claim that DPO arm a beats arm b on a path metric (answer or whole-chain accuracy
	// of PathSamples samples per held-out prompt) at matched KL(π‖SFT): per seed each path — "path/"
	// every Round.EvalEvery steps over all rounds, "path1/" round 1 alone — read where it first
	// reaches the KL both reach; the fixed point (fixedKey after the last round, or after round 1)
	// is the context. Each arm's pairs and DPO steps per round are in the notes: one epoch a round,
	// so arms with more pairs train more steps.
	atKL := func(text, a, b, prefix, metric, fixedKey string) exp.Claim {
		when, span := "after the last round", "every round"
		if prefix == "path1/" {
			when, span = "after round 1", "round 1"
		}
		fixed := diff("", fmt.Sprintf("%s(%s) − %s(%s) %s", fixedKey, a, fixedKey, b, when), pos, pair(a, fixedKey, b, fixedKey))
		kl := res.Matched(text+", at matched KL from SFT", fmt.Sprintf("%s(%s) − %s(%s) where both paths (%s) reach the same KL(π‖SFT)", metric, a, metric, b, strings.TrimSuffix(prefix, "/")), pos,
			exp.Match{A: a, B: b, X: prefix + "kl_sft", Y: prefix + metric})
		c := exp.Matched(text, fmt.Sprintf("%s against %s: %s at matched KL(π‖SFT) along the path (%s)", a, b, metric, span),
			fmt.Sprintf("%s: %s → %s", fixed.Measure, fixed.Interval(), fixed.VerdictText()), kl)
		c.Notes = append(c.Notes, budgetNote(res, a), budgetNote(res, b))
		return c
	}
	// The right-chosen arm's chosen side is checked by the verifier, as an outcome pair's is: the PRM's
	// score decides only which sample is rejected, so a weak answer judge can blunt the pairs but not
	// prefer a wrong answer — the failure the pair-threshold check guards against.
	const rightNote = "the chosen trace's answer is checked by the verifier and the PRM picks only the rejected side, so the pair-threshold check is not needed"
	out, ans, both := []string{roomWrongStep, roomTrained, roomPairRank}, []string{roomWrongStep, roomTrained}, "step&answer PRM pairs"
	claims := []exp.Claim{
		atKL(both+" beat outcome pairs on answer accuracy", "dpo-step-answer", "dpo-outcome", "path/", "accuracy", "accuracy_mean16").Needs(out...).For("cos-1"),
		atKL(both+" beat outcome pairs on whole-chain correctness", "dpo-step-answer", "dpo-outcome", "path/", "chain_accuracy", "chain_accuracy_mean16").Needs(out...),
		atKL(both+" beat outcome pairs on answer accuracy after round 1", "dpo-step-answer", "dpo-outcome", "path1/", "accuracy", "round1_accuracy_mean16").Needs(out...),
		atKL(both+" beat answer-only PRM pairs on answer accuracy", "dpo-step-answer", "dpo-answer", "path/", "accuracy", "accuracy_mean16").Needs(ans...),
		atKL(both+" beat answer-only PRM pairs on whole-chain correctness", "dpo-step-answer", "dpo-answer", "path/", "chain_accuracy", "chain_accuracy_mean16").Needs(ans...),
		atKL(both+" beat answer-only PRM pairs on whole-chain correctness after round 1", "dpo-step-answer", "dpo-answer", "path1/", "chain_accuracy", "round1_chain_accuracy_mean16").Needs(ans...),
		atKL(both+" with a right chosen answer beat outcome pairs on answer accuracy", "dpo-step-answer-right", "dpo-outcome", "path/", "accuracy", "accuracy_mean16").Needs(ans...).WithNote(rightNote),
		atKL(both+" with a right chosen answer beat outcome pairs on answer accuracy after round 1", "dpo-step-answer-right", "dpo-outcome", "path1/", "accuracy", "round1_accuracy_mean16").Needs(ans...).WithNote(rightNote),
		atKL(both+", the PRM re-trained each round, beat outcome pairs on answer accuracy", "dpo-step-answer-retrain", "dpo-outcome", "path/", "accuracy", "accuracy_mean16").Needs(out...),
		atKL("re-training the PRM each round keeps more whole-chain correctness than a PRM frozen after SFT", "dpo-step-answer-retrain", "dpo-step-answer", "path/", "chain_accuracy",
			"chain_accuracy_mean16").Needs(ans...).WithNote(retrainNote),
		diff(both+" beat outcome pairs (greedy answer accuracy)", "acc(dpo-step-answer) − acc(dpo-outcome) after the last round", pos,
			pair("dpo-step-answer", "accuracy", "dpo-outcome", "accuracy")).Needs(roomWrongStep, roomGreedy, roomTrained, roomPairRank).WithNote("a fixed-point reading: greedy accuracy is measured after each round only, not along the path"),
		diff("step&answer PRM DPO beats SFT", "mean@16(dpo-step-answer) − mean@16(sft)", pos, pair("dpo-step-answer", "accuracy_mean16", "sft", "accuracy_mean16")).Needs(roomSample),
		beatsFar(res, 0.2).Needs(roomWrongStep, roomRanking, roomTrained).For("cos-3"),
		diff("best-of-16 at step weight 0.2 beats weight 0 (answer only)", "bon16(w=0.2) − bon16(w=0)", pos, pair("step-weight", w(0.2), "step-weight", w(0))).Needs(roomWrongStep, roomRanking, roomTrained),
		diff("best-of-16 at step weight 0.2 beats weight 1 (steps only)", "bon16(w=0.2) − bon16(w=1)", pos, pair("step-weight", w(0.2), "step-weight", w(1))).Needs(roomWrongStep, roomRanking, roomTrained),
	}
	ns := []int{16}
	if nMax != 16 {
		ns = append(ns, nMax)
	}
	// note marks the claims of a search method: the PRM-weighted vote is PaperLab's addition; the
	// width-k beam at the largest N stands for the paper's beam search against self-consistency.
	note := func(c exp.Claim, method string, n int) exp.Claim {
		switch {
		case method == "weighted":
			c.Notes = append(c.Notes, weightedNote)
		case method == "beam-best" && n == nMax:
			c = c.For("cos-2")
			c.Notes = append(c.Notes, fmt.Sprintf(beamNote, nMax))
		}
		return c
	}
	for _, m := range []struct{ name, text string }{{"bon", "PRM best-of-N"}, {"weighted", "PRM-weighted voting"}, {"beam", "width-k PRM beam search (weighted vote among its beams)"}, {"beam-best", "width-k PRM beam search"}} {
		for _, n := range ns {
			claims = append(claims, note(diff(fmt.Sprintf("%s beats majority voting at N = %d", m.text, n), fmt.Sprintf("%s@%d − majority@%d", m.name, n, n), pos,
				gain(m.name, n)).Needs(roomVoting, roomTrained, roomTraceRank), m.name, n))
		}
		claims = append(claims, note(diff(fmt.Sprintf("%s's gain over majority voting grows from N = 4 to N = %d", m.text, nMax),
			fmt.Sprintf("(%s − majority)@%d − (%s − majority)@4", m.name, nMax, m.name), pos, func(seed uint64) (float64, bool) {
				hi, ok1 := gain(m.name, nMax)(seed)
				lo, ok2 := gain(m.name, 4)(seed)
				return hi - lo, ok1 && ok2
			}).Needs(roomVoting, roomTrained, roomTraceRank), m.name, 0))
	}
	// The PRM against the policy's own confidence on the same samples: the result the room checks do
	// not gate on (best-of-N), and the control of PaperLab's weighted vote.
	for _, m := range []struct{ prm, self, text string }{{"bon", "bon-self", "best-of-N"}, {"weighted", "weighted-self", "weighted voting"}} {
		for _, n := range ns {
			claims = append(claims, diff(fmt.Sprintf("PRM %s beats %s by the policy's self-confidence at N = %d", m.text, m.text, n),
				fmt.Sprintf("%s@%d − %s@%d", m.prm, n, m.self, n), pos, pair(m.prm, acc(n), m.self, acc(n))).Needs(roomTrained))
		}
	}
	claims = append(claims, ablationClaims(res, diff, pair)...)
	return append(claims,
		diff("PRM-DPO (step&answer) shortens the chain in round 1", "chain length after round 1 − before (dpo-step-answer)", neg, round1("dpo-step-answer")).Needs(roomLength),
		diff("outcome DPO does not shorten the chain in round 1", "chain length after round 1 − before (dpo-outcome)", exp.AtLeast(0), round1("dpo-outcome")).Needs(roomLength),
	)
}

// Notes on the search claims (Claims), and on Table 4's and the retrain arm's.
const (
	answerOnlyNote = "answer-only: the 2-layer model must compute a 2–4-step chain's result in one token, which may lose by construction; the chain of steps is judged by the tagged verifier (its final tag required), the other formats by the plain one"
	retrainNote    = "the re-trained arm changes two things at once: its PRM follows the policy's current traces and it sees 2 × 2,000 more traces with exact judge labels (the frozen PRM's were half Monte-Carlo); the run records the PRM's step AUC on the current policy's traces before and after each re-training (round/prm_*), the mechanism this claim is about"
	freeFormNote   = "the free-form format here is the chain of steps without its step tags (\"7,4,9;1\" against \"7#4#9#;1#\"): the paper's free-form traces are unstructured text, so this comparison tests the tags, not structure; the outcome rounds read no tag"
	weightedNote   = "PaperLab's addition: the paper compares best-of-N and step-level beam search with self-consistency; its control is the vote weighted by the policy's self-confidence (weighted-self)"
	beamNote       = "the paper's comparison: PRM step-level beam search (the best-scored beam) against self-consistency, > 5 points at N = 64 — compare the interval with 0.05; here search-and-learn's width-k beam at N = %d (the width-1 step search of the paper's description converges to greedy decoding on this task, audit 2026-12-02)"
)

// nearWeight is how close to 0.2 a step weight counts as "≈ 0.2" in the paper's claim that a step
// weight near 0.2 is best: a weight within 0.1 of it (the sweep's 0.1) is one the claim does not
// separate from it; 0, 0.5, 0.8 and 1 are the ones it beats.
const nearWeight = 0.1

// beatsFar is the claim that best-of-16 at step weight w beats every weight of the sweep more than
// nearWeight from it, read as an intersection-union test (exp.AllOf): one paired reading against
// each far weight on every seed, holding only when each holds. Neither a per-seed maximum of the
// far weights nor a far weight chosen by its mean on the same seeds (5 here, too few to split)
// enters: both favour the sweep by its size. Not measured when the sweep has no such weight.
func beatsFar(res *exp.Result, w float64) exp.Claim {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	name := func(v float64) string { return fmt.Sprintf("bon_w%g", v) }
	text := fmt.Sprintf("best-of-16 at step weight %g beats every weight of the sweep more than %g away", w, nearWeight)
	var parts []exp.Claim
	for _, v := range cfg.WeightSweep {
		if math.Abs(v-w) > nearWeight+1e-9 {
			parts = append(parts, res.CheckDiff(text, fmt.Sprintf("bon16(w=%g) − bon16(w=%g)", w, v), exp.Positive, "step-weight", name(w), "step-weight", name(v)))
		}
	}
	if len(parts) == 0 {
		return exp.Claim{Text: text, Measure: "no far weight in the sweep", Test: exp.Positive}
	}
	return exp.AllOf(text, fmt.Sprintf("bon16(w=%g) − bon16(w) for each w more than %g away, each > 0", w, nearWeight), parts...)
}

// ablationClaims are the claims of the ablation parts, present when the result has their runs:
// Table 3 — the widest PRM judges steps and answers of unseen problems better than the narrowest
// (the paper: 38B above 8B, 87.3 % against 83.7 % on unseen steps), with the seen-minus-unseen gap of
// each beside it; Table 5 — GRPO rewarded by the PRM's trace score beats GRPO rewarded by the outcome
// (the paper: 63.0 against 61.2), read at matched KL from SFT along training, the last step as context.
func ablationClaims(res *exp.Result, diff func(text, measure string, test exp.Test, f exp.PerSeed) exp.Claim,
	pair func(a, ka, b, kb string) exp.PerSeed) []exp.Claim {
	var out []exp.Claim
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	if n := len(cfg.PRMSizes); n >= 2 && len(res.RunsOf(fmt.Sprintf("prm-d%d", cfg.PRMSizes[0]))) > 0 {
		lo, hi := fmt.Sprintf("prm-d%d", cfg.PRMSizes[0]), fmt.Sprintf("prm-d%d", cfg.PRMSizes[n-1])
		for _, k := range []struct{ key, acc, what string }{{"step_auc", "step_accuracy", "steps"}, {"answer_auc", "answer_accuracy", "answers"}} {
			c := diff(fmt.Sprintf("a wider PRM judges the %s of unseen problems better (Table 3)", k.what),
				fmt.Sprintf("%s(%s) − %s(%s) on the check half", k.key, hi, k.key, lo), exp.Positive,
				pair(hi, "heldout_"+k.key, lo, "heldout_"+k.key)).Needs(roomSizesTrained, roomSizeCeiling)
			acc := diff("", fmt.Sprintf("%s(%s) − %s(%s)", k.acc, hi, k.acc, lo), exp.Positive, pair(hi, "heldout_"+k.acc, lo, "heldout_"+k.acc))
			out = append(out, c.WithNote(fmt.Sprintf("in the paper's unit, accuracy at p > ½ (soft Monte-Carlo labels make it partly a calibration measure): %s: %s", acc.Measure, acc.Interval())))
		}
		for _, m := range []string{lo, hi} {
			out = append(out, diff(fmt.Sprintf("%s judges the steps of seen problems better than unseen ones (Table 3)", m),
				fmt.Sprintf("seen_step_auc(%s) − heldout_step_auc(%s)", m, m), exp.Positive,
				pair(m, "seen_step_auc", m, "heldout_step_auc")).Needs(roomSizesTrained, roomSizeCeiling))
		}
	}
	if len(res.RunsOf("dpo-outcome-free-form")) > 0 && len(res.RunsOf("dpo-outcome-answer-only")) > 0 {
		const text = "chain-of-step reasoning beats free-form and no reasoning, each after SFT and the outcome rounds (Table 4)"
		c := exp.AllOf(text, "mean@16(dpo-outcome) − mean@16(dpo-outcome-<format>) for free-form and answer-only, each > 0",
			diff(text, "mean@16(dpo-outcome) − mean@16(dpo-outcome-free-form)", exp.Positive, pair("dpo-outcome", "accuracy_mean16", "dpo-outcome-free-form", "accuracy_mean16")),
			diff(text, "mean@16(dpo-outcome) − mean@16(dpo-outcome-answer-only)", exp.Positive, pair("dpo-outcome", "accuracy_mean16", "dpo-outcome-answer-only", "accuracy_mean16")))
		c.Notes = append(c.Notes, freeFormNote, answerOnlyNote)
		out = append(out, c.Needs(roomSample).For("cos-4"))
		out = append(out, diff("chain-of-step SFT beats free-form SFT (Table 4, before the rounds)", "mean@16(sft) − mean@16(sft-free-form)", exp.Positive,
			pair("sft", "accuracy_mean16", "sft-free-form", "accuracy_mean16")).Needs(roomSample))
	}
	if len(res.RunsOf("dpo-step-wise")) > 0 {
		const text = "step-wise DPO pairs do worse than trace-level step&answer pairs, one round each (Table 9: the paper's step-wise DPO failed)"
		fixed := diff("", "round1_accuracy_mean16(dpo-step-answer) − accuracy_mean16(dpo-step-wise)", exp.Positive,
			pair("dpo-step-answer", "round1_accuracy_mean16", "dpo-step-wise", "round1_accuracy_mean16"))
		kl := res.Matched(text+", at matched KL from SFT", "accuracy(dpo-step-answer, round 1) − accuracy(dpo-step-wise) where both paths reach the same KL(π‖SFT)", exp.Positive,
			exp.Match{A: "dpo-step-answer", B: "dpo-step-wise", X: "path1/kl_sft", Y: "path1/accuracy", BX: "path/kl_sft", BY: "path/accuracy"})
		c := exp.Matched(text, "trace-level step&answer pairs (round 1) against step-wise pairs: answer accuracy at matched KL(π‖SFT) along the path",
			fmt.Sprintf("after one round each, %s: %s → %s", fixed.Measure, fixed.Interval(), fixed.VerdictText()), kl)
		c.Notes = append(c.Notes, budgetNote(res, "dpo-step-answer"), stepWiseNote(res))
		out = append(out, c.Needs(roomTrained))
	}
	if len(res.RunsOf("grpo-prm")) > 0 {
		const text = "GRPO rewarded by the PRM's trace score beats GRPO rewarded by the outcome (Table 5)"
		last := diff("", "mean@16(grpo-prm) − mean@16(grpo-outcome) after the last step", exp.Positive, pair("grpo-prm", "accuracy_mean16", "grpo-outcome", "accuracy_mean16"))
		kl := res.Matched(text+", at matched KL from SFT", "accuracy(grpo-prm) − accuracy(grpo-outcome) where both training paths reach the same KL(π‖SFT)", exp.Positive,
			exp.Match{A: "grpo-prm", B: "grpo-outcome", X: "path/kl_sft", Y: "path/accuracy"})
		out = append(out, exp.Matched(text, "GRPO (PRM trace score) against GRPO (outcome): answer accuracy at matched KL(π‖SFT) along training",
			fmt.Sprintf("after the last step, %s: %s → %s", last.Measure, last.Interval(), last.VerdictText()), kl).Needs(roomWrongStep, roomSample, roomTrained, roomPairRank))
	}
	return out
}

// budgetNote says how much DPO arm m trained: its pairs and steps per round, means over seeds.
func budgetNote(res *exp.Result, m string) string {
	mean := func(key string) string {
		var parts []string
		for r := 1; ; r++ {
			var sum float64
			var n int
			for _, run := range res.RunsOf(m) {
				if v, ok := roundAt(run.Curves[key], r); ok {
					sum, n = sum+v, n+1
				}
			}
			if n == 0 {
				break
			}
			parts = append(parts, fmt.Sprintf("%.0f", sum/float64(n)))
		}
		return strings.Join(parts, "/")
	}
	return fmt.Sprintf("%s: pairs per round %s, DPO steps per round %s (means over seeds)", m, mean("round/pairs"), mean("round/steps"))
}

// stepWiseNote describes the step-wise pairs (means over seeds): how many, their PRM score gap
// and their reference log-probability margin, the paper's reason for the failure being chosen and
// rejected steps too alike.
func stepWiseNote(res *exp.Result) string {
	var pairs, gap, margin, n float64
	for _, r := range res.RunsOf("dpo-step-wise") {
		pairs, gap, margin, n = pairs+r.Final["pairs"], gap+r.Final["pair_gap"], margin+r.Final["pair_ref_margin"], n+1
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("dpo-step-wise: %.0f pairs, mean PRM score gap %.3f, mean reference log-probability margin (chosen − rejected) %.2f nats (means over seeds); every step is one digit and a tag, so chosen and rejected differ in one token by construction", pairs/n, gap/n, margin/n)
}

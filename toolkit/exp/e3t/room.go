package e3t

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// Thresholds of the room checks (issue 31). Each is a judgement call explained in its check's Why.
const (
	// PlateauFrac is the tail of a training curve a plateau check reads: the last 20 % of its
	// points (exp.TailShare).
	PlateauFrac = 0.2
	// MaxTailShare is the largest share of a run's change its last PlateauFrac of steps may make for
	// the curve to count as flat: a curve still climbing at its average rate gives PlateauFrac (0.2),
	// a plateau about 0; 0.1 is half the steady-climb value.
	MaxTailShare = 0.1
	// PMCeilingShare is the share of its ceiling (pmCeiling) the partner model's final accuracy
	// must reach.
	PMCeilingShare = 0.9
	// BCMargin is how far the behaviour-cloned human partner's held-out action accuracy must exceed
	// always predicting the commonest action: about one binomial standard error of an accuracy on
	// the ~460 held-out steps of a layout (√(0.7·0.3/460) ≈ 0.021).
	BCMargin = 0.02
	// MinCookReturn is the final training return (sparse, with the training partner) a method must
	// reach on a layout for its comparisons there to mean anything: one soup (20) per 400-step
	// episode. Below it the methods have not learned to cook together, and every difference is a
	// difference between near-zero returns (a floor, not a verdict).
	MinCookReturn = 20
	// AuthorsEnvSteps is the authors' budget per run (yanxue7/E3T-Overcooked, cramped_room: 4.8 M
	// environment steps; shared/papers §7.1); ZSC-Eval trains 1e7.
	AuthorsEnvSteps = 4.8e6
	// MinEnvSteps is the smallest budget the first audit of this experiment asked for ("train ≥ 1 M
	// steps", shared/papers §7.3 lessons); the room check compares the budget share with
	// MinEnvSteps/AuthorsEnvSteps (0.208, rounded to 3 decimals).
	MinEnvSteps = 1e6
)

// Names of the room checks of a layout (claims name them in Needs).
func flatName(layout, method string) string { return layout + ": " + method + " training return flat" }
func cookName(layout, method string) string {
	return layout + ": " + method + " learned to cook (training return ≥ one soup)"
}
func pmFlatName(layout, method string) string {
	return layout + ": " + method + " partner-model accuracy flat"
}
func pmCeilingName(layout, method string) string {
	return layout + ": " + method + " partner-model accuracy near its ceiling"
}
func learnedSetName(layout string) string {
	return layout + ": one learned held-out set for every method"
}
func fixedSetName(layout string) string {
	return layout + ": one scripted + human-BC held-out set for every method"
}
func bcName(layout string) string { return layout + ": human-BC partner beats the commonest action" }

// budgetName is the check of the training budget against the authors'.
const budgetName = "budget: env steps per run against the authors' 4.8 M"

// Room measures the preconditions of the claims on a stored result, per layout:
//   - every method's training return (curve <layout>/episodic_return, with its training partner)
//     flat over the last 20 % of steps (exp.TailShare < MaxTailShare);
//   - each partner-model method's partner-model accuracy (<layout>/pm_accuracy) flat, and its final
//     value at least PMCeilingShare of its ceiling (pmCeiling);
//   - one held-out set for every method: the share of the pool's learned partners, and of its
//     scripted and human-BC partners, with which every method and seed is scored (Extra
//     "partners_<layout>" against the final keys "<layout>/partner/<name>");
//   - the human-BC partner's held-out action accuracy above always predicting the commonest
//     action (Extra "bc");
//
// and once: the training budget (e3t's environment steps per run, mean over layouts) as a share of
// the authors' 4.8 M.
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	var out []exp.RoomCheck
	for _, l := range cfg.Layouts {
		for _, m := range cfg.Methods {
			if !m.On(l) {
				continue
			}
			out = append(out, res.CheckRoom(flatName(l, m.Name), exp.Test{Op: exp.Below, X: MaxTailShare},
				fmt.Sprintf("A return gap between methods measured while one of them is still improving is a gap in training speed, not in what the method learns; "+
					"the last %.0f %% of steps must make < %g of the run's change in training return (a steady climb makes %g, a plateau ~0). [UNVERIFIED] PaperLab's choice: half the steady-climb value.",
					100*PlateauFrac, MaxTailShare, PlateauFrac),
				"no "+l+"/episodic_return curve", res.Plateau(m.Name, l+"/episodic_return", PlateauFrac)),
				res.CheckRoom(cookName(l, m.Name), exp.AtLeast(MinCookReturn),
					fmt.Sprintf("A comparison of methods that never learned to cook compares near-zero returns (a floor): the final training return (sparse, with the training partner, curve %s/episodic_return) "+
						"must reach %g, one soup per 400-step episode. [UNVERIFIED] PaperLab's choice (issue 36's forced_coordination run, where no method learned at the authors' cramped_room settings).", l, float64(MinCookReturn)),
					"no "+l+"/episodic_return curve", func(seed uint64) (float64, bool) {
						c, ok := res.CurveOf(m.Name, l+"/episodic_return", seed)
						if !ok || len(c.Y) == 0 {
							return 0, false
						}
						return c.Y[len(c.Y)-1], true
					}))
		}
		for _, m := range cfg.Methods {
			if !m.PartnerModel || !m.On(l) {
				continue
			}
			out = append(out,
				res.CheckRoom(pmFlatName(l, m.Name), exp.Test{Op: exp.Below, X: MaxTailShare},
					fmt.Sprintf("The partner model's contribution can only be judged once it predicts as well as it will: its accuracy (curve %s/pm_accuracy, on each iteration's fresh rollouts) "+
						"must be flat over the last %.0f %% of steps (share of the change < %g, as for the returns). [UNVERIFIED] PaperLab's choice.", l, 100*PlateauFrac, MaxTailShare),
					"no "+l+"/pm_accuracy curve", res.Plateau(m.Name, l+"/pm_accuracy", PlateauFrac)),
				res.CheckRoom(pmCeilingName(l, m.Name), exp.AtLeast(PMCeilingShare),
					fmt.Sprintf("Final partner-model accuracy over its ceiling: the mixture partner plays uniformly with probability ε = %g, so even a perfect model reaches "+
						"(1−ε)·a + ε/6, with a ≤ 1 the best accuracy on the copied ego's own actions, bounded by Fano's inequality from the ego's final policy entropy "+
						"(the partner is a slow copy of the ego; a = 1 gives %.3f). It must reach ≥ %g of that. [UNVERIFIED] PaperLab's choice; the ego's entropy stands in for the partner's.",
						m.Epsilon, pmCeiling(m.Epsilon, 0), PMCeilingShare),
					"no "+l+"/pm_accuracy or "+l+"/entropy curve", pmShare(res, l, m)),
			)
		}
		out = append(out,
			partnerShare(res, cfg, l, learnedSetName(l), func(p Partner) bool { return p.Kind == "learned" },
				"A method's learned_return is its mean with the pool's learned agents; a difference between methods compares like with like only when every method meets the same agents. "+
					"Share of the learned held-out partners every method and seed is scored with; needs 1 (issue 36's shared pool: every method meets every agent; the runs before it kept each method from its own family's agents and read 0)."),
			partnerShare(res, cfg, l, fixedSetName(l), func(p Partner) bool { return p.Kind == "scripted" || p.Kind == "human_bc" },
				"heldout_return (the mean of the scripted cooks' and the human-BC partner's returns) compares methods only when every method meets the same partners. "+
					"Share of the scripted and human-BC partners every method and seed is scored with; needs 1."),
		)
		if hasBC(res, l) { // a layout without human data has no BC partner to check
			out = append(out, bcCheck(res, l))
		}
	}
	need, why := math.Round(1000*MinEnvSteps/AuthorsEnvSteps)/1000, fmt.Sprintf("The first audit found runs of less than %.0f M steps unconverged and asked for ≥ %.0f M, i.e. ≥ %.3f of the authors' budget (the protocol before issue 36)",
		MinEnvSteps/1e6, MinEnvSteps/1e6, MinEnvSteps/AuthorsEnvSteps)
	if cfg.SharedPool {
		need, why = 1, "Issue 36 asks for at least the authors' budget"
	}
	out = append(out, exp.RoomOn(res.Seeds, budgetName, exp.AtLeast(need),
		fmt.Sprintf("E3T's environment steps per run (mean over layouts) over the authors' %.1f M on cramped_room (ZSC-Eval: 10 M). "+
			"%s; whether the budget suffices is what the plateau checks measure. [UNVERIFIED] PaperLab's choice.", AuthorsEnvSteps/1e6, why),
		"no <layout>/env_steps of e3t", func(seed uint64) (float64, bool) {
			sum := 0.0
			for _, l := range cfg.Layouts {
				v, ok := res.Final("e3t", l+"/env_steps", seed)
				if !ok {
					return 0, false
				}
				sum += v
			}
			return sum / float64(len(cfg.Layouts)) / AuthorsEnvSteps, len(cfg.Layouts) > 0
		}))
	return out
}

// pmShare is method m's final partner-model accuracy on layout l over its ceiling, per seed.
func pmShare(res *exp.Result, l string, m Method) exp.PerSeed {
	return func(seed uint64) (float64, bool) {
		acc, ok1 := res.CurveOf(m.Name, l+"/pm_accuracy", seed)
		ent, ok2 := res.CurveOf(m.Name, l+"/entropy", seed)
		if !ok1 || !ok2 {
			return 0, false
		}
		return acc.Y[len(acc.Y)-1] / pmCeiling(m.Epsilon, ent.Y[len(ent.Y)-1]), true
	}
}

// pmCeiling is the best accuracy any predictor of the mixture partner's actions can reach when
// the partner plays uniformly over the 6 actions with probability eps and otherwise a policy of
// mean entropy h (nats): (1−eps)·a + eps/6, where a = 1 − Pe and Pe is the smallest error Fano's
// inequality allows, h ≤ H₂(Pe) + Pe·ln 5.
func pmCeiling(eps, h float64) float64 {
	return (1-eps)*(1-fanoError(h, overcooked.NumActions)) + eps/overcooked.NumActions
}

// fanoError is the smallest error probability of predicting a variable over n values whose
// conditional entropy is h nats: the Pe in [0, 1 − 1/n] with H₂(Pe) + Pe·ln(n−1) = h (increasing
// in Pe there, from 0 to ln n), found by bisection.
func fanoError(h float64, n int) float64 {
	f := func(p float64) float64 {
		v := p * math.Log(float64(n-1))
		if p > 0 && p < 1 {
			v += -p*math.Log(p) - (1-p)*math.Log(1-p)
		}
		return v
	}
	lo, hi := 0.0, 1-1/float64(n)
	if h <= 0 {
		return 0
	}
	if h >= f(hi) {
		return hi
	}
	for i := 0; i < 60; i++ {
		mid := (lo + hi) / 2
		if f(mid) < h {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// partnerShare is the share of the pool's partners selected by keep with which every method and
// seed has a score (final key <layout>/partner/<name>).
func partnerShare(res *exp.Result, cfg Config, l, name string, keep func(Partner) bool, why string) exp.RoomCheck {
	test := exp.AtLeast(1)
	var pool []Partner
	if err := res.GetExtra("partners_"+l, &pool); err != nil {
		return exp.RoomMissing(name, test, why, "no partners_"+l+" in the result's extra")
	}
	total, common := 0, 0
	for _, p := range pool {
		if !keep(p) {
			continue
		}
		total++
		all := len(cfg.Methods) > 0 && len(res.Seeds) > 0
		for _, m := range cfg.Methods {
			if !m.On(l) {
				continue
			}
			for _, s := range res.Seeds {
				if _, ok := res.Final(m.Name, l+"/partner/"+p.Name, s); !ok {
					all = false
				}
			}
		}
		if all {
			common++
		}
	}
	if total == 0 {
		return exp.RoomMissing(name, test, why, "the pool of "+l+" holds no partner of these kinds")
	}
	return exp.Room(name, float64(common)/float64(total), test, why)
}

// bcCheck is the behaviour-cloned human partner's held-out action accuracy minus that of always
// predicting the commonest action (Extra "bc" of the layout).
func bcCheck(res *exp.Result, l string) exp.RoomCheck {
	name, test := bcName(l), exp.Test{Op: exp.Above, X: BCMargin}
	why := fmt.Sprintf("The human-BC partner stands in for human play only if it imitates it: its held-out action accuracy on the real 2019 human games must exceed "+
		"always playing the commonest action by > %g (about one binomial standard error on ~460 held-out steps); otherwise the claim measures play with a near-constant partner. "+
		"[UNVERIFIED] PaperLab's choice.", BCMargin)
	var fits map[string]map[string]float64
	if err := res.GetExtra("bc", &fits); err != nil {
		return exp.RoomMissing(name, test, why, "no behaviour-cloning fit (extra bc) in the result")
	}
	f, ok := fits[l]
	acc, ok1 := f["heldout_accuracy"]
	maj, ok2 := f["majority_accuracy"]
	if !ok || !ok1 || !ok2 {
		return exp.RoomMissing(name, test, why, "no behaviour-cloning fit for "+l+" (no human data?)")
	}
	return exp.Room(name, acc-maj, test, why)
}

// hasBC reports whether layout l's pool (Extra "partners_<l>") holds a human-data BC partner; a
// result without the pool recorded is assumed to have one (the check then says what is missing).
func hasBC(res *exp.Result, l string) bool {
	var pool []Partner
	if err := res.GetExtra("partners_"+l, &pool); err != nil {
		return true
	}
	for _, p := range pool {
		if p.Kind == "human_bc" {
			return true
		}
	}
	return false
}

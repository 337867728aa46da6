package e3t

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// HeadlineLayout is the layout whose claims answer the paper's headline claims (e3t-1…3 in
// `paperlab verdicts`): cramped_room, the layout of the authors' published configuration
// (yanxue7/E3T-Overcooked's run script, whose settings ours copy). The other layouts and the mean
// over layouts are reported beside it.
const HeadlineLayout = "cramped_room"

// Claims checks the paper's claims (the abstract's, README.md's Headline claims), paired per seed, on
// every layout and averaged over the layouts (with Config.SharedPool, the default since 2026-12-04: on
// pool_return, every method facing the same partners):
// E3T against SP with the held-out pool (and each kind of partner); E3T as good as FCP (a
// non-inferiority claim with margin FCPMargin) at a fraction of FCP's environment steps; and the
// partner model's contribution. Each claim needs the room checks (Room) of every layout in view:
// the compared methods' training returns settled and cooking, one held-out set for the partners it
// reads, the human-BC partner's fit for the BC claim and, for the partner model's contribution, its
// accuracy settled. The arguments that decide part of a claim whatever the data — the budget, FCP's
// weak population, its cost ratio, the partner model's unpredictable partner — are its notes.
func Claims(res *exp.Result) []exp.Claim {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	var out []exp.Claim
	for _, l := range append(append([]string(nil), cfg.Layouts...), "") {
		name, layouts := l, []string{l}
		if l == "" {
			name, layouts = "mean over layouts", cfg.Layouts
		}
		// at is a method's metric on this seed, averaged over the layouts in view.
		at := func(method, key string, seed uint64) (float64, bool) {
			sum := 0.0
			for _, lay := range layouts {
				v, ok := res.Final(method, lay+"/"+key, seed)
				if !ok {
					return 0, false
				}
				sum += v
			}
			return sum / float64(len(layouts)), true
		}
		diff := func(a, b, key string) exp.PerSeed {
			return func(seed uint64) (float64, bool) {
				x, ok1 := at(a, key, seed)
				y, ok2 := at(b, key, seed)
				return x - y, ok1 && ok2
			}
		}
		// check is a claim on method a's metric key minus b's: on one layout a difference of final
		// metrics whose recipe the claim records (exp.Result.CheckDiff), over several their mean.
		check := func(text, measure string, test exp.Test, a, b, key string) exp.Claim {
			if len(layouts) == 1 {
				return res.CheckDiff(text, measure, test, a, layouts[0]+"/"+key, b, layouts[0]+"/"+key)
			}
			return res.Check(text, measure, test, diff(a, b, key))
		}
		ratio := func(a, b, key string) exp.PerSeed {
			return func(seed uint64) (float64, bool) {
				x, ok1 := at(a, key, seed)
				y, ok2 := at(b, key, seed)
				return x / y, ok1 && ok2 && y > 0
			}
		}
		// needs names the room checks of every layout in view: the compared methods' training
		// returns settled and cooking, and per layout the checks each named in checks.
		needs := func(methods []string, checks ...func(layout string) string) []string {
			var names []string
			for _, lay := range layouts {
				for _, m := range methods {
					names = append(names, flatName(lay, m), cookName(lay, m))
					if Measured(cfg) {
						names = append(names, climbName(lay, m))
					}
				}
				for _, c := range checks {
					names = append(names, c(lay))
				}
			}
			return names
		}
		pmFlat := func(lay string) string { return pmFlatName(lay, "e3t") }
		pmReach := func(lay string) string { return pmReachName(lay, "e3t") }
		vsSP, vsFCP, vsNoPM := []string{"e3t", "sp"}, []string{"e3t", "fcp"}, []string{"e3t", "e3t-nopm"}
		// The return every method is compared on, and the held-out sets it reads.
		key, label, sets := "heldout_return", "return", []func(string) string{fixedSetName, bcName}
		if cfg.SharedPool { // one pool for every method; the BC partner gated into pool_return
			key, label, sets = "pool_return", "pool return", []func(string) string{learnedSetName, fixedSetName}
		}
		headline := func(c exp.Claim, id string) exp.Claim {
			if l == HeadlineLayout {
				return c.For(id)
			}
			return c
		}
		var claims []exp.Claim
		if cfg.SharedPool {
			claims = append(claims,
				check(name+": E3T beats SP with the shared held-out pool", "pool return(e3t) − (sp)", exp.Positive, "e3t", "sp", key).
					Needs(needs(vsSP, sets...)...),
				check(name+": … with the scripted cooks", "scripted return(e3t) − (sp)", exp.Positive, "e3t", "sp", "scripted_return").
					Needs(needs(vsSP, fixedSetName)...),
				check(name+": … with held-out learned agents (every family, the same for both)", "learned return(e3t) − (sp)", exp.Positive, "e3t", "sp", "learned_return").
					Needs(needs(vsSP, learnedSetName)...))
		} else {
			claims = append(claims,
				check(name+": E3T beats SP with held-out partners (scripted + human BC)", "return(e3t) − return(sp)", exp.Positive, "e3t", "sp", key).
					Needs(needs(vsSP, sets...)...),
				check(name+": … with the human-data BC partner", "human BC return(e3t) − (sp)", exp.Positive, "e3t", "sp", "human_bc_return").
					Needs(needs(vsSP, sets...)...),
				check(name+": … with held-out agents of the other families", "learned return(e3t) − (sp)", exp.Positive, "e3t", "sp", "learned_return").
					Needs(needs(vsSP, learnedSetName)...))
		}
		fcpSets := append(slices.Clone(sets), fcpLevelName)
		matches := check(name+": E3T coordinates as well as or better than FCP", label+"(e3t) − (fcp)", exp.Positive, "e3t", "fcp", key).
			Comparable(FCPMargin, fmt.Sprintf("half a soup (%d of a delivery's %d) per 400-step episode; fixed from the task's unit, not from the result", FCPMargin, SoupReward)).
			Needs(needs(vsFCP, fcpSets...)...)
		matches.Context = readingOf(label+"(e3t) / (fcp)", ratio("e3t", "fcp", key), res.Seeds)
		var cost exp.Claim
		var perFamily []exp.Claim
		if Measured(cfg) && cfg.SharedPool {
			// learned_return counts only the families that cook (the competence check).
			for i, c := range claims {
				if strings.Contains(c.Measure, "learned return(e3t)") {
					claims[i] = c.WithNote(apartNote(res, layouts))
				}
			}
		}
		if Measured(cfg) {
			// Since 2026-12-07 the cost is read from the curves: E3T's snapshots against FCP's final
			// return, FCP's population in its cost (CostClaims).
			matches = matches.WithNote(populationNote(res, cfg, layouts))
			cost = CostClaims(res, name, layouts, needs(vsFCP, fcpSets...))
			for _, fam := range Families {
				if fam.HeldOut == nil {
					continue
				}
				perFamily = append(perFamily, check(name+": … E3T against SP with the held-out "+fam.Name+" agents", "learned_"+fam.Name+" return(e3t) − (sp)", exp.Positive,
					"e3t", "sp", "learned_"+fam.Name+"_return").Needs(needs(vsSP, learnedSetName, func(l string) string { return competenceName(l, fam.Name) })...))
			}
			// E3T against FCP partner by partner kind: the scripted cooks favour neither (FCP's
			// population and the held-out SP agents share self-play's conventions), then each held-out
			// learned family — the same margin as e3t-1.
			comparable := func(c exp.Claim) exp.Claim {
				return c.Comparable(FCPMargin, fmt.Sprintf("half a soup (%d of a delivery's %d) per 400-step episode, e3t-1's margin", FCPMargin, SoupReward))
			}
			perFamily = append(perFamily, comparable(check(name+": … E3T against FCP with the scripted cooks (partners that favour neither)", "scripted return(e3t) − (fcp)", exp.Positive,
				"e3t", "fcp", "scripted_return")).Needs(needs(vsFCP, fixedSetName, fcpLevelName)...))
			for _, fam := range Families {
				if fam.HeldOut == nil {
					continue
				}
				perFamily = append(perFamily, comparable(check(name+": … E3T against FCP with the held-out "+fam.Name+" agents", "learned_"+fam.Name+" return(e3t) − (fcp)", exp.Positive,
					"e3t", "fcp", "learned_"+fam.Name+"_return")).Needs(needs(vsFCP, learnedSetName, fcpLevelName, func(l string) string { return competenceName(l, fam.Name) })...))
			}
		} else {
			fcp := fcpNote(res, cfg, layouts)
			matches = matches.ByConstruction(fcp)
			// The environment-step ratio is set by the configuration (costNote); the measured cost is
			// the wall time, FCP's population included, against the threshold the protocol fixed.
			cost = res.Check(name+": … at a fraction of its training cost", "wall time(e3t) / wall time(fcp), FCP's population included", exp.AtMost(0.5),
				ratio("e3t", "fcp", "train_seconds")).
				ByConstruction(costNote(res, cfg, layouts)).ByConstruction(fcp).Needs(needs(vsFCP)...)
			cost.Notes = append(cost.Notes, "wall time as each run recorded it (train_seconds) on the machine that ran them: another machine or load can change the ratio")
			cost.Context = readingOf("env steps(e3t) / (fcp), set by the configuration", ratio("e3t", "fcp", "env_steps"), res.Seeds)
		}
		helps := check(name+": the partner model helps", label+"(e3t) − (e3t-nopm)", exp.Positive, "e3t", "e3t-nopm", key).
			Needs(needs(vsNoPM, pmChecks(cfg, sets, pmFlat, pmReach)...)...)
		if m, ok := methodNamed(cfg, "e3t"); ok {
			helps = helps.ByConstruction(pmNote(res, m, layouts))
		}
		claims = append(claims, headline(matches, "e3t-1"), headline(cost, "e3t-2"), headline(helps, "e3t-3"))
		claims = append(claims, perFamily...)
		if cfg.SharedPool {
			bc := true // the BC claim only where every layout in view has a human-data partner
			for _, lay := range layouts {
				bc = bc && hasBC(res, lay)
			}
			if bc {
				claims = append(claims, check(name+": … with the human-data BC partner", "human BC return(e3t) − (sp)", exp.Positive, "e3t", "sp", "human_bc_return").
					Needs(needs(vsSP, fixedSetName, bcName)...))
			}
		}
		budget := budgetNote(res, layouts)
		for _, c := range claims {
			out = append(out, c.ByConstruction(budget))
		}
	}
	return out
}

// methodNamed is the configuration's method called name.
func methodNamed(cfg Config, name string) (Method, bool) {
	i := slices.IndexFunc(cfg.Methods, func(m Method) bool { return m.Name == name })
	if i < 0 {
		return Method{}, false
	}
	return cfg.Methods[i], true
}

// readingOf is a per-seed measure on seeds summarised for a claim's context: "what: mean [95 %
// interval] (n = …)"; "" where no seed has it.
func readingOf(what string, f exp.PerSeed, seeds []uint64) string {
	var vals []float64
	for _, s := range seeds {
		if v, ok := f(s); ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return ""
	}
	s := stats.Summarize(vals)
	if len(vals) < 2 {
		return fmt.Sprintf("%s %.3f (n = 1)", what, s.Mean)
	}
	return fmt.Sprintf("%s %.3f [%.3f, %.3f] (n = %d)", what, s.Mean, s.CI95[0], s.CI95[1], len(vals))
}

// fcpPopulation is FCP's population on the layouts in view as the configuration builds it: every SP
// method's (every Population family's) seeds (those with a run on the first layout) at each snapshot of Train.SnapshotAt.
func fcpPopulation(res *exp.Result, cfg Config, layouts []string) (agents, snapshots, untrained int) {
	for _, m := range cfg.Methods {
		if !m.family().Population || len(layouts) == 0 || !m.On(layouts[0]) {
			continue
		}
		for _, s := range res.Seeds {
			if _, ok := res.Final(m.Name, layouts[0]+"/env_steps", s); ok {
				agents++
			}
		}
	}
	for _, at := range cfg.Train.SnapshotAt {
		if at == 0 {
			untrained++
		}
	}
	return agents, len(cfg.Train.SnapshotAt), untrained
}

// fcpNote says why FCP is a weak population baseline here whatever the data: its population is
// the SP seeds' snapshots, some untrained, far smaller than the FCP paper's, and its best response
// trains at E3T's budget.
func fcpNote(res *exp.Result, cfg Config, layouts []string) string {
	agents, snapshots, untrained := fcpPopulation(res, cfg, layouts)
	var at []string
	for _, a := range cfg.Train.SnapshotAt {
		at = append(at, fmt.Sprintf("%g %%", 100*a))
	}
	return fmt.Sprintf("FCP is a weak population baseline: %d SP agents at %s of training (%d of its %d members untrained), far fewer than the FCP paper's, "+
		"its best response at E3T's budget; a stronger FCP could change this comparison", agents, strings.Join(at, ", "), untrained*agents, agents*snapshots)
}

// costNote says why the cost ratio is what it is whatever the data: FCP's environment steps are its
// population's SP runs plus its best response, each at E3T's budget.
func costNote(res *exp.Result, cfg Config, layouts []string) string {
	agents, _, _ := fcpPopulation(res, cfg, layouts)
	return fmt.Sprintf("the environment-step ratio is fixed by the configuration: FCP's cost counts its population's %d SP runs and its best response, each at E3T's budget, so E3T's share is 1/%d = %.3f",
		agents, agents+1, 1/float64(agents+1))
}

// Measured reports whether a result's configuration is of the protocol of 2026-12-07 (FCP's
// population by its paper's recipe, the cost read from curves, the competence check): FCPIters set.
// Results of earlier protocols keep the claims they were judged with.
func Measured(cfg Config) bool { return cfg.FCPIters > 0 }

// pmChecks are the per-layout room checks of the partner-model claim: the held-out sets, the model's
// accuracy settled and, in a result of the protocol of 2026-12-07 (Measured; the earlier runs did not
// measure the ceiling, and keep the claim as they read it), its share of the ceiling.
func pmChecks(cfg Config, sets []func(string) string, flat, reach func(string) string) []func(string) string {
	out := append(slices.Clone(sets), flat)
	if Measured(cfg) {
		out = append(out, reach)
	}
	return out
}

// ReachCost is the cost (the curve's x) from which a return curve stays at or above target: linearly
// interpolated between its last point below target and the next one (the first point's x when none
// is below); false when its last point is below target. A crossing that a later snapshot falls back
// from does not count: noise in a snapshot's score cannot make E3T reach earlier.
func ReachCost(c exp.Curve, target float64) (float64, bool) {
	n := len(c.Y)
	if n == 0 || c.Y[n-1] < target {
		return 0, false
	}
	i := n - 1
	for i > 0 && c.Y[i-1] >= target {
		i--
	}
	if i == 0 {
		return c.X[0], true
	}
	t := (target - c.Y[i-1]) / (c.Y[i] - c.Y[i-1])
	return c.X[i-1] + t*(c.X[i]-c.X[i-1]), true
}

// reachBracket is the pair of measured points of a return curve between which ReachCost
// interpolates (the same point twice when the curve starts at or above target); false when it
// never reaches.
func reachBracket(c exp.Curve, target float64) (lo, hi float64, ok bool) {
	x, ok := ReachCost(c, target)
	if !ok {
		return 0, 0, false
	}
	i := slices.IndexFunc(c.X, func(v float64) bool { return v >= x })
	if i <= 0 || c.X[i] == x {
		return c.X[max(i, 0)], c.X[max(i, 0)], true
	}
	return c.X[i-1], c.X[i], true
}

// CostClaims is the cost claim read from the curves (the protocol of 2026-12-07), on the layouts in
// view (per seed, the mean over them): the fraction f of FCP's total cost — its best response and
// its whole population, in CPU seconds — from which E3T's snapshots stay at or above FCP's level
// (ReachCost on curve pool_by_cpu, whose last point is the final score at EvalEpisodes games per
// seat, as FCP's; the same in environment steps as context), at most 0.5. FCP's level is its final
// pool return averaged over its seeds less FCPMargin — e3t-1's "as well as", since an E3T seed and
// the FCP seed of the same number are independent runs and pairing them would make a seed miss by
// noise — and its total cost the mean over its seeds. The configuration bounds f whatever the
// returns: E3T's whole run costs a small fraction of FCP's (costCeiling), so the claim is structural
// — reported, not the informative reading; whether E3T matches FCP at all is e3t-1's question. A seed
// on which E3T's final score stays below FCP's level makes f unmeasured ("not reached"), and the
// claim reads untestable naming the seeds. needs are the room checks the claim needs.
func CostClaims(res *exp.Result, name string, layouts []string, needs []string) exp.Claim {
	// FCP's level and total cost on a layout: the means over its seeds.
	fcpMean := func(key string) (float64, bool) {
		sum, n := 0.0, 0
		for _, seed := range res.Seeds {
			if v, ok := res.Final("fcp", key, seed); ok {
				sum, n = sum+v, n+1
			}
		}
		return sum / float64(max(n, 1)), n > 0
	}
	level := func(lay string) (float64, bool) {
		v, ok := fcpMean(lay + "/pool_return")
		return v - FCPMargin, ok
	}
	frac := func(curve, total string) exp.PerSeed {
		return func(seed uint64) (float64, bool) {
			sum := 0.0
			for _, lay := range layouts {
				c, ok1 := res.CurveOf("e3t", lay+"/"+curve, seed)
				target, ok2 := level(lay)
				tot, ok3 := fcpMean(lay + "/" + total)
				if !ok1 || !ok2 || !ok3 || tot <= 0 {
					return 0, false
				}
				x, ok := ReachCost(c, target)
				if !ok {
					return 0, false
				}
				sum += x / tot
			}
			return sum / float64(len(layouts)), true
		}
	}
	f := res.Check(name+": … at a fraction of its training cost (E3T's snapshots reach FCP's level)",
		fmt.Sprintf("CPU seconds(e3t to reach fcp's final pool return, mean over seeds, − %d) / (fcp's total, population included, mean over seeds)", FCPMargin),
		exp.AtMost(0.5), frac("pool_by_cpu", "cpu_seconds")).Needs(needs...)
	f.Context = readingOf("the same in environment steps", frac("pool_by_steps", "env_steps"), res.Seeds)
	f = f.Structural(costCeiling(res, layouts))
	var missed, brackets []string
	for _, seed := range res.Seeds {
		if _, ok := frac("pool_by_cpu", "cpu_seconds")(seed); !ok {
			missed = append(missed, fmt.Sprint(seed))
		}
		for _, lay := range layouts { // which measured snapshots the reach lies between
			c, ok1 := res.CurveOf("e3t", lay+"/pool_by_steps", seed)
			target, ok2 := level(lay)
			if lo, hi, ok := reachBracket(c, target); ok1 && ok2 && ok && lo == hi {
				brackets = append(brackets, fmt.Sprintf("seed %d %s at %.3g M", seed, lay, lo/1e6))
			} else if ok1 && ok2 && ok {
				brackets = append(brackets, fmt.Sprintf("seed %d %s %.3g–%.3g M", seed, lay, lo/1e6, hi/1e6))
			}
		}
	}
	if len(brackets) > 0 {
		f = f.WithNote("E3T reaches FCP's level between the snapshots at (environment steps): " + strings.Join(brackets, ", "))
	}
	var levels []string
	for _, lay := range layouts {
		if v, ok := level(lay); ok {
			levels = append(levels, fmt.Sprintf("%s %.1f", lay, v))
		}
	}
	if len(levels) > 0 {
		f = f.WithNote(fmt.Sprintf("FCP's level (its final pool return, mean over seeds, less the margin %d): %s", FCPMargin, strings.Join(levels, ", ")))
	}
	if len(missed) > 0 {
		f.Unmeasured = fmt.Sprintf("not reached: E3T's final pool return stays below FCP's level on %d of %d seeds (%s), so the cost at which it reaches it is not measured there",
			len(missed), len(res.Seeds), strings.Join(missed, ", "))
	}
	return f
}

// costCeiling is the bound the configuration puts on f, whatever the returns: E3T's whole run
// against FCP's total cost (population and best response), in CPU seconds and in environment steps,
// the largest over seeds.
func costCeiling(res *exp.Result, layouts []string) string {
	ceiling := func(key string) float64 {
		hi := math.NaN()
		for _, seed := range res.Seeds {
			for _, lay := range layouts {
				e, ok1 := res.Final("e3t", lay+"/"+key, seed)
				f, ok2 := res.Final("fcp", lay+"/"+key, seed)
				if ok1 && ok2 && f > 0 && !(e/f <= hi) {
					hi = e / f
				}
			}
		}
		return hi
	}
	return fmt.Sprintf("f is at most E3T's whole cost over FCP's — %.3f in CPU seconds, %.3f in environment steps here — because FCP's population alone is many self-play runs: "+
		"the fraction is set by the configuration; the claim's informative part, whether E3T matches FCP's return, is e3t-1", ceiling("cpu_seconds"), ceiling("env_steps"))
}

// populationNote describes FCP's population as built (the protocol of 2026-12-07): how many
// self-play agents, each at its initial, middle-by-return and final checkpoints.
func populationNote(res *exp.Result, cfg Config, layouts []string) string {
	agents, _, _ := fcpPopulation(res, cfg, layouts)
	agents += len(cfg.PopulationSeeds)
	return fmt.Sprintf("FCP's population: %d self-play agents × 3 checkpoints (initial, the one closest to half the final training return, final; fcp.PickCheckpoints), "+
		"one population shared by every FCP seed (the interval covers the best response's seed, not the population's draw), "+
		"its best response trained %d iterations; the FCP paper's population is 32 agents (by a secondary source; see `paperlab settings e3t`)", agents, cfg.FCPIters)
}

// apartNote names, per layout in view, the held-out learned families reported apart (a family with
// an agent that cannot cook with a copy of itself: Partner.Apart), which learned_return leaves out.
func apartNote(res *exp.Result, layouts []string) string {
	var parts []string
	for _, l := range layouts {
		var pool []Partner
		_ = res.GetExtra("partners_"+l, &pool)
		var apart []string
		for _, p := range pool {
			if p.Kind == "learned" && p.Apart && !slices.Contains(apart, p.Family) {
				apart = append(apart, p.Family)
			}
		}
		if len(apart) == 0 {
			apart = []string{"none"}
		}
		parts = append(parts, l+": "+strings.Join(apart, ", "))
	}
	return "learned_return counts the held-out families that cook (with themselves or a scripted cook); reported apart (left out): " + strings.Join(parts, "; ")
}

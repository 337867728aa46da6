package e3t

import (
	"encoding/json"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims (§7), paired per seed, on every layout and averaged over the
// layouts (with Config.SharedPool, issue 36: on pool_return, every method facing the same partners):
// E3T against SP with the held-out pool (the headline, and each kind of partner), E3T
// against FCP (at least 90 % of FCP's return) at a fraction of FCP's environment steps, and the
// partner model's contribution. Each claim needs the room checks (Room) of every layout in view:
// the compared methods' training returns flat, the budget, one held-out set for the partners it
// reads, the human-BC partner's fit for the BC claim and, for the partner model's contribution,
// its accuracy flat and near its ceiling.
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
		ratio := func(a, b, key string) exp.PerSeed {
			return func(seed uint64) (float64, bool) {
				x, ok1 := at(a, key, seed)
				y, ok2 := at(b, key, seed)
				return x / y, ok1 && ok2 && y > 0
			}
		}
		// needs names the room checks of every layout in view: the compared methods' training
		// returns flat, the budget, and per layout the checks each named in checks.
		needs := func(methods []string, checks ...func(layout string) string) []string {
			names := []string{budgetName}
			for _, lay := range layouts {
				for _, m := range methods {
					names = append(names, flatName(lay, m), cookName(lay, m))
				}
				for _, c := range checks {
					names = append(names, c(lay))
				}
			}
			return names
		}
		pmFlat := func(lay string) string { return pmFlatName(lay, "e3t") }
		pmCeiling := func(lay string) string { return pmCeilingName(lay, "e3t") }
		vsSP, vsFCP, vsNoPM := []string{"e3t", "sp"}, []string{"e3t", "fcp"}, []string{"e3t", "e3t-nopm"}
		if cfg.SharedPool { // issue 36: one pool for every method; the BC partner gated into pool_return
			pool := []func(string) string{learnedSetName, fixedSetName}
			out = append(out,
				res.Check(name+": E3T beats SP with the shared held-out pool", "pool return(e3t) − (sp)", exp.Positive, diff("e3t", "sp", "pool_return")).
					Needs(needs(vsSP, pool...)...),
				res.Check(name+": … with the scripted cooks", "scripted return(e3t) − (sp)", exp.Positive, diff("e3t", "sp", "scripted_return")).
					Needs(needs(vsSP, fixedSetName)...),
				res.Check(name+": … with held-out learned agents (every family, the same for both)", "learned return(e3t) − (sp)", exp.Positive, diff("e3t", "sp", "learned_return")).
					Needs(needs(vsSP, learnedSetName)...),
				res.Check(name+": E3T matches FCP (at least 90% of its pool return)", "pool return(e3t) / (fcp)", exp.AtLeast(0.9), ratio("e3t", "fcp", "pool_return")).
					Needs(needs(vsFCP, pool...)...),
				res.Check(name+": … at a fraction of its training cost", "env steps(e3t) / env steps(fcp)", exp.AtMost(0.5), ratio("e3t", "fcp", "env_steps")).
					Needs(needs(vsFCP)...),
				res.Check(name+": the partner model helps", "pool return(e3t) − (e3t-nopm)", exp.Positive, diff("e3t", "e3t-nopm", "pool_return")).
					Needs(needs(vsNoPM, append(pool, pmFlat, pmCeiling)...)...),
			)
			bc := true // the BC claim only where every layout in view has a human-data partner
			for _, lay := range layouts {
				bc = bc && hasBC(res, lay)
			}
			if bc {
				out = append(out, res.Check(name+": … with the human-data BC partner", "human BC return(e3t) − (sp)", exp.Positive, diff("e3t", "sp", "human_bc_return")).
					Needs(needs(vsSP, fixedSetName, bcName)...))
			}
			continue
		}
		out = append(out,
			res.Check(name+": E3T beats SP with held-out partners (scripted + human BC)", "return(e3t) − return(sp)", exp.Positive, diff("e3t", "sp", "heldout_return")).
				Needs(needs(vsSP, fixedSetName, bcName)...),
			res.Check(name+": … with the human-data BC partner", "human BC return(e3t) − (sp)", exp.Positive, diff("e3t", "sp", "human_bc_return")).
				Needs(needs(vsSP, fixedSetName, bcName)...),
			res.Check(name+": … with held-out agents of the other families", "learned return(e3t) − (sp)", exp.Positive, diff("e3t", "sp", "learned_return")).
				Needs(needs(vsSP, learnedSetName)...),
			res.Check(name+": E3T matches FCP (at least 90% of its return)", "return(e3t) / return(fcp)", exp.AtLeast(0.9), ratio("e3t", "fcp", "heldout_return")).
				Needs(needs(vsFCP, fixedSetName, bcName)...),
			// The cost ratio is fixed by the configuration; it says something about the methods only
			// when both were trained to their plateau within the budget.
			res.Check(name+": … at a fraction of its training cost", "env steps(e3t) / env steps(fcp)", exp.AtMost(0.5), ratio("e3t", "fcp", "env_steps")).
				Needs(needs(vsFCP)...),
			res.Check(name+": the partner model helps", "return(e3t) − return(e3t-nopm)", exp.Positive, diff("e3t", "e3t-nopm", "heldout_return")).
				Needs(needs(vsNoPM, fixedSetName, bcName, pmFlat, pmCeiling)...),
		)
	}
	return out
}

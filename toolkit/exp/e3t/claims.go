package e3t

import (
	"encoding/json"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Claims checks the paper's claims (§7) seed by seed, on every layout: E3T against SP with held-out
// partners, E3T against FCP-lite (matching means within 10% of FCP's return), E3T's training cost
// against FCP's, and the partner model's contribution.
func Claims(res *exp.Result) []exp.Claim {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	var out []exp.Claim
	for _, l := range cfg.Layouts {
		k := l + "/heldout_return"
		out = append(out,
			res.Check(l+": E3T beats SP with held-out partners", "return(e3t) − return(sp)", exp.Positive, res.Diff("e3t", k, "sp", k)),
			res.Check(l+": E3T matches FCP-lite (at least 90% of its return)", "return(e3t) / return(fcp)", exp.AtLeast(0.9),
				func(seed uint64) (float64, bool) {
					a, ok1 := res.Final("e3t", k, seed)
					b, ok2 := res.Final("fcp", k, seed)
					if !ok1 || !ok2 || b <= 0 {
						return 0, false
					}
					return a / b, true
				}),
			res.Check(l+": … at a fraction of its training cost", "env steps(e3t) / env steps(fcp)", exp.AtMost(0.5),
				func(seed uint64) (float64, bool) {
					a, ok1 := res.Final("e3t", l+"/env_steps", seed)
					b, ok2 := res.Final("fcp", l+"/env_steps", seed)
					return a / b, ok1 && ok2 && b > 0
				}),
			res.Check(l+": the partner model helps", "return(e3t) − return(e3t-nopm)", exp.Positive, res.Diff("e3t", k, "e3t-nopm", k)),
		)
	}
	return out
}

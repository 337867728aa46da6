package exp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/stats"
)

// Front is the setting of a method family (a baseline's β or mixing share, a method's λ) that
// stands for the family in a per-seed comparison, chosen without selection bias: by the setting's
// mean over seeds on a metric fixed in advance — never by a per-seed maximum, which lets a larger
// sweep win by its size. With at least FrontSplitSeeds seeds the choice reads the first half of the
// seeds and the comparison uses the other half, so the chosen setting's luck on the choosing
// seeds does not enter the comparison.
type Front struct {
	// Family are the settings (method names) compared, Metric what the choice reads.
	Family []string `json:"family"`
	Metric string   `json:"metric"`
	// Chosen is the setting with the best mean on ChooseSeeds; Means each setting's mean there
	// (NaN where a setting has no value on any of them).
	Chosen       string             `json:"chosen"`
	Means        map[string]float64 `json:"means"`
	ChooseSeeds  []uint64           `json:"choose_seeds"`
	CompareSeeds []uint64           `json:"compare_seeds"`
}

// FrontSplitSeeds is the seed count from which a front is chosen on half the seeds and compared on
// the other half.
const FrontSplitSeeds = 8

// ChooseFront chooses family's setting by the mean of score(setting) over seeds (the larger the
// better: negate a metric where less is better), on the first half of seeds when there are at
// least FrontSplitSeeds (compared on the second half), else on all of them (and compared on all).
// A setting with no value on the choosing seeds cannot be chosen; with none at all Chosen is "".
func ChooseFront(seeds []uint64, family []string, metric string, score func(setting string) PerSeed) Front {
	s := slices.Clone(seeds)
	slices.Sort(s)
	f := Front{Family: family, Metric: metric, Means: map[string]float64{}, ChooseSeeds: s, CompareSeeds: s}
	if len(s) >= FrontSplitSeeds {
		f.ChooseSeeds, f.CompareSeeds = s[:len(s)/2], s[len(s)/2:]
	}
	best := math.Inf(-1)
	for _, m := range family {
		vals, _ := perSeed(f.ChooseSeeds, score(m))
		mean := math.NaN()
		if len(vals) > 0 {
			mean = stats.Mean(vals)
		}
		f.Means[m] = mean
		if !math.IsNaN(mean) && mean > best {
			best, f.Chosen = mean, m
		}
	}
	return f
}

// FrontOf is ChooseFront on every seed of the result with the final metric of each setting
// (negated when lowerBetter).
func (r *Result) FrontOf(family []string, metric string, lowerBetter bool) Front {
	return ChooseFront(r.Seeds, family, metric, func(m string) PerSeed {
		return func(seed uint64) (float64, bool) {
			v, ok := r.Final(m, metric, seed)
			if lowerBetter {
				v = -v
			}
			return v, ok
		}
	})
}

// Note says how the setting was chosen, for the claims that use it.
func (f Front) Note() string {
	var means []string
	for _, m := range f.Family {
		means = append(means, fmt.Sprintf("%s %.3g", m, f.Means[m]))
	}
	how := fmt.Sprintf("chosen and compared on seeds %v", f.ChooseSeeds)
	if len(f.CompareSeeds) != len(f.ChooseSeeds) || !slices.Equal(f.CompareSeeds, f.ChooseSeeds) {
		how = fmt.Sprintf("chosen on seeds %v, compared on seeds %v", f.ChooseSeeds, f.CompareSeeds)
	}
	return fmt.Sprintf("front of %d settings: %s chosen by its mean %s over seeds (%s; %s)", len(f.Family), f.Chosen, f.Metric, strings.Join(means, ", "), how)
}

// Sweep is one method family's sweep: the settings an experiment tried for it. `paperlab
// settings` lists each family's sweep size, so that a method tuned over five settings is not
// compared unremarked with a baseline run at one.
type Sweep struct {
	Family   string   `json:"family"`
	Knob     string   `json:"knob"`
	Settings []string `json:"settings"`
	// Compared says how the family enters the claims: "front" (ChooseFront), "each" (every
	// setting its own claim) or "one" (a single setting).
	Compared string `json:"compared"`
}

// SweepTable is the table of an experiment's sweeps.
func SweepTable(sweeps []Sweep) (headers []string, rows [][]string) {
	headers = []string{"method family", "knob", "settings tried", "sweep size", "compared as"}
	for _, s := range sweeps {
		rows = append(rows, []string{s.Family, s.Knob, strings.Join(s.Settings, ", "), fmt.Sprint(len(s.Settings)), s.Compared})
	}
	return headers, rows
}

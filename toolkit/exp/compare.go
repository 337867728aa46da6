package exp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sort"

	"github.com/paperlab/paperlab/toolkit/stats"
)

// Agreement compares one method's metric between two results of the same experiment (A: e.g. the
// committed run, B: a re-run).
type Agreement struct {
	Method, Metric string
	A, B           Stat
	// Diff is mean(B) − mean(A) and DiffCI its 95 % Welch t-interval (NaN with fewer than two
	// seeds on either side).
	Diff   float64
	DiffCI [2]float64
	// Verdict is "agree" (the Welch interval contains 0), "differ" (it excludes 0) or "n < 2" (no
	// interval: nothing can be judged).
	Verdict string
	// SameSeeds counts the seeds run on both sides whose value is bit-identical, out of Shared; it is
	// what to expect to be equal only when PerSeed is true.
	SameSeeds, Shared int
}

// Comparison is Compare's answer.
type Comparison struct {
	Experiment string
	// PerSeed is true when both results were made by the same engine on the same CPU line (the only
	// case where per-seed values are expected to be bit-identical); Why says what differs otherwise.
	PerSeed bool
	Why     string
	Rows    []Agreement
}

// Compare puts two results of one experiment side by side, metric by metric. The rule: two runs agree
// on a metric when the 95 % Welch t-interval of the difference of their means over seeds contains 0
// (a statistical statement about the two seed samples; it says nothing about single seeds). Results
// of different experiments, scales or configurations are not comparable: the error names the first
// differing configuration field.
func Compare(a, b *Result) (*Comparison, error) {
	if a.Experiment != b.Experiment {
		return nil, fmt.Errorf("compare: experiment %q vs %q", a.Experiment, b.Experiment)
	}
	if a.Scale != b.Scale {
		return nil, fmt.Errorf("compare: %s: scale %q vs %q", a.Experiment, a.Scale, b.Scale)
	}
	if !bytes.Equal(a.Config, b.Config) {
		if field, va, vb := ConfigDiff(a.Config, b.Config); field != "" {
			return nil, fmt.Errorf("compare: %s: configurations differ at %s: %s vs %s", a.Experiment, field, va, vb)
		}
	}
	c := &Comparison{Experiment: a.Experiment, PerSeed: a.Backend == b.Backend && a.CPU == b.CPU && a.CPU != ""}
	switch {
	case a.Backend != b.Backend:
		c.Why = fmt.Sprintf("engines differ (%s vs %s)", a.Backend, b.Backend)
	case a.CPU == "" || b.CPU == "":
		c.Why = "a result does not record its CPU"
	case a.CPU != b.CPU:
		c.Why = fmt.Sprintf("CPUs differ (%s vs %s)", a.CPU, b.CPU)
	}
	for _, m := range a.Methods() {
		var metrics []string
		for k := range a.Summary[m] {
			if _, ok := b.Summary[m][k]; ok && !wallTime(k) {
				metrics = append(metrics, k)
			}
		}
		sort.Strings(metrics)
		for _, k := range metrics {
			xa, xb := seedValues(a, m, k), seedValues(b, m, k)
			row := Agreement{Method: m, Metric: k, A: a.Summary[m][k], B: b.Summary[m][k]}
			row.Diff, row.DiffCI, _ = stats.Welch(values(xa), values(xb))
			switch {
			case math.IsNaN(row.DiffCI[0]):
				row.Verdict = "n < 2"
			case row.DiffCI[0] <= 0 && 0 <= row.DiffCI[1]:
				row.Verdict = "agree"
			default:
				row.Verdict = "differ"
			}
			for seed, va := range xa {
				if vb, ok := xb[seed]; ok {
					row.Shared++
					if math.Float64bits(va) == math.Float64bits(vb) {
						row.SameSeeds++
					}
				}
			}
			c.Rows = append(c.Rows, row)
		}
	}
	return c, nil
}

// Disagreements counts the rows whose verdict is "differ".
func (c *Comparison) Disagreements() int {
	n := 0
	for _, r := range c.Rows {
		if r.Verdict == "differ" {
			n++
		}
	}
	return n
}

// wallTime reports metrics that measure time, not results (they never agree between machines).
func wallTime(k string) bool {
	return slices.Contains([]string{"seconds", "train_seconds", "SPS", "sps"}, k) || len(k) > 8 && k[len(k)-8:] == "_seconds"
}

// seedValues maps seed → the finite final value of metric k of method m.
func seedValues(r *Result, m, k string) map[uint64]float64 {
	out := map[uint64]float64{}
	for _, run := range r.Runs {
		if v, ok := run.Final[k]; ok && run.Method == m && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[run.Seed] = v
		}
	}
	return out
}

// values are m's values in seed order.
func values(m map[uint64]float64) []float64 {
	var out []float64
	for _, s := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[s])
	}
	return out
}

// ConfigDiff returns the path of the first field (in sorted key order) where two JSON configurations
// differ, with both values as JSON; "" when they are equal as JSON values.
func ConfigDiff(a, b json.RawMessage) (field, va, vb string) {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "config", string(a), string(b)
	}
	return jsonDiff("config", x, y)
}

func jsonDiff(path string, x, y any) (string, string, string) {
	mx, okx := x.(map[string]any)
	my, oky := y.(map[string]any)
	if okx && oky {
		keys := maps.Clone(mx)
		maps.Copy(keys, my)
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if f, a, b := jsonDiff(path+"."+k, mx[k], my[k]); f != "" {
				return f, a, b
			}
		}
		return "", "", ""
	}
	ax, okx := x.([]any)
	ay, oky := y.([]any)
	if okx && oky && len(ax) == len(ay) {
		for i := range ax {
			if f, a, b := jsonDiff(fmt.Sprintf("%s[%d]", path, i), ax[i], ay[i]); f != "" {
				return f, a, b
			}
		}
		return "", "", ""
	}
	if reflect.DeepEqual(x, y) {
		return "", "", ""
	}
	a, _ := json.Marshal(x)
	b, _ := json.Marshal(y)
	if x == nil {
		a = []byte("(absent)")
	}
	if y == nil {
		b = []byte("(absent)")
	}
	return path, string(a), string(b)
}

// Table is the comparison as rows for a terminal or a notebook (nb.Table): per method and metric,
// both means ± the half-width of their 95 % intervals with n, the difference with its Welch
// interval, the verdict, and how many shared seeds are bit-identical (expected of every seed only
// when PerSeed).
func (c *Comparison) Table(nameA, nameB string) (headers []string, rows [][]string) {
	headers = []string{"method", "metric", nameA, nameB, nameB + " − " + nameA + " [95% Welch CI]", "verdict", "seeds bit-identical"}
	for _, r := range c.Rows {
		diff := fmt.Sprintf("%+.3f", r.Diff)
		if !math.IsNaN(r.DiffCI[0]) {
			diff += fmt.Sprintf(" [%+.3f, %+.3f]", r.DiffCI[0], r.DiffCI[1])
		}
		rows = append(rows, []string{r.Method, r.Metric, r.A.String(), r.B.String(), diff, r.Verdict, fmt.Sprintf("%d/%d", r.SameSeeds, r.Shared)})
	}
	return headers, rows
}

// LoadAny reads a metrics.json given as the file or as the folder holding it.
func LoadAny(path string) (*Result, error) {
	if filepath.Base(path) == MetricsFile {
		path = filepath.Dir(path)
	}
	return Load(path)
}

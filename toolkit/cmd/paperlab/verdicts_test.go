package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// README's verdict table is the one `paperlab verdicts -readme` writes from the committed results.
func TestReadmeVerdictsAreGenerated(t *testing.T) {
	b := readme(t)
	results, err := exp.CommittedResults()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exp.Verdicts(results)
	if err != nil {
		t.Fatal(err)
	}
	n, err := exp.CountClaims(results)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), exp.VerdictsMarkdown(rows, n)) {
		t.Errorf("README.md's verdict table differs from the committed results: run `go run ./toolkit/cmd/paperlab verdicts -readme`")
	}
	var out bytes.Buffer
	if err := verdicts([]string{"-json"}, &out); err != nil {
		t.Fatal(err)
	}
	var back []exp.VerdictRow
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || len(back) != len(rows) {
		t.Fatalf("verdicts -json: %d rows, %v", len(back), err)
	}
	if err := verdicts([]string{"extra"}, &out); err == nil {
		t.Error("verdicts took an argument")
	}
}

// rawResult is metrics.json read without toolkit/exp: each run's method, seed and final metrics.
type rawResult struct {
	Runs []struct {
		Method string             `json:"method"`
		Seed   uint64             `json:"seed"`
		Final  map[string]float64 `json:"final"`
	} `json:"runs"`
}

func (r rawResult) final(method, metric string, seed uint64) (float64, bool) {
	for _, run := range r.Runs {
		if v, ok := run.Final[metric]; ok && run.Method == method && run.Seed == seed {
			return v, true
		}
	}
	return 0, false
}

// interval is the mean and 95 % t-interval of xs by gonum's stat and distuv directly.
func interval(xs []float64) (mean, lo, hi float64) {
	mean, sd := stat.MeanStdDev(xs, nil)
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975) * sd / math.Sqrt(float64(len(xs)))
	return mean, mean - h, mean + h
}

// Every headline claim's interval recomputes from its per-seed values with gonum alone, and a
// difference claim's per-seed values recompute from metrics.json's raw per-seed finals.
func TestHeadlineIntervalsRecompute(t *testing.T) {
	results, err := exp.CommittedResults()
	if err != nil {
		t.Fatal(err)
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for name, res := range results {
		b, err := os.ReadFile(filepath.Join(root, "figures", name, exp.MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		var raw rawResult
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		j, err := exp.JudgeResult(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range j.Claims {
			if c.Headline == "" {
				continue
			}
			readings := c.Parts
			if len(readings) == 0 {
				readings = []exp.Claim{c}
			}
			for _, r := range readings {
				if r.From != nil {
					if len(r.SeedIDs) != len(r.Diffs) {
						t.Fatalf("%s %s: %d seeds for %d values", name, c.Headline, len(r.SeedIDs), len(r.Diffs))
					}
					for i, s := range r.SeedIDs {
						a, ok1 := raw.final(r.From.A.Method, r.From.A.Metric, s)
						b, ok2 := raw.final(r.From.B.Method, r.From.B.Metric, s)
						if !ok1 || !ok2 || a-b != r.Diffs[i] {
							t.Errorf("%s %s seed %d: %v − %v from metrics.json, claim has %v", name, c.Headline, s, a, b, r.Diffs[i])
						}
					}
				}
				if len(r.Diffs) < 2 {
					continue
				}
				m, lo, hi := interval(r.Diffs)
				if math.Abs(m-r.Stat.Mean) > 1e-12 || math.Abs(lo-r.Stat.CI95[0]) > 1e-9 || math.Abs(hi-r.Stat.CI95[1]) > 1e-9 {
					t.Errorf("%s %s (%s): gonum gives %v [%v, %v], the claim %v %v", name, c.Headline, r.Measure, m, lo, hi, r.Stat.Mean, r.Stat.CI95)
				}
				checked++
			}
		}
	}
	t.Logf("%d headline readings recomputed", checked)
	if checked == 0 {
		t.Error("no headline claim was recomputed")
	}
}

// -part names one of the experiment's parts; another is refused before anything runs, naming them.
func TestRunPartFlag(t *testing.T) {
	err := run([]string{"tape", "-scale", "smoke", "-part", "smac"})
	if err == nil || !strings.Contains(err.Error(), "parts: matrix, variance, det, shared, lbf, lbf3, coal") {
		t.Errorf("tape -part smac: %v", err)
	}
	if err := run([]string{"capo", "-scale", "smoke", "-part", "x"}); err == nil || !strings.Contains(err.Error(), "parts: main, lr") {
		t.Errorf("capo -part x: %v", err)
	}
	if err := run([]string{"tour", "-scale", "smoke", "-part", "x"}); err == nil || !strings.Contains(err.Error(), "no named parts") {
		t.Errorf("tour -part x: %v", err)
	}
}

// Every room check of every committed result reads a statistic of the table, with per-seed values
// where it is measured per seed, and none is a constant gate (a configuration value against 0).
func TestCommittedRoomStatistics(t *testing.T) {
	for _, e := range exp.List() {
		dir, err := exp.OutDir(e.Name, exp.Default)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exp.Load(dir)
		if err != nil || e.Room == nil {
			continue
		}
		j, err := exp.Judge(e, res)
		if err != nil {
			t.Fatal(err)
		}
		exptest.Stats(t, j.Room)
		for _, r := range j.Room {
			if r.Stat == exp.StatValue && r.Value == 0 && r.Test.X == 0 {
				t.Errorf("%s: room check %s is a constant gate (value 0 against 0)", e.Name, r.Name)
			}
		}
	}
}

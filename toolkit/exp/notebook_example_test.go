package exp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// A notebook's first cell: the scale it runs at, from $PAPERLAB_SCALE.
func ExampleShowScale() {
	defer restoreScale()()
	os.Setenv(exp.EnvScale, "smoke")
	s, err := exp.ShowScale()
	fmt.Println(s, err)
	// Output:
	// scale smoke (switch: run `%env PAPERLAB_SCALE smoke` — or default — in a cell, then re-run the cells below; or set it before `make lab`)
	// smoke <nil>
}

// Under a paper notebook's tables: the result's notes and what each part took.
func ExampleShowTiming() {
	res := &exp.Result{Notes: []string{"seed 3 reached the budget"}, Timing: map[string]float64{"total": 12.5, "capo": 7.25, "grpo": 5.25}}
	exp.ShowTiming(res)
	// Output:
	// seed 3 reached the budget
	// time capo                                      7.2 s
	// time grpo                                      5.2 s
	// time total                                    12.5 s
}

// A notebook's budget per scale.
func ExampleByScale() {
	type budget struct{ SFTSteps, RLSteps int }
	defer restoreScale()()
	os.Setenv(exp.EnvScale, "smoke")
	b, err := exp.ByScale(budget{SFTSteps: 20, RLSteps: 3}, budget{SFTSteps: 60, RLSteps: 80})
	fmt.Println(b, err)
	os.Setenv(exp.EnvScale, "default")
	b, err = exp.ByScale(budget{SFTSteps: 20, RLSteps: 3}, budget{SFTSteps: 60, RLSteps: 80})
	fmt.Println(b, err)
	// Output:
	// {20 3} <nil>
	// {60 80} <nil>
}

// Where a notebook cell keeps what it trained for the cells after it.
func ExampleWorkDir() {
	defer restoreScale()()
	os.Setenv(exp.EnvScale, "smoke")
	dir, err := exp.WorkDir("build_your_own", "sft")
	if err != nil {
		panic(err)
	}
	fmt.Println(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(dir)))), filepath.Base(filepath.Dir(filepath.Dir(dir))), filepath.Base(filepath.Dir(dir)), filepath.Base(dir))
	// Output: runs build_your_own smoke sft
}

// restoreScale returns a function that puts $PAPERLAB_SCALE back as it was.
func restoreScale() func() {
	old, had := os.LookupEnv(exp.EnvScale)
	return func() {
		if had {
			os.Setenv(exp.EnvScale, old)
		} else {
			os.Unsetenv(exp.EnvScale)
		}
	}
}

// A summary table over seeds of the methods a notebook picks (here those of one part, "tape/…"):
// each cell is the mean ± half-width of its 95 % t-interval, "—" where a method lacks the metric.
func ExampleSummaryTableOf() {
	res := &exp.Result{Seeds: []uint64{1, 2, 3}}
	for seed, v := range []float64{0.50, 0.60, 0.70} {
		res.Runs = append(res.Runs,
			exp.Run{Method: "tape/ippo", Seed: uint64(seed + 1), Final: map[string]float64{"return": v}},
			exp.Run{Method: "tape/tape", Seed: uint64(seed + 1), Final: map[string]float64{"return": v + 0.1, "kl": 0.01}},
			exp.Run{Method: "m3apg/pg", Seed: uint64(seed + 1), Final: map[string]float64{"return": 9}})
	}
	res.Summarize()
	headers, rows := exp.SummaryTableOf(res, func(m string) bool { return strings.HasPrefix(m, "tape/") }, []string{"return", "kl"})
	fmt.Println(strings.Join(headers, " | "))
	for _, r := range rows {
		fmt.Println(strings.Join(r, " | "))
	}
	// Output:
	// method | return | kl
	// tape/ippo | 0.600 ± 0.248 (n=3) | —
	// tape/tape | 0.700 ± 0.248 (n=3) | 0.010 ± 0.000 (n=3)
}

// The settings table a paper notebook shows before its results (ShowSettings, `paperlab settings`):
// the fields with a paper value, deviations first, each with its source and reason.
func ExampleSettingsTable() {
	type config struct {
		Tau, LR float64
		Steps   int
	}
	e := exp.Experiment{Name: "demo", Config: func(exp.Scale) any { return config{Tau: 0.5, LR: 1e-3, Steps: 300} },
		Paper: []exp.Setting{
			{Field: "Tau", Paper: 0.5, Source: exp.SourcePaper, Ref: "§4"},
			{Field: "Steps", Paper: 3000, Source: exp.SourcePaper, Ref: "Table 5", Why: "a tenth: PaperLab's 2-core budget"},
		}}
	rows, err := exp.Settings(e, exp.Default)
	if err != nil {
		panic(err)
	}
	headers, table := exp.SettingsTable(rows, false) // false: without PaperLab's own fields (LR here)
	fmt.Println(strings.Join(headers, " | "))
	for _, r := range table {
		fmt.Println(strings.Join(r, " | "))
	}
	// Output:
	// field | ours | paper | source | differs | why
	// Steps | 300 | 3000 | paper (Table 5) | YES | a tenth: PaperLab's 2-core budget
	// Tau | 0.5 | 0.5 | paper (§4) | no |
}

package exp_test

import (
	"fmt"
	"os"
	"path/filepath"

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

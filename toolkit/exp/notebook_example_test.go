package exp_test

import (
	"fmt"
	"os"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// A notebook's first cell: the scale it runs at, from $PAPERLAB_SCALE.
func ExampleShowScale() {
	os.Setenv(exp.EnvScale, "smoke")
	defer os.Unsetenv(exp.EnvScale)
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

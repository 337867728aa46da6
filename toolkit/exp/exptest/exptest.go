// Package exptest runs registered experiments at smoke scale inside tests.
package exptest

import (
	"io"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Smoke runs experiment name at smoke scale into a temporary folder, reloads its metrics.json and
// returns both the in-memory and the reloaded result and the folder. It fails the test when the run
// fails, the file's header (experiment, scale, backend, seeds, figures) is incomplete, or its room
// checks and claims cannot be judged (exp.Judge).
func Smoke(t *testing.T, name string) (res, back *exp.Result, dir string) {
	t.Helper()
	e, err := exp.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	res, err = exp.Execute(e, exp.Options{Scale: exp.Smoke, Out: dir, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	back, err = exp.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Experiment != name || back.Scale != exp.Smoke || back.Backend == "" || len(back.Seeds) != e.Seeds[exp.Smoke] || len(back.Figures) == 0 {
		t.Fatalf("metrics.json header incomplete: experiment %q scale %q backend %q seeds %v figures %d",
			back.Experiment, back.Scale, back.Backend, back.Seeds, len(back.Figures))
	}
	// The notebooks' verdict cell (exp.ShowClaims) must work on a smoke result too: every claim's
	// room checks defined, and the room recorded in metrics.json.
	if _, err := exp.Judge(e, back); err != nil {
		t.Fatalf("room checks and claims on the smoke result: %v", err)
	}
	if e.Room != nil && len(back.Room) == 0 {
		t.Fatalf("metrics.json holds no room checks")
	}
	return res, back, dir
}

// RequireMetrics fails unless the summary has every metric for every method, with n ≥ minN.
func RequireMetrics(t *testing.T, r *exp.Result, methods, metrics []string, minN int) {
	t.Helper()
	for _, m := range methods {
		for _, k := range metrics {
			s, ok := r.Summary[m][k]
			if !ok || s.N < minN {
				t.Fatalf("summary %s/%s missing or n < %d: %+v", m, k, minN, s)
			}
		}
	}
}

package jobs

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/track"
)

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{Waiting: "waiting", Running: "running", Done: "done", Aliased: "aliased", State(9): "State(9)"} {
		if s.String() != want {
			t.Errorf("%d: %q, want %q", int(s), s.String(), want)
		}
	}
}

// sumKind is a toy kind: a job adds its N to the results of the jobs it needs; trained lists the
// trainings in the order they finish.
type sumSpec struct{ N int }

func sumKind(trained *[]string) Kind[sumSpec, int] {
	return Kind[sumSpec, int]{
		Experiment: "toy", Sources: []string{"toolkit/exp/jobs"},
		Iters: func(sumSpec) int { return 1 },
		Train: func(job Job[sumSpec], in Inputs[int], _ track.Progress) (int, error) {
			v := job.Spec.N
			for _, id := range job.Needs {
				r, err := in.Get(id)
				if err != nil {
					return 0, err
				}
				v += r
			}
			*trained = append(*trained, job.ID) // once the jobs it needs are done
			return v, nil
		},
		Save: func(dir string, r int) error {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			b, _ := json.Marshal(r)
			return os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644)
		},
		Load: func(dir string) (int, error) {
			var r int
			b, err := os.ReadFile(filepath.Join(dir, "result.json"))
			if err == nil {
				err = json.Unmarshal(b, &r)
			}
			return r, err
		},
		Saved: func(dir string) bool { _, err := os.Stat(filepath.Join(dir, "result.json")); return err == nil },
	}
}

// TestRunnerCache: in this process a job trains when first waited for, after the jobs it needs; a
// job with the same training as an earlier one (another name) reads its result; a second run on the
// same cache trains nothing and gives the same results.
func TestRunnerCache(t *testing.T) {
	cache := t.TempDir()
	submit := func(r *Runner[sumSpec, int]) {
		r.Submit(Job[sumSpec]{ID: "a", Spec: sumSpec{1}})
		r.Submit(Job[sumSpec]{ID: "b", Spec: sumSpec{10}, Needs: []string{"a"}})
		r.Submit(Job[sumSpec]{ID: "a-again", Spec: sumSpec{1}})
	}
	results := func(r *Runner[sumSpec, int]) []int {
		var out []int
		for _, id := range []string{"b", "a-again", "a"} {
			v, err := r.Wait(id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	var trained []string
	r, err := New(sumKind(&trained), exp.Options{Cache: cache, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	submit(r)
	if r.byID["a-again"].state != Aliased {
		t.Fatalf("a-again is %v before anything trained, want %v", r.byID["a-again"].state, Aliased)
	}
	first := results(r)
	r.Close(false)
	if want := []int{11, 1, 1}; !slices.Equal(first, want) || !slices.Equal(trained, []string{"a", "b"}) {
		t.Fatalf("results %v (want %v), trained %v (want a then b)", first, want, trained)
	}
	trained = nil
	r, err = New(sumKind(&trained), exp.Options{Cache: cache, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(false)
	submit(r)
	if found, all := r.Counts(); found != 2 || all != 3 {
		t.Fatalf("second run: %d of %d jobs found in the cache, want 2 of 3 (the third repeats the first)", found, all)
	}
	if again := results(r); !slices.Equal(again, first) || len(trained) != 0 {
		t.Fatalf("second run: results %v (first %v), trained %v (want none)", again, first, trained)
	}
}

// TestLock: one run at a time holds a cache folder; a lock left by a process that is gone is taken
// over.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "in use by process") {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	if err := os.WriteFile(filepath.Join(dir, ".lock"), []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err = Lock(dir)
	if err != nil {
		t.Fatalf("a stale lock was not taken over: %v", err)
	}
	unlock()
}

// TestUncovered: a package that a training imports and the sources leave out is named.
func TestUncovered(t *testing.T) {
	const mod = "github.com/paperlab/paperlab"
	missing, err := Uncovered(mod, []string{"toolkit/exp/...", "toolkit/backend"}, mod+"/toolkit/exp/jobs")
	if err != nil {
		t.Skip(err)
	}
	if !slices.Contains(missing, "toolkit/repo") || slices.Contains(missing, "toolkit/exp/jobs") || slices.Contains(missing, "toolkit/backend") {
		t.Fatalf("uncovered %v: want toolkit/repo in, toolkit/exp/jobs and toolkit/backend out", missing)
	}
}

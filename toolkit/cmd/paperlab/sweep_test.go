package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestMain doubles as the paperlab CLI for the child processes that -jobs and sweep start (they run
// os.Executable, which is this test binary) where a test sets PAPERLAB_CLI_CHILD=1. Runs start no
// worker processes on their own (workerProcesses): without that variable a child would run the tests.
func TestMain(m *testing.M) {
	workerProcesses = false
	if os.Getenv("PAPERLAB_CLI_CHILD") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// `paperlab tour -seeds 1-3 -jobs 2` equals the serial run of the same seeds and leaves no shard
// folder behind; `sweep -runner slurm -submit=false` only writes the script.
func TestJobsAndSlurmScript(t *testing.T) {
	t.Setenv("PAPERLAB_CLI_CHILD", "1")
	dir := t.TempDir()
	serial, parallel := filepath.Join(dir, "serial"), filepath.Join(dir, "parallel")
	if err := run([]string{"tour", "-scale", "smoke", "-seeds", "1-3", "-out", serial}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"tour", "-scale", "smoke", "-seeds", "1-3", "-jobs", "2", "-out", parallel}); err != nil {
		t.Fatal(err)
	}
	a, err := exp.Load(serial)
	if err != nil {
		t.Fatal(err)
	}
	b, err := exp.Load(parallel)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := exp.Lookup("tour")
	exptest.SameResult(t, e, a, b)
	if left, _ := filepath.Glob(filepath.Join(dir, ".parallel*")); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
	sw := filepath.Join(dir, "sweep")
	if err := run([]string{"sweep", "capo", "-seeds", "1-8", "-shard-size", "3", "-runner", "slurm", "-submit=false", "-partition", "gpu", "-out", sw}); err != nil {
		t.Fatal(err)
	}
	s, err := os.ReadFile(filepath.Join(sw, "sweep.sbatch"))
	if err != nil || !strings.Contains(string(s), "#SBATCH --array=1-3") || !strings.Contains(string(s), "3) SEEDS=7,8; OUT="+sw+"/shard-0003 ;;") {
		t.Fatalf("script (%v):\n%s", err, s)
	}
	if _, err := os.Stat(filepath.Join(sw, "slurm-jobs.json")); err == nil {
		t.Fatal("-submit=false submitted")
	}
}

// `paperlab compare` on two real runs: the same seeds on this machine agree everywhere; -strict fails
// on a result whose metric was shifted; another configuration is an error naming the field.
func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := run([]string{"tour", "-scale", "smoke", "-seeds", "1-3", "-out", d}); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := compareCmd([]string{"-strict", a, filepath.Join(b, "metrics.json")}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), " 0 of ") || !strings.Contains(out.String(), "3/3") {
		t.Fatalf("output:\n%s", out.String())
	}
	r, err := exp.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Runs {
		if r.Runs[i].Method == "honest" {
			r.Runs[i].Final["accuracy"] += 0.2 + 0.01*float64(i)
		}
	}
	r.Summarize()
	if err := r.Write(b); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := compareCmd([]string{"-strict", a, b}, &out); err == nil || !strings.Contains(err.Error(), "1 metrics differ") {
		t.Fatalf("shifted accuracy: %v\n%s", err, out.String())
	}
	r.Config = []byte(`{"problems":1}`)
	if err := r.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := compareCmd([]string{a, b}, &out); err == nil || !strings.Contains(err.Error(), "configurations differ at config.") {
		t.Fatalf("config: %v", err)
	}
}

// autoJobs: an experiment's Jobs applies on ONNX Runtime on a machine of two cores or more (even
// beyond its cores) and more than one seed, never beyond the seeds; the pure-Go engine, one seed or no Jobs run in one process.
func TestAutoJobs(t *testing.T) {
	e := exp.Experiment{Name: "x", Seeds: map[exp.Scale]int{exp.Default: 8, exp.Smoke: 1}, Jobs: 2}
	opt := exp.Options{Scale: exp.Default}
	t.Setenv("GOMLX_BACKEND", "onnx:cpu")
	want := 2
	if runtime.NumCPU() < 2 {
		want = 1
	}
	if got := autoJobs(e, opt); got != want {
		t.Errorf("onnx, 8 seeds, %d CPUs: %d, want %d", runtime.NumCPU(), got, want)
	}
	e3 := exp.Experiment{Name: "z", Seeds: map[exp.Scale]int{exp.Default: 5}, Jobs: 3} // more shards than a 2-core machine's cores
	if got, want3 := autoJobs(e3, opt), map[bool]int{true: 3, false: 1}[runtime.NumCPU() >= 2]; got != want3 {
		t.Errorf("Jobs 3, 5 seeds, %d CPUs: %d, want %d", runtime.NumCPU(), got, want3)
	}
	if got := autoJobs(e, exp.Options{Scale: exp.Smoke}); got != 1 {
		t.Errorf("one seed: %d", got)
	}
	if got := autoJobs(exp.Experiment{Name: "y", Seeds: e.Seeds}, opt); got != 1 {
		t.Errorf("no Jobs: %d", got)
	}
	t.Setenv("GOMLX_BACKEND", "go")
	if got := autoJobs(e, opt); got != 1 {
		t.Errorf("pure-Go engine: %d", got)
	}
}

// The binary a run starts its shards and workers with comes with this process's commit in the
// environment they inherit, so each records the revision the run started from.
func TestChildBinaryPassesCommit(t *testing.T) {
	t.Setenv(exp.EnvCommit, "")
	os.Unsetenv(exp.EnvCommit)
	bin, err := childBinary()
	if err != nil || bin == "" {
		t.Fatalf("childBinary: %q, %v", bin, err)
	}
	if got := os.Getenv(exp.EnvCommit); got == "" || got != exp.Commit() {
		t.Fatalf("$%s = %q, want this process's commit %q", exp.EnvCommit, got, exp.Commit())
	}
}

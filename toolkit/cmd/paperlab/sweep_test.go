package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestMain doubles as the paperlab CLI for the child processes that -jobs and sweep start (they run
// os.Executable, which is this test binary).
func TestMain(m *testing.M) {
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

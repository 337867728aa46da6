package e3t

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// TestWorkersMatchOneProcess runs the smoke experiment twice — every training in this process, and
// in two worker processes of a freshly built paperlab — and requires the same runs, bit for bit:
// where a job trains must not change its result (same engine, configuration and seed).
func TestWorkersMatchOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds paperlab")
	}
	bin := filepath.Join(t.TempDir(), "paperlab")
	build := exec.Command("go", "build", "-o", bin, "github.com/paperlab/paperlab/toolkit/cmd/paperlab")
	build.Env = os.Environ()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	one, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	two, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Log: io.Discard, Workers: 2, WorkerBin: bin})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Runs) != len(two.Runs) || len(one.Runs) == 0 {
		t.Fatalf("%d runs in one process, %d with workers", len(one.Runs), len(two.Runs))
	}
	compared := 0
	for i, a := range one.Runs {
		b := two.Runs[i]
		if a.Method != b.Method || a.Seed != b.Seed {
			t.Fatalf("run %d: %s/%d in one process, %s/%d with workers", i, a.Method, a.Seed, b.Method, b.Seed)
		}
		for k, v := range a.Final {
			if k == "train_seconds" || filepath.Base(k) == "train_seconds" || filepath.Base(k) == "offset_seconds" {
				continue // wall time
			}
			if w, ok := b.Final[k]; !ok || w != v {
				t.Errorf("%s seed %d %s: %v in one process, %v with workers", a.Method, a.Seed, k, v, w)
			}
			compared++
		}
	}
	if compared < 100 {
		t.Fatalf("only %d values compared", compared)
	}
}

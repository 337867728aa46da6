package e3t

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/jobs"
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
			if measuredTime(k) {
				continue
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

// TestJobCacheResumes runs the smoke experiment with a job cache, first with a method left out (a
// stopped or smaller run) and then in full: the second run must find every training of the first
// in the cache, train only the missing method's, and give the same numbers as a run without a cache.
func TestJobCacheResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("three smoke runs")
	}
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	part := ConfigFor(exp.Smoke)
	part.Methods = slices.DeleteFunc(slices.Clone(part.Methods), func(m Method) bool { return m.Name == "e3t-nopm" })
	first, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Log: io.Discard, Cache: cache, Config: part})
	if err != nil {
		t.Fatal(err)
	}
	full, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Log: io.Discard, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var c1, c2 map[string]int
	if err := first.GetExtra("job_cache", &c1); err != nil {
		t.Fatal(err)
	}
	if err := full.GetExtra("job_cache", &c2); err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(exp.Smoke)
	nopm := len(cfg.Layouts) * len(full.Seeds) // e3t-nopm's trainings: one per layout and seed
	if c1["found"] != 0 || c2["found"] != c1["jobs"] || c2["jobs"] != c1["jobs"]+nopm {
		t.Fatalf("job cache: first run %v, full run %v; want the full run to find the first's %d jobs and train %d", c1, c2, c1["jobs"], nopm)
	}
	if len(full.Runs) != len(fresh.Runs) {
		t.Fatalf("%d runs with the cache, %d without", len(full.Runs), len(fresh.Runs))
	}
	for i, a := range fresh.Runs {
		b := full.Runs[i]
		for k, v := range a.Final {
			if measuredTime(k) {
				continue
			}
			if w := b.Final[k]; w != v {
				t.Errorf("%s seed %d %s: %v without a cache, %v from the cache", a.Method, a.Seed, k, v, w)
			}
		}
	}
}

// TestTrainingSourcesCoverDeps checks that the job cache's key covers every package of this module
// that a family's training imports: a package left out could change an agent without changing its
// key.
func TestTrainingSourcesCoverDeps(t *testing.T) {
	pkgs := []string{}
	for _, f := range Families {
		pkgs = append(pkgs, "github.com/paperlab/paperlab/"+f.Source)
	}
	missing, err := jobs.Uncovered("github.com/paperlab/paperlab", TrainingSources(), pkgs...)
	if err != nil {
		t.Skip(err)
	}
	for _, dir := range missing {
		t.Errorf("training imports %s, which TrainingSources leaves out of the job cache's key", dir)
	}
	// The code of this package that shapes a training lives in jobs.go, which the key includes.
	raw, err := os.ReadFile("jobs.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"var Families", "func trainE3T(", "func trainFCP(", "func fcpConfig(", "func (j *runner) train(",
		"func population(", "func members(", "func snapshotPolicy("} {
		if !strings.Contains(string(raw), fn) {
			t.Errorf("jobs.go has no %s…: the job cache's key (TrainingSources names jobs.go) would miss it", fn)
		}
	}
}

// TestFamilies: every method of the preset names a family, every family trains, and a Population
// family comes before the families trained with partners (their held-out agents need its agent).
func TestFamilies(t *testing.T) {
	for _, m := range ConfigFor(exp.Default).Methods {
		if _, ok := family(m.Mode); !ok {
			t.Errorf("method %s: mode %q is in no family", m.Name, m.Mode)
		}
	}
	seenPopulation := false
	for _, f := range Families {
		if f.Train == nil || f.Source == "" {
			t.Errorf("family %s: Train and Source are needed", f.Name)
		}
		if f.HeldOut == nil {
			t.Errorf("family %s adds no held-out partners: the preset's families each give the pool one agent per held-out seed", f.Name)
		}
		if f.WithPartners && !seenPopulation {
			t.Errorf("family %s trains with partners before any Population family", f.Name)
		}
		seenPopulation = seenPopulation || f.Population
	}
}

// TestJobCacheAliases: two methods with the same settings under different names are one training:
// the second reads the first's result (same numbers), and the cache holds one folder for both.
func TestJobCacheAliases(t *testing.T) {
	if testing.Short() {
		t.Skip("a smoke run")
	}
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(exp.Smoke)
	cfg.Layouts = cfg.Layouts[:1]
	cfg.Methods = []Method{{Name: "sp", Mode: "sp"}, {Name: "sp-again", Mode: "sp"}}
	cache := t.TempDir()
	res, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Log: io.Discard, Cache: cache, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Layouts[0]
	for _, seed := range res.Seeds {
		a, ok1 := res.Final("sp", l+"/pool_return", seed)
		b, ok2 := res.Final("sp-again", l+"/pool_return", seed)
		if !ok1 || !ok2 || a != b {
			t.Fatalf("seed %d: sp %v, sp-again %v: the same training gave different agents", seed, a, b)
		}
	}
	var c map[string]int
	if err := res.GetExtra("job_cache", &c); err != nil {
		t.Fatal(err)
	}
	folders, _ := filepath.Glob(filepath.Join(cache, "*", "result.json"))
	if len(folders) != c["jobs"]-len(res.Seeds) {
		t.Fatalf("%d cached results for %d jobs of which %d repeat another: want one folder per training", len(folders), c["jobs"], len(res.Seeds))
	}
}

// measuredTime reports whether a final key is a time measured on the run (wall or CPU seconds),
// which no two runs share.
func measuredTime(key string) bool {
	return slices.Contains([]string{"train_seconds", "offset_seconds", "cpu_seconds", "offset_cpu"}, filepath.Base(key))
}

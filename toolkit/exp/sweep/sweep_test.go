package sweep

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	_ "github.com/paperlab/paperlab/toolkit/exp/tour"
)

// TestMain doubles as the paperlab CLI for the child processes of Local (PAPERLAB_SWEEP_CHILD=1):
// `<experiment> -scale S -seeds a,b -out DIR -save none -atomic -jobs 1`, run through exp.Execute as
// the CLI does (a shard is one process: any other -jobs is an error here).
func TestMain(m *testing.M) {
	if os.Getenv("PAPERLAB_SWEEP_CHILD") == "1" {
		fs := flag.NewFlagSet("child", flag.ExitOnError)
		scale, seeds, out := fs.String("scale", "smoke", ""), fs.String("seeds", "", ""), fs.String("out", "", "")
		save, atomic, jobs := fs.String("save", "", ""), fs.Bool("atomic", false, ""), fs.Int("jobs", 0, "")
		_ = fs.Parse(os.Args[2:])
		e, err := exp.Lookup(os.Args[1])
		if err == nil && *jobs != 1 {
			err = fmt.Errorf("shard run with -jobs %d, want 1", *jobs)
		}
		if err == nil {
			var n int
			var set []uint64
			if n, set, err = exp.ParseSeeds(*seeds); err == nil {
				_, err = exp.Execute(e, exp.Options{Scale: exp.Scale(*scale), Seeds: n, SeedSet: set, Out: *out, Save: *save, Atomic: *atomic, Log: io.Discard})
			}
		}
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childSetup makes this test binary the children's paperlab and returns it, a temp folder and a plan
// of three one-seed tour shards in it.
func childSetup(t *testing.T) (bin, dir string, p Plan) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PAPERLAB_SWEEP_CHILD", "1")
	dir = t.TempDir()
	return bin, dir, Plan{Experiment: "tour", Scale: exp.Smoke, Seeds: []uint64{1, 2, 3}, ShardSize: 1, Out: dir}
}

// Local runs three one-seed shards of tour as child processes two at a time and merges them; a
// second run skips every finished shard (resume); a failing child is reported with its log.
func TestLocal(t *testing.T) {
	bin, dir, p := childSetup(t)
	var log strings.Builder
	res, err := Local(context.Background(), p, bin, Options{Jobs: 2, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !slices.Equal(res.Seeds, []uint64{1, 2, 3}) || strings.Count(log.String(), "shards done") != 3 {
		t.Fatalf("seeds %v, log:\n%s", res.Seeds, log.String())
	}
	if _, err := exp.Load(dir); err != nil {
		t.Fatalf("merged metrics.json: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".shard-*")); len(left) > 0 {
		t.Fatalf("temporaries left behind: %v", left)
	}
	log.Reset()
	if _, err := Local(context.Background(), p, bin, Options{Jobs: 2, Log: &log}); err != nil || strings.Count(log.String(), "already done") != 3 {
		t.Fatalf("resume: %v\n%s", err, log.String())
	}
	bad := Plan{Experiment: "no-such-experiment", Scale: exp.Smoke, Seeds: []uint64{1}, ShardSize: 1, Out: filepath.Join(dir, "bad")}
	if _, err := Local(context.Background(), bad, bin, Options{Jobs: 1, Retries: 1, Log: &log}); err == nil || !strings.Contains(err.Error(), "shard-0001.log") {
		t.Fatalf("failing shard: %v", err)
	}
}

// The Slurm script: one array task per shard with its seeds and directory, sbatch options passed
// through, logs under DIR/logs; shards cut in order.
func TestSlurmScript(t *testing.T) {
	p := Plan{Experiment: "capo", Scale: exp.Default, Seeds: []uint64{1, 2, 3, 4, 5}, ShardSize: 2, Out: "/scratch/capo"}
	sh, err := p.Shards()
	if err != nil || len(sh) != 3 || !slices.Equal(sh[2].Seeds, []uint64{5}) || sh[1].Dir != "/scratch/capo/shard-0002" {
		t.Fatalf("shards %+v (%v)", sh, err)
	}
	s, err := SlurmScript(p, "/opt/paperlab", SlurmOptions{Partition: "gpu", Time: "01:00:00", Mem: "8G", GPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=1-3", "#SBATCH --partition=gpu", "#SBATCH --time=01:00:00", "#SBATCH --mem=8G", "#SBATCH --gpus=1",
		"#SBATCH --output=/scratch/capo/logs/shard-%4a.log", "2) SEEDS=3,4; OUT=/scratch/capo/shard-0002 ;;",
		`rm -rf "$(dirname "$OUT")/.$(basename "$OUT").tmp-"*`, `exec /opt/paperlab capo -scale default -seeds "$SEEDS" -out "$OUT" -save none -atomic -jobs 1`} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if _, err := (Plan{Experiment: "capo", Seeds: nil, ShardSize: 1, Out: "x"}).Shards(); err == nil {
		t.Fatal("a plan without seeds was cut")
	}
}

// fakeSlurm runs each submitted task at once as a child process (a finished task is not active),
// except that fail[task] submissions of a task end without running it, like a task killed by scancel.
type fakeSlurm struct {
	t       *testing.T
	p       Plan
	bin     string
	fail    map[int]int
	running map[string]map[int]string // job → tasks the fake still shows (resume test)
	submits [][]int
}

func (f *fakeSlurm) Submit(script string, tasks []int) (string, error) {
	f.submits = append(f.submits, slices.Clone(tasks))
	shards, _ := f.p.Shards()
	for _, task := range tasks {
		if f.fail[task] > 0 {
			f.fail[task]--
			// what a killed try leaves: a hidden temporary beside the shard
			_ = os.MkdirAll(filepath.Join(filepath.Dir(shards[task-1].Dir), "."+filepath.Base(shards[task-1].Dir)+".tmp-killed"), 0o755)
			continue
		}
		if err := runShard(context.Background(), f.p, shards[task-1], f.bin, ""); err != nil {
			f.t.Fatalf("task %d: %v", task, err)
		}
	}
	return fmt.Sprint(len(f.submits)), nil
}

func (f *fakeSlurm) Active(job string) (map[int]string, error) {
	a := f.running[job]
	delete(f.running, job) // shown once, then finished
	if a == nil {
		a = map[int]string{}
	}
	return a, nil
}

func (f *fakeSlurm) Ended(job string, task int) string { return "CANCELLED exit 0:15" }

// Follow submits every shard as one array, resubmits the task that ended without a result (and only
// it), removes what the killed try left, merges; a task that never succeeds is reported with its log
// after 1 + Retries tries; run again, it follows a task still queued instead of submitting it twice.
func TestFollow(t *testing.T) {
	bin, dir, p := childSetup(t)
	f := &fakeSlurm{t: t, p: p, bin: bin, fail: map[int]int{2: 1}}
	var log strings.Builder
	res, err := Follow(context.Background(), p, f, "sweep.sbatch", Options{Retries: 1, Poll: time.Millisecond, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if fmt.Sprint(f.submits) != "[[1 2 3] [2]]" || !strings.Contains(log.String(), "task 1_2 (shard-0002) ended without a result (CANCELLED exit 0:15): resubmitting, try 2 of 2") {
		t.Fatalf("submissions %v, log:\n%s", f.submits, log.String())
	}
	if !slices.Equal(res.Seeds, []uint64{1, 2, 3}) {
		t.Fatalf("merged seeds %v", res.Seeds)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".shard-*")); len(left) > 0 {
		t.Fatalf("the killed try's temporary survived: %v", left)
	}
	// A task that keeps failing is given up after 1 + Retries tries, naming the shard and its log.
	p2 := Plan{Experiment: "tour", Scale: exp.Smoke, Seeds: []uint64{1, 2}, ShardSize: 1, Out: filepath.Join(dir, "b")}
	f2 := &fakeSlurm{t: t, p: p2, bin: bin, fail: map[int]int{1: 5}}
	_, err = Follow(context.Background(), p2, f2, "sweep.sbatch", Options{Retries: 1, Poll: time.Millisecond, Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "shard-0001 (seeds 1-1): task 2_1 ended (CANCELLED exit 0:15) after 2 tries") || !strings.Contains(err.Error(), "logs/shard-0001.log") {
		t.Fatalf("a task failing twice: %v", err)
	}
	// Resume: JobsFile says task 2 was submitted as job 7, and Slurm still shows it running (then
	// it finishes without a result and is resubmitted once); task 1 is done, task 3 never submitted.
	p3 := Plan{Experiment: "tour", Scale: exp.Smoke, Seeds: []uint64{1, 2, 3}, ShardSize: 1, Out: filepath.Join(dir, "c")}
	sh, _ := p3.Shards()
	if err := os.MkdirAll(filepath.Join(p3.Out, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runShard(context.Background(), p3, sh[0], bin, ""); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p3.Out, JobsFile), []byte(`{"2":{"job":"7","tries":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f3 := &fakeSlurm{t: t, p: p3, bin: bin, running: map[string]map[int]string{"7": {2: "RUNNING"}}}
	if _, err := Follow(context.Background(), p3, f3, "sweep.sbatch", Options{Retries: 1, Poll: time.Millisecond, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f3.submits) != "[[3] [2]]" {
		t.Fatalf("resumed submissions %v, want task 3 first (task 2 still running), then task 2 once it ended without a result", f3.submits)
	}
}

// Slurm's own formats: the --array list, squeue's task|state lines, scontrol's job line.
func TestSlurmFormats(t *testing.T) {
	if got := TaskList([]int{9, 1, 2, 3, 4, 7, 10}); got != "1-4,7,9-10" {
		t.Fatalf("TaskList = %q", got)
	}
	a, err := parseSqueue("1|RUNNING\n2|PENDING\n3|COMPLETED\n4|CANCELLED by 0\n\n")
	if err != nil || fmt.Sprint(a) != "map[1:RUNNING 2:PENDING]" {
		t.Fatalf("parseSqueue = %v, %v", a, err)
	}
	if _, err := parseSqueue("N/A|RUNNING"); err == nil {
		t.Fatal("a job without array task ids was read")
	}
	line := "JobId=13 ArrayJobId=12 ArrayTaskId=2 JobName=x JobState=CANCELLED Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15"
	if got := scontrolState(line); got != "CANCELLED exit 0:15" {
		t.Fatalf("scontrolState = %q", got)
	}
}

// With Devices, each child runs with a GPU of its own: no two shards at once see the same
// CUDA_VISIBLE_DEVICES. The "paperlab" here is a shell script that records its device while it runs.
func TestLocalDevices(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-paperlab")
	script := "#!/bin/sh\n" +
		"d=" + dir + "/busy-$CUDA_VISIBLE_DEVICES\n" +
		"mkdir \"$d\" || { echo \"device $CUDA_VISIBLE_DEVICES taken twice\" >> " + dir + "/clash; }\n" +
		"echo \"$CUDA_VISIBLE_DEVICES\" >> " + dir + "/used; sleep 0.2; rmdir \"$d\"; exit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Plan{Experiment: "tour", Scale: exp.Smoke, Seeds: []uint64{1, 2, 3, 4, 5, 6}, ShardSize: 1, Out: filepath.Join(dir, "out")}
	_, err := Local(context.Background(), p, bin, Options{Devices: []string{"0", "1", "2"}})
	if err == nil || !strings.Contains(err.Error(), "6 shards failed") {
		t.Fatalf("want every fake shard to fail: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "clash")); err == nil {
		t.Fatalf("%s", b)
	}
	used, _ := os.ReadFile(filepath.Join(dir, "used"))
	got := strings.Fields(string(used))
	slices.Sort(got)
	if len(got) != 6 || got[0] != "0" || got[5] != "2" {
		t.Fatalf("devices used %v", got)
	}
}

// A merge moves every folder a shard's run wrote (saved policies, spo's per-seed pairs) into the
// merged folder, entry by entry, and leaves the shard's top-level files to be written again.
func TestMoveArtefacts(t *testing.T) {
	out := t.TempDir()
	write := func(path string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(path), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, seed := range []int{1, 2} {
		shard := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%04d", i))
		write(filepath.Join(shard, "metrics.json"))
		write(filepath.Join(shard, "pairs", fmt.Sprintf("helpful_seed%d.jsonl", seed)))
		ck := filepath.Join(shard, "checkpoints", "grpo", "model.bin")
		if seed != 1 {
			ck = filepath.Join(shard, "checkpoints", fmt.Sprintf("seed%d", seed), "grpo", "model.bin")
		}
		write(ck)
		if err := exp.MoveArtefacts(shard, out); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"pairs/helpful_seed1.jsonl", "pairs/helpful_seed2.jsonl", "checkpoints/grpo/model.bin", "checkpoints/seed2/grpo/model.bin"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("%s not moved: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "metrics.json")); err == nil {
		t.Error("a shard's metrics.json was moved")
	}
}

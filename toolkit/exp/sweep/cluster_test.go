package sweep

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	_ "github.com/paperlab/paperlab/toolkit/exp/m3apg"
)

// recording is the real Slurm, remembering each submission.
type recording struct {
	Slurm
	mu   sync.Mutex
	jobs []string
	sub  [][]int
}

func (r *recording) Submit(script string, tasks []int) (string, error) {
	job, err := r.Slurm.Submit(script, tasks)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs, r.sub = append(r.jobs, job), append(r.sub, tasks)
	return job, err
}

func (r *recording) first() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.jobs) == 0 {
		return ""
	}
	return r.jobs[0]
}

// TestSlurmCluster runs on a real Slurm cluster (`make test-slurm` starts a one-node one on
// localhost and sets PAPERLAB_SLURM_BIN to a paperlab binary): tour and m3apg at smoke scale, 4 seeds
// each, as job arrays followed to the end, equal to the local runner's merged result; one m3apg task
// is cancelled with scancel mid-run — its shard must not exist (only a hidden temporary), the task
// must be resubmitted, and the merged result must still equal the local one.
func TestSlurmCluster(t *testing.T) {
	bin := os.Getenv("PAPERLAB_SLURM_BIN")
	if bin == "" {
		t.Skip("PAPERLAB_SLURM_BIN not set: run `make test-slurm`")
	}
	root := t.TempDir()
	if d := os.Getenv("PAPERLAB_SLURM_WORK"); d != "" { // a folder the cluster's tasks can write
		root = d
	}
	for _, name := range []string{"tour", "m3apg"} {
		e, err := exp.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		seeds := []uint64{1, 2, 3, 4}
		local := Plan{Experiment: name, Scale: exp.Smoke, Seeds: seeds, ShardSize: 1, Out: filepath.Join(root, name+"-local")}
		want, err := Local(context.Background(), local, bin, Options{Jobs: 2, Log: os.Stderr})
		if err != nil {
			t.Fatal(err)
		}
		p := Plan{Experiment: name, Scale: exp.Smoke, Seeds: seeds, ShardSize: 1, Out: filepath.Join(root, name+"-slurm")}
		script, err := SlurmScript(p, bin, SlurmOptions{CPUs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(p.Out, "logs"), 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(p.Out, "sweep.sbatch")
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		sch := &recording{}
		killed := make(chan int, 1)
		if name == "m3apg" {
			go killOne(t, sch, p, killed)
		}
		got, err := Follow(context.Background(), p, sch, path, Options{Retries: 2, Poll: 500 * time.Millisecond, Progress: 5 * time.Second, Log: os.Stderr})
		if err != nil {
			t.Fatal(err)
		}
		if name == "m3apg" {
			task, ok := <-killed
			if !ok {
				t.Fatal("no task was cancelled")
			}
			again := false
			for _, s := range sch.sub[1:] {
				again = again || slices.Contains(s, task)
			}
			if !again {
				t.Fatalf("cancelled task %d was not resubmitted: submissions %v", task, sch.sub)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(p.Out, ".shard-*")); len(left) > 0 {
			t.Fatalf("left behind: %v", left)
		}
		back, err := exp.Load(p.Out)
		if err != nil {
			t.Fatal(err)
		}
		exptest.SameResult(t, e, want, back)
		if got.Experiment != name {
			t.Fatalf("merged %q", got.Experiment)
		}
	}
}

// killOne waits for a task of the sweep's first array to run for 2 s, cancels it with scancel, waits
// until Slurm no longer holds it, checks that its shard directory does not exist, and sends its id.
func killOne(t *testing.T, sch *recording, p Plan, killed chan<- int) {
	defer close(killed)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		job := sch.first()
		if job == "" {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		active, err := sch.Active(job)
		if err != nil {
			t.Error(err)
			return
		}
		for task, state := range active {
			if state != "RUNNING" {
				continue
			}
			time.Sleep(2 * time.Second)
			id := fmt.Sprintf("%s_%d", job, task)
			if out, err := exec.Command("scancel", id).CombinedOutput(); err != nil {
				t.Errorf("scancel %s: %v %s", id, err, out)
				return
			}
			for time.Now().Before(deadline) {
				a, _ := sch.Active(job)
				if _, still := a[task]; !still {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			shards, _ := p.Shards()
			if _, err := os.Stat(shards[task-1].Dir); err == nil {
				t.Errorf("cancelled task %s left %s (a half-written shard)", id, shards[task-1].Dir)
			}
			os.Stderr.WriteString("test: cancelled " + id + " mid-run\n")
			killed <- task
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

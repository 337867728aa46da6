package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/fsx"
)

// SlurmOptions are passed through to sbatch.
type SlurmOptions struct {
	Partition, Time, Mem string
	GPUs                 int
	CPUs                 int
}

// SlurmScript is an sbatch script running the plan's shards as a job array (one task per shard,
// %a the shard number; DIR/logs must exist before sbatch runs, as Slurm does not create it), each
// task `bin <experiment> -scale … -seeds <its seeds> -out <its dir> -save … -atomic -jobs 1` after removing
// what a killed earlier try of the same shard left (Shard.Clean). Resubmitting some tasks is
// `sbatch --array=2,5 script` (the command line overrides the script's #SBATCH --array). After the
// array, `paperlab merge` combines the shards (MergeCommand) — Follow does all of this itself.
func SlurmScript(p Plan, bin string, o SlurmOptions) (string, error) {
	shards, err := p.Shards()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n#SBATCH --job-name=paperlab-%s\n#SBATCH --array=1-%d\n", p.Experiment, len(shards))
	fmt.Fprintf(&b, "#SBATCH --output=%s/logs/shard-%%4a.log\n", p.WorkDir())
	if o.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", o.Partition)
	}
	if o.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", o.Time)
	}
	if o.Mem != "" {
		fmt.Fprintf(&b, "#SBATCH --mem=%s\n", o.Mem)
	}
	if o.CPUs > 0 {
		fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", o.CPUs)
	}
	if o.GPUs > 0 {
		fmt.Fprintf(&b, "#SBATCH --gpus=%d\n", o.GPUs)
	}
	b.WriteString("set -euo pipefail\ncase \"$SLURM_ARRAY_TASK_ID\" in\n")
	for i, s := range shards {
		fmt.Fprintf(&b, "  %d) SEEDS=%s; OUT=%s ;;\n", i+1, SeedsArg(s.Seeds), s.Dir)
	}
	b.WriteString("  *) echo \"no shard $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n")
	b.WriteString("# a shard has one writer at a time: hidden temporaries beside OUT (fsx.WriteDir's) are a killed try's leftovers\n")
	b.WriteString("rm -rf \"$(dirname \"$OUT\")/.$(basename \"$OUT\").tmp-\"*\n")
	fmt.Fprintf(&b, "exec %s %s\n", bin, strings.Join(p.shardArgs(`"$SEEDS"`, `"$OUT"`), " "))
	return b.String(), nil
}

// MergeCommand is the command that merges the plan's shards once the array has finished.
func MergeCommand(p Plan, bin string) string {
	return fmt.Sprintf("%s merge -out %s %s/shard-*", bin, p.Out, p.WorkDir())
}

// Scheduler is what Follow asks of Slurm. Slurm (below) runs sbatch, squeue and sacct; tests also
// fake it.
type Scheduler interface {
	// Submit submits script as a job array of the given task ids and returns the array's job id.
	Submit(script string, tasks []int) (string, error)
	// Active returns the tasks of array job that Slurm still holds as not finished (pending, running,
	// completing…), with their states. A job Slurm no longer knows has none.
	Active(job string) (map[int]string, error)
	// Ended says how a task that is no longer active ended ("FAILED 1:0", "CANCELLED by 0"…), or ""
	// when Slurm cannot tell (no accounting storage: sacct is disabled).
	Ended(job string, task int) string
}

// Slurm is the Scheduler of the cluster this process runs on (SLURM_CONF and PATH as usual).
type Slurm struct{}

// Submit runs `sbatch --parsable --array=<tasks> script`.
func (Slurm) Submit(script string, tasks []int) (string, error) {
	out, err := command("sbatch", "--parsable", "--array="+TaskList(tasks), script)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";") // "<id>;<cluster>" on federated clusters
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch printed %q, want a job id", out)
	}
	return id, nil
}

// finishedStates are Slurm's job states of a task that will not run again by itself.
var finishedStates = []string{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}

// Active runs `squeue -h -r -j job -o %K|%T` (one line per array task).
func (Slurm) Active(job string) (map[int]string, error) {
	out, err := command("squeue", "-h", "-r", "-j", job, "-o", "%K|%T")
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") { // purged after MinJobAge: nothing active
			return map[int]string{}, nil
		}
		return nil, err
	}
	return parseSqueue(out)
}

// parseSqueue reads squeue's "%K|%T" lines into task → state, leaving out finished tasks.
func parseSqueue(out string) (map[int]string, error) {
	active := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		task, state, ok := strings.Cut(line, "|")
		id, err := strconv.Atoi(task)
		if !ok || err != nil {
			return nil, fmt.Errorf("squeue line %q: want <array task id>|<state>", line)
		}
		state, _, _ = strings.Cut(state, " ")
		if !slices.Contains(finishedStates, state) {
			active[id] = state
		}
	}
	return active, nil
}

// Ended runs `sacct -n -P -X -j job_task -o State,ExitCode`, and where accounting is off `scontrol
// -o show job job_task` (which knows a finished job for MinJobAge, 300 s by default).
func (Slurm) Ended(job string, task int) string {
	id := fmt.Sprintf("%s_%d", job, task)
	if out, err := command("sacct", "-n", "-P", "-X", "-j", id, "-o", "State,ExitCode"); err == nil {
		if line, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); line != "" {
			return strings.ReplaceAll(line, "|", " exit ")
		}
	}
	out, err := command("scontrol", "-o", "show", "job", id)
	if err != nil {
		return ""
	}
	return scontrolState(out)
}

// scontrolState is "STATE exit CODE" from a `scontrol -o show job` line ("" when it has no JobState).
func scontrolState(out string) string {
	var state, code string
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "JobState="); ok {
			state = v
		} else if v, ok := strings.CutPrefix(f, "ExitCode="); ok {
			code = v
		}
	}
	if state == "" {
		return ""
	}
	return state + " exit " + code
}

// command runs a Slurm client command and returns its output; the error quotes its stderr.
func command(name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// TaskList is Slurm's --array syntax for the task ids: "1-4,7,9-10".
func TaskList(tasks []int) string {
	t := slices.Clone(tasks)
	slices.Sort(t)
	var parts []string
	for i := 0; i < len(t); {
		j := i
		for j+1 < len(t) && t[j+1] == t[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", t[i], t[j]))
		} else {
			parts = append(parts, strconv.Itoa(t[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// JobsFile records, in the sweep directory, which Slurm job each shard's task was last submitted in
// and how many times, so that running the sweep again follows tasks still queued instead of
// submitting them twice.
const JobsFile = "slurm-jobs.json"

// submission is one shard's entry in JobsFile.
type submission struct {
	Job   string `json:"job"`
	Tries int    `json:"tries"`
}

// Follow runs the plan on Slurm through the sbatch script at scriptPath (SlurmScript): it submits the
// unfinished shards as one job array, polls their states every o.Poll, resubmits each task that ended
// without its shard's metrics.json (up to o.Retries times; a killed or failed try leaves no
// half-written shard: see exp.Options.Atomic and Shard.Clean), prints progress, and merges the shards
// into p.Out when every one is done. Interrupted and run again, it follows the tasks still queued
// (JobsFile) and submits only the rest.
func Follow(ctx context.Context, p Plan, sch Scheduler, scriptPath string, o Options) (*exp.Result, error) {
	o = o.withDefaults()
	shards, err := p.Shards()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(p.WorkDir(), "logs"), 0o755); err != nil {
		return nil, err
	}
	jobsPath := filepath.Join(p.WorkDir(), JobsFile)
	subs := map[int]submission{} // task (shard number, from 1) → latest submission
	if b, err := os.ReadFile(jobsPath); err == nil {
		if err := json.Unmarshal(b, &subs); err != nil {
			return nil, fmt.Errorf("%s: %w", jobsPath, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	done := make([]bool, len(shards))
	var failed []string
	gaveUp := map[int]bool{}
	start, lastLine, lastProgress := time.Now(), "", time.Time{}
	for {
		// States first, results second: a task that ends between the two is then seen with its result.
		active := map[string]map[int]string{}
		for task, s := range subs {
			if _, seen := active[s.Job]; !seen && !done[task-1] && !gaveUp[task] {
				if active[s.Job], err = sch.Active(s.Job); err != nil {
					return nil, fmt.Errorf("sweep %s: %w", p.Experiment, err)
				}
			}
		}
		var resubmit []int
		var running, pending []int
		nDone := 0
		for i, s := range shards {
			task := i + 1
			if !done[i] && s.Done(p.Experiment) {
				done[i] = true
				fmt.Fprintf(o.Log, "sweep %s: %s done (seeds %s) after %s\n", p.Experiment, filepath.Base(s.Dir), SeedsArg(s.Seeds), time.Since(start).Round(time.Second))
			}
			if done[i] {
				nDone++
				continue
			}
			if gaveUp[task] {
				continue
			}
			sub, submitted := subs[task]
			if state, ok := active[sub.Job][task]; submitted && ok {
				if state == "RUNNING" || state == "COMPLETING" {
					running = append(running, i)
				} else {
					pending = append(pending, task)
				}
				continue
			}
			if !submitted {
				resubmit = append(resubmit, task)
				continue
			}
			how := sch.Ended(sub.Job, task)
			if how == "" {
				how = "no result"
			}
			if sub.Tries > o.Retries {
				gaveUp[task] = true
				failed = append(failed, fmt.Sprintf("%s (seeds %s): task %s_%d ended (%s) after %d tries — see %s",
					filepath.Base(s.Dir), SeedsArg(s.Seeds), sub.Job, task, how, sub.Tries, p.LogPath(s)))
				continue
			}
			fmt.Fprintf(o.Log, "sweep %s: task %s_%d (%s) ended without a result (%s): resubmitting, try %d of %d\n",
				p.Experiment, sub.Job, task, filepath.Base(s.Dir), how, sub.Tries+1, o.Retries+1)
			resubmit = append(resubmit, task)
		}
		if len(resubmit) > 0 {
			for _, task := range resubmit {
				if err := shards[task-1].Clean(); err != nil {
					return nil, err
				}
			}
			job, err := sch.Submit(scriptPath, resubmit)
			if err != nil {
				return nil, fmt.Errorf("sweep %s: submitting tasks %s: %w", p.Experiment, TaskList(resubmit), err)
			}
			for _, task := range resubmit {
				subs[task] = submission{Job: job, Tries: subs[task].Tries + 1}
			}
			if err := fsx.WriteJSON(jobsPath, subs); err != nil {
				return nil, err
			}
			fmt.Fprintf(o.Log, "sweep %s: submitted tasks %s as job %s (logs in %s)\n", p.Experiment, TaskList(resubmit), job, filepath.Join(p.WorkDir(), "logs"))
			continue // follow the new submission from the next poll on
		}
		if len(running) == 0 && len(pending) == 0 {
			break
		}
		line := fmt.Sprintf("sweep %s: %d/%d shards done, %d running, %d pending", p.Experiment, nDone, len(shards), len(running), len(pending))
		if line != lastLine || time.Since(lastProgress) >= o.Progress {
			fmt.Fprintf(o.Log, "%s after %s; %s\n", line, time.Since(start).Round(time.Second), p.runningLine(shards, running))
			lastLine, lastProgress = line, time.Now()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("sweep %s: stopped following (the array keeps running; run the same command again to follow it): %w", p.Experiment, ctx.Err())
		case <-time.After(o.Poll):
		}
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		return nil, fmt.Errorf("sweep %s: %d shards failed:\n  %s", p.Experiment, len(failed), strings.Join(failed, "\n  "))
	}
	return p.merge(shards, o.Log)
}

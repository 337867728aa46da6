// Package sweep runs an experiment's seeds as shards — child processes of the paperlab CLI on this
// machine (Local), or the tasks of a Slurm job array (SlurmScript) — and merges them (exp.MergeDirs).
// It schedules nothing itself beyond a bounded pool of local processes: on a cluster, Slurm does.
package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// Plan is a sweep: the experiment, its scale, the seeds cut into shards of ShardSize seeds, and the
// output directory (DIR/shard-0001 … and the merged result in DIR).
type Plan struct {
	Experiment string
	Scale      exp.Scale
	Seeds      []uint64
	ShardSize  int
	Out        string
}

// Shard is one shard: its seeds and its directory.
type Shard struct {
	Seeds []uint64
	Dir   string
}

// Shards cuts the plan's seeds into shards (in order).
func (p Plan) Shards() ([]Shard, error) {
	if p.Experiment == "" || p.Out == "" || len(p.Seeds) == 0 || p.ShardSize < 1 {
		return nil, fmt.Errorf("sweep: experiment, out, seeds and shard size ≥ 1 are needed (%+v)", p)
	}
	var out []Shard
	for i := 0; i < len(p.Seeds); i += p.ShardSize {
		s := p.Seeds[i:min(len(p.Seeds), i+p.ShardSize)]
		out = append(out, Shard{Seeds: slices.Clone(s), Dir: filepath.Join(p.Out, fmt.Sprintf("shard-%04d", len(out)+1))})
	}
	return out, nil
}

// SeedsArg is a shard's -seeds value: "a,b,c", and "s-s" for one seed (a bare "s" would mean the
// seeds 1..s).
func SeedsArg(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("%d-%d", seeds[0], seeds[0])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ",")
}

// Done reports whether the shard already holds a result of exactly its seeds (a resumed sweep skips it).
func (s Shard) Done(experiment string) bool {
	r, err := exp.Load(s.Dir)
	return err == nil && r.Experiment == experiment && slices.Equal(r.Seeds, s.Seeds)
}

// LogPath is where a shard's output goes: DIR/logs/shard-NNNN.log.
func (p Plan) LogPath(s Shard) string {
	return filepath.Join(p.Out, "logs", filepath.Base(s.Dir)+".log")
}

// Local runs the plan's unfinished shards as child processes `bin <experiment> -scale … -seeds …
// -out shard` (bin: the paperlab executable), jobs at a time, retrying a failed shard up to retries
// times (its output in LogPath), then merges every shard into p.Out.
func Local(ctx context.Context, p Plan, bin string, jobs, retries int, log io.Writer) (*exp.Result, error) {
	shards, err := p.Shards()
	if err != nil {
		return nil, err
	}
	if jobs < 1 {
		return nil, fmt.Errorf("sweep: jobs = %d, need ≥ 1", jobs)
	}
	if err := os.MkdirAll(filepath.Join(p.Out, "logs"), 0o755); err != nil {
		return nil, err
	}
	var (
		mu     sync.Mutex
		failed []string
		done   int
		wg     sync.WaitGroup
	)
	sem := make(chan struct{}, jobs)
	start := time.Now()
	for _, s := range shards {
		if s.Done(p.Experiment) {
			mu.Lock()
			done++
			fmt.Fprintf(log, "sweep %s: %s already done (seeds %s)\n", p.Experiment, filepath.Base(s.Dir), SeedsArg(s.Seeds))
			mu.Unlock()
			continue
		}
		wg.Add(1)
		go func(s Shard) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var err error
			for try := 0; try <= retries; try++ {
				if err = runShard(ctx, p, s, bin); err == nil {
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s (seeds %s): %v — see %s", filepath.Base(s.Dir), SeedsArg(s.Seeds), err, p.LogPath(s)))
				return
			}
			done++
			fmt.Fprintf(log, "sweep %s: %d/%d shards done (%s, seeds %s) after %s\n", p.Experiment, done, len(shards), filepath.Base(s.Dir),
				SeedsArg(s.Seeds), time.Since(start).Round(time.Second))
		}(s)
	}
	wg.Wait()
	if len(failed) > 0 {
		return nil, fmt.Errorf("sweep %s: %d shards failed after %d tries:\n  %s", p.Experiment, len(failed), retries+1, strings.Join(failed, "\n  "))
	}
	dirs := make([]string, len(shards))
	for i, s := range shards {
		dirs[i] = s.Dir
	}
	return exp.MergeDirs(dirs, p.Out, log)
}

// runShard runs one shard's child process, its output in LogPath.
func runShard(ctx context.Context, p Plan, s Shard, bin string) error {
	f, err := os.Create(p.LogPath(s))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, bin, p.Experiment, "-scale", string(p.Scale), "-seeds", SeedsArg(s.Seeds), "-out", s.Dir, "-save", exp.SaveNone)
	cmd.Stdout, cmd.Stderr = f, f
	return cmd.Run()
}

// SlurmOptions are passed through to sbatch.
type SlurmOptions struct {
	Partition, Time, Mem string
	GPUs                 int
	CPUs                 int
}

// SlurmScript is an sbatch script running the plan's shards as a job array (one task per shard,
// %a the shard number; DIR/logs must exist before sbatch runs, as Slurm does not create it), each task `bin <experiment> -scale … -seeds <its seeds> -out <its dir>`;
// after the array, `paperlab merge` combines them (MergeCommand).
func SlurmScript(p Plan, bin string, o SlurmOptions) (string, error) {
	shards, err := p.Shards()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n#SBATCH --job-name=paperlab-%s\n#SBATCH --array=1-%d\n", p.Experiment, len(shards))
	fmt.Fprintf(&b, "#SBATCH --output=%s/logs/shard-%%4a.log\n", p.Out)
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
	fmt.Fprintf(&b, "exec %s %s -scale %s -seeds \"$SEEDS\" -out \"$OUT\" -save none\n", bin, p.Experiment, p.Scale)
	return b.String(), nil
}

// MergeCommand is the command that merges the plan's shards once the array has finished.
func MergeCommand(p Plan, bin string) string {
	return fmt.Sprintf("%s merge -out %s %s/shard-*", bin, p.Out, p.Out)
}

// Package sweep runs an experiment's seeds as shards — child processes of the paperlab CLI on this
// machine (Local), or the tasks of a Slurm job array (SlurmScript) — and merges them (exp.MergeDirs).
// It schedules nothing itself beyond a bounded pool of local processes: on a cluster, Slurm does.
// Package exp/jobs is the finer grain: the trainings inside one run (e3t's), in worker processes,
// started as shards are (jobs.RunLogged).
package sweep

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/jobs"
	"github.com/paperlab/paperlab/toolkit/fsx"
)

// Plan is a sweep: the experiment, its scale, the seeds cut into shards of ShardSize seeds, the
// output directory for the merged result (Out) and the one for the shards and their logs (Work:
// WORK/shard-0001 …, WORK/logs; "" is Out).
type Plan struct {
	Experiment string
	Scale      exp.Scale
	Seeds      []uint64
	ShardSize  int
	Out        string
	Work       string
	// Save is the shards' exp.Options.Save ("": none); the shards' checkpoints are moved into
	// Out/checkpoints when they are merged.
	Save string
	// Part is the experiment's named part every shard runs ("": the whole experiment).
	Part string
}

// WorkDir is where the shards and their logs go.
func (p Plan) WorkDir() string {
	if p.Work != "" {
		return p.Work
	}
	return p.Out
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
		out = append(out, Shard{Seeds: slices.Clone(s), Dir: filepath.Join(p.WorkDir(), fmt.Sprintf("shard-%04d", len(out)+1))})
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

// LogPath is where a shard's output goes: WORK/logs/shard-NNNN.log.
func (p Plan) LogPath(s Shard) string {
	return filepath.Join(p.WorkDir(), "logs", filepath.Base(s.Dir)+".log")
}

// Options control a sweep's runner.
type Options struct {
	// Jobs is the number of shards run at once by Local (≥ 1).
	Jobs int
	// Retries is how many more times a failed shard is run (Local) or its array task resubmitted
	// (Follow) before the sweep gives up on it.
	Retries int
	// Progress is how often a line shows the running shards' latest progress (0: 30 s).
	Progress time.Duration
	// Poll is how often Follow asks Slurm for the array's state (0: 10 s).
	Poll time.Duration
	// Devices, when set, are GPU ids for Local: each running shard gets one of its own as
	// CUDA_VISIBLE_DEVICES (so a machine with 4 GPUs runs 4 shards, one per GPU), and Jobs is
	// len(Devices).
	Devices []string
	// Log receives the progress lines (nil: discarded).
	Log io.Writer
}

func (o Options) withDefaults() Options {
	if o.Progress <= 0 {
		o.Progress = 30 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 10 * time.Second
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// Local runs the plan's unfinished shards as child processes `bin <experiment> -scale … -seeds …
// -out shard -atomic -jobs 1` (bin: the paperlab executable), o.Jobs at a time, retrying a failed shard up to
// o.Retries times (its output in LogPath), printing the running shards' latest progress line every
// o.Progress, then merges every shard into p.Out.
func Local(ctx context.Context, p Plan, bin string, o Options) (*exp.Result, error) {
	o = o.withDefaults()
	shards, err := p.Shards()
	if err != nil {
		return nil, err
	}
	if len(o.Devices) > 0 {
		o.Jobs = len(o.Devices)
	}
	if o.Jobs < 1 {
		return nil, fmt.Errorf("sweep: jobs = %d, need ≥ 1", o.Jobs)
	}
	if err := os.MkdirAll(filepath.Join(p.WorkDir(), "logs"), 0o755); err != nil {
		return nil, err
	}
	var (
		mu      sync.Mutex
		failed  []string
		done    int
		running = map[int]bool{}
		wg      sync.WaitGroup
	)
	slots := make(chan string, o.Jobs) // a free slot: "" or the GPU id it carries
	for i := 0; i < o.Jobs; i++ {
		if len(o.Devices) > 0 {
			slots <- o.Devices[i]
		} else {
			slots <- ""
		}
	}
	start := time.Now()
	for i, s := range shards {
		if s.Done(p.Experiment) {
			done++
			fmt.Fprintf(o.Log, "sweep %s: %s already done (seeds %s)\n", p.Experiment, filepath.Base(s.Dir), SeedsArg(s.Seeds))
			continue
		}
		wg.Add(1)
		go func(i int, s Shard) {
			defer wg.Done()
			device := <-slots
			defer func() { slots <- device }()
			mu.Lock()
			running[i] = true
			mu.Unlock()
			var err error
			for try := 0; try <= o.Retries; try++ {
				if err = runShard(ctx, p, s, bin, device); err == nil {
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			delete(running, i)
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s (seeds %s): %v — see %s", filepath.Base(s.Dir), SeedsArg(s.Seeds), err, p.LogPath(s)))
				return
			}
			done++
			fmt.Fprintf(o.Log, "sweep %s: %d/%d shards done (%s, seeds %s) after %s\n", p.Experiment, done, len(shards), filepath.Base(s.Dir),
				SeedsArg(s.Seeds), time.Since(start).Round(time.Second))
		}(i, s)
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	tick := time.NewTicker(o.Progress)
	defer tick.Stop()
wait:
	for {
		select {
		case <-finished:
			break wait
		case <-tick.C:
			mu.Lock()
			fmt.Fprintf(o.Log, "sweep %s: %d/%d shards done after %s; %s\n", p.Experiment, done, len(shards),
				time.Since(start).Round(time.Second), p.runningLine(shards, slices.Sorted(maps.Keys(running))))
			mu.Unlock()
		}
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		return nil, fmt.Errorf("sweep %s: %d shards failed after %d tries:\n  %s", p.Experiment, len(failed), o.Retries+1, strings.Join(failed, "\n  "))
	}
	return p.merge(shards, o.Log)
}

// merge removes what killed runs left behind, merges the shards into p.Out and moves the artefacts
// their runs wrote into folders (exp.MergeDirs, exp.MoveArtefacts): saved policies into p.Out/checkpoints
// (exp.Options.CheckpointDir's layout: seed 1's under checkpoints/<method>, another seed's under
// checkpoints/seed<N>, so shards never collide), spo's per-seed pairs into p.Out/pairs.
func (p Plan) merge(shards []Shard, log io.Writer) (*exp.Result, error) {
	dirs := make([]string, len(shards))
	for i, s := range shards {
		if err := s.Clean(); err != nil {
			return nil, err
		}
		dirs[i] = s.Dir
	}
	res, err := exp.MergeDirs(dirs, p.Out, log)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// runningLine is "running shard-0003 (<its latest progress line>), …" for the shards idx.
func (p Plan) runningLine(shards []Shard, idx []int) string {
	if len(idx) == 0 {
		return "none running"
	}
	parts := make([]string, len(idx))
	for k, i := range idx {
		parts[k] = fmt.Sprintf("%s (%s)", filepath.Base(shards[i].Dir), LastLine(p.LogPath(shards[i]), 72))
	}
	return "running " + strings.Join(parts, ", ")
}

// LastLine is the last non-empty line of a log file (lines end in \n or \r, as progress bars
// redraw with \r), cut to at most width characters; "no output yet" when there is none.
func LastLine(path string, width int) string {
	f, err := os.Open(path)
	if err != nil {
		return "no output yet"
	}
	defer f.Close()
	const tail = 4096
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		_, _ = f.Seek(st.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' })
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if r := []rune(l); len(r) > width {
				l = string(r[:width-1]) + "…"
			}
			return l
		}
	}
	return "no output yet"
}

// Clean removes what a killed run of the shard left beside its directory: the hidden temporary
// directories of exp.Options.Atomic (.shard-NNNN.tmp-*). A shard has one writer at a time, so
// whatever is there when the sweep (re)starts it belongs to a run that is over.
func (s Shard) Clean() error { return fsx.RemoveTemporaries(s.Dir) }

// ShardArgs are the paperlab arguments that run shard s: `<experiment> -scale … -seeds … -out DIR
// -save … -atomic -jobs 1` (one process per shard: the sweep decides how many run at once, so a
// shard never splits itself into shards of its own as an experiment's default -jobs would).
func (p Plan) ShardArgs(s Shard) []string { return p.shardArgs(SeedsArg(s.Seeds), s.Dir) }

// shardArgs are ShardArgs with the seeds and the output given as text (the Slurm script passes its
// task's "$SEEDS" and "$OUT").
func (p Plan) shardArgs(seeds, out string) []string {
	args := []string{p.Experiment, "-scale", string(p.Scale), "-seeds", seeds, "-out", out, "-save", p.save(), "-atomic", "-jobs", "1"}
	if p.Part != "" {
		args = append(args, "-part", p.Part)
	}
	return args
}

func (p Plan) save() string {
	if p.Save == "" {
		return exp.SaveNone
	}
	return p.Save
}

// runShard runs one shard's child process, its output in LogPath; device, when set, is its
// CUDA_VISIBLE_DEVICES.
func runShard(ctx context.Context, p Plan, s Shard, bin, device string) error {
	if err := s.Clean(); err != nil {
		return err
	}
	var env []string
	if device != "" {
		env = []string{"CUDA_VISIBLE_DEVICES=" + device}
	}
	return jobs.RunLogged(ctx, p.LogPath(s), env, bin, p.ShardArgs(s)...)
}

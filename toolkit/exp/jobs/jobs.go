// Package jobs runs an experiment's trainings ("jobs") — in this process, in submission order as
// each is first needed, or with exp.Options.Workers ≥ 1 and WorkerBin in up to that many child processes
// (`paperlab worker <experiment> JOB.json`), each job started once the jobs it needs are done — and
// keeps every finished job in a cache folder (exp.Options.Cache) keyed by what decides its result,
// so that a stopped run, or one with methods added, trains only the jobs it does not find.
//
// A job's result does not depend on where it ran: the same configuration and seed on the same
// engine. An experiment describes its jobs with a Kind (how a job trains, and how its result is
// saved and loaded) and submits them to a Runner; e3t is the user.
//
// exp/sweep is the other way to spread work over processes: it cuts an experiment's seeds into
// shards, each a whole run of the CLI (`paperlab <experiment> -seeds …`), and merges their results.
// Jobs are finer: the trainings inside one run, which may depend on each other (FCP's best response
// reads its population's agents), so that one run's agents train side by side. Both start their
// child processes with RunLogged.
package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/repo"
	"github.com/paperlab/paperlab/toolkit/track"
)

// State is where a submitted job stands.
type State int

// States of a job.
const (
	Waiting State = iota // submitted, not started
	Running              // training in a worker process
	Done                 // trained, or found in the cache: its result can be read
	Aliased              // the same training as an earlier job (the same cache key), which trains it
)

func (s State) String() string {
	switch s {
	case Waiting:
		return "waiting"
	case Running:
		return "running"
	case Done:
		return "done"
	case Aliased:
		return "aliased"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Job is one training as the runner sees it: the experiment's description of it (Spec) and the
// jobs whose results it reads (Needs, submitted before it). Its JSON is a worker's job file.
type Job[S any] struct {
	ID    string   `json:"id"`
	Spec  S        `json:"spec"`
	Needs []string `json:"needs,omitempty"`
	// NeedDirs are the result folders of Needs, in order, and Dir the job's own (set by Submit for
	// workers).
	NeedDirs []string `json:"need_dirs,omitempty"`
	Dir      string   `json:"dir,omitempty"`
}

// Kind is how an experiment's jobs train and keep their results: S is its description of a job
// (JSON in a worker's job file and, less the job's name and folders, in the cache key), R a
// finished job.
type Kind[S, R any] struct {
	// Experiment names the worker command (`<WorkerBin> worker <Experiment> JOB.json`) and
	// prefixes the runner's log lines.
	Experiment string
	// Sources are the files and folders (relative to the checkout) whose Go files decide a
	// training's result; the cache key hashes them (Salt).
	Sources []string
	// Iters is a job's number of iterations (its progress line).
	Iters func(S) int
	// Train trains a job; in hands it the results of the jobs it needs.
	Train func(job Job[S], in Inputs[R], progress track.Progress) (R, error)
	// Save writes a result into a folder where Load reads it back; Saved reports whether a folder
	// holds a complete one (a folder that fails it is trained again).
	Save  func(dir string, r R) error
	Load  func(dir string) (R, error)
	Saved func(dir string) bool
	// Close frees a result nobody reads any more (a worker's, once saved; nil: nothing to free).
	Close func(R)
	// KeySpec is the description as the cache key reads it, for a description that names
	// something by place rather than content (nil: as it is).
	KeySpec func(S) S
}

// Inputs hands a training the results of the jobs it needs.
type Inputs[R any] struct {
	Get func(id string) (R, error)
	// Owned: Get's results are the training's to close once read (a worker's loaded copies);
	// otherwise the runner keeps them for the run.
	Owned bool
}

// Runner trains the jobs submitted to it, here or in workers, and hands their results out in any
// order (Wait).
type Runner[S, R any] struct {
	kind    Kind[S, R]
	opt     exp.Options
	work    string // the worker folder ("" in this process)
	start   time.Time
	mu      sync.Mutex
	cond    *sync.Cond
	byID    map[string]*entry[S, R]
	order   []*entry[S, R]
	running int
	err     error
	// The cache (exp.Options.Cache): its folder ("" none), the salt of every key, the first job of
	// each key, how many jobs it already held, and the release of its lock.
	cache     string
	salt      string
	byKey     map[string]*entry[S, R]
	fromCache int
	unlock    func()
}

type entry[S, R any] struct {
	job    Job[S]
	res    R
	loaded bool // res is set
	state  State
	key    string       // in the cache ("" without one)
	dir    string       // the job's folder in the cache
	alias  *entry[S, R] // an earlier job with the same key: this one reads its result
	// extra: left out of MainWall; doneAt: when it finished, from the start of the run (0 for one
	// found in the cache).
	extra  bool
	doneAt time.Duration
}

// New is a runner for kind's jobs under opt (Workers, WorkerBin, Out, Cache, Log). With a cache it
// holds the cache folder's lock until Close.
func New[S, R any](kind Kind[S, R], opt exp.Options) (*Runner[S, R], error) {
	r := &Runner[S, R]{kind: kind, opt: opt, byID: map[string]*entry[S, R]{}, start: time.Now()}
	r.cond = sync.NewCond(&r.mu)
	if opt.Cache != "" {
		if err := os.MkdirAll(opt.Cache, 0o755); err != nil {
			return nil, fmt.Errorf("job cache: %w", err)
		}
		salt, err := Salt(kind.Sources)
		if err != nil {
			return nil, err
		}
		if r.unlock, err = Lock(opt.Cache); err != nil {
			return nil, err
		}
		r.cache, r.salt, r.byKey = opt.Cache, salt, map[string]*entry[S, R]{}
	}
	if opt.Workers > 1 && opt.WorkerBin == "" {
		return nil, fmt.Errorf("%s: %d workers need the paperlab binary (exp.Options.WorkerBin)", kind.Experiment, opt.Workers)
	}
	if opt.Workers >= 1 && opt.WorkerBin != "" {
		base := os.TempDir()
		if opt.Out != "" {
			base = filepath.Dir(opt.Out)
			if err := os.MkdirAll(base, 0o755); err != nil {
				return nil, err
			}
		}
		w, err := os.MkdirTemp(base, "."+kind.Experiment+"-jobs-*")
		if err != nil {
			return nil, err
		}
		r.work = w
	}
	return r, nil
}

// Close removes the worker folder (after a failure it is kept, with the workers' logs) and releases
// the cache.
func (r *Runner[S, R]) Close(failed bool) {
	if r.work != "" && !failed {
		_ = os.RemoveAll(r.work)
	}
	if r.unlock != nil {
		r.unlock()
	}
}

// WorkDir is the folder of the workers' jobs ("": every job trains in this process).
func (r *Runner[S, R]) WorkDir() string { return r.work }

// Caching reports whether finished jobs go to a cache.
func (r *Runner[S, R]) Caching() bool { return r.cache != "" }

// Counts are how many submitted jobs the cache already held, and how many were submitted.
func (r *Runner[S, R]) Counts() (fromCache, jobs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fromCache, len(r.order)
}

// Submit queues a job; with workers it may start at once. A job the cache holds is done already.
func (r *Runner[S, R]) Submit(job Job[S]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &entry[S, R]{job: job}
	if r.cache != "" {
		r.lookUp(e)
	}
	if r.work != "" {
		e.job = r.place(e)
	}
	r.byID[job.ID] = e
	r.order = append(r.order, e)
	r.schedule()
}

// lookUp sets e's cache key and folder, and its state when an earlier job or the cache has its
// training. Called with mu held.
func (r *Runner[S, R]) lookUp(e *entry[S, R]) {
	var needKeys []string
	for _, id := range e.job.Needs {
		if p, ok := r.byID[id]; ok {
			needKeys = append(needKeys, p.key)
		}
	}
	key, err := r.key(e.job, needKeys)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("job %s: cache key: %w", e.job.ID, err)
	}
	e.key, e.dir = key, filepath.Join(r.cache, key)
	switch first := r.byKey[key]; {
	case first != nil: // the same training under another name: read the first one's result
		e.alias, e.state = first, Aliased
		if first.state == Done {
			e.state = Done
		}
	case r.kind.Saved(e.dir):
		e.state = Done
		r.fromCache++
		fmt.Fprintf(r.log(), "%s: job %s found in the job cache (%s)\n", r.kind.Experiment, e.job.ID, repo.ShowPath(e.dir))
	}
	if e.alias == nil {
		r.byKey[key] = e
	}
}

// place is e's job with its worker folder (its alias's, or its cache folder) and its needs'
// folders. Called with mu held.
func (r *Runner[S, R]) place(e *entry[S, R]) Job[S] {
	job := e.job
	job.Dir = filepath.Join(r.work, fmt.Sprintf("%03d", len(r.order)))
	if e.alias != nil {
		job.Dir = e.alias.job.Dir
	} else if e.dir != "" {
		job.Dir = e.dir
	}
	job.NeedDirs = nil
	for _, id := range job.Needs {
		if p, ok := r.byID[id]; ok {
			job.NeedDirs = append(job.NeedDirs, p.job.Dir)
		}
	}
	return job
}

// finish marks e done, and the jobs that alias it. Called with mu held, or in this process.
func (r *Runner[S, R]) finish(e *entry[S, R]) {
	e.state, e.doneAt = Done, time.Since(r.start)
	for _, o := range r.order {
		if o.alias == e {
			o.state, o.doneAt = Done, e.doneAt
		}
	}
}

// MarkExtra leaves job id out of MainWall.
func (r *Runner[S, R]) MarkExtra(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byID[id]; ok {
		e.extra = true
	}
}

// MainWall is the seconds from the start of the run until every job not marked extra was done: the
// wall time of the main jobs when the extra ones are submitted last.
func (r *Runner[S, R]) MainWall() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var last time.Duration
	for _, e := range r.order {
		if !e.extra {
			last = max(last, e.doneAt)
		}
	}
	return last.Seconds()
}

// ready reports whether every job e needs is done.
func (r *Runner[S, R]) ready(e *entry[S, R]) bool {
	for _, id := range e.job.Needs {
		if d, ok := r.byID[id]; !ok || d.state != Done {
			return false
		}
	}
	return true
}

// schedule starts waiting jobs (in submission order) while workers are free. Called with mu held.
func (r *Runner[S, R]) schedule() {
	if r.work == "" || r.err != nil {
		return
	}
	for _, e := range r.order {
		if r.running >= r.opt.Workers {
			return
		}
		if e.state == Waiting && r.ready(e) {
			e.state, r.running = Running, r.running+1
			go r.runWorker(e)
		}
	}
}

// runWorker trains e in a child process, its output in the job's log.txt.
func (r *Runner[S, R]) runWorker(e *entry[S, R]) {
	err := func() error {
		if err := os.MkdirAll(e.job.Dir, 0o755); err != nil {
			return err
		}
		path, logPath := filepath.Join(e.job.Dir, "job.json"), filepath.Join(e.job.Dir, "log.txt")
		if err := fsx.WriteJSON(path, e.job); err != nil {
			return err
		}
		start := time.Now()
		fmt.Fprintf(r.log(), "%s: job %s started in a worker (log %s)\n", r.kind.Experiment, e.job.ID, logPath)
		if err := RunLogged(context.Background(), logPath, nil, r.opt.WorkerBin, "worker", r.kind.Experiment, path); err != nil {
			return fmt.Errorf("job %s: worker: %w (log %s)", e.job.ID, err, logPath)
		}
		fmt.Fprintf(r.log(), "%s: job %s done in a worker (%.0f s)\n", r.kind.Experiment, e.job.ID, time.Since(start).Seconds())
		return nil
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running--
	if err != nil && r.err == nil {
		r.err = err
	}
	r.finish(e)
	r.schedule()
	r.cond.Broadcast()
}

func (r *Runner[S, R]) log() io.Writer {
	if r.opt.Log != nil {
		return r.opt.Log
	}
	return os.Stderr
}

// Wait returns the result of job id, training it here (and, first, the jobs it needs) when there
// are no workers. The caller owns the result (closing it is the caller's, once the run is over).
func (r *Runner[S, R]) Wait(id string) (R, error) {
	var zero R
	r.mu.Lock()
	e, ok := r.byID[id]
	if !ok {
		r.mu.Unlock()
		return zero, fmt.Errorf("%s: no job %q", r.kind.Experiment, id)
	}
	if r.work == "" {
		r.mu.Unlock()
		return r.waitHere(e)
	}
	for e.state != Done && r.err == nil {
		r.cond.Wait()
	}
	err := r.err
	r.mu.Unlock()
	if err != nil {
		return zero, err
	}
	if !e.loaded {
		res, err := r.kind.Load(e.job.Dir)
		if err != nil {
			return zero, fmt.Errorf("job %s: %w", id, err)
		}
		e.res, e.loaded = res, true
	}
	return e.res, nil
}

// waitHere is Wait without workers: e's result, trained in this process unless the cache or the
// job it aliases has it.
func (r *Runner[S, R]) waitHere(e *entry[S, R]) (R, error) {
	var zero R
	if e.state == Aliased { // train the job it aliases first (its result lands in the shared folder)
		if _, err := r.Wait(e.alias.job.ID); err != nil {
			return zero, err
		}
	}
	if e.state == Done {
		if !e.loaded { // found in the cache, or an alias: a copy of its own
			res, err := r.kind.Load(e.dir)
			if err != nil {
				return zero, fmt.Errorf("job %s: %w", e.job.ID, err)
			}
			e.res, e.loaded = res, true
		}
		return e.res, nil
	}
	res, err := r.kind.Train(e.job, Inputs[R]{Get: r.Wait}, r.opt.Progress(e.job.ID, r.kind.Iters(e.job.Spec)))
	if err != nil {
		return zero, err
	}
	if e.dir != "" {
		if err := r.kind.Save(e.dir, res); err != nil {
			r.free(res)
			return zero, fmt.Errorf("job %s: job cache: %w", e.job.ID, err)
		}
	}
	e.res, e.loaded = res, true
	r.finish(e)
	return res, nil
}

func (r *Runner[S, R]) free(res R) {
	if r.kind.Close != nil {
		r.kind.Close(res)
	}
}

// Work trains the job in file path (written by a Runner with workers) and saves its result in the
// job's Dir: `paperlab worker <experiment> JOB.json`. The results it needs are loaded from the
// folders the job names (NeedDirs).
func Work[S, R any](kind Kind[S, R], path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var job Job[S]
	if err := json.Unmarshal(raw, &job); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(job.NeedDirs) != len(job.Needs) {
		return fmt.Errorf("%s: job %s names %d jobs it needs and %d result folders", path, job.ID, len(job.Needs), len(job.NeedDirs))
	}
	dirs := map[string]string{}
	for i, id := range job.Needs {
		dirs[id] = job.NeedDirs[i]
	}
	load := func(id string) (R, error) { return kind.Load(dirs[id]) }
	res, err := kind.Train(job, Inputs[R]{Get: load, Owned: true}, exp.Options{Log: os.Stdout}.Progress(job.ID, kind.Iters(job.Spec)))
	if err != nil {
		return err
	}
	if kind.Close != nil {
		defer kind.Close(res)
	}
	return kind.Save(job.Dir, res)
}

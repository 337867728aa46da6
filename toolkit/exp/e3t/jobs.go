package e3t

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/fsx"
	e3 "github.com/paperlab/paperlab/toolkit/marl/e3t"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
	"github.com/paperlab/paperlab/toolkit/marl/fcp"
	"github.com/paperlab/paperlab/toolkit/repo"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Job is one training of the experiment: an SP or E3T run (e3.Train) or an FCP best response
// (fcp.Train) against the snapshots of the SP jobs named in Population. Run trains every job either
// in this process, in submission order, or — with exp.Options.Workers > 1 (`paperlab e3t -jobs N`
// on ONNX Runtime, whose process runs one graph at a time) — in up to Workers child processes
// (`paperlab worker e3t JOB.json`), each job started once the jobs it needs are done. A job's result
// does not depend on where it ran: the same configuration and seed on the same engine.
type Job struct {
	ID   string     `json:"id"` // "<layout>/<method or held-out agent>/<seed>"
	Kind string     `json:"kind"`
	Seed uint64     `json:"seed"`
	E3T  e3.Config  `json:"e3t,omitempty"`
	FCP  fcp.Config `json:"fcp,omitempty"`
	// Population: IDs of SP jobs whose snapshots FCP plays with, in order; PopulationDirs their
	// result folders (set by submit for workers).
	Population     []string `json:"population,omitempty"`
	PopulationDirs []string `json:"population_dirs,omitempty"`
	// MonitorDir holds the policy of the monitor partner (a saved e3t.Policy; "" with a scripted
	// monitor: Monitor), evaluated every MonitorEvery iterations.
	MonitorDir   string               `json:"monitor_dir,omitempty"`
	Monitor      *overcooked.Scripted `json:"monitor,omitempty"`
	MonitorEvery int                  `json:"monitor_every,omitempty"`
	// Dir is where a worker writes the result (policy/ and result.json).
	Dir string `json:"dir,omitempty"`
}

// Kinds of Job.
const (
	KindE3T = "e3t" // e3.Train (mode sp or e3t)
	KindFCP = "fcp" // fcp.Train
)

// done is a finished job: the trained policy and what the loop reads of its run.
type done struct {
	Policy    *e3.Policy   `json:"-"`
	Curves    track.Curves `json:"curves"`
	Snapshots [][]float32  `json:"snapshots,omitempty"`
	EnvSteps  int          `json:"env_steps"`
	Seconds   float64      `json:"seconds"`
}

// jobs trains Jobs in this process or in workers and hands their results out in any order.
type jobs struct {
	opt      exp.Options
	work     string // worker folder ("" in this process)
	mu       sync.Mutex
	cond     *sync.Cond
	byID     map[string]*entry
	order    []*entry
	running  int
	err      error
	monitors map[string]e3.Agent // in-process monitors by MonitorDir or scripted name
	// The job cache (exp.Options.Cache; cache.go): its folder ("" none), the salt of every key,
	// the content key of each shared monitor (by MonitorDir) and how many jobs it already held.
	cache       string
	salt        string
	monitorKeys map[string]string
	fromCache   int
	byKey       map[string]*entry // the first job of each key
	unlock      func()
	start       time.Time
}

type entry struct {
	job   Job
	res   *done
	state int    // 0 waiting, 1 running, 2 done, 3 the same training as alias (which runs it)
	key   string // in the job cache ("" without one)
	dir   string // the job's folder in the cache
	alias *entry // an earlier job with the same key: this one reads its result
	// extra: a training of an Extra method (MainWall leaves it out); doneAt: when it finished,
	// from the start of the run (0 for one found in the job cache).
	extra  bool
	doneAt time.Duration
}

func newJobs(opt exp.Options) (*jobs, error) {
	j := &jobs{opt: opt, byID: map[string]*entry{}, monitors: map[string]e3.Agent{}, monitorKeys: map[string]string{}, start: time.Now()}
	j.cond = sync.NewCond(&j.mu)
	if opt.Cache != "" {
		if err := os.MkdirAll(opt.Cache, 0o755); err != nil {
			return nil, fmt.Errorf("job cache: %w", err)
		}
		salt, err := cacheSalt()
		if err != nil {
			return nil, err
		}
		if j.unlock, err = lockCache(opt.Cache); err != nil {
			return nil, err
		}
		j.cache, j.salt, j.byKey = opt.Cache, salt, map[string]*entry{}
	}
	if opt.Workers > 1 {
		if opt.WorkerBin == "" {
			return nil, fmt.Errorf("e3t: %d workers need the paperlab binary (exp.Options.WorkerBin)", opt.Workers)
		}
		base := os.TempDir()
		if opt.Out != "" {
			base = filepath.Dir(opt.Out)
			if err := os.MkdirAll(base, 0o755); err != nil {
				return nil, err
			}
		}
		w, err := os.MkdirTemp(base, ".e3t-jobs-*")
		if err != nil {
			return nil, err
		}
		j.work = w
	}
	return j, nil
}

// close removes the worker folder (after a failure it is kept, with the workers' logs) and releases
// the job cache.
func (j *jobs) close(failed bool) {
	if j.work != "" && !failed {
		_ = os.RemoveAll(j.work)
	}
	if j.unlock != nil {
		j.unlock()
	}
}

// submit queues a job; with workers it may start at once. A job the cache holds is done already.
func (j *jobs) submit(job Job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e := &entry{job: job}
	if j.cache != "" {
		var popKeys []string
		for _, id := range job.Population {
			if p, ok := j.byID[id]; ok {
				popKeys = append(popKeys, p.key)
			}
		}
		key, err := jobKey(j.salt, job, popKeys, j.monitorKeys[job.MonitorDir])
		if err != nil && j.err == nil {
			j.err = fmt.Errorf("job %s: cache key: %w", job.ID, err)
		}
		e.key, e.dir = key, filepath.Join(j.cache, key)
		switch first := j.byKey[key]; {
		case first != nil: // the same training under another name: read the first one's result
			e.alias, e.state = first, 3
			if first.state == 2 {
				e.state = 2
			}
		case cached(e.dir):
			e.state = 2
			j.fromCache++
			fmt.Fprintf(j.log(), "e3t: job %s found in the job cache (%s)\n", job.ID, repo.ShowPath(e.dir))
		}
		if e.alias == nil {
			j.byKey[key] = e
		}
	}
	if j.work != "" {
		job.Dir = filepath.Join(j.work, fmt.Sprintf("%03d", len(j.order)))
		if e.alias != nil {
			job.Dir = e.alias.job.Dir
		} else if e.dir != "" {
			job.Dir = e.dir
		}
		job.PopulationDirs = nil
		for _, id := range job.Population { // submitted before: submitMethods and newPool submit SP first
			if p, ok := j.byID[id]; ok {
				job.PopulationDirs = append(job.PopulationDirs, p.job.Dir)
			}
		}
		e.job = job
	}
	j.byID[job.ID] = e
	j.order = append(j.order, e)
	j.schedule()
}

// finish marks e done, and the jobs that alias it. Called with mu held, or in this process.
func (j *jobs) finish(e *entry) {
	e.state, e.doneAt = 2, time.Since(j.start)
	for _, o := range j.order {
		if o.alias == e {
			o.state, o.doneAt = 2, e.doneAt
		}
	}
}

// markExtra marks job id a training of an Extra method.
func (j *jobs) markExtra(id string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e, ok := j.byID[id]; ok {
		e.extra = true
	}
}

// mainWall is the seconds from the start of the run until every training but the Extra methods'
// was done: the wall time of the main comparison's trainings when the Extra methods train last.
func (j *jobs) mainWall() float64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	var last time.Duration
	for _, e := range j.order {
		if !e.extra {
			last = max(last, e.doneAt)
		}
	}
	return last.Seconds()
}

// ready reports whether every job e needs is done.
func (j *jobs) ready(e *entry) bool {
	for _, id := range e.job.Population {
		if d, ok := j.byID[id]; !ok || d.state != 2 {
			return false
		}
	}
	return true
}

// schedule starts waiting jobs (in submission order) while workers are free. Called with mu held.
func (j *jobs) schedule() {
	if j.work == "" || j.err != nil {
		return
	}
	for _, e := range j.order {
		if j.running >= j.opt.Workers {
			return
		}
		if e.state == 0 && j.ready(e) {
			e.state, j.running = 1, j.running+1
			go j.runWorker(e)
		}
	}
}

// runWorker trains e in a child process and loads its result.
func (j *jobs) runWorker(e *entry) {
	err := func() error {
		if err := os.MkdirAll(e.job.Dir, 0o755); err != nil {
			return err
		}
		if err := fsx.WriteJSON(filepath.Join(e.job.Dir, "job.json"), e.job); err != nil {
			return err
		}
		logf, err := os.Create(filepath.Join(e.job.Dir, "log.txt"))
		if err != nil {
			return err
		}
		defer logf.Close()
		start := time.Now()
		fmt.Fprintf(j.log(), "e3t: job %s started in a worker (log %s)\n", e.job.ID, filepath.Join(e.job.Dir, "log.txt"))
		cmd := exec.Command(j.opt.WorkerBin, "worker", "e3t", filepath.Join(e.job.Dir, "job.json"))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("job %s: worker: %w (log %s)", e.job.ID, err, filepath.Join(e.job.Dir, "log.txt"))
		}
		fmt.Fprintf(j.log(), "e3t: job %s done in a worker (%.0f s)\n", e.job.ID, time.Since(start).Seconds())
		return nil
	}()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.running--
	if err != nil && j.err == nil {
		j.err = err
	}
	j.finish(e)
	j.schedule()
	j.cond.Broadcast()
}

func (j *jobs) log() io.Writer {
	if j.opt.Log != nil {
		return j.opt.Log
	}
	return os.Stderr
}

// wait returns the result of job id, training it here (and, first, the jobs it needs) when there
// are no workers. The caller owns the returned policy.
func (j *jobs) wait(id string) (*done, error) {
	j.mu.Lock()
	e, ok := j.byID[id]
	if !ok {
		j.mu.Unlock()
		return nil, fmt.Errorf("e3t: no job %q", id)
	}
	if j.work == "" {
		j.mu.Unlock()
		if e.state == 3 { // train the job it aliases first (its result lands in the shared folder)
			if _, err := j.wait(e.alias.job.ID); err != nil {
				return nil, err
			}
		}
		if e.state == 2 {
			if e.res == nil { // found in the cache, or an alias: a copy of its own
				res, err := loadDone(e.dir)
				if err != nil {
					return nil, fmt.Errorf("job %s: %w", id, err)
				}
				e.res = res
			}
			return e.res, nil
		}
		res, err := j.runHere(e.job, j.opt.Progress(e.job.ID, iters(e.job)))
		if err != nil {
			return nil, err
		}
		if e.dir != "" {
			if err := saveDone(e.dir, res); err != nil {
				res.Policy.Close()
				return nil, fmt.Errorf("job %s: job cache: %w", id, err)
			}
		}
		e.res = res
		j.finish(e)
		return res, nil
	}
	for e.state != 2 && j.err == nil {
		j.cond.Wait()
	}
	err := j.err
	j.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if e.res == nil {
		res, err := loadDone(e.job.Dir)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", id, err)
		}
		e.res = res
	}
	return e.res, nil
}

func iters(job Job) int {
	if job.Kind == KindFCP {
		return job.FCP.Iters
	}
	return job.E3T.Iters
}

// runHere trains job in this process; population results come from wait (in this process).
func (j *jobs) runHere(job Job, progress track.Progress) (*done, error) {
	monitor, err := j.monitor(job)
	if err != nil {
		return nil, err
	}
	pop, err := population(job.Population, j.wait, false)
	if err != nil {
		return nil, err
	}
	defer closeAll(pop)
	return train(job, pop, monitor, progress)
}

// population is FCP's partners for ids: the snapshots of each SP result get returns, in order.
// release closes each result's own policy once copied (a worker's loaded copy); on an error the
// members made so far are closed.
func population(ids []string, get func(id string) (*done, error), release bool) ([]e3.Agent, error) {
	var pop []e3.Agent
	for _, id := range ids {
		sp, err := get(id)
		if err != nil {
			closeAll(pop)
			return nil, err
		}
		members, err := snapshots(sp)
		if release {
			sp.Policy.Close()
		}
		if err != nil {
			closeAll(pop)
			return nil, err
		}
		pop = append(pop, members...)
	}
	return pop, nil
}

// closeAll closes policies (frozen population members).
func closeAll(agents []e3.Agent) {
	for _, a := range agents {
		a.(*e3.Policy).Close()
	}
}

// monitor is job's monitor partner in this process (nil: none).
func (j *jobs) monitor(job Job) (e3.Agent, error) {
	switch {
	case job.MonitorDir != "":
		if m, ok := j.monitors[job.MonitorDir]; ok {
			return m, nil
		}
		be, _, err := backend.Get()
		if err != nil {
			return nil, err
		}
		p, _, err := e3.LoadPolicy(be, job.MonitorDir)
		if err != nil {
			return nil, err
		}
		j.monitors[job.MonitorDir] = p
		return p, nil
	case job.Monitor != nil:
		return overcooked.ScriptedAgent{Scripted: *job.Monitor}, nil
	}
	return nil, nil
}

// train runs one job with its population and monitor.
func train(job Job, pop []e3.Agent, monitor e3.Agent, progress track.Progress) (*done, error) {
	start := time.Now()
	switch job.Kind {
	case KindFCP:
		br, err := fcp.Train(job.FCP, job.Seed, pop, fcp.Options{Monitor: monitor, MonitorEvery: job.MonitorEvery, Progress: progress})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", job.ID, err)
		}
		return &done{Policy: &e3.Policy{Actor: br.Actor}, Curves: br.Curves, EnvSteps: br.EnvSteps, Seconds: time.Since(start).Seconds()}, nil
	case KindE3T:
		r, err := e3.Train(job.E3T, job.Seed, e3.Options{Monitor: monitor, MonitorEvery: job.MonitorEvery, Progress: progress})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", job.ID, err)
		}
		return &done{Policy: r.Policy, Curves: r.Curves, Snapshots: r.Snapshots, EnvSteps: r.EnvSteps, Seconds: time.Since(start).Seconds()}, nil
	}
	return nil, fmt.Errorf("%s: unknown job kind %q", job.ID, job.Kind)
}

// shareMonitor makes a layout's monitor partner (the BC policy) available to jobs under a key: in
// this process the policy itself, for workers a saved copy in the worker folder (the key is its path).
// With a job cache the saved policy's content keys the jobs that watch it.
func (j *jobs) shareMonitor(layout string, p *e3.Policy) (key string, err error) {
	if j.work == "" {
		key = "monitor:" + layout
		j.monitors[key] = p
	} else {
		key = filepath.Join(j.work, "monitor-"+layout)
		if err := e3.SavePolicy(key, p, nil); err != nil {
			return "", err
		}
	}
	if j.cache == "" {
		return key, nil
	}
	dir := key
	if j.work == "" {
		tmp, err := os.MkdirTemp("", "e3t-monitor-*")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		if dir = filepath.Join(tmp, "policy"); e3.SavePolicy(dir, p, nil) != nil {
			return "", fmt.Errorf("job cache: saving the %s monitor", layout)
		}
	}
	h, err := hashDir(dir)
	if err != nil {
		return "", fmt.Errorf("job cache: %w", err)
	}
	j.monitorKeys[key] = h
	return key, nil
}

// snapshots turns an SP run's checkpoints into frozen policies (FCP's population members).
func snapshots(r *done) ([]e3.Agent, error) {
	var out []e3.Agent
	for _, w := range r.Snapshots {
		p, err := snapshotPolicy(r.Policy, w)
		if err != nil {
			for _, a := range out {
				a.(*e3.Policy).Close()
			}
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// snapshotPolicy is a frozen copy of a policy with other actor weights (FCP's past checkpoints).
func snapshotPolicy(p *e3.Policy, w []float32) (*e3.Policy, error) {
	c, err := p.Actor.CloneWeights()
	if err != nil {
		return nil, err
	}
	if err := c.SetWeights(w); err != nil {
		c.Close()
		return nil, err
	}
	actor := *p.Actor
	actor.Model = c
	return &e3.Policy{Actor: &actor, PM: p.PM, K: p.K}, nil
}

// saveDone writes a result where loadDone finds it: dir/policy (e3t.SavePolicy) and dir/result.json.
func saveDone(dir string, d *done) error {
	if err := e3.SavePolicy(filepath.Join(dir, "policy"), d.Policy, nil); err != nil {
		return err
	}
	return fsx.WriteJSON(filepath.Join(dir, "result.json"), d)
}

func loadDone(dir string) (*done, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	var d done
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "result.json"), err)
	}
	be, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	if d.Policy, _, err = e3.LoadPolicy(be, filepath.Join(dir, "policy")); err != nil {
		return nil, err
	}
	return &d, nil
}

// Worker trains the job in file path (written by a parent run with workers) and saves its result
// beside it: `paperlab worker e3t JOB.json`. The population's results are read from the folders
// the job names (PopulationDirs).
func Worker(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var job Job
	if err := json.Unmarshal(raw, &job); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(job.PopulationDirs) != len(job.Population) {
		return fmt.Errorf("%s: job %s names %d population jobs and %d result folders", path, job.ID, len(job.Population), len(job.PopulationDirs))
	}
	dirs := map[string]string{}
	for i, id := range job.Population {
		dirs[id] = job.PopulationDirs[i]
	}
	pop, err := population(job.Population, func(id string) (*done, error) { return loadDone(dirs[id]) }, true)
	if err != nil {
		return err
	}
	defer closeAll(pop)
	j := &jobs{monitors: map[string]e3.Agent{}}
	monitor, err := j.monitor(job)
	if err != nil {
		return err
	}
	d, err := train(job, pop, monitor, exp.Options{Log: os.Stdout}.Progress(job.ID, iters(job)))
	if err != nil {
		return err
	}
	defer d.Policy.Close()
	return saveDone(job.Dir, d)
}

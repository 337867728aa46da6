// Package exp is PaperLab's experiment registry. An experiment is a function from options (scale,
// seeds, output directory) to a Result — per-method, per-seed final metrics and curves plus a
// mean/std/n summary — and a second function that draws the figures from a Result alone. The CLI
// (`paperlab <experiment>`) and the notebooks call the same two functions, so a figure in figures/
// and the one in a notebook come from the same code path.
package exp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
	reg "github.com/paperlab/paperlab/toolkit/registry"
	"github.com/paperlab/paperlab/toolkit/repo"
	"github.com/paperlab/paperlab/toolkit/stats"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Scale is the size of a run: "smoke" (seconds to a minute, for tests and CI) or "default" (the
// reproduction, minutes on 2 CPU cores). It is repo.Scale, defined there so that packages which
// only need the scale and the checkout (toolkit/probe) do not import exp.
type Scale = repo.Scale

const (
	Smoke   = repo.Smoke
	Default = repo.Default
)

// ParseScale accepts "smoke" and "default" (repo.ParseScale).
func ParseScale(s string) (Scale, error) { return repo.ParseScale(s) }

// EnvScale is the environment variable notebooks read their scale from.
const EnvScale = repo.EnvScale

// ScaleFromEnv returns $PAPERLAB_SCALE, or Default when it is unset (repo.ScaleFromEnv).
func ScaleFromEnv() (Scale, error) { return repo.ScaleFromEnv() }

// Options control one run of an experiment.
type Options struct {
	Scale Scale
	// Seeds is the number of seeds (0: the experiment's default for the scale). Seeds are 1..Seeds,
	// unless SeedSet names them.
	Seeds int
	// SeedSet, when set, is the seeds to run (a shard of a sweep, e.g. 3 and 4); Seeds is then its
	// length.
	SeedSet []uint64
	// Out is the directory for metrics.json and figures ("" writes nothing).
	Out string
	// Log receives progress lines (nil: stderr).
	Log io.Writer
	// Config replaces the experiment's preset configuration at Scale (nil: the preset). It is the
	// experiment's own Config type, as a value or a pointer; see ConfigOf and NotebookWith.
	Config any
	// Overwrite lets a run whose configuration or seeds differ from the committed
	// figures/<name>/metrics.json write there anyway (see DefaultOut); otherwise it goes to a
	// scratch folder.
	Overwrite bool
	// Save says which trained policies an LLM experiment saves under Out/checkpoints (see
	// CheckpointDir): SaveFirst ("" or "first", the default: the first seed of every method),
	// SaveAll (every seed) or SaveNone.
	Save string
	// Atomic builds Out in a hidden temporary directory beside it (.NAME.tmp-*) and renames it into
	// place only when the run is complete, so that a killed run (a cancelled Slurm task) leaves no
	// half-written Out — only the hidden directory, which a sweep removes before it runs the shard again.
	Atomic bool
	// Workers ≥ 1 with WorkerBin set lets an experiment that trains through worker processes
	// (Experiment.Worker: e3t) train up to this many agents at once in child processes of WorkerBin
	// (`paperlab worker <name> JOB`); 0, or no WorkerBin, trains in this process. Results do not
	// depend on it.
	Workers   int
	WorkerBin string
	// Part, when set, runs only that named part of the experiment (Experiment.Parts; RunsPart): its
	// own methods and budget, into its own folder. Parts are merged into the whole result as shards
	// are (Merge). "": every part.
	Part string
	// Cache is a folder where an experiment that trains through jobs (e3t) keeps every finished
	// training, keyed by its configuration, seed, engine, CPU and training source, so that a stopped
	// run — or one with methods added — trains only what it does not find there ("": keep nothing).
	// The CLI's default at default scale is runs/<name>/jobs. Results do not depend on it.
	Cache string
}

// Values of Options.Save.
const (
	SaveFirst = "first"
	SaveAll   = "all"
	SaveNone  = "none"
)

// CheckpointDir is where an experiment saves the policy of method trained with seed:
// Out/checkpoints/<method> for the first seed (seed 1), Out/checkpoints/seed<N>/<method> for another
// seed when Save is SaveAll, and "" when nothing is saved (no Out, SaveNone, or another seed without
// SaveAll).
func (o Options) CheckpointDir(method string, seed uint64) string {
	switch {
	case o.Out == "" || o.Save == SaveNone:
		return ""
	case seed == 1:
		return filepath.Join(o.Out, "checkpoints", method)
	case o.Save == SaveAll:
		return filepath.Join(o.Out, "checkpoints", fmt.Sprintf("seed%d", seed), method)
	}
	return ""
}

// ParseSave checks a value of Options.Save.
func ParseSave(s string) (string, error) {
	switch s {
	case "", SaveFirst:
		return SaveFirst, nil
	case SaveAll, SaveNone:
		return s, nil
	}
	return "", fmt.Errorf("-save %q: want first, all or none", s)
}

// ConfigOf is the configuration an experiment's Run uses: opt.Config when set (it must be the
// experiment's Config type C, or *C), else preset(opt.Scale).
func ConfigOf[C any](opt Options, preset func(Scale) C) (C, error) {
	switch c := opt.Config.(type) {
	case nil:
		return preset(opt.Scale), nil
	case C:
		return c, nil
	case *C:
		if c != nil {
			return *c, nil
		}
	}
	var zero C
	return zero, fmt.Errorf("options carry a configuration of type %T, want %T", opt.Config, zero)
}

// Progress is a progress display (terminal line, or a live cell in gonb) writing to the run's log.
func (o Options) Progress(label string, total int) *nb.Progress {
	p := nb.NewProgress(label, total)
	if o.Log != nil {
		p.Out = o.Log
	}
	return p
}

// Experiment is a registered experiment.
type Experiment struct {
	Name        string
	Description string
	// Seeds is the default number of seeds per scale.
	Seeds map[Scale]int
	// Config returns the experiment's full configuration at a scale (recorded in metrics.json and
	// used by RunOrLoad to decide whether a stored result is still valid).
	Config func(Scale) any
	// Run computes the result. It must not draw figures.
	Run func(opt Options) (*Result, error)
	// Figures draws every figure of the experiment from a result into dir ("" only displays) and
	// returns the paths written.
	Figures func(res *Result, dir string) ([]string, error)
	// Claims checks the paper's claims on a result, paired per seed (nil: the experiment makes none).
	// A claim names the room checks it needs (Claim.Needs).
	Claims func(res *Result) []Claim
	// Room measures the preconditions the claims need to be testable on this run (see RoomCheck),
	// from the result alone: Judge applies them to the claims, and metrics.json keeps them ("room").
	Room func(res *Result) []RoomCheck
	// Paper is what the paper or its authors' code sets for fields of Config (see Settings): our
	// default follows it, or the Setting says why not.
	Paper []Setting
	// Doc is the experiment's README, relative to the repository root
	// ("toolkit/exp/capo/README.md"): the paper's citation, the method in our words, and under
	// "## Sources" the sources its settings cite by key ("[C3]" in a Setting's Ref).
	Doc string
	// Parts are the experiment's named parts (each its own methods and budget), in the order a whole
	// run runs them: `paperlab <name> -part NAME` runs one (Options.Part), and Merge combines part
	// results into the whole. Nil: the experiment is one part.
	Parts []string
	// Sweeps are the settings each method family was run at (see Sweep): `paperlab settings` lists
	// their sizes.
	Sweeps []Sweep
	// Jobs > 1 is how many one-seed shards `paperlab <name>` (and `paperlab all`) runs at once when
	// -jobs is not given, on an engine that keeps one process on one core (ONNX Runtime: compute-onnx
	// runs every graph of a process behind one lock) and a machine with two cores or more (Jobs may
	// exceed them: m3apg's 3 on 2 cores keep both busy to the end of 5 seeds); the shards
	// are merged into the result a serial run gives (tested bit for bit). Set where the default run
	// needs both cores of a 2-core machine to fit its budget. 0 or 1: one process.
	Jobs int
	// Worker, when set, trains one job file of the experiment in a child process (`paperlab worker
	// <name> JOB`; see Options.Workers), and Workers ≥ 1 is how many such processes a run starts at
	// once by default on ONNX Runtime with a core each (-jobs overrides it). An experiment whose
	// seeds depend on each other (e3t: FCP's population, a shared held-out pool) parallelises its
	// trainings this way instead of by seed shards.
	Worker  func(job string) error
	Workers int
}

var registry = reg.New[Experiment]("experiment")

// Register adds an experiment; it panics on a duplicate or incomplete registration (a programming error).
func Register(e Experiment) {
	if e.Name == "" || e.Run == nil || e.Figures == nil || e.Config == nil {
		panic(fmt.Sprintf("exp.Register: incomplete experiment %q", e.Name))
	}
	registry.Add(e.Name, e)
}

// Lookup returns the named experiment or an error listing the known ones.
func Lookup(name string) (Experiment, error) { return registry.Get(name) }

// List returns the registered experiments sorted by name.
func List() []Experiment {
	var out []Experiment
	for _, n := range registry.Names() {
		e, _ := registry.Get(n)
		out = append(out, e)
	}
	return out
}

// Curve is a named series of points, e.g. a metric against the training step.
type Curve = track.Curve

// Run is one method trained or evaluated with one seed.
type Run struct {
	Method string             `json:"method"`
	Seed   uint64             `json:"seed"`
	Final  map[string]float64 `json:"final"`
	Curves map[string]Curve   `json:"curves,omitempty"`
	// Seconds is the wall time of this run.
	Seconds float64 `json:"seconds"`
}

// Stat is a metric's statistics over n seeds: mean, sample standard deviation (n − 1), standard
// error and the 95 % Student-t interval of the mean (undefined ones are null in metrics.json).
type Stat = stats.Summary

// Result is what an experiment returns and what metrics.json holds.
type Result struct {
	Experiment string `json:"experiment"`
	Scale      Scale  `json:"scale"`
	Backend    string `json:"backend"`
	// CPU is the processor that ran (backend.CPU: model and vector extension); per-seed numbers are
	// bit-identical only between runs of the same engine on the same CPU line.
	CPU   string   `json:"cpu,omitempty"`
	Seeds []uint64 `json:"seeds"`
	// Parts are the named parts the result holds (Experiment.Parts) when it holds only some of them
	// (a run with Options.Part, or a merge of some parts); nil: every part.
	Parts []string `json:"parts,omitempty"`
	// Config is the experiment's full configuration at this scale.
	Config json.RawMessage `json:"config,omitempty"`
	Runs   []Run           `json:"runs"`
	// Summary maps method → metric → statistics over seeds of the runs' final metrics
	// ({"mean", "std", "n", "se", "ci95"}; std is the sample standard deviation).
	Summary map[string]map[string]Stat `json:"summary"`
	// Tables holds extra per-method data that is not a per-seed scalar (e.g. a cross-play matrix).
	Tables map[string][][]float64 `json:"tables,omitempty"`
	// Extra holds experiment-specific data a figure or a notebook table needs (e.g. sample texts).
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
	// Timing is wall time in seconds per part of the experiment (and "total").
	Timing  map[string]float64 `json:"timing"`
	Figures []string           `json:"figures,omitempty"`
	// Notes are human-readable remarks recorded by the experiment (e.g. thresholds chosen).
	Notes []string `json:"notes,omitempty"`
	// Room is the experiment's room checks measured on this result (Experiment.Room; recomputed by
	// redraw and merge).
	Room    []RoomCheck `json:"room,omitempty"`
	Started string      `json:"started"`
	// Commit is the source revision that ran (see Commit).
	Commit string `json:"commit,omitempty"`
	// Dir is the folder the result was loaded from or written to ("" for one held in memory only):
	// where a room check finds the files stored beside metrics.json (e.g. labelled traces).
	Dir string `json:"-"`
}

// NewResult starts a result for experiment name with the given options and configuration.
func NewResult(name string, opt Options, seeds []uint64, config any) (*Result, error) {
	cfg, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("%s: config: %w", name, err)
	}
	_, info, err := backend.Get()
	be := info.Config
	if err != nil {
		be = "unavailable: " + err.Error()
	}
	r := &Result{Experiment: name, Scale: opt.Scale, Backend: be, CPU: backend.CPU(), Seeds: seeds, Config: cfg,
		Timing: map[string]float64{}, Started: time.Now().UTC().Format(time.RFC3339), Commit: Commit()}
	if opt.Part != "" {
		r.Parts = []string{opt.Part}
	}
	return r, nil
}

// RunsPart reports whether a run with these options runs the named part: every part when no
// Part is set, else only that one.
func (o Options) RunsPart(name string) bool { return o.Part == "" || o.Part == name }

// CheckPart returns an error naming e's parts when part is not one of them ("" is every part).
func (e Experiment) CheckPart(part string) error {
	if part == "" || slices.Contains(e.Parts, part) {
		return nil
	}
	if len(e.Parts) == 0 {
		return fmt.Errorf("experiment %s has no named parts (-part %q)", e.Name, part)
	}
	return fmt.Errorf("experiment %s has no part %q (parts: %s)", e.Name, part, strings.Join(e.Parts, ", "))
}

// SeedList returns the seeds of a run: SeedSet, or 1..Seeds.
func (o Options) SeedList() []uint64 {
	if o.SeedSet != nil {
		return slices.Clone(o.SeedSet)
	}
	return SeedList(o.Seeds)
}

// SeedList returns seeds 1..n.
func SeedList(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i + 1)
	}
	return s
}

// Summarize fills Summary from the runs' final metrics (NaN values are left out of a metric's n).
func (r *Result) Summarize() {
	vals := map[string]map[string][]float64{}
	for _, run := range r.Runs {
		if vals[run.Method] == nil {
			vals[run.Method] = map[string][]float64{}
		}
		for k, v := range run.Final {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals[run.Method][k] = append(vals[run.Method][k], v)
			} else if _, ok := vals[run.Method][k]; !ok {
				vals[run.Method][k] = nil
			}
		}
	}
	r.Summary = map[string]map[string]Stat{}
	for m, metrics := range vals {
		r.Summary[m] = map[string]Stat{}
		for k, xs := range metrics {
			r.Summary[m][k] = stats.Summarize(xs)
		}
	}
}

// RunsOf returns the runs of one method, in seed order.
func (r *Result) RunsOf(method string) []Run {
	var out []Run
	for _, run := range r.Runs {
		if run.Method == method {
			out = append(out, run)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seed < out[j].Seed })
	return out
}

// Methods returns the methods in the order they first appear in Runs.
func (r *Result) Methods() []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		if !seen[run.Method] {
			seen[run.Method] = true
			out = append(out, run.Method)
		}
	}
	return out
}

// MetricsFile is the name of the result file in an output directory.
const MetricsFile = "metrics.json"

// Write writes dir/metrics.json atomically. NaN and Inf are not valid JSON and are rejected with
// the method, seed and metric named.
func (r *Result) Write(dir string) error {
	for _, run := range r.Runs {
		for k, v := range run.Final {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: method %s seed %d: metric %s is %v", r.Experiment, run.Method, run.Seed, k, v)
			}
		}
		for k, c := range run.Curves {
			for i, v := range c.Y {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s: method %s seed %d: curve %s at x=%v is %v", r.Experiment, run.Method, run.Seed, k, c.X[i], v)
				}
			}
		}
	}
	return fsx.WriteJSON(filepath.Join(dir, MetricsFile), r)
}

// Load reads dir/metrics.json.
func Load(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, MetricsFile), err)
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(b, &fields)
	for _, f := range []string{"experiment", "scale", "seeds", "runs"} {
		if _, ok := fields[f]; !ok {
			return nil, fmt.Errorf("%s: not a PaperLab result: no field %q", filepath.Join(dir, MetricsFile), f)
		}
	}
	r.Dir = dir
	return &r, nil
}

// SetExtra stores v as JSON under key in Extra.
func (r *Result) SetExtra(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: extra %s: %w", r.Experiment, key, err)
	}
	if r.Extra == nil {
		r.Extra = map[string]json.RawMessage{}
	}
	r.Extra[key] = b
	return nil
}

// GetExtra decodes Extra[key] into v; a missing key is ErrNoFigures.
func (r *Result) GetExtra(key string, v any) error {
	b, ok := r.Extra[key]
	if !ok {
		return fmt.Errorf("%s: no %q in the result: %w", r.Experiment, key, ErrNoFigures)
	}
	return json.Unmarshal(b, v)
}

// ErrNoFigures is returned by an experiment's Figures when a result lacks what a figure needs.
var ErrNoFigures = errors.New("result lacks the data for this figure")

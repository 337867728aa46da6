package exp

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// Execute runs an experiment with opt, writes metrics.json and its figures into opt.Out (when set),
// and returns the result. It prints the engine line first, as every CLI run and notebook does.
func Execute(e Experiment, opt Options) (*Result, error) {
	opt = e.withDefaults(opt)
	if opt.Atomic && opt.Out != "" {
		final := opt.Out
		var res *Result
		err := fsx.WriteDir(final, func(tmp string) error {
			o := opt
			o.Out, o.Atomic = tmp, false
			var err error
			res, err = Execute(e, o)
			return err
		})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(opt.Log, "moved the finished output into %s\n", repo.ShowPath(final))
		return res, nil
	}
	fmt.Fprintln(opt.Log, backend.Describe())
	fmt.Fprintf(opt.Log, "experiment %s: scale %s, %d seeds, output %s\n", e.Name, opt.Scale, opt.Seeds, orNone(repo.ShowPath(opt.Out)))
	start := time.Now()
	res, err := e.Run(opt)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	res.Timing["total"] = time.Since(start).Seconds()
	res.Summarize()
	return res, finish(e, res, opt, true)
}

// finish measures the room checks, draws the figures and, when write is set, writes metrics.json.
func finish(e Experiment, res *Result, opt Options, write bool) error {
	if res.Dir == "" { // a fresh or merged result; a loaded one keeps the folder it came from
		res.Dir = opt.Out
	}
	if e.Room != nil {
		res.Room = e.Room(res)
	}
	figs, err := e.Figures(res, opt.Out)
	if err != nil {
		return fmt.Errorf("experiment %s: figures: %w", e.Name, err)
	}
	if opt.Out != "" {
		res.Figures = nil
		for _, f := range figs {
			if rel, err := filepath.Rel(opt.Out, f); err == nil {
				res.Figures = append(res.Figures, rel)
			}
		}
	}
	if opt.Out != "" && write {
		if err := res.Write(opt.Out); err != nil {
			return err
		}
		fmt.Fprintf(opt.Log, "wrote %s and %d figure files\n", repo.ShowPath(filepath.Join(opt.Out, MetricsFile)), len(figs))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// SeedsOf is the seeds a run of e with opt trains: opt.SeedSet, else 1..opt.Seeds, else 1..the
// experiment's default for the scale (at least one) — what Execute runs.
func (e Experiment) SeedsOf(opt Options) []uint64 { return e.withDefaults(opt).SeedList() }

func (e Experiment) withDefaults(opt Options) Options {
	if opt.Scale == "" {
		opt.Scale = Default
	}
	if opt.SeedSet != nil {
		opt.Seeds = len(opt.SeedSet)
	}
	if opt.Seeds <= 0 {
		opt.Seeds = e.Seeds[opt.Scale]
		if opt.Seeds <= 0 {
			opt.Seeds = 1
		}
	}
	if opt.Log == nil {
		opt.Log = os.Stderr
	}
	return opt
}

// Start is every experiment's preamble: its configuration (ConfigOf), validate (may be nil; it
// also sees the seeds), the seeds and a new Result. Experiments whose loop is not one run per seed
// (tape's parts, tinylm's tasks, e3t's layouts) start with it; RunSeeds is Start plus that loop.
func Start[C any](name string, opt Options, preset func(Scale) C, validate func(C, []uint64) error) (C, []uint64, *Result, error) {
	cfg, err := ConfigOf(opt, preset)
	if err != nil {
		return cfg, nil, nil, err
	}
	seeds := opt.SeedList()
	if validate != nil {
		if err := validate(cfg, seeds); err != nil {
			return cfg, nil, nil, err
		}
	}
	res, err := NewResult(name, opt, seeds, cfg)
	return cfg, seeds, res, err
}

// RunSeeds is the common shape of an experiment's Run: Start, then runSeed for each seed in order,
// an error naming the seed.
func RunSeeds[C any](name string, opt Options, preset func(Scale) C, validate func(C) error, runSeed func(cfg C, seed uint64, res *Result) error) (*Result, error) {
	var check func(C, []uint64) error
	if validate != nil {
		check = func(c C, _ []uint64) error { return validate(c) }
	}
	cfg, seeds, res, err := Start(name, opt, preset, check)
	if err != nil {
		return nil, err
	}
	for _, seed := range seeds {
		if err := runSeed(cfg, seed, res); err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
	}
	return res, nil
}

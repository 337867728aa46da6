package exp

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
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
		fmt.Fprintf(opt.Log, "moved the finished output into %s\n", ShowPath(final))
		return res, nil
	}
	fmt.Fprintln(opt.Log, backend.Describe())
	fmt.Fprintf(opt.Log, "experiment %s: scale %s, %d seeds, output %s\n", e.Name, opt.Scale, opt.Seeds, orNone(ShowPath(opt.Out)))
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
		fmt.Fprintf(opt.Log, "wrote %s and %d figure files\n", ShowPath(filepath.Join(opt.Out, MetricsFile)), len(figs))
	}
	return nil
}

// Redraw reloads the result in dir (its metrics.json), summarises it again with the current
// statistics, and draws every figure into out ("" : dir). When out is dir, metrics.json is
// rewritten with the new summary and figure list (runs, curves and configuration untouched).
// Figures are a function of the stored result alone, so this needs no training.
func Redraw(name, dir, out string, log io.Writer) (*Result, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	res, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if res.Experiment != name {
		return nil, fmt.Errorf("%s holds experiment %q, not %q", filepath.Join(dir, MetricsFile), res.Experiment, name)
	}
	if out == "" {
		out = dir
	}
	res.Summarize()
	same := filepath.Clean(out) == filepath.Clean(dir)
	if log == nil {
		log = os.Stderr
	}
	return res, finish(e, res, Options{Scale: res.Scale, Seeds: len(res.Seeds), Out: out, Log: log}, same)
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

// RunOrLoad is what notebooks call. When opt.Out already holds a metrics.json made with the same
// scale, seeds and configuration (opt.Config, or the preset; compared as JSON), and $PAPERLAB_RERUN
// is not 1, the result is loaded and its figures are drawn for display only — a reload never
// rewrites figure files; otherwise the experiment runs (Execute) and writes into opt.Out.
// `make reproduce` relies on this to execute the notebooks right after the CLI ran the experiments
// without training everything twice.
func RunOrLoad(name string, opt Options) (*Result, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	opt = e.withDefaults(opt)
	var before *Result
	if opt.Out != "" {
		if old, ok := loadMatching(e, opt, opt.Out); ok {
			if os.Getenv("PAPERLAB_RERUN") != "1" {
				fmt.Fprintf(opt.Log, "%s\nloaded %s (scale %s, %d seeds, made %s on %s); set PAPERLAB_RERUN=1 to train again\n",
					backend.Describe(), ShowPath(filepath.Join(opt.Out, MetricsFile)), old.Scale, len(old.Seeds), old.Started, old.Backend)
				show := opt
				show.Out = ""
				return old, finish(e, old, show, false)
			}
			before = old
		}
	}
	res, err := Execute(e, opt)
	if err == nil && before != nil {
		ShowComparison(before, res, "stored", "your run", opt.Log)
	}
	return res, err
}

// ShowComparison shows how a new run compares with a stored one of the same configuration (Compare):
// a table in a notebook, text on log elsewhere. RunOrLoad calls it when a notebook trains again over
// a stored result, so that a re-run on another machine is read against the committed numbers rather
// than silently replacing them (git keeps the committed file).
func ShowComparison(before, after *Result, nameA, nameB string, log io.Writer) {
	c, err := Compare(before, after)
	if err != nil {
		fmt.Fprintf(log, "cannot compare with the stored result: %v\n", err)
		return
	}
	head := fmt.Sprintf("**%s vs %s** (%s, made %s on %s, %s): %d of %d metrics differ — a metric agrees when the 95 %% Welch interval of the difference of the means over seeds contains 0. ",
		nameB, nameA, nameA, before.Started, before.Backend, orUnknownCPU(before.CPU), c.Disagreements(), len(c.Rows))
	if c.PerSeed {
		head += "Same engine and CPU: every seed should be bit-identical."
	} else {
		head += "Per-seed values are not expected to match: " + c.Why + "."
	}
	headers, rows := c.Table(nameA, nameB)
	if nb.IsNotebook() {
		nb.Markdown(head)
		nb.Table(headers, rows)
		return
	}
	fmt.Fprintln(log, strings.ReplaceAll(head, "**", ""))
	fmt.Fprint(log, nb.TableText(headers, rows))
}

func orUnknownCPU(s string) string {
	if s == "" {
		return "CPU not recorded"
	}
	return s
}

// loadMatching loads dir/metrics.json when it was made with opt's scale, seeds and configuration.
func loadMatching(e Experiment, opt Options, dir string) (*Result, bool) {
	old, err := Load(dir)
	if err != nil || !matches(e, opt, old.Scale, old.Seeds, old.Config) {
		return nil, false
	}
	return old, true
}

// matches reports whether a stored result's scale, seeds and configuration are opt's.
func matches(e Experiment, opt Options, scale Scale, seeds []uint64, config json.RawMessage) bool {
	return scale == opt.Scale && slices.Equal(seeds, opt.SeedList()) && sameConfig(config, e, opt)
}

// headerMatches is loadMatching's test on dir/metrics.json without decoding its runs (the files
// hold every curve: megabytes that DefaultOut, called by every notebook cell, does not need).
func headerMatches(e Experiment, opt Options, dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	if err != nil {
		return false
	}
	var h struct {
		Scale  Scale           `json:"scale"`
		Seeds  []uint64        `json:"seeds"`
		Config json.RawMessage `json:"config"`
	}
	return json.Unmarshal(b, &h) == nil && matches(e, opt, h.Scale, h.Seeds, h.Config)
}

// configJSON is the configuration a run with opt uses, as compact JSON.
func configJSON(e Experiment, opt Options) ([]byte, error) {
	c := opt.Config
	if c == nil {
		c = e.Config(opt.Scale)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = json.Compact(&out, b)
	return out.Bytes(), err
}

func sameConfig(stored json.RawMessage, e Experiment, opt Options) bool {
	cur, err := configJSON(e, opt)
	if err != nil {
		return false
	}
	var a bytes.Buffer
	if json.Compact(&a, stored) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), cur)
}

// DefaultOut is where a run writes when no folder is named. At smoke scale: a temporary folder
// (tests never touch the committed figures). At default scale: figures/<name> when it holds no
// result yet, or one made with the same seeds and configuration, or when opt.Overwrite is set;
// otherwise — and at smoke scale whenever opt.Config is set — a scratch folder
// runs/<name>/<scale>-<hash of the configuration and seeds> in the checkout (ignored by git), so a
// changed configuration never overwrites the committed results, and running the same change again
// finds its own earlier result. scratch reports the latter.
func DefaultOut(e Experiment, opt Options) (out string, scratch bool, err error) {
	opt = e.withDefaults(opt)
	committed, err := OutDir(e.Name, opt.Scale)
	if err != nil {
		return "", false, err
	}
	if opt.Scale == Smoke && opt.Config == nil {
		return committed, false, nil
	}
	if opt.Scale != Smoke {
		if _, err := os.Stat(filepath.Join(committed, MetricsFile)); err != nil || opt.Overwrite {
			return committed, false, nil
		}
		if headerMatches(e, opt, committed) {
			return committed, false, nil
		}
	}
	cfg, err := configJSON(e, opt)
	if err != nil {
		return "", false, fmt.Errorf("%s: config: %w", e.Name, err)
	}
	seeds := fmt.Sprintf("|seeds=%d", opt.Seeds)
	if opt.SeedSet != nil {
		seeds = fmt.Sprintf("|seeds=%v", opt.SeedSet)
	}
	h := sha256.Sum256(append(cfg, seeds...))
	leaf := fmt.Sprintf("%s-%x", opt.Scale, h[:4])
	root, err := RepoRoot()
	if err != nil { // no checkout (a test binary elsewhere): beside the smoke folders
		return filepath.Join(os.TempDir(), "paperlab-runs", e.Name, leaf), true, nil
	}
	return filepath.Join(root, "runs", e.Name, leaf), true, nil
}

// ShowPath writes a path for people and saved notebooks: relative to the checkout when inside it
// ("figures/capo/metrics.json"), else relative to the home folder ("~/…"), else as it is.
func ShowPath(p string) string {
	if p == "" {
		return p
	}
	if root, err := RepoRoot(); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return rel
			}
		}
	}
	return backend.HomeRelative(p)
}

// RepoRoot finds the PaperLab checkout: $PAPERLAB_ROOT when set, else the nearest directory, from
// the working directory or from $GONB_DIR (a gonb notebook's folder), whose go.mod declares module
// github.com/paperlab/paperlab.
func RepoRoot() (string, error) {
	if d := os.Getenv("PAPERLAB_ROOT"); d != "" {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err != nil || !strings.Contains(firstLine(b), "github.com/paperlab/paperlab") {
			return "", fmt.Errorf("$PAPERLAB_ROOT=%s is not a PaperLab checkout (no go.mod of module github.com/paperlab/paperlab)", d)
		}
		return d, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if d := os.Getenv("GONB_DIR"); d != "" {
		starts = append(starts, d)
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil &&
				strings.Contains(firstLine(b), "github.com/paperlab/paperlab") {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find the PaperLab checkout above %v", starts)
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// OutDir is where a run of name at scale writes: figures/<name> in the checkout at default scale,
// and a temporary folder at smoke scale, so tests never overwrite the committed figures.
func OutDir(name string, scale Scale) (string, error) {
	if scale == Smoke {
		return filepath.Join(os.TempDir(), "paperlab-smoke", name), nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "figures", name), nil
}

// NotebookResult loads the result that Notebook(name) showed — the preset configuration at
// $PAPERLAB_SCALE — without running anything or drawing figures (for later cells of a notebook;
// gonb runs each cell as a new program, so a NotebookWith result is used in its own cell).
func NotebookResult(name string) (*Result, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	scale, err := ScaleFromEnv()
	if err != nil {
		return nil, err
	}
	out, _, err := DefaultOut(e, Options{Scale: scale})
	if err != nil {
		return nil, err
	}
	return Load(out)
}

// Notebook runs (or loads, see RunOrLoad) experiment name with its preset configuration at the
// scale given by $PAPERLAB_SCALE (smoke | default), writing to DefaultOut. It is the single call a
// paper notebook makes.
func Notebook(name string) (*Result, error) {
	scale, err := ScaleFromEnv()
	if err != nil {
		return nil, err
	}
	return notebookRun(name, scale, nil)
}

// NotebookWith is Notebook with a changed configuration: edit receives a copy of the experiment's
// preset at $PAPERLAB_SCALE (C is the experiment's Config type, e.g. capo.Config) and changes what it
// likes, e.g.
//
//	exp.NotebookWith("capo", func(c *capo.Config) { c.RL.Adv.Tau = 0.3 })
//
// A configuration that differs from the committed figures/<name>/metrics.json runs into a scratch
// folder (printed; see DefaultOut), never over the committed results; running the same cell again
// reloads it.
func NotebookWith[C any](name string, edit func(*C)) (*Result, error) {
	scale, err := ScaleFromEnv()
	if err != nil {
		return nil, err
	}
	return NotebookWithScale(name, scale, edit)
}

// NotebookWithScale is NotebookWith at a given scale instead of $PAPERLAB_SCALE (e.g. a quick
// variant at smoke scale inside a notebook that shows default-scale results).
func NotebookWithScale[C any](name string, scale Scale, edit func(*C)) (*Result, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	preset, ok := e.Config(scale).(C)
	if !ok {
		var zero C
		return nil, fmt.Errorf("NotebookWith(%q): the experiment's configuration is %T, not %T", name, e.Config(scale), zero)
	}
	cfg := preset
	if edit != nil {
		edit(&cfg)
	}
	return notebookRun(name, scale, cfg)
}

func notebookRun(name string, scale Scale, cfg any) (*Result, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	opt := Options{Scale: scale, Log: io.Writer(os.Stdout), Config: cfg}
	out, scratch, err := DefaultOut(e, opt)
	if err != nil {
		return nil, err
	}
	if scratch {
		from := fmt.Sprintf("the %s preset", scale)
		if scale != Smoke {
			from = "the committed " + ShowPath(filepath.Join(mustOutDir(name, scale), MetricsFile))
		}
		fmt.Printf("configuration differs from %s: this run's results go to %s\n", from, ShowPath(out))
	}
	opt.Out = out
	return RunOrLoad(name, opt)
}

func mustOutDir(name string, scale Scale) string {
	d, _ := OutDir(name, scale)
	return d
}

// RunSeeds is the common shape of an experiment's Run: its configuration (ConfigOf), validate (may be
// nil), a Result, then runSeed for each seed in order, an error naming the seed.
func RunSeeds[C any](name string, opt Options, preset func(Scale) C, validate func(C) error, runSeed func(cfg C, seed uint64, res *Result) error) (*Result, error) {
	cfg, err := ConfigOf(opt, preset)
	if err != nil {
		return nil, err
	}
	if validate != nil {
		if err := validate(cfg); err != nil {
			return nil, err
		}
	}
	seeds := opt.SeedList()
	res, err := NewResult(name, opt, seeds, cfg)
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

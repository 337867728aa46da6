package exp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
)

// Execute runs an experiment with opt, writes metrics.json and its figures into opt.Out (when set),
// and returns the result. It prints the engine line first, as every CLI run and notebook does.
func Execute(e Experiment, opt Options) (*Result, error) {
	opt = e.withDefaults(opt)
	fmt.Fprintln(opt.Log, backend.Describe())
	fmt.Fprintf(opt.Log, "experiment %s: scale %s, %d seeds, output %s\n", e.Name, opt.Scale, opt.Seeds, orNone(opt.Out))
	start := time.Now()
	res, err := e.Run(opt)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	res.Timing["total"] = time.Since(start).Seconds()
	res.Summarize()
	return res, finish(e, res, opt, true)
}

// finish draws the figures and, when write is set, writes metrics.json.
func finish(e Experiment, res *Result, opt Options, write bool) error {
	figs, err := e.Figures(res, opt.Out)
	if err != nil {
		return fmt.Errorf("experiment %s: figures: %w", e.Name, err)
	}
	if opt.Out != "" && write {
		res.Figures = nil
		for _, f := range figs {
			if rel, err := filepath.Rel(opt.Out, f); err == nil {
				res.Figures = append(res.Figures, rel)
			}
		}
		if err := res.Write(opt.Out); err != nil {
			return err
		}
		fmt.Fprintf(opt.Log, "wrote %s and %d figure files\n", filepath.Join(opt.Out, MetricsFile), len(figs))
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

func (e Experiment) withDefaults(opt Options) Options {
	if opt.Scale == "" {
		opt.Scale = Default
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
// scale, seeds and configuration (config is compared as JSON), and $PAPERLAB_RERUN is not 1, the
// result is loaded and only the figures are drawn again; otherwise the experiment runs (Execute).
// `make reproduce` relies on this to execute the notebooks right after the CLI ran the experiments
// without training everything twice.
func RunOrLoad(name string, opt Options) (*Result, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	opt = e.withDefaults(opt)
	if opt.Out != "" && os.Getenv("PAPERLAB_RERUN") != "1" {
		if old, err := Load(opt.Out); err == nil && old.Scale == opt.Scale && len(old.Seeds) == opt.Seeds &&
			sameConfig(old.Config, e, opt) {
			fmt.Fprintf(opt.Log, "%s\nloaded %s (scale %s, %d seeds, made %s on %s); set PAPERLAB_RERUN=1 to train again\n",
				backend.Describe(), filepath.Join(opt.Out, MetricsFile), old.Scale, len(old.Seeds), old.Started, old.Backend)
			return old, finish(e, old, opt, false)
		}
	}
	return Execute(e, opt)
}

func sameConfig(stored json.RawMessage, e Experiment, opt Options) bool {
	if e.Config == nil {
		return false
	}
	cur, err := json.Marshal(e.Config(opt.Scale))
	if err != nil {
		return false
	}
	var a, b bytes.Buffer
	if json.Compact(&a, stored) != nil || json.Compact(&b, cur) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}

// RepoRoot finds the PaperLab checkout: the nearest directory, from the working directory or from
// $GONB_DIR (a gonb notebook's folder), whose go.mod declares module github.com/paperlab/paperlab.
func RepoRoot() (string, error) {
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

// NotebookResult loads the result that Notebook(name) wrote at the scale given by $PAPERLAB_SCALE,
// without running anything or drawing figures (for later cells of a notebook).
func NotebookResult(name string) (*Result, error) {
	_, out, err := notebookOut(name)
	if err != nil {
		return nil, err
	}
	return Load(out)
}

// notebookOut is the scale ($PAPERLAB_SCALE) and output folder of a notebook's experiment.
func notebookOut(name string) (Scale, string, error) {
	scale, err := ScaleFromEnv()
	if err != nil {
		return "", "", err
	}
	out, err := OutDir(name, scale)
	return scale, out, err
}

// Notebook runs (or loads, see RunOrLoad) experiment name at the scale given by $PAPERLAB_SCALE,
// writing to OutDir. It is the single call a paper notebook makes.
func Notebook(name string) (*Result, error) {
	scale, out, err := notebookOut(name)
	if err != nil {
		return nil, err
	}
	return RunOrLoad(name, Options{Scale: scale, Out: out, Log: io.Writer(os.Stdout)})
}

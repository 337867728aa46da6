package exp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/repo"
)

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
					backend.Describe(), repo.ShowPath(filepath.Join(opt.Out, MetricsFile)), old.Scale, len(old.Seeds), old.Started, old.Backend)
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
			from = "the committed " + repo.ShowPath(filepath.Join(mustOutDir(name, scale), MetricsFile))
		}
		fmt.Printf("configuration differs from %s: this run's results go to %s\n", from, repo.ShowPath(out))
	}
	opt.Out = out
	return RunOrLoad(name, opt)
}

// ShowScale prints the scale a notebook runs at ($PAPERLAB_SCALE, default when unset) and how to
// switch it, and returns it; an invalid $PAPERLAB_SCALE is an error naming the variable. It is a
// paper notebook's first line.
func ShowScale() (Scale, error) {
	s, err := ScaleFromEnv()
	if err != nil {
		return s, err
	}
	fmt.Printf("scale %s (switch: run `%%env %s smoke` — or default — in a cell, then re-run the cells below; or set it before `make lab`)\n", s, EnvScale)
	return s, nil
}

// ShowTiming prints a result's notes, then the seconds each part took (timing, sorted by name;
// "total" is the parts' sum, "wall" a sharded run's elapsed time) — what a paper notebook shows
// under its tables.
func ShowTiming(res *Result) {
	for _, n := range res.Notes {
		fmt.Println(n)
	}
	parts := make([]string, 0, len(res.Timing))
	for k := range res.Timing {
		parts = append(parts, k)
	}
	sort.Strings(parts)
	for _, k := range parts {
		fmt.Printf("time %-36s %8.1f s\n", k, res.Timing[k])
	}
}

// ShowTables shows, for each experiment of names, the summary tables of the result its notebook
// showed (NotebookResult): one table per group of metric keys (SummaryTable: mean ± half-width of
// the 95 % interval over seeds), under the experiment's name when there are several; it waits until
// they are shown (nb.Sync).
func ShowTables(names []string, groups ...[]string) error {
	for _, name := range names {
		res, err := NotebookResult(name)
		if err != nil {
			return err
		}
		if len(names) > 1 {
			nb.Markdown("**" + name + "**")
		}
		for _, keys := range groups {
			nb.Table(SummaryTable(res, keys))
		}
	}
	nb.Sync()
	return nil
}

// ByScale is smoke at smoke scale ($PAPERLAB_SCALE) and def at default scale: a notebook's budget,
// e.g. exp.ByScale(budget{SFTSteps: 20}, budget{SFTSteps: 60}). An invalid $PAPERLAB_SCALE is an
// error naming the variable.
func ByScale[T any](smoke, def T) (T, error) {
	s, err := ScaleFromEnv()
	if err != nil {
		return def, err
	}
	if s == Smoke {
		return smoke, nil
	}
	return def, nil
}

// WorkDir is runs/<notebook>/<scale>/<name> in the checkout ($PAPERLAB_SCALE's scale): where a
// notebook keeps what one cell trains for the next (gonb runs each cell as a new program); runs/ is
// ignored by git. Nothing is created.
func WorkDir(notebook, name string) (string, error) {
	s, err := ScaleFromEnv()
	if err != nil {
		return "", err
	}
	return repo.Runs(notebook, string(s), name)
}

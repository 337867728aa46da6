package exp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

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

package plot

import (
	"fmt"
	"strings"

	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/track"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Live draws metrics that grow during a run — one small panel per metric, each with its own y
// range, one line per run — and redraws them in place in a notebook (nb.LiveFigure), or prints one
// status line per update in a terminal. Feed it from a training loop's hooks (rl.Hooks.OnStep,
// ppo.Hooks, …); Done leaves the final figure as an ordinary output.
//
//	live := plot.NewLive("GRPO on sort3", "step", "reward", "eval_accuracy", "eval_auc")
//	hooks := rl.Hooks{OnStep: live.Step("grpo")}
//	… rl.Train(…, hooks) …
//	live.Done()
type Live struct {
	Title, XLabel string
	// Metrics are the panels, in order; a metric a run never reports stays empty.
	Metrics []string
	runs    []string
	curves  map[string]track.Curves // run → metric → points
	fig     *nb.LiveFigure
}

// NewLive starts a live figure of the named metrics against xlabel.
func NewLive(title, xlabel string, metrics ...string) *Live {
	return &Live{Title: title, XLabel: xlabel, Metrics: metrics, curves: map[string]track.Curves{}, fig: nb.NewLiveFigure()}
}

// Add records run's metrics at x (keys outside Metrics are ignored) and redraws when due.
func (l *Live) Add(run string, x float64, metrics map[string]float64) error {
	c, ok := l.curves[run]
	if !ok {
		c = track.Curves{}
		l.curves[run] = c
		l.runs = append(l.runs, run)
	}
	var parts []string
	for _, m := range l.Metrics {
		if v, ok := metrics[m]; ok {
			c.Add(m, x, v)
			parts = append(parts, fmt.Sprintf("%s %.3f", m, v))
		}
	}
	if len(parts) == 0 || !l.fig.Due() {
		return nil
	}
	status := fmt.Sprintf("%s %s %s %g: %s", l.Title, run, l.XLabel, x, strings.Join(parts, " "))
	if !l.fig.Live() {
		l.fig.Update(nil, status)
		return nil
	}
	f, err := l.Figure()
	if err != nil {
		return err
	}
	png, err := f.Render("png")
	if err != nil {
		return err
	}
	l.fig.Update(png, status)
	return nil
}

// Step is a hook for loops that report per-step metrics (rl.Hooks.OnStep): it adds them under run and
// keeps going when drawing fails (a figure is not worth stopping a run for).
func (l *Live) Step(run string) func(step int, metrics map[string]float64) {
	return func(step int, metrics map[string]float64) { _ = l.Add(run, float64(step), metrics) }
}

// Curves are the recorded points of run.
func (l *Live) Curves(run string) track.Curves { return l.curves[run] }

// Figure draws the recorded points: one panel per metric (three to a row), one line per run.
func (l *Live) Figure() (*Figure, error) {
	if len(l.Metrics) == 0 {
		return nil, fmt.Errorf("live figure %q: no metrics", l.Title)
	}
	cols := min(3, len(l.Metrics))
	f := &Figure{Title: l.Title, Legend: &Legend{}, Width: 6.5 * vg.Inch}
	rows := (len(l.Metrics) + cols - 1) / cols
	f.Height = vg.Length(1.2+2.2*float64(rows)) * vg.Inch
	runs := l.runs
	for i, m := range l.Metrics {
		if i%cols == 0 {
			f.Panels = append(f.Panels, make([]*gplot.Plot, cols))
		}
		p := newPanel(m, l.XLabel, "")
		for k, run := range runs {
			c, ok := l.curves[run][m]
			if !ok || len(c.X) == 0 {
				continue
			}
			line, pts, err := plotter.NewLinePoints(xy(c.X, c.Y))
			if err != nil {
				return nil, err
			}
			col := Color(k)
			line.Color, line.Width = col, vg.Points(1.5)
			pts.Color, pts.Shape, pts.Radius = col, draw.CircleGlyph{}, vg.Points(1.5)
			p.Add(line, pts)
			f.Legend.Add(run, line, pts) // once per run: Add skips a label it has
		}
		f.Panels[i/cols][i%cols] = p
	}
	return f, nil
}

// Done shows the final figure as an ordinary output (in a notebook) and returns it, e.g. to save.
func (l *Live) Done() (*Figure, error) {
	f, err := l.Figure()
	if err != nil {
		return nil, err
	}
	if !l.fig.Live() {
		return f, nil
	}
	svg, err := f.Render("svg")
	if err != nil {
		return nil, err
	}
	png, err := f.Render("png")
	if err != nil {
		return nil, err
	}
	l.fig.Done(l.Title, png, string(svg))
	return f, nil
}

// Eval wraps an evaluation hook (lm.SFTHooks.OnEval, probe.Eval.Hook) so that its metrics are also
// drawn under run; loops whose OnStep already carries the eval metrics (rl.Hooks) need only Step.
func (l *Live) Eval(run string, eval func(step int) (map[string]float64, error)) func(step int) (map[string]float64, error) {
	return func(step int) (map[string]float64, error) {
		m, err := eval(step)
		if err == nil {
			_ = l.Add(run, float64(step), m)
		}
		return m, err
	}
}

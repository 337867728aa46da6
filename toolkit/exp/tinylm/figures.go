package tinylm

import (
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws, per task: learning curves (held-out exact match and loss, seed bands), the
// per-token log-prob heatmap of the first seed's samples, and the reliability diagram.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	methods := res.Methods()
	f, err := plot.Curves("held-out greedy exact match", "SFT step", "exact match", exp.CurveSeries(res, "exact_match", methods))
	if err := figs.Add(f, err, "exact_match"); err != nil {
		return nil, err
	}
	f, err = plot.Curves("held-out loss", "SFT step", "loss per completion token", exp.CurveSeries(res, "eval_loss", methods))
	if err := figs.Add(f, err, "eval_loss"); err != nil {
		return nil, err
	}
	for _, m := range methods {
		var shown []Shown
		if err := res.GetExtra("samples_"+m, &shown); err != nil {
			return nil, err
		}
		f, err = TokenHeatmap("per-token log-probability: "+m+" (seed 1)", shown)
		if err := figs.Add(f, err, "logprobs_"+m); err != nil {
			return nil, err
		}
		runs := res.RunsOf(m)
		f, err = plot.Reliability(fmt.Sprintf("reliability of exp(lpm): %s (seed 1)", m), exp.ReliabilityBins(runs[0]))
		if err := figs.Add(f, err, "reliability_"+m); err != nil {
			return nil, err
		}
	}
	return figs.Paths, nil
}

// TokenHeatmap draws sampled completions as rows of tokens coloured by their log-probability.
func TokenHeatmap(title string, shown []Shown) (*plot.Figure, error) {
	width := 0
	for _, s := range shown {
		width = max(width, len(s.Tokens))
	}
	if width == 0 {
		return nil, exp.ErrNoFigures
	}
	vals := make([][]float64, len(shown))
	labels := make([][]string, len(shown))
	rows := make([]string, len(shown))
	cols := make([]string, width)
	for j := range cols {
		cols[j] = fmt.Sprint(j + 1)
	}
	for i, s := range shown {
		vals[i] = make([]float64, width)
		labels[i] = make([]string, width)
		for j := range vals[i] {
			vals[i][j] = math.NaN()
			if j < len(s.Tokens) {
				vals[i][j] = float64(s.LogProbs[j])
				labels[i][j] = s.Tokens[j]
			}
		}
		mark := "✗"
		if s.Correct {
			mark = "✓"
		}
		rows[i] = fmt.Sprintf("%s %s", s.Prompt, mark)
	}
	f, err := plot.LabeledHeatmap(title, "generated token", "prompt", vals, labels, rows, cols)
	if err != nil {
		return nil, err
	}
	f.Height = f.Height * 1.2
	return f, nil
}

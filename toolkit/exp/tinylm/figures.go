package tinylm

import (
	"fmt"
	"math"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws, per task: learning curves (held-out exact match and loss, seed bands of the 95 %
// interval), the per-token log-prob heatmap of the first seed's samples (with a colour bar), and the
// reliability diagram pooled over seeds.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	methods := res.Methods()
	f, err := plot.Curves("held-out greedy exact match", "SFT step", "exact match", exp.CurveSeries(res, "exact_match", methods), plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "exact_match"); err != nil {
		return nil, err
	}
	f, err = plot.Curves("held-out loss", "SFT step", "loss per completion token", exp.CurveSeries(res, "eval_loss", methods), plot.BandOpts{})
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
		bins, n, err := exp.PooledReliability(res, m)
		if err != nil {
			return nil, err
		}
		f, err = plot.Reliability(fmt.Sprintf("reliability of exp(lpm): %s (pooled over %d seeds)", m, n), bins, exp.MethodColor(res, m))
		if err := figs.Add(f, err, "reliability_"+m); err != nil {
			return nil, err
		}
	}
	return figs.Paths, nil
}

// TokenHeatmap draws sampled completions as rows of tokens coloured by their log-probability; a
// cell shows its token and, where the log-probability is below −0.05, its value.
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
				// The token, and its log-probability where it is not ≈ 0 (a sure token).
				labels[i][j] = s.Tokens[j]
				if lp := s.LogProbs[j]; lp < -0.05 {
					labels[i][j] += fmt.Sprintf("\n%.2f", lp)
				}
			}
		}
		mark := "wrong"
		if s.Correct {
			mark = "ok"
		}
		rows[i] = fmt.Sprintf("%s (%s)", s.Prompt, mark)
	}
	return plot.LabeledHeatmap(title, "generated token", "prompt (answer ok or wrong)", "log-probability of the token", vals, labels, rows, cols)
}

package m3apg

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/m3apg"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// Figures draws the SMAX part's figures where it ran (smaxFigures), then the critic's error against the exact Q on unseen and seen joint actions against N
// (shaped reward, and sparse when evaluated), the embeddings' effect share against N, the embedding
// picture (2-D PCA of every joint action's embedding at N = PictureN, coloured by its net push), the
// final return against N, and the return curves per N (seed bands).
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	if smaxRan(res) {
		if err := smaxFigures(res, cfg.SMAX, figs); err != nil {
			return nil, err
		}
	}
	if !pushRan(res) {
		return figs.Paths, nil
	}
	critics := Methods[:3]
	panels := []plot.Panel{
		{Title: "fixed policy: unseen joint actions (held out)", Series: exp.CurveSeries(res, "critic_error_unseen_vs_n", critics)},
		{Title: "fixed policy: seen joint actions", Series: exp.CurveSeries(res, "critic_error_seen_vs_n", critics)},
	}
	panels = append(panels, plot.Panel{Title: "learning runs: unseen, against each learner's own policy", Series: exp.CurveSeries(res, "own_critic_error_unseen_vs_n", critics)})
	f, err := plot.Panels("critic error against the exact Q (RMS, end of training): policy evaluation of one fixed policy, and the learning runs", "agents N (4^N joint actions)", "RMS error", panels, plot.BandOpts{})
	if err := figs.Add(f, err, "critic_error"); err != nil {
		return nil, err
	}
	if cfg.SparseEval {
		f, err = plot.Panels("critic error with the sparse reward (goal bonus only): policy evaluation of one fixed policy", "agents N (4^N joint actions)", "RMS error", []plot.Panel{
			{Title: "unseen joint actions (held out)", Series: exp.CurveSeries(res, "sparse_critic_error_unseen_vs_n", critics)},
			{Title: "seen joint actions", Series: exp.CurveSeries(res, "sparse_critic_error_seen_vs_n", critics)},
		}, plot.BandOpts{})
		if err := figs.Add(f, err, "critic_error_sparse"); err != nil {
			return nil, err
		}
	}
	if cfg.Hard && len(cfg.Agents) > 0 {
		hi := slices.Max(cfg.Agents)
		base := []string{m3apg.CentralQ, m3apg.ComaQ, m3apg.VOnly, m3apg.M3APG} // the baselines against M3APG
		mi := []string{m3apg.M3APG, m3apg.M3APGNoMI}                            // the MI ablation
		f, err = plot.Panels("hard game (paid only at the end; whole effect classes held out): critic error against the exact Q of one fixed policy", "agents N (4^N joint actions)", "RMS error", []plot.Panel{
			{Title: "unseen effects: M3APG and the baselines", Series: exp.CurveSeries(res, "hard_critic_error_unseen_vs_n", base)},
			{Title: "unseen effects: with and without MI", Series: exp.CurveSeries(res, "hard_critic_error_unseen_vs_n", mi)},
			{Title: "seen effects", Series: exp.CurveSeries(res, "hard_critic_error_seen_vs_n", base)},
		}, plot.BandOpts{})
		if err := figs.Add(f, err, "critic_error_hard"); err != nil {
			return nil, err
		}
		key := func(m string) string { return fmt.Sprintf("n%d/budget/%s", hi, m) }
		// The errors at every checkpoint (the convergence check reads their last doubling); η² at the budgets.
		ev := fmt.Sprintf("n%d/eval/hard_critic_error_unseen", hi)
		f, err = plot.Panels(fmt.Sprintf("hard game, N = %d: critic error on unseen effects against budget (policy evaluation; the convergence check reads the last doubling)", hi),
			"transitions seen (log scale)", "RMS error", []plot.Panel{
				{Title: "M3APG and the baselines", Series: exp.CurveSeries(res, ev, base)},
				{Title: "with and without MI", Series: exp.CurveSeries(res, ev, mi)},
			}, plot.BandOpts{LogX: true})
		if err := figs.Add(f, err, "critic_error_budget"); err != nil {
			return nil, err
		}
		f, err = plot.Curves(fmt.Sprintf("hard game, N = %d: the embedding's share of the net push (η²) against budget", hi), "transitions seen (log scale)", "η²",
			exp.CurveSeries(res, key("embed_effect_share"), mi), plot.BandOpts{LogX: true, Prob: true})
		if err := figs.Add(f, err, "embed_effect_budget"); err != nil {
			return nil, err
		}
	}
	share := []plot.Panel{{Title: "shaped reward", Series: exp.CurveSeries(res, "embed_effect_share_vs_n", Methods[1:3])}}
	if cfg.SparseEval {
		share = append(share, plot.Panel{Title: "sparse reward", Series: exp.CurveSeries(res, "sparse_embed_effect_share_vs_n", Methods[1:3])})
	}
	if cfg.Hard {
		share = append(share, plot.Panel{Title: "hard game", Series: exp.CurveSeries(res, "hard_embed_effect_share_vs_n", Methods[1:3])})
	}
	f, err = plot.Panels("how much of the joint-action embedding is the net push (η², policy evaluation)", "agents N", "share of embedding variance", share, plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "embed_effect_share"); err != nil {
		return nil, err
	}
	if cfg.PictureN > 0 {
		f, err = embeddingFigure(res, cfg)
		if err := figs.Add(f, err, "embedding"); err != nil {
			return nil, err
		}
	}
	f, err = plot.Panels("final return against N", "agents N", "return", []plot.Panel{{Title: "push game", Series: exp.CurveSeries(res, "return_vs_n", Methods[:4])}}, plot.BandOpts{})
	if err := figs.Add(f, err, "return_vs_n"); err != nil {
		return nil, err
	}
	if len(cfg.Agents) > 0 {
		var ps []plot.Panel
		for _, n := range cfg.Agents {
			ps = append(ps, plot.Panel{Title: fmt.Sprintf("N = %d", n), Series: exp.CurveSeries(res, fmt.Sprintf("n%d/episodic_return", n), Methods[:4])})
		}
		f, err = plot.Panels("episodic return during training", "environment steps", "return", ps, plot.BandOpts{})
		if err := figs.Add(f, err, "returns"); err != nil {
			return nil, err
		}
	}
	return figs.Paths, nil
}

// PushColor is the colour of a net push (dx, dy), clipped to ±MaxMove: the hue is its direction
// (east red, north yellow-green, west cyan-blue, south violet; north is up), the saturation its
// length; no push is grey.
func PushColor(dx, dy int) color.Color {
	m := env.DefaultPushMaxMove
	dx, dy = max(-m, min(m, dx)), max(-m, min(m, dy))
	if dx == 0 && dy == 0 {
		return color.NRGBA{150, 150, 150, 255}
	}
	hue := math.Mod(math.Atan2(float64(-dy), float64(dx))*180/math.Pi+360, 360)
	sat := 0.35 + 0.65*math.Hypot(float64(dx), float64(dy))/(math.Sqrt2*float64(m))
	return hsv(hue, sat, 0.9)
}

// hsv converts hue (degrees), saturation and value in [0, 1] to a colour.
func hsv(h, s, v float64) color.Color {
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	var r, g, b float64
	switch {
	case h < 60:
		r, g = c, x
	case h < 120:
		r, g = x, c
	case h < 180:
		g, b = c, x
	case h < 240:
		g, b = x, c
	case h < 300:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := v - c
	to := func(u float64) uint8 { return uint8(math.Round(255 * (u + m))) }
	return color.NRGBA{to(r), to(g), to(b), 255}
}

// embeddingFigure draws, for the first seed, the 2-D PCA projection of every joint action's
// embedding at N = PictureN: rows the rewards, columns m3apg and m3apg-nomi, points coloured by the
// net push (PushColor) with its key at the right.
func embeddingFigure(res *exp.Result, cfg Config) (*plot.Figure, error) {
	rewards := []string{"shaped"}
	if cfg.SparseEval {
		rewards = append(rewards, "sparse")
	}
	var panels []plot.ScatterPanel
	seed := uint64(0)
	for _, reward := range rewards {
		for _, method := range []string{m3apg.M3APG, m3apg.M3APGNoMI} {
			runs := res.RunsOf(method)
			if len(runs) == 0 {
				return nil, fmt.Errorf("embedding figure: no %s run", method)
			}
			run := runs[0]
			seed = run.Seed
			k := "embed/" + reward + "/"
			x, y, px, py := run.Curves[k+"pc1"].Y, run.Curves[k+"pc2"].Y, run.Curves[k+"push_x"].Y, run.Curves[k+"push_y"].Y
			if len(x) == 0 || len(y) != len(x) || len(px) != len(x) || len(py) != len(x) {
				return nil, fmt.Errorf("embedding figure: %s seed %d has no complete %s projection", method, run.Seed, reward)
			}
			cols := make([]color.Color, len(x))
			for i := range cols {
				cols[i] = PushColor(int(px[i]), int(py[i]))
			}
			prefix := rewardPrefix(reward)
			eta := run.Final[fmt.Sprintf("n%d/%sembed_effect_share", cfg.PictureN, prefix)]
			panels = append(panels, plot.ScatterPanel{Title: fmt.Sprintf("%s, %s reward (η² = %.2f)", method, reward, eta), X: x, Y: y, Colors: cols})
		}
	}
	f, err := plot.Scatter(fmt.Sprintf("joint-action embeddings at N = %d (%.0f joint actions), 2-D PCA, coloured by net push: equal colours together = equivalent joint actions share an embedding", cfg.PictureN, math.Pow(4, float64(cfg.PictureN))),
		"principal component 1", "principal component 2", panels, 2)
	if err != nil {
		return nil, err
	}
	m := env.DefaultPushMaxMove
	var kx, ky []float64
	var kc []color.Color
	for dx := -m; dx <= m; dx++ {
		for dy := -m; dy <= m; dy++ {
			kx, ky, kc = append(kx, float64(dx)), append(ky, float64(-dy)), append(kc, PushColor(dx, dy))
		}
	}
	key, err := plot.ColorKey("key: net push", "east −", "north −", kx, ky, kc)
	if err != nil {
		return nil, err
	}
	key.X.Label.Text, key.Y.Label.Text = "west ← → east", "south ← → north"
	f.Side, f.SideWidth = key, 1.9*72
	f.Subtitle = fmt.Sprintf("seed %d; policy-evaluation critics (the same fixed policy); η²: share of the embedding's variance explained by the clipped net push (1: equivalent joint actions coincide)", seed)
	f.Width += 2 * 72
	return f, nil
}

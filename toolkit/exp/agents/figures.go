package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	gw "github.com/paperlab/paperlab/toolkit/agents/gridworld"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// prefixLabels name the prefix tokens in foundation.Prefix's order, foundation.NoColour last (an
// agent without it has the first foundation.Prefixes).
var prefixLabels = []string{"layout open", "layout rooms", "no door", "key door", "goal red", "goal green", "goal blue", "walker", "diagonal", "no colour"}

// Figures draws success against the number of demonstrations (log-x, seed bands), online
// fine-tuning curves, the pretraining-diversity sweep, the pretraining loss, the prefix tokens'
// embeddings, and the kept held-out episodes as GIFs.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	f, err := plot.Panels("held-out task types: greedy success after fine-tuning on k demonstrations per task", "k per held-out task (log)", "success rate",
		[]plot.Panel{{Title: "transformers (k > 0; zero-shot in the table)", Series: exp.CurveSeries(res, "success_vs_k", []string{"pretrained", "pretrained-prompt", "scratch"})},
			{Title: "against MLP behaviour cloning", Series: exp.CurveSeries(res, "success_vs_k", []string{"pretrained", "bc-scratch", "bc-pretrained"})}}, plot.BandOpts{LogX: true, Prob: true})
	if err := figs.Add(f, err, "success_vs_k"); err != nil {
		return nil, err
	}
	if err := roomFigures(res, figs); err != nil {
		return nil, err
	}
	var adaptPanels []plot.Panel
	for _, k := range cfg.Shots {
		if s := exp.CurveSeries(res, fmt.Sprintf("adapt_k%d/val_action_loss", k), []string{"pretrained", "scratch"}); len(s) > 0 {
			adaptPanels = append(adaptPanels, plot.Panel{Title: fmt.Sprintf("k = %d (validation: the last %d of each task's k)", k, valWorlds(cfg.AdaptValShare, k)), Series: s})
		}
	}
	if len(adaptPanels) > 0 { // results since 2026-12-04 keep adaptation curves
		f, err := plot.Panels("adaptation: validation action loss of fine-tuning and of training from scratch, each at the rate it chose", "optimizer steps", "cross-entropy", adaptPanels, plot.BandOpts{})
		if err := figs.Add(f, err, "adaptation"); err != nil {
			return nil, err
		}
	}
	f, err = plot.Panels("online fine-tuning on the held-out task types: success of the sampled episodes", "episodes played", "success rate",
		[]plot.Panel{{Title: "from the pretrained agent and from scratch", Series: exp.CurveSeries(res, "online_success", []string{"pretrained", "scratch"})}}, plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "online"); err != nil {
		return nil, err
	}
	if len(cfg.Shots) > 0 {
		k := slices.Min(cfg.Shots)
		s0 := exp.CurveSeries(res, "diversity_success_k0", []string{"pretrained"})
		sk := exp.CurveSeries(res, fmt.Sprintf("diversity_success_k%d", k), []string{"pretrained"})
		for i := range s0 {
			s0[i].Name = "zero-shot"
		}
		for i := range sk {
			sk[i].Name = fmt.Sprintf("after k = %d", k)
			sk[i].Color = plot.Color(1)
		}
		f, err = plot.Panels("pretraining diversity: held-out success against the number of pretraining task types", "pretraining task types", "success rate",
			[]plot.Panel{{Title: "pretrained agent", Series: append(s0, sk...)}}, plot.BandOpts{Prob: true})
		if err := figs.Add(f, err, "diversity"); err != nil {
			return nil, err
		}
	}
	panels := []plot.Panel{{Title: "training batches", Series: exp.CurveSeries(res, "pretrain/action_loss", []string{"pretrained"})}}
	if runs := res.RunsOf("pretrained"); len(runs) > 0 && len(runs[0].Curves["pretrain/val_action_loss"].Y) > 0 { // a validation split since 2026-12-04
		panels = append(panels, plot.Panel{Title: "validation worlds (early stopping keeps the lowest)", Series: exp.CurveSeries(res, "pretrain/val_action_loss", []string{"pretrained"})})
	}
	f, err = plot.Panels("pretraining: the decision transformer's action loss on the mixed offline data", "optimizer steps", "cross-entropy", panels, plot.BandOpts{})
	if err := figs.Add(f, err, "pretraining"); err != nil {
		return nil, err
	}
	if runs := res.RunsOf("pretrained"); len(runs) > 0 {
		x, y := runs[0].Curves["embed/prefix/pc1"].Y, runs[0].Curves["embed/prefix/pc2"].Y
		if len(x) <= len(prefixLabels) && len(y) == len(x) {
			var pts []plot.Point
			for i := range x {
				pts = append(pts, plot.Point{Label: prefixLabels[i], Color: plot.Color(i), X: x[i], Y: y[i], XLo: nanV, XHi: nanV, YLo: nanV, YHi: nanV})
			}
			f, err := plot.Points(fmt.Sprintf("what the task tokens share: the pretrained trunk's input embeddings of the prefix tokens, 2-D PCA (seed %d)", runs[0].Seed),
				"principal component 1", "principal component 2", pts, false)
			if err := figs.Add(f, err, "prefix_embeddings"); err != nil {
				return nil, err
			}
		}
	}
	paths, err := episodes(res, dir)
	if err != nil {
		return nil, err
	}
	return append(figs.Paths, paths...), nil
}

// roomFigures draws, for results since 2026-12-04, the pretrained agent's success beside the reference policies on
// the same worlds (its own task types and the held-out ones) and the held-out success of the
// prompt variants.
func roomFigures(res *exp.Result, figs *exp.Figs) error {
	est := func(key, label string) plot.Estimate {
		e := exp.Estimate(res, "pretrained", exp.MetricInfo{Key: key, Prob: true})
		e.Label = label
		return e
	}
	if _, ok := res.Summary["pretrained"]["ref/"+gw.RefColourBlind+"/indist/success"]; !ok {
		return nil
	}
	var panels []plot.Metric
	for _, set := range []struct{ key, title string }{{"indist", "its own task types (fresh worlds)"}, {"heldout", "held-out task types (zero-shot)"}} {
		pm := plot.Metric{Title: set.title, Better: plot.HigherIsBetter, Prob: true, Estimates: []plot.Estimate{est(set.key+"/success", "pretrained agent")}}
		for _, ref := range gw.References() {
			pm.Estimates = append(pm.Estimates, est("ref/"+ref+"/"+set.key+"/success", "reference: "+ref))
		}
		panels = append(panels, pm)
	}
	f, err := plot.Dots("room: greedy success of the pretrained agent and of scripted reference policies on the same worlds", panels)
	if err == nil {
		f.Subtitle = fmt.Sprintf("dot: mean over %d seeds; bar: 95 %% CI of the mean", len(res.Seeds))
	}
	if err := figs.Add(f, err, "references"); err != nil {
		return err
	}
	if _, ok := res.Summary["pretrained"]["nocolour_prompt/success_k0"]; !ok {
		return nil
	}
	pm := plot.Metric{Title: "held-out task types, no gradient step", Better: plot.HigherIsBetter, Prob: true, Estimates: []plot.Estimate{
		est("success_k0", "colour token"), exp.Estimate(res, "pretrained-prompt", exp.MetricInfo{Key: "success_k0", Prob: true}),
		est("nocolour/success_k0", "no colour token"), est("nocolour_prompt/success_k0", "no colour token + demonstration")}}
	pm.Estimates[1].Label = "colour token + demonstration"
	f, err = plot.Dots("the demonstration in context as the task's specification", []plot.Metric{pm})
	if err == nil {
		f.Subtitle = fmt.Sprintf("dot: mean over %d seeds; bar: 95 %% CI of the mean", len(res.Seeds))
	}
	return figs.Add(f, err, "prompt")
}

// episodes replays the kept held-out episodes (first seed, pretrained-prompt) and writes each as a
// GIF (shown in a notebook).
func episodes(res *exp.Result, dir string) ([]string, error) {
	runs := res.RunsOf("pretrained-prompt")
	if len(runs) == 0 {
		return nil, nil
	}
	run := runs[0]
	var out []string
	all := gw.AllTasks()
	for i := 0; ; i++ {
		p := fmt.Sprintf("episode%d/", i)
		ti, ok := run.Final[p+"task"]
		if !ok {
			break
		}
		if int(ti) < 0 || int(ti) >= len(all) {
			return nil, fmt.Errorf("agents: episode %d has task index %v", i, ti)
		}
		task, e := all[int(ti)], gw.Embodiment(int(run.Final[p+"embodiment"]))
		var acts []int
		for _, a := range run.Curves[p+"actions"].Y {
			acts = append(acts, int(a))
		}
		frames, err := gw.Replay(task, uint64(run.Final[p+"world_seed"]), e, acts)
		if err != nil {
			return nil, err
		}
		b, err := gw.GIF(frames, 40, 40)
		if err != nil {
			return nil, err
		}
		outcome := "reaches the target"
		if run.Final[p+"success"] == 0 {
			outcome = "fails"
		}
		caption := fmt.Sprintf("held-out task %s, %s embodiment, one demonstration in context (no fine-tuning): %s in %d steps (target framed)", task, gw.EmbodimentName(e), outcome, len(acts))
		var poster []byte
		if poster, err = gw.PNG(frames[0], 40); err != nil {
			return nil, err
		}
		if nb.IsNotebook() && nb.FiguresShown() {
			nb.Markdown("**" + caption + "**")
		}
		nb.Animation(caption, b, poster, 280)
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("episode%d.gif", i))
		if err := fsx.WriteFile(path, b); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}

// SummaryKeys are the metrics of the notebook's final table: held-out success at every k, online,
// in distribution and under the colour swap, pretraining's accuracy and convergence, the prompt
// without the colour token and the diversity sweep zero-shot.
func SummaryKeys(cfg Config) []string {
	keys := []string{"success_k0"}
	for _, k := range cfg.Shots {
		keys = append(keys, fmt.Sprintf("success_k%d", k))
	}
	keys = append(keys, "success_online", "pretrain_success", "swap/success", "swap/token_goal", "pretrain_val_accuracy_colour", "pretrain_plateau_step", "pretrain_steps",
		"nocolour/success_k0", "nocolour_prompt/success_k0")
	for _, d := range cfg.DiversitySweep {
		keys = append(keys, fmt.Sprintf("sweep/div%d/success_k0", d))
	}
	return keys
}

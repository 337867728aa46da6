package tape

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/repo"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// Parts are the experiment's parts, in the order Figures draws them (see Show).
var Parts = []string{"matrix", "variance", "det", "adam", "shared", "lbf", "lbf3", "coal", "smax"}

// Figures draws every part's figures (Parts; a part the result lacks is skipped):
//   - matrix: P(optimal joint action) during training (Erdős–Rényi densities and the other
//     topologies in two panels), the optimum rate against p with Wilson intervals, dot plots;
//   - variance: update variance against p (log y), the distance from DOP on log-log axes with p and p²
//     references, the escape rate from the +2 basin against p;
//   - det: deterministic TAPE's optimum rate against p, its training curves, dot plots;
//   - adam: deterministic TAPE under Adam at each rate beside the SGD variant: optimum rate, learning
//     speed and logit step length against p;
//   - shared: the shared-parameter regime — mean normalised value against p per rate, the update's
//     variance and mean against p per agent count, learning curves;
//   - lbf: 2-agent LBF return curves (EMA-smoothed seed bands), final return against p, dot plots;
//   - lbf3: success (greedy, sampled) and learning speed against p beside IPPO / MAPPO, return
//     curves, dot plots;
//   - coal: the coalition-reward variant — success and learning speed against p, return curves.
func Figures(res *exp.Result, dir string) ([]string, error) {
	figs := &exp.Figs{Dir: dir}
	for _, part := range Parts {
		if err := drawPart(res, figs, part); err != nil {
			return nil, err
		}
	}
	return figs.Paths, nil
}

// Show displays one part's figures (in a notebook; nothing is written).
func Show(res *exp.Result, part string) error {
	return drawPart(res, &exp.Figs{}, part)
}

// Table is a table as nb.Table shows it.
type Table struct {
	Headers []string
	Rows    [][]string
}

// PartTables are the summary tables of one part of a result (exp.SummaryTableOf: the methods the
// part ran, by name, and its metrics); a part the result lacks has none.
func PartTables(res *exp.Result, part string) []Table {
	has := func(k string) func(string) bool {
		return func(m string) bool { _, ok := res.Summary[m][k]; return ok }
	}
	without := func(f func(string) bool, prefix string) func(string) bool {
		return func(m string) bool { return f(m) && !strings.HasPrefix(m, prefix) }
	}
	type spec struct {
		keep    func(string) bool
		metrics []string
	}
	var specs []spec
	switch part {
	case "matrix":
		specs = []spec{{without(has("p_optimal_auc"), "det-"), []string{"optimal_rate", "p_optimal_auc"}}}
	case "variance":
		specs = []spec{{prefixed("var-"), []string{"update_variance", "from_dop", "escape_rate", "from_dop_exponent"}}}
	case "det":
		specs = []spec{{prefixed("det-"), []string{"optimal_rate", "p_optimal_auc", "mix_weight"}}}
	case "adam":
		specs = []spec{{prefixed("adam-det-"), []string{"optimal_rate", "p_optimal_auc", "step_norm", "mix_weight"}}}
	case "shared":
		specs = []spec{{prefixed("sharedvar-"), []string{"mean_ratio", "variance", "variance_growth"}}, {prefixed("shared-"), []string{"value_auc", "value"}}}
	case "lbf":
		specs = []spec{{without(has("sps"), "lbf3-"), []string{"return", "return_auc", "sps"}}}
	case "lbf3":
		specs = []spec{{prefixed("lbf3-"), []string{"success_rate", "return", "sampled_success_rate", "sampled_return", "train_return", "return_auc"}}}
	case "smax":
		specs = []spec{{prefixed("smax-"), []string{"success_rate", "return", "sampled_success_rate", "sampled_return", "train_return", "return_auc"}}}
	case "coal":
		specs = []spec{{prefixed("coal-"), []string{"success_rate", "sampled_success_rate", "return_auc", "train_return"}}}
	}
	var out []Table
	for _, sp := range specs {
		if h, rows := exp.SummaryTableOf(res, sp.keep, sp.metrics); len(rows) > 0 {
			out = append(out, Table{h, rows})
		}
	}
	return out
}

// ShowPart shows one part of the result notebook 20 showed (exp.NotebookResult("tape")): its
// figures, then its tables (PartTables), or a line saying the result holds no such part (one added
// after the result was made). An unknown part is an error naming the known ones.
func ShowPart(part string) error {
	if !slices.Contains(Parts, part) {
		return fmt.Errorf("tape: part %q, want one of %v", part, Parts)
	}
	res, err := exp.NotebookResult("tape")
	if err != nil { // e.g. notebook 65 opened before notebook 20 made the smoke result
		nb.Markdown(fmt.Sprintf("No tape result at this scale (%v): run notebook 20 or `paperlab tape` first.", err))
		return nil
	}
	tables := PartTables(res, part)
	if len(tables) == 0 {
		nb.Markdown(fmt.Sprintf("The tape result in `%s` (made %s) holds no %s part: `paperlab tape -part %s` runs it.", repo.ShowPath(res.Dir), res.Started, part, part))
		return nil
	}
	if err := Show(res, part); err != nil {
		return err
	}
	for _, t := range tables {
		nb.Table(t.Headers, t.Rows)
	}
	nb.Sync()
	return nil
}

func drawPart(res *exp.Result, figs *exp.Figs, part string) error {
	has := func(m string) bool { _, ok := res.Summary[m]; return ok }
	switch part {
	case "matrix":
		if _, ok := res.Summary["p=0"]["optimal_rate"]; ok { // a run of other parts has none
			return matrixFigures(res, figs)
		}
	case "variance":
		if has(VarName(1, 0)) {
			return varianceFigures(res, figs)
		}
	case "det":
		if has("det-p0") {
			return detFigures(res, figs, prefixed("det-"))
		}
	case "adam":
		if cfg, ok := configOf(res); ok && len(cfg.DetAdamLRs) > 0 && len(cfg.DetAdamPs) > 0 && has(AdamDetName(cfg.DetAdamLRs[0], cfg.DetAdamPs[0])) {
			return adamFigures(res, figs, cfg)
		}
	case "shared":
		if cfg, ok := configOf(res); ok && len(cfg.SharedLRs) > 0 && len(cfg.SharedPs) > 0 && has(SharedName(cfg.SharedLRs[0], cfg.SharedPs[0])) {
			return sharedFigures(res, figs, cfg)
		}
	case "lbf":
		if has("ippo") {
			return lbfFigures(res, figs)
		}
	case "coal":
		if cfg, ok := configOf(res); ok && len(cfg.CoalPs) > 0 && has(CoalName(cfg.CoalPs[0])) {
			return coalFigures(res, figs, cfg)
		}
	case "smax":
		if has("smax-p0") {
			return sweepFigures(res, figs, smaxSweep)
		}
	case "lbf3":
		if has("lbf3-p0") {
			return sweepFigures(res, figs, lbf3Sweep)
		}
	default:
		return fmt.Errorf("tape figures: unknown part %q (want one of %v)", part, Parts)
	}
	return nil
}

func prefixed(prefix string) func(string) bool {
	return func(m string) bool { return strings.HasPrefix(m, prefix) }
}

// splitP splits the methods that have curve key into the "p=…" ones and the others.
func splitP(res *exp.Result, key string) (ps, other []string) {
	for _, m := range res.Methods() {
		if len(exp.CurveSeries(res, key, []string{m})) == 0 {
			continue
		}
		if _, isP := PValue(m); isP {
			ps = append(ps, m)
		} else {
			other = append(other, m)
		}
	}
	return ps, other
}

// invertedU draws metric against p over the "p=…" methods: the mean with its 95 % interval, or for a
// fraction of seeds its Wilson interval.
func invertedU(res *exp.Result, figs *exp.Figs, metric, title, y, name string, fraction bool) error {
	type pv struct {
		p float64
		m string
	}
	var ps []pv
	for _, m := range res.Methods() {
		if p, ok := PValue(m); ok {
			if _, has := res.Summary[m][metric]; has {
				ps = append(ps, pv{p, m})
			}
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].p < ps[j].p })
	var pts []plot.Point
	ns := map[int]bool{}
	for _, x := range ps {
		s := res.Summary[x.m][metric]
		pt := plot.Point{Label: x.m, Color: exp.MethodColor(res, x.m), X: x.p, Y: s.Mean,
			XLo: math.NaN(), XHi: math.NaN(), YLo: s.CI95[0], YHi: s.CI95[1]}
		if fraction {
			pt.YLo, pt.YHi = stats.Wilson(int(math.Round(s.Mean*float64(s.N))), s.N)
		}
		pts = append(pts, pt)
		ns[s.N] = true
	}
	if len(pts) == 0 {
		return nil
	}
	f, err := plot.Points(title, "topology density p", y, pts, fraction)
	if err == nil {
		f.Subtitle = fmt.Sprintf("mean ± 95 %% CI of the mean over %s seeds", counts(ns))
		if fraction {
			f.Subtitle = fmt.Sprintf("fraction of %s seeds with its 95 %% Wilson interval", counts(ns))
		}
	}
	return figs.Add(f, err, name)
}

// matrixFigures: stochastic TAPE on the coordination game.
func matrixFigures(res *exp.Result, figs *exp.Figs) error {
	matP, matOther := splitP(res, "matrix/p_optimal")
	f, err := plot.Panels("coordination game: P(optimal joint action) during training", "update", "P(optimal joint action)",
		exp.PanelsOf(res, "matrix/p_optimal", groups("Erdős–Rényi topology, density p", matP, "other topologies", matOther)),
		plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "matrix_p_optimal"); err != nil {
		return err
	}
	if err := invertedU(res, figs, "optimal_rate", "inverted U? coordination game: seeds reaching the optimum", "fraction of seeds at the +10 optimum", "inverted_u_matrix", true); err != nil {
		return err
	}
	f, err = exp.SummaryBarsFor(res, "coordination game, stochastic TAPE", func(m string) bool { return !strings.HasPrefix(m, "det-") }, []exp.MetricInfo{
		{Key: "optimal_rate", Title: "fraction of seeds at the optimum", Better: plot.HigherIsBetter, Fraction: true},
		{Key: "p_optimal_auc", Title: "mean P(optimal) over training", Better: plot.HigherIsBetter, Prob: true},
	})
	return figs.Add(f, err, "bars_matrix")
}

// lbfFigures: the 2-agent cooperative LBF task.
func lbfFigures(res *exp.Result, figs *exp.Figs) error {
	lbfP, lbfOther := splitP(res, "lbf/episodic_return")
	f, err := plot.Panels("cooperative LBF, 2 agents: episodic return during training", "M env steps", "episodic return",
		scaled(exp.PanelsOf(res, "lbf/episodic_return", groups("TAPE, topology density p", lbfP, "baselines", lbfOther)), 1e6),
		plot.BandOpts{EMA: 0.1})
	if err := figs.Add(f, err, "lbf_return"); err != nil {
		return err
	}
	if err := invertedU(res, figs, "return", "inverted U? final LBF return against p", "final LBF return", "inverted_u_lbf", false); err != nil {
		return err
	}
	f, err = exp.SummaryBarsFor(res, "cooperative LBF, 2 agents: final return", func(m string) bool { return !strings.HasPrefix(m, "lbf3-") }, []exp.MetricInfo{
		{Key: "return", Title: "final episodic return", Better: plot.HigherIsBetter},
	})
	return figs.Add(f, err, "bars_lbf")
}

// acrossP is a plot series of metric against p over the methods name(p): Y[s][i] is seed s's value
// for ps[i] (seeds lacking a p are left out).
func acrossP(res *exp.Result, label string, ps []float64, name func(float64) string, metric string) plot.Series {
	bySeed := map[uint64][]float64{}
	var order []uint64
	for i, p := range ps {
		for _, r := range res.RunsOf(name(p)) {
			v, ok := r.Final[metric]
			if !ok {
				continue
			}
			if _, seen := bySeed[r.Seed]; !seen {
				bySeed[r.Seed] = make([]float64, len(ps))
				for k := range bySeed[r.Seed] {
					bySeed[r.Seed][k] = math.NaN()
				}
				order = append(order, r.Seed)
			}
			bySeed[r.Seed][i] = v
		}
	}
	s := plot.Series{Name: label, X: ps}
	for _, seed := range order {
		ok := true
		for _, v := range bySeed[seed] {
			ok = ok && !math.IsNaN(v)
		}
		if ok {
			s.Y = append(s.Y, bySeed[seed])
		}
	}
	return s
}

// configPs are the variance part's densities from the stored configuration (the default's when it
// cannot be read).
func configPs(res *exp.Result) []float64 {
	var c Config
	if err := json.Unmarshal(res.Config, &c); err != nil || len(c.Variance.Ps) == 0 {
		return ConfigFor(exp.Default).Variance.Ps
	}
	return c.Variance.Ps
}

// varianceFigures: update variance against p (log y), the distance from DOP on log-log axes with
// p and p² references, and the escape rate from the +2 basin against p.
func varianceFigures(res *exp.Result, figs *exp.Figs) error {
	ps := configPs(res)
	series := func(metric string) []plot.Series {
		var out []plot.Series
		for _, b := range []int{1, 4} {
			s := acrossP(res, fmt.Sprintf("batch %d", b), ps, func(p float64) string { return VarName(b, p) }, metric)
			if len(s.Y) > 0 {
				s.Color = plot.Color(len(out))
				out = append(out, s)
			}
		}
		return out
	}
	f, err := plot.Panels("stochastic TAPE: per-agent update variance against topology density", "topology density p",
		"update variance (log scale)", []plot.Panel{{Series: series("update_variance")}}, plot.BandOpts{LogY: true})
	if err := figs.Add(f, err, "variance_vs_p"); err != nil {
		return err
	}
	dop := series("from_dop")
	var refs []plot.Series
	if len(dop) > 0 {
		// Reference slopes through batch 1's mean at p = 1 (as many identical rows as seeds, so the
		// caption's seed count stays that of the data).
		s := dop[0]
		mean, _, _, _ := plot.Band(s.Y, false)
		last := mean[len(mean)-1]
		for k, ref := range []struct {
			name string
			pow  float64
		}{{"reference ∝ p", 1}, {"reference ∝ p²", 2}} {
			row := make([]float64, len(s.X))
			for i, p := range s.X {
				row[i] = last * math.Pow(p, ref.pow)
			}
			r := plot.Series{Name: ref.name, Color: plot.Color(2 + k), X: s.X}
			for range s.Y {
				r.Y = append(r.Y, row)
			}
			refs = append(refs, r)
		}
	}
	f, err = plot.Panels("stochastic TAPE: distance of the update from DOP's, log-log", "topology density p (log scale)",
		"E‖g(A) − g(I)‖² (log scale)", []plot.Panel{{Series: append(dop, refs...)}}, plot.BandOpts{LogX: true, LogY: true})
	if err := figs.Add(f, err, "from_dop_loglog"); err != nil {
		return err
	}
	f, err = plot.Panels("stochastic TAPE: runs started in the +2 basin that escape to the optimum", "topology density p",
		"fraction of seeds escaping", []plot.Panel{{Series: series("escape_rate")}}, plot.BandOpts{Prob: true})
	return figs.Add(f, err, "escape_vs_p")
}

// detFigures: deterministic TAPE's optimum rate against p (the experiment's OW-QMIX weight and the
// code's 0.5), its P(optimal) during training, and every det method's summary.
func detFigures(res *exp.Result, figs *exp.Figs, isDet func(string) bool) error {
	var pts []plot.Point
	ns := map[int]bool{}
	for _, m := range res.Methods() {
		if !isDet(m) {
			continue
		}
		p, ok := detP(m)
		if !ok {
			continue
		}
		s := res.Summary[m]["optimal_rate"]
		lo, hi := stats.Wilson(int(math.Round(s.Mean*float64(s.N))), s.N)
		label, col := "OW-QMIX w = 0.75", plot.Color(0)
		if strings.HasPrefix(m, "det-ow0.5") {
			label, col = "w = 0.5 (the code's)", plot.Color(1)
			p += 0.015 // side by side with the w = 0.75 point
		}
		pts = append(pts, plot.Point{Label: fmt.Sprintf("%s, p = %g", label, math.Round(p*10)/10), Color: col, X: p, Y: s.Mean, XLo: math.NaN(), XHi: math.NaN(), YLo: lo, YHi: hi})
		ns[s.N] = true
	}
	f, err := plot.Points("inverted U? deterministic TAPE: seeds reaching the optimum", "topology density p", "fraction of seeds at the +10 optimum", pts, true)
	if err == nil {
		f.Subtitle = fmt.Sprintf("fraction of %s seeds with its 95 %% Wilson interval", counts(ns))
	}
	if err := figs.Add(f, err, "inverted_u_det"); err != nil {
		return err
	}
	f, err = plot.Panels("deterministic TAPE: P(optimal joint action) and the mixer's step weight during training", "update", "",
		append(exp.PanelsOf(res, "det/p_optimal", []exp.Group{{Title: "P(optimal joint action)", Methods: []string{"det-p0", "det-p0.3", "det-p0.5", "det-p1"}}}),
			exp.PanelsOf(res, "det/mix_weight", []exp.Group{{Title: "mean mixer weight on an agent's step", Methods: []string{"det-p0", "det-p0.3", "det-p0.5", "det-p1"}}})...),
		plot.BandOpts{})
	if err := figs.Add(f, err, "det_training"); err != nil {
		return err
	}
	f, err = exp.SummaryBarsFor(res, "deterministic TAPE on the coordination game", isDet, []exp.MetricInfo{
		{Key: "optimal_rate", Title: "fraction of seeds at the optimum", Better: plot.HigherIsBetter, Fraction: true},
		{Key: "mix_weight", Title: "mean mixer weight on an agent's step", Better: plot.NoDirection},
	})
	return figs.Add(f, err, "bars_det")
}

// detP reads p from "det-p0.3" or "det-ow0.5-p1".
func detP(m string) (float64, bool) {
	i := strings.LastIndex(m, "-p")
	if i < 0 {
		return 0, false
	}
	p, err := strconv.ParseFloat(m[i+2:], 64)
	return p, err == nil
}

// sweep names a part whose TAPE densities are compared with IPPO and MAPPO as LBF3's are.
type sweep struct {
	prefix, title, success, file string
}

var (
	lbf3Sweep = sweep{prefix: "lbf3", title: "LBF with partial coalitions", success: "collecting all food", file: "lbf3"}
	smaxSweep = sweep{prefix: "smax", title: "SMAX 3m against the heuristic enemy", success: "won", file: "smax"}
)

// sweepFigures: a part's success against p beside the baselines (greedy and sampled evaluation),
// training curves, and the summary of every method of the part.
func sweepFigures(res *exp.Result, figs *exp.Figs, sw sweep) error {
	isLBF3 := func(m string) bool { return strings.HasPrefix(m, sw.prefix+"-") }
	for _, c := range []struct {
		key, title, y, name string
		prob                bool
	}{
		{"success_rate", "greedy success", "fraction of greedy episodes " + sw.success, "inverted_u_" + sw.file, true},
		{"sampled_success_rate", "sampled success", "fraction of sampled episodes " + sw.success, "inverted_u_" + sw.file + "_sampled", true},
		{"return_auc", "learning speed", "mean training return over the run", "inverted_u_" + sw.file + "_speed", false},
	} {
		var pts []plot.Point
		ns := map[int]bool{}
		for _, m := range res.Methods() {
			s, ok := res.Summary[m][c.key]
			if !isLBF3(m) || !ok {
				continue
			}
			x, label := 0.0, ""
			switch m {
			case sw.prefix + "-ippo":
				x, label = -0.06, "IPPO (drawn at p ≈ 0)"
			case sw.prefix + "-mappo":
				x, label = 1.06, "MAPPO (drawn at p ≈ 1)"
			default:
				p, ok := detP(m)
				if !ok {
					continue
				}
				x, label = p, fmt.Sprintf("TAPE p = %g", p)
			}
			pts = append(pts, plot.Point{Label: label, Color: exp.MethodColor(res, m), X: x, Y: s.Mean, XLo: math.NaN(), XHi: math.NaN(), YLo: s.CI95[0], YHi: s.CI95[1]})
			ns[s.N] = true
		}
		f, err := plot.Points("inverted U? "+sw.title+": "+c.title, "topology density p", c.y, pts, c.prob)
		if err == nil {
			f.Subtitle = fmt.Sprintf("mean over %s seeds ± 95 %% CI of the mean", counts(ns))
		}
		if err := figs.Add(f, err, c.name); err != nil {
			return err
		}
	}
	var tape, base []string
	for _, m := range res.Methods() {
		if !isLBF3(m) {
			continue
		}
		if _, ok := detP(m); ok {
			tape = append(tape, m)
		} else {
			base = append(base, m)
		}
	}
	f, err := plot.Panels(sw.title+": episodic return during training", "M env steps", "episodic return",
		scaled(exp.PanelsOf(res, sw.prefix+"/episodic_return", groups("TAPE, topology density p", tape, "baselines", base)), 1e6),
		plot.BandOpts{EMA: 0.1})
	if err := figs.Add(f, err, sw.file+"_return"); err != nil {
		return err
	}
	bars := "LBF with partial coalitions (3 agents, foods of level 1, 2, 3)"
	if sw.prefix != "lbf3" {
		bars = sw.title
	}
	f, err = exp.SummaryBarsFor(res, bars, isLBF3, []exp.MetricInfo{
		{Key: "success_rate", Title: "greedy success", Better: plot.HigherIsBetter, Prob: true},
		{Key: "sampled_success_rate", Title: "sampled success", Better: plot.HigherIsBetter, Prob: true},
		{Key: "train_return", Title: "final training return", Better: plot.HigherIsBetter},
		{Key: "return_auc", Title: "mean training return (speed)", Better: plot.HigherIsBetter},
	})
	return figs.Add(f, err, "bars_"+sw.file)
}

// groups splits methods into panels of at most plot.MaxBands: a first set and the others.
func groups(firstTitle string, first []string, otherTitle string, other []string) []exp.Group {
	var out []exp.Group
	for _, g := range []exp.Group{{Title: firstTitle, Methods: first}, {Title: otherTitle, Methods: other}} {
		for len(g.Methods) > 0 {
			n := min(len(g.Methods), plot.MaxBands)
			out = append(out, exp.Group{Title: g.Title, Methods: g.Methods[:n]})
			g.Methods = g.Methods[n:]
		}
	}
	return out
}

// scaled divides the panels' x values by d.
func scaled(panels []plot.Panel, d float64) []plot.Panel {
	for i := range panels {
		panels[i].Series = exp.ScaleX(panels[i].Series, d)
	}
	return panels
}

func counts(ns map[int]bool) string {
	var xs []int
	for n := range ns {
		xs = append(xs, n)
	}
	sort.Ints(xs)
	s := ""
	for i, n := range xs {
		if i > 0 {
			s += " or "
		}
		s += fmt.Sprint(n)
	}
	return s
}

// pSeries is one series against p: seed s's value of key for method(p) at every density of ps (seeds
// that lack a density are left out).
func pSeries(res *exp.Result, name string, ps []float64, method func(p float64) string, key string, seeds []uint64) plot.Series {
	sr := plot.Series{Name: name, X: ps}
	for _, seed := range seeds {
		row := make([]float64, len(ps))
		ok := true
		for i, p := range ps {
			v, has := res.Final(method(p), key, seed)
			row[i], ok = v, ok && has
		}
		if ok {
			sr.Y = append(sr.Y, row)
		}
	}
	return sr
}

// adamFigures: deterministic TAPE under Adam (one series per rate) beside the SGD variant, against p:
// the optimum rate and the learning speed (one figure, both fractions), then the step length.
func adamFigures(res *exp.Result, figs *exp.Figs, cfg Config) error {
	seeds := seedsWith(res, AdamDetName(cfg.DetAdamLRs[0], cfg.DetAdamPs[0]), "optimal_rate")
	series := func(key string) []plot.Series {
		var out []plot.Series
		for _, lr := range cfg.DetAdamLRs {
			out = append(out, pSeries(res, fmt.Sprintf("Adam %g", lr), cfg.DetAdamPs, func(p float64) string { return AdamDetName(lr, p) }, key, seeds))
		}
		if sgd := pSeries(res, "SGD 0.5 (det-…)", cfg.DetAdamPs, func(p float64) string { return fmt.Sprintf("det-p%g", p) }, key, seeds); len(sgd.Y) > 0 {
			out = append(out, sgd)
		}
		return out
	}
	f, err := plot.Panels("deterministic TAPE: Adam (the code's optimiser) at three rates and SGD, against p", "topology density p", "fraction",
		[]plot.Panel{{Title: "seeds at the +10 optimum", Series: series("optimal_rate")}, {Title: "learning speed: mean P(optimal) over training", Series: series("p_optimal_auc")}},
		plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "det_adam"); err != nil {
		return err
	}
	f, err = plot.Curves("deterministic TAPE: what the optimiser makes of p's rescaling (logit step per update)", "topology density p", "RMS logit step per agent and update",
		series("step_norm"), plot.BandOpts{LogY: true})
	return figs.Add(f, err, "det_adam_steps")
}

// sharedFigures: the shared-parameter regime.
func sharedFigures(res *exp.Result, figs *exp.Figs, cfg Config) error {
	var seeds []uint64
	for s := 1; s <= cfg.SharedSeeds; s++ {
		seeds = append(seeds, uint64(s))
	}
	var panels []plot.Panel
	for _, m := range []struct{ key, title string }{{"value_auc", "mean over training"}, {"value", "at the end"}} {
		var series []plot.Series
		for _, lr := range cfg.SharedLRs {
			series = append(series, pSeries(res, fmt.Sprintf("Adam %g", lr), cfg.SharedPs, func(p float64) string { return SharedName(lr, p) }, m.key, seeds))
		}
		panels = append(panels, plot.Panel{Title: m.title, Series: series})
	}
	f, err := plot.Panels(fmt.Sprintf("shared actors (N = %d): normalised value against p (0 uniform, 1 optimal)", cfg.Shared.Agents), "topology density p", "normalised value", panels, plot.BandOpts{})
	if err := figs.Add(f, err, "shared_value"); err != nil {
		return err
	}
	byN := func(key string) []plot.Series {
		var out []plot.Series
		for _, n := range cfg.SharedVarAgents {
			out = append(out, pSeries(res, fmt.Sprintf("N = %d", n), cfg.SharedVariance.Ps, func(p float64) string { return SharedVarName(n, p) }, key, seeds))
		}
		return out
	}
	f, err = plot.Curves("shared actors at fixed states: the update's variance grows with p", "topology density p", "trace of the update's covariance / ‖exact mean‖²", byN("variance"), plot.BandOpts{})
	if err := figs.Add(f, err, "shared_variance"); err != nil {
		return err
	}
	f, err = plot.Curves("shared actors at fixed states: … and its mean does not move", "topology density p", "mean update projected on the exact mean (1: the same)", byN("mean_ratio"), plot.BandOpts{})
	if err := figs.Add(f, err, "shared_mean"); err != nil {
		return err
	}
	var groups []exp.Group
	for _, lr := range cfg.SharedLRs {
		groups = append(groups, exp.Group{Title: fmt.Sprintf("Adam %g", lr), Methods: []string{SharedName(lr, 0), SharedName(lr, 0.3), SharedName(lr, 1)}})
	}
	f, err = plot.Panels("shared actors: normalised value during training (p = 0, 0.3, 1)", "update", "normalised value", exp.PanelsOf(res, "shared/value", groups), plot.BandOpts{})
	return figs.Add(f, err, "shared_training")
}

// coalFigures: the coalition-reward variant against p (greedy and sampled success, learning speed),
// and its return curves.
func coalFigures(res *exp.Result, figs *exp.Figs, cfg Config) error {
	var panels []plot.Panel
	for _, m := range []struct{ key, title string }{
		{"success_rate", "greedy success"}, {"sampled_success_rate", "sampled success"}, {"return_auc", "mean training return (speed)"},
	} {
		panels = append(panels, plot.Panel{Title: m.title, Series: []plot.Series{pSeries(res, "IPPO, coalition reward", cfg.CoalPs, CoalName, m.key, res.Seeds)}})
	}
	f, err := plot.Panels("coalition reward (our reinterpretation): each agent paid its coalition's rewards, against p", "topology density p (0: own reward, 1: team reward)", "",
		panels, plot.BandOpts{Prob: true})
	if err := figs.Add(f, err, "coal_vs_p"); err != nil {
		return err
	}
	var names []string
	for _, p := range cfg.CoalPs {
		names = append(names, CoalName(p))
	}
	f, err = plot.Panels("coalition reward: episodic (team) return during training", "M env steps", "episodic return",
		scaled(exp.PanelsOf(res, "coal/episodic_return", groups("coalition density p", names, "", nil)), 1e6), plot.BandOpts{EMA: 0.1})
	return figs.Add(f, err, "coal_return")
}

// ShowGames prints the games of the experiment as their renderers draw them: an LBF episode's
// start (8×8, 3 players, 3 foods, seed 7) and the 5-agent coordination game's payoffs.
func ShowGames() error {
	e, err := env.Make("lbf:8x8-3p-3f-lvl1-spread")
	if err != nil {
		return err
	}
	s, _, err := e.Reset(7) // an episode's state: the environment itself holds none
	if err != nil {
		return err
	}
	m, err := env.Make("matrix:coord5")
	if err != nil {
		return err
	}
	fmt.Print(env.Render(e, s), env.Render(m, nil))
	return nil
}

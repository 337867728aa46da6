package probe

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paperlab/paperlab/toolkit/calib"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/plot"
)

// File is the name of a probe's report in its output folder.
const File = "probe.json"

// ScoreColor is a built-in score's colour in every probe figure (see Report.ScoreColor for custom
// scores).
func ScoreColor(score string) color.Color { return plot.Color(slices.Index(Scores, score)) }

// ScoreColor is a score's colour in the report's figures: a built-in score's ScoreColor, a custom
// score's the one after them by its place among the report's custom scores (each its own).
func (r *Report) ScoreColor(score string) color.Color {
	if slices.Contains(Scores, score) {
		return ScoreColor(score)
	}
	i := len(Scores)
	for _, s := range r.Scores {
		if s == score {
			break
		}
		if !slices.Contains(Scores, s) {
			i++
		}
	}
	return plot.Color(i)
}

// reliabilityBins bins a score's answers (Options.Bins equal-width bins) for plot.Reliability.
func (r *Report) reliabilityBins(score string) ([]plot.ReliabilityBin, error) {
	conf, ok, err := r.Answers(score)
	if err != nil {
		return nil, err
	}
	bins, err := calib.ReliabilityBins(conf, ok, r.Options.Bins)
	if err != nil {
		return nil, err
	}
	pb := make([]plot.ReliabilityBin, len(bins))
	for i, b := range bins {
		pb[i] = plot.ReliabilityBin{Lo: b.Lo, Hi: b.Hi, MeanConf: b.MeanConf, Accuracy: b.Accuracy, Count: b.Count}
	}
	return pb, nil
}

// Reliability draws the reliability diagram of one score: accuracy per confidence bin over the count
// histogram, with the ECE in the panel.
func (r *Report) Reliability(score string) (*plot.Figure, error) {
	pb, err := r.reliabilityBins(score)
	if err != nil {
		return nil, err
	}
	f, err := plot.Reliability(fmt.Sprintf("%s: %s", r.Label, score), pb, r.ScoreColor(score))
	if err != nil {
		return nil, err
	}
	f.Subtitle = fmt.Sprintf("%s over %s (%s × %d samples)", score, unitWord(score), questionsWord(r), r.Options.K)
	return f, nil
}

// ReliabilityOf draws the reliability diagrams of several scores of the report side by side, one
// column per score (e.g. a score of your own beside lpm): the same answers, each score's ECE in its
// panel.
func (r *Report) ReliabilityOf(scores ...string) (*plot.Figure, error) {
	series := make([]plot.ReliabilitySeries, len(scores))
	units := make([]string, len(scores))
	for i, s := range scores {
		pb, err := r.reliabilityBins(s)
		if err != nil {
			return nil, err
		}
		series[i] = plot.ReliabilitySeries{Name: s, Bins: pb, Color: r.ScoreColor(s)}
		units[i] = s + " over " + unitWord(s)
	}
	f, err := plot.ReliabilityGrid(fmt.Sprintf("%s: reliability of %s", r.Label, strings.Join(scores, " and ")), series)
	if err != nil {
		return nil, err
	}
	over := strings.Join(units, "; ")
	if slices.IndexFunc(scores, func(s string) bool { return questionLevel(s) != questionLevel(scores[0]) }) < 0 {
		over = "over " + unitWord(scores[0]) // one unit for all
	}
	f.Subtitle = fmt.Sprintf("%s (%s × %d samples)", over, questionsWord(r), r.Options.K)
	return f, nil
}

// questionsWord is how many questions a report probed and where they came from, for a subtitle:
// "300 held-out questions", "40 questions of prompts.jsonl", or "20 questions" (given to Model).
func questionsWord(r *Report) string {
	switch r.Source {
	case "held_out":
		return fmt.Sprintf("%d held-out questions", len(r.Questions))
	case "", "given":
		return fmt.Sprintf("%d questions", len(r.Questions))
	}
	return fmt.Sprintf("%d questions of %s", len(r.Questions), filepath.Base(r.Source))
}

func unitWord(score string) string {
	if questionLevel(score) {
		return "each question's voted answer"
	}
	return "every sample"
}

// Coverage draws precision against coverage for each report and score (the abstention trade-off:
// answer only when the confidence is at least a threshold).
func Coverage(title string, reps []*Report, scores []string) (*plot.Figure, error) {
	var curves []plot.XYCurve
	for ri, r := range reps {
		for _, s := range scores {
			conf, ok, err := r.Answers(s)
			if err != nil {
				return nil, err
			}
			cov, prec, err := calib.PrecisionCoverage(conf, ok)
			if err != nil {
				return nil, err
			}
			cov, prec = thin(cov, prec)
			name, col := s, r.ScoreColor(s)
			if len(reps) > 1 {
				name = r.Label + " · " + s
				col = plot.Color(ri)
				if len(scores) > 1 {
					col = plot.Color(ri*len(scores) + slices.Index(scores, s))
				}
			}
			curves = append(curves, plot.XYCurve{Name: name, Color: col, X: cov, Y: prec})
		}
	}
	return plot.PrecisionCoverage(title, curves)
}

// thin reads a precision–coverage curve at coverage 0.01, 0.02, …, 1 (and its first point), so that a
// curve of thousands of answers stays a small figure.
func thin(cov, prec []float64) (x, y []float64) {
	if len(cov) <= 101 {
		return cov, prec
	}
	x, y = []float64{cov[0]}, []float64{prec[0]}
	for k := 1; k <= 100; k++ {
		c := float64(k) / 100
		if c <= cov[0] {
			continue
		}
		p, _ := calib.PrecisionAt(cov, prec, c)
		x, y = append(x, c), append(y, p)
	}
	return x, y
}

// Histograms draws, per score, the confidences of correct and of wrong answers.
func (r *Report) Histograms(scores []string) (*plot.Figure, error) {
	var panels []plot.HistPanel
	for _, s := range scores {
		conf, ok, err := r.Answers(s)
		if err != nil {
			return nil, err
		}
		var right, wrong []float64
		for i, c := range conf {
			if ok[i] {
				right = append(right, c)
			} else {
				wrong = append(wrong, c)
			}
		}
		panels = append(panels, plot.HistPanel{Title: fmt.Sprintf("%s (%d right, %d wrong)", s, len(right), len(wrong)),
			Hists: []plot.Hist{{Name: "correct", Color: plot.Color(2), Values: right}, {Name: "wrong", Color: plot.Color(3), Values: wrong}}})
	}
	f, err := plot.Histograms(r.Label+": confidence of correct and wrong answers", "confidence", 0, 1, 20, min(3, len(panels)), panels)
	if err != nil {
		return nil, err
	}
	f.Subtitle = "sample scores over every sample, vote_share and rpc over each question's voted answer"
	return f, nil
}

// Write saves the report as dir/probe.json and its figures (reliability_<score>, precision_coverage,
// confidence_hist; PNG and SVG) and returns the files written. Every file is written atomically.
func (r *Report) Write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b, err := json.Marshal(r.rounded()) // one line: k samples per question make an indented file several times larger
	if err != nil {
		return nil, err
	}
	if err := fsx.WriteFile(filepath.Join(dir, File), append(b, '\n')); err != nil {
		return nil, err
	}
	files := []string{filepath.Join(dir, File)}
	figs, err := r.Figures()
	if err != nil {
		return nil, err
	}
	for _, nf := range figs {
		paths, err := nf.Figure.Save(dir, nf.Name)
		if err != nil {
			return nil, err
		}
		files = append(files, paths...)
	}
	return files, nil
}

// rounded is a copy of the report whose per-question and per-sample values keep 6 significant
// digits (the file is half the size; the metrics were computed at full precision).
func (r *Report) rounded() *Report {
	c := *r
	c.Questions = make([]QuestionResult, len(r.Questions))
	for i, q := range r.Questions {
		q.Confidence = roundMap(q.Confidence)
		samples := make([]Sample, len(q.Samples))
		for j, s := range q.Samples {
			s.LPM, s.LogProb, s.Confidence = sig6(s.LPM), sig6(s.LogProb), roundMap(s.Confidence)
			samples[j] = s
		}
		q.Samples = samples
		c.Questions[i] = q
	}
	return &c
}

func sig6(v float64) float64 {
	x, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return x
}

func roundMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = sig6(v)
	}
	return out
}

// WriteQuiet is Write without showing the figures in a notebook.
func (r *Report) WriteQuiet(dir string) ([]string, error) {
	nb.ShowFigures(false)
	defer nb.ShowFigures(true)
	return r.Write(dir)
}

// NamedFigure is a figure with its file name (without extension).
type NamedFigure struct {
	Name   string
	Figure *plot.Figure
}

// Figures are the report's figures: a reliability diagram per score, precision–coverage of every
// score, and the confidence histograms.
func (r *Report) Figures() ([]NamedFigure, error) {
	var out []NamedFigure
	for _, s := range r.Scores {
		f, err := r.Reliability(s)
		if err != nil {
			return nil, fmt.Errorf("reliability of %s: %w", s, err)
		}
		out = append(out, NamedFigure{"reliability_" + s, f})
	}
	f, err := Coverage(r.Label+": precision against coverage", []*Report{r}, r.Scores)
	if err != nil {
		return nil, err
	}
	out = append(out, NamedFigure{"precision_coverage", f})
	if f, err = r.Histograms(r.Scores); err != nil {
		return nil, err
	}
	return append(out, NamedFigure{"confidence_hist", f}), nil
}

// Load reads a probe.json written by Write (dir or the file itself).
func Load(path string) (*Report, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, File)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Threshold is what abstaining below a confidence threshold does to a score's answers: the fraction
// answered (coverage), the accuracy of the answered (precision; NaN when none is) and their counts.
type Threshold struct {
	T                   float64
	Answered, Abstain   int
	Coverage, Precision float64
}

// AtThreshold applies an abstention threshold t to a score's answers (answer when confidence ≥ t).
func (r *Report) AtThreshold(score string, t float64) (Threshold, error) {
	conf, ok, err := r.Answers(score)
	if err != nil {
		return Threshold{}, err
	}
	th := Threshold{T: t, Precision: math.NaN()}
	hits := 0
	for i, c := range conf {
		if c >= t {
			th.Answered++
			if ok[i] {
				hits++
			}
		} else {
			th.Abstain++
		}
	}
	th.Coverage = float64(th.Answered) / float64(len(conf))
	if th.Answered > 0 {
		th.Precision = float64(hits) / float64(th.Answered)
	}
	return th, nil
}

package probe

import (
	"fmt"
	"html"
	"math"
	"os"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"
	"github.com/paperlab/paperlab/toolkit/nb"
)

// tableMetrics are the columns of the score tables.
var tableMetrics = []string{"accuracy", "auc", "ece", "mce", "brier", "aurc", "precision_at_50", "precision_at_80"}

// fmtCI writes a metric as "0.812 [0.790, 0.833]" ("–" when undefined).
func fmtCI(m *Metrics, k string) string {
	v := m.Value(k)
	if math.IsNaN(v) {
		return "–"
	}
	if ci, ok := m.CI[k]; ok {
		return fmt.Sprintf("%.3f [%.3f, %.3f]", v, ci[0], ci[1])
	}
	return fmt.Sprintf("%.3f", v)
}

// Table is the report's metrics with 95 % bootstrap intervals: a row per score, pooled (subset "")
// or within one subset.
func (r *Report) Table(subset string) (headers []string, rows [][]string) {
	headers = append([]string{"score", "unit", "n"}, tableMetrics...)
	for _, s := range r.Scores {
		m := r.Metrics[s]
		if m == nil {
			continue
		}
		if subset != "" {
			if m = m.BySubset[subset]; m == nil {
				continue
			}
		}
		row := []string{s, m.Unit, fmt.Sprint(m.N)}
		for _, k := range tableMetrics {
			row = append(row, fmtCI(m, k))
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// Compare is one score's metrics for several reports side by side (a row per report).
func Compare(reps []*Report, score, subset string) (headers []string, rows [][]string) {
	headers = append([]string{"policy", "n"}, tableMetrics...)
	for _, r := range reps {
		m := r.Metrics[score]
		if m != nil && subset != "" {
			m = m.BySubset[subset]
		}
		if m == nil {
			continue
		}
		row := []string{r.Label, fmt.Sprint(m.N)}
		for _, k := range tableMetrics {
			row = append(row, fmtCI(m, k))
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// Text is the report as plain text: what was probed and the pooled table.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d questions (%s) × %d samples, temperature %g, seed %d; 95 %% intervals from %d bootstrap resamples of the questions\n",
		r.Label, len(r.Questions), r.Source, r.Options.K, r.Options.Temperature, r.Options.Seed, max(r.Options.Boot, 0))
	h, rows := r.Table("")
	b.WriteString(nb.TableText(h, rows))
	return b.String()
}

// SubsetNames lists the report's subsets in a stable order (task subsets, then steps=…).
func (r *Report) SubsetNames() []string {
	seen := map[string]bool{}
	var names, steps []string
	for _, q := range r.Questions {
		if q.Subset != "" && !seen[q.Subset] {
			seen[q.Subset] = true
			names = append(names, q.Subset)
		}
		if k := fmt.Sprintf("steps=%d", q.Steps); q.Steps > 0 && !seen[k] {
			seen[k] = true
			steps = append(steps, k)
		}
	}
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j] < steps[j-1]; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
	return append(names, steps...)
}

// thresholdHTML is what abstaining below t means for one score: precision and coverage, and the
// first rows answered and abstained (a question's first sample for a sample score).
func (r *Report) thresholdHTML(score string, t float64, rows int) string {
	th, err := r.AtThreshold(score, t)
	if err != nil {
		return html.EscapeString(err.Error())
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<p style="font-family:monospace"><b>%s ≥ %.2f</b>: answer %d of %d (coverage %.3f), precision %.3f; abstain on %d</p>`,
		html.EscapeString(score), t, th.Answered, th.Answered+th.Abstain, th.Coverage, th.Precision, th.Abstain)
	var ans, abs [][]string
	for _, q := range r.Questions {
		answer, ok, conf := q.Answer, q.Correct, q.Confidence[score]
		switch {
		case score == "rpc":
			answer, ok = q.RPCAnswer, q.RPCCorrect
		case !questionLevel(score):
			s := q.Samples[0]
			answer, ok, conf = s.Answer, s.Correct, s.Confidence[score]
		}
		row := []string{q.Prompt, q.Gold, answer, verdict(ok), fmt.Sprintf("%.3f", conf)}
		if conf >= t {
			if len(ans) < rows {
				ans = append(ans, row)
			}
		} else if len(abs) < rows {
			abs = append(abs, row)
		}
	}
	head := []string{"prompt", "gold", "answer", "judged", "confidence"}
	fmt.Fprintf(&b, `<div style="display:flex;gap:2em"><div><b>answered</b> (first %d)%s</div><div><b>abstained</b> (first %d)%s</div></div>`,
		len(ans), nb.TableHTML(head, ans), len(abs), nb.TableHTML(head, abs))
	return b.String()
}

// ExploreTimeout is how long Explore keeps an idle slider alive before it returns (the kernel is busy
// while a cell runs).
var ExploreTimeout = 10 * time.Minute

// Explore shows, for one score, what an abstention threshold does — precision, coverage and tables of
// answered and abstained questions — with a slider (gonb widgets) that updates them live, until the
// "done" button is pressed or ExploreTimeout passes without a move; the last state stays in the
// notebook. With no front end connected (a headless run, $PAPERLAB_HEADLESS=1, or outside a
// notebook) it shows threshold t0 alone and returns at once.
func Explore(r *Report, score string, t0 float64) {
	if !nb.IsNotebook() {
		fmt.Print(stripTags(r.thresholdHTML(score, t0, 5)))
		return
	}
	slider, button, div, live := liveWidgets(int(math.Round(t0 * 100)))
	if !live {
		nb.HTML(r.thresholdHTML(score, t0, 8) + `<p><i>(no front end connected: the threshold slider needs the notebook open in Jupyter)</i></p>`)
		return
	}
	id := "probe_threshold_" + gonbui.UniqueID()
	t := t0
	gonbui.UpdateHTML(id, r.thresholdHTML(score, t, 8))
	moves := slider.Listen().LatestOnly()
	done := button.Listen()
loop:
	for {
		select {
		case v := <-moves.C:
			t = float64(v) / 100
			gonbui.UpdateHTML(id, r.thresholdHTML(score, t, 8))
		case <-done.C:
			break loop
		case <-time.After(ExploreTimeout):
			break loop
		}
	}
	gonbui.UpdateHTML(id, "")
	dom.Remove(div)
	nb.HTML(r.thresholdHTML(score, t, 8))
}

// liveWidgets builds a 0–100 slider and a done button in a transient div and reports whether a front
// end answered within a few seconds (gonb's widgets wait for the browser's first message).
func liveWidgets(v int) (*widgets.SliderBuilder, *widgets.ButtonBuilder, string, bool) {
	if os.Getenv("PAPERLAB_HEADLESS") == "1" {
		return nil, nil, "", false
	}
	type built struct {
		s *widgets.SliderBuilder
		b *widgets.ButtonBuilder
	}
	div := dom.CreateTransientDiv()
	ready := make(chan built, 1)
	go func() {
		dom.Append(div, `<span style="font-family:monospace">abstention threshold (×100): </span>`)
		s := widgets.Slider(0, 100, v).AppendTo(div).Done()
		b := widgets.Button("done").AppendTo(div).Done()
		ready <- built{s, b}
	}()
	select {
	case w := <-ready:
		return w.s, w.b, div, true
	case <-time.After(8 * time.Second):
		return nil, nil, div, false
	}
}

func verdict(ok bool) string {
	if ok {
		return "right"
	}
	return "wrong"
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, c := range s {
		switch {
		case c == '<':
			in = true
		case c == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(c)
		}
	}
	return html.UnescapeString(b.String()) + "\n"
}

// Ask samples k completions of one question from a policy and shows them with their confidences and
// the two votes; it returns the probed question.
func Ask(p *Policy, prompt, gold string, k int) (*QuestionResult, error) {
	q, err := p.Question(prompt, gold)
	if err != nil {
		return nil, err
	}
	opt := DefaultOptions()
	opt.K, opt.Boot = k, -1
	rep, err := Model(p.Model, []Question{q}, opt, &p.Prov)
	if err != nil {
		return nil, err
	}
	qr := &rep.Questions[0]
	rows := make([][]string, len(qr.Samples))
	for i, s := range qr.Samples {
		judged := verdict(s.Correct)
		if !s.Finished {
			judged = "cut off"
		}
		rows[i] = []string{fmt.Sprint(i + 1), s.Completion, s.Answer, judged, fmt.Sprintf("%.3f", s.Confidence["lpm"]),
			fmt.Sprintf("%.3f", s.Confidence["seq_logprob"]), fmt.Sprintf("%.3f", s.Confidence["min_token_prob"]), fmt.Sprintf("%.3f", s.Confidence["answer_prob"])}
	}
	nb.Markdown(fmt.Sprintf("**%s** (gold %q, %s) — %s, %d samples at temperature 1", prompt, qr.Gold, qr.Subset, p.Label, k))
	nb.Table([]string{"#", "completion", "answer", "judged", "lpm", "seq_logprob", "min_token_prob", "answer_prob"}, rows)
	nb.Markdown(fmt.Sprintf("majority vote **%q** (%s, vote share %.2f) · RPC vote **%q** (%s, mass %.3f)",
		qr.Answer, verdict(qr.Correct), qr.Confidence["vote_share"],
		qr.RPCAnswer, verdict(qr.RPCCorrect), qr.Confidence["rpc"]))
	return qr, nil
}

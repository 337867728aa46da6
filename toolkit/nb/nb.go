// Package nb holds the small notebook helpers PaperLab's gonb notebooks use: inline SVG, Markdown
// and HTML tables, and a live-updating progress line. Outside a notebook every function degrades to
// plain terminal output (or nothing, for pictures), so the same code runs from the CLI.
//
// The core packages never import nb; experiments, plots and the CLI sit on top of it.
package nb

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// IsNotebook reports whether the program runs inside a gonb kernel.
func IsNotebook() bool { return gonbui.IsNotebook }

// SVG shows an SVG document inline (notebook only); it is saved in the .ipynb.
func SVG(svg string) {
	if gonbui.IsNotebook {
		gonbui.DisplaySVG(svg)
	}
}

// Markdown shows Markdown in a notebook, or prints it to stdout elsewhere.
func Markdown(md string) {
	if gonbui.IsNotebook {
		gonbui.DisplayMarkdown(md)
		return
	}
	fmt.Println(md)
}

// HTML shows HTML in a notebook (and nothing elsewhere).
func HTML(s string) {
	if gonbui.IsNotebook {
		gonbui.DisplayHTML(s)
	}
}

// Table shows a table: HTML in a notebook, aligned text elsewhere.
func Table(headers []string, rows [][]string) {
	if gonbui.IsNotebook {
		gonbui.DisplayHTML(TableHTML(headers, rows))
		return
	}
	fmt.Print(TableText(headers, rows))
}

// TableHTML renders a table as HTML, escaping cells.
func TableHTML(headers []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<table style="font-family:monospace"><tr>`)
	for _, h := range headers {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// TableText renders a table as aligned plain text.
func TableText(headers []string, rows [][]string) string {
	w := make([]int, len(headers))
	all := append([][]string{headers}, rows...)
	for _, r := range all {
		for i, c := range r {
			if i < len(w) && len([]rune(c)) > w[i] {
				w[i] = len([]rune(c))
			}
		}
	}
	var b strings.Builder
	for k, r := range all {
		for i, c := range r {
			if i < len(w) {
				fmt.Fprintf(&b, "%-*s  ", w[i], c)
			}
		}
		b.WriteString("\n")
		if k == 0 {
			for i := range w {
				b.WriteString(strings.Repeat("-", w[i]) + "  ")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Sync waits until everything sent to the notebook is displayed; call it at the end of a cell
// (one PNG in 8 headless runs went missing without it). No-op outside a notebook.
func Sync() { gonbui.Sync() }

// Progress reports the progress of a long run: a single updating line in a notebook, and lines on
// a writer (stderr by default) at most every Interval elsewhere.
type Progress struct {
	Label    string
	Total    int
	Interval time.Duration
	Out      io.Writer

	mu    sync.Mutex
	id    string
	start time.Time
	last  time.Time
}

// NewProgress starts a progress report for total units of work.
func NewProgress(label string, total int) *Progress {
	p := &Progress{Label: label, Total: total, Interval: 2 * time.Second, Out: os.Stderr, start: time.Now()}
	if gonbui.IsNotebook {
		p.id = "progress_" + gonbui.UniqueId()
	}
	return p
}

// Update reports that done units are finished, with an optional status text (e.g. current metrics).
func (p *Progress) Update(done int, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done < p.Total && now.Sub(p.last) < p.Interval && p.id == "" {
		return
	}
	if p.id != "" && done < p.Total && now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	line := p.line(done, status, now)
	if p.id != "" {
		gonbui.UpdateHTML(p.id, "<pre>"+html.EscapeString(line)+"</pre>")
		return
	}
	if p.Out != nil {
		fmt.Fprintln(p.Out, line)
	}
}

func (p *Progress) line(done int, status string, now time.Time) string {
	el := now.Sub(p.start)
	eta := ""
	if done > 0 && done < p.Total {
		eta = fmt.Sprintf(", eta %s", (el * time.Duration(p.Total-done) / time.Duration(done)).Round(time.Second))
	}
	s := fmt.Sprintf("%s %d/%d (%s%s)", p.Label, done, p.Total, el.Round(100*time.Millisecond), eta)
	if status != "" {
		s += " " + status
	}
	return s
}

// Done reports completion (always shown).
func (p *Progress) Done(status string) {
	p.mu.Lock()
	p.last = time.Time{}
	p.mu.Unlock()
	p.Update(p.Total, status)
}

// Package nb holds the small notebook helpers PaperLab's gonb notebooks use: figures as MIME
// bundles (PNG + SVG, never HTML, so they render in untrusted notebooks), animations, Markdown
// and HTML tables, and a live-updating progress line. Outside a notebook every function degrades to
// plain terminal output (or nothing, for pictures), so the same code runs from the CLI.
//
// The core packages never import nb; experiments, plots and the CLI sit on top of it.
package nb

import (
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// IsNotebook reports whether the program runs inside a gonb kernel.
func IsNotebook() bool { return gonbui.IsNotebook }

// FigureWidth is the width, in CSS pixels, at which notebooks show a figure (its PNG carries
// more pixels than that, so it stays sharp on high-density screens).
const FigureWidth = 720

// FigureBundle is the MIME bundle of a figure: PNG, which every Jupyter front end renders even in
// an untrusted notebook (a notebook is trusted only on the machine that executed it), SVG, which a
// front end shows instead where it is allowed to, and a plain-text title for terminals and screen
// readers. No HTML: untrusted HTML is sanitised, and an SVG inside it is shown as garbled text.
func FigureBundle(title string, png []byte, svg string, width int) *protocol.DisplayData {
	d := &protocol.DisplayData{Data: map[protocol.MIMEType]any{
		protocol.MIMETextPlain: "<figure: " + title + ">",
	}}
	if len(png) > 0 {
		d.Data[protocol.MIMEImagePNG] = png
		d.Metadata = map[string]any{string(protocol.MIMEImagePNG): map[string]int{"width": width}}
	}
	if svg != "" {
		d.Data[protocol.MIMEImageSVG] = svg
	}
	return d
}

var hideFigures atomic.Bool

// ShowFigures turns the display of figures and animations in this cell on or off (on by default;
// gonb runs each cell as its own program, so the setting lasts one cell). Files are still written.
func ShowFigures(on bool) { hideFigures.Store(!on) }

// FiguresShown reports whether figures and animations are shown in this cell (ShowFigures).
func FiguresShown() bool { return !hideFigures.Load() }

// Figure shows a figure (see FigureBundle) in a notebook; it is saved in the .ipynb. No-op elsewhere
// and after ShowFigures(false).
func Figure(title string, png []byte, svg string) {
	if gonbui.IsNotebook && !hideFigures.Load() {
		gonbui.SendData(FigureBundle(title, png, svg, FigureWidth))
	}
}

// MIMEImageGIF is the MIME type of an animated GIF.
const MIMEImageGIF protocol.MIMEType = "image/gif"

// AnimationBundle is the MIME bundle of an animated GIF: image/gif for front ends that render it
// (JupyterLab, VS Code), an <img> with a data URI for the classic notebook, which has no GIF
// renderer but keeps data-URI images when it sanitises untrusted HTML (no script, no style, no SVG),
// a PNG poster frame, and a plain-text caption.
func AnimationBundle(caption string, gif, poster []byte, width int) *protocol.DisplayData {
	b64 := base64.StdEncoding.EncodeToString(gif)
	d := &protocol.DisplayData{Data: map[protocol.MIMEType]any{
		MIMEImageGIF:           gif,
		protocol.MIMETextHTML:  fmt.Sprintf(`<img src="data:image/gif;base64,%s" width="%d" alt="%s"/>`, b64, width, html.EscapeString(caption)),
		protocol.MIMETextPlain: "<animation: " + caption + ">",
	}, Metadata: map[string]any{string(MIMEImageGIF): map[string]int{"width": width}}}
	if len(poster) > 0 {
		d.Data[protocol.MIMEImagePNG] = poster
		d.Metadata[string(protocol.MIMEImagePNG)] = map[string]int{"width": width}
	}
	return d
}

// Animation shows an animated GIF (see AnimationBundle) at width CSS pixels. No-op outside a notebook.
func Animation(caption string, gif, poster []byte, width int) {
	if gonbui.IsNotebook && !hideFigures.Load() {
		gonbui.SendData(AnimationBundle(caption, gif, poster, width))
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

package nb

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// LiveFigure is a figure redrawn in place while a run goes on. In a notebook it is one output block
// updated by display id (gonb's transient display data); Done replaces it with the final figure as
// an ordinary output, the one saved in the .ipynb. Elsewhere (a terminal, a test) each update is one
// status line on Out, at most every Interval.
type LiveFigure struct {
	// Interval is the least time between two redraws (notebook) or two lines (terminal).
	Interval time.Duration
	Out      io.Writer

	mu   sync.Mutex
	id   string
	last time.Time
}

// NewLiveFigure starts a live figure (nothing is shown before the first Update).
func NewLiveFigure() *LiveFigure {
	l := &LiveFigure{Interval: time.Second, Out: os.Stderr}
	if gonbui.IsNotebook {
		l.id = "live_" + gonbui.UniqueId()
	}
	return l
}

// Live reports whether updates redraw a figure (inside a notebook, figures shown) rather than print
// lines; callers can skip rendering when it is false.
func (l *LiveFigure) Live() bool { return l.id != "" && FiguresShown() }

// Due reports whether an update now would be shown (Interval has passed since the last one), so
// that callers render only the frames that will be seen.
func (l *LiveFigure) Due() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Since(l.last) >= l.Interval
}

// Update redraws the figure from a PNG (notebook) or prints status (terminal).
func (l *LiveFigure) Update(png []byte, status string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = time.Now()
	if l.Live() {
		gonbui.UpdateHTML(l.id, fmt.Sprintf(`<img src="data:image/png;base64,%s" style="width:%dpx;max-width:100%%"/>`,
			base64.StdEncoding.EncodeToString(png), FigureWidth))
		return
	}
	if l.Out != nil && status != "" {
		fmt.Fprintln(l.Out, status)
	}
}

// Done removes the live block and shows the final figure as an ordinary output (Figure), so that the
// saved notebook holds it once.
func (l *LiveFigure) Done(title string, png []byte, svg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.id != "" {
		gonbui.UpdateHTML(l.id, "")
	}
	Figure(title, png, svg)
}

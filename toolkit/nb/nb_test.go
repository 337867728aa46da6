package nb

import (
	"bytes"
	"strings"
	"testing"
)

func TestTables(t *testing.T) {
	txt := TableText([]string{"a", "long header"}, [][]string{{"xyz", "1"}})
	if !strings.Contains(txt, "a    long header") || !strings.Contains(txt, "xyz  1") {
		t.Fatalf("text table:\n%s", txt)
	}
	if h := TableHTML([]string{"<b>"}, [][]string{{"&"}}); !strings.Contains(h, "&lt;b&gt;") || !strings.Contains(h, "&amp;") {
		t.Fatalf("HTML table does not escape: %s", h)
	}
}

func TestProgressOutsideNotebook(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress("train", 10)
	p.Out = &buf
	p.Update(1, "loss 1.0")
	p.Update(2, "loss 0.9") // within the interval: suppressed
	p.Done("loss 0.1")
	out := buf.String()
	if !strings.Contains(out, "train 1/10") || strings.Contains(out, "train 2/10") || !strings.Contains(out, "train 10/10") || !strings.Contains(out, "loss 0.1") {
		t.Fatalf("progress output:\n%s", out)
	}
}

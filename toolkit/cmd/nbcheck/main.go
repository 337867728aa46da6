// Command nbcheck reads executed notebooks and fails if any cell produced an error output or
// printed a Go panic, printing the cell and the error. `make test` runs it after nbconvert as a
// second check (nbconvert already stops at the first failing cell).
//
//	nbcheck executed.ipynb…
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type notebook struct {
	Cells []struct {
		CellType string          `json:"cell_type"`
		Source   json.RawMessage `json:"source"`
		Outputs  []struct {
			OutputType string          `json:"output_type"`
			Name       string          `json:"name"`
			Text       json.RawMessage `json:"text"`
			EName      string          `json:"ename"`
			EValue     string          `json:"evalue"`
		} `json:"outputs"`
	} `json:"cells"`
}

// text accepts nbformat's string-or-list-of-strings.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var l []string
	_ = json.Unmarshal(raw, &l)
	return strings.Join(l, "")
}

func check(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return []string{err.Error()}
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return []string{fmt.Sprintf("%s: not a notebook: %v", path, err)}
	}
	var problems []string
	code := 0
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		code++
		src := strings.TrimSpace(text(c.Source))
		if len(src) > 80 {
			src = src[:80] + "…"
		}
		for _, o := range c.Outputs {
			switch {
			case o.OutputType == "error":
				problems = append(problems, fmt.Sprintf("%s: code cell %d (%q): %s: %s", path, code, src, o.EName, o.EValue))
			case o.OutputType == "stream" && strings.Contains(text(o.Text), "panic: "):
				problems = append(problems, fmt.Sprintf("%s: code cell %d (%q) panicked: %s", path, code, src, text(o.Text)))
			}
		}
	}
	if code == 0 {
		problems = append(problems, fmt.Sprintf("%s: no code cells", path))
	}
	return problems
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nbcheck executed.ipynb…")
		os.Exit(2)
	}
	failed := false
	for _, p := range os.Args[1:] {
		for _, msg := range check(p) {
			fmt.Fprintln(os.Stderr, "nbcheck:", msg)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// Command nbcheck reads executed notebooks and fails if any cell produced an error output or
// printed a Go panic, printing the cell and the error, or if a notebook breaks its code budget
// (budget.go: no hand-written `err != nil`, a paper notebook within 40 lines of code). `make test` runs it after nbconvert as a
// second check (nbconvert already stops at the first failing cell).
//
//	nbcheck executed.ipynb…
//	nbcheck -dom page.html notebook.ipynb
//
// With -dom it compares the figures a notebook holds with the figures a browser rendered: page.html
// is the DOM that headless Chromium dumped after loading the notebook in Jupyter (scripts/browser.sh),
// and every figure output of the .ipynb must appear in it as an <svg> or a data-URI <img> inside an
// output area. A shortfall fails with the notebook's name and both counts.
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
			OutputType string                     `json:"output_type"`
			Data       map[string]json.RawMessage `json:"data"`
			Name       string                     `json:"name"`
			Text       json.RawMessage            `json:"text"`
			EName      string                     `json:"ename"`
			EValue     string                     `json:"evalue"`
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
	problems := append(budgetProblems(path, nb), sectionProblems(path, nb)...)
	code, withOutput := 0, 0
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		code++
		if len(c.Outputs) > 0 {
			withOutput++
		}
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
	} else if withOutput == 0 {
		// A notebook whose cells never ran (or whose outputs were stripped) shows nothing to a reader;
		// cells that only declare (a task, a helper) may be silent, but not all of them.
		problems = append(problems, fmt.Sprintf("%s: none of its %d code cells has an output (not executed?)", path, code))
	}
	return problems
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-dom" {
		if msg := checkDOM(os.Args[2], os.Args[3]); msg != "" {
			fmt.Fprintln(os.Stderr, "nbcheck:", msg)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nbcheck executed.ipynb… | nbcheck -dom page.html notebook.ipynb")
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

// figureOutputs counts the outputs of a notebook that are figures: an image MIME type, or HTML
// that carries an <svg> or an <img> (what a browser must render as a picture).
func figureOutputs(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return 0, fmt.Errorf("%s: not a notebook: %v", path, err)
	}
	n := 0
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if isFigure(o.Data) {
				n++
			}
		}
	}
	return n, nil
}

func isFigure(data map[string]json.RawMessage) bool {
	for _, t := range []string{"image/png", "image/svg+xml", "image/gif", "image/jpeg"} {
		if _, ok := data[t]; ok {
			return true
		}
	}
	if h, ok := data["text/html"]; ok {
		s := text(h)
		return strings.Contains(s, "<svg") || strings.Contains(s, "<img")
	}
	return false
}

// renderedFigures counts the output areas of a dumped notebook page (classic Jupyter Notebook's
// DOM: one div class="output_area" per output) that hold a rendered picture: an <svg> element
// or an <img> whose source is a data URI. Each area is read up to the next output area or cell.
func renderedFigures(dom string) int {
	const area = `class="output_area"`
	n := 0
	for rest := dom; ; {
		i := strings.Index(rest, area)
		if i < 0 {
			return n
		}
		rest = rest[i+len(area):]
		end := len(rest)
		for _, stop := range []string{area, `class="cell `} {
			if j := strings.Index(rest, stop); j >= 0 && j < end {
				end = j
			}
		}
		seg := rest[:end]
		if strings.Contains(seg, "<svg") || strings.Contains(seg, `<img src="data:image/`) {
			n++
		}
	}
}

// checkDOM returns "" when every figure of the notebook rendered in the dumped page.
func checkDOM(domPath, nbPath string) string {
	want, err := figureOutputs(nbPath)
	if err != nil {
		return err.Error()
	}
	dom, err := os.ReadFile(domPath)
	if err != nil {
		return err.Error()
	}
	if !strings.Contains(string(dom), `id="notebook"`) {
		return fmt.Sprintf("%s: %s is not a loaded notebook page", nbPath, domPath)
	}
	got := renderedFigures(string(dom))
	if got < want {
		return fmt.Sprintf("%s: %d of %d figures rendered in the browser", nbPath, got, want)
	}
	fmt.Printf("  %s: %d of %d figures rendered\n", nbPath, got, want)
	return ""
}

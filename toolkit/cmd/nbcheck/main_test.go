package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check fails an error output, a printed panic, and a notebook none of whose code cells has an output;
// an executed notebook with a silent declaration cell passes.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, cells string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"cells": [`+cells+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	silent := `{"cell_type": "code", "source": "var x = 1", "outputs": []}`
	printed := `{"cell_type": "code", "source": "%%\nfmt.Println(x)", "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}`
	for _, c := range []struct {
		name, cells, want string
	}{
		{"ok.ipynb", silent + "," + printed, ""},
		{"unexecuted.ipynb", silent + "," + strings.Replace(printed, `[{"output_type": "stream", "name": "stdout", "text": "1\n"}]`, "[]", 1), "none of its 2 code cells has an output"},
		{"error.ipynb", `{"cell_type": "code", "source": "x", "outputs": [{"output_type": "error", "ename": "E", "evalue": "boom"}]}`, "E: boom"},
		{"panic.ipynb", `{"cell_type": "code", "source": "x", "outputs": [{"output_type": "stream", "text": "panic: oops"}]}`, "panicked"},
		{"markdown.ipynb", `{"cell_type": "markdown", "source": "# hi"}`, "no code cells"},
		// The code budget is part of check: a section of notebook 03 over it fails, naming its cells.
		{"03_build_your_own.ipynb", printed + `,{"cell_type": "markdown", "source": "## 1. Task"},` + strings.Replace(printed, `%%\nfmt.Println(x)`, strings.Repeat(`x()\n`, 31), 1), `section "1. Task" (code cell 2) has 31 lines`},
	} {
		got := strings.Join(check(write(c.name, c.cells)), "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The code budgets: `if err != nil` anywhere fails naming the cell; a section of the build-your-own
// notebook over SectionBudget lines fails naming the section; a paper notebook over PaperBudget
// lines beyond its setup cell fails; blank lines do not count, and the setup cell is free.
func TestBudget(t *testing.T) {
	cell := func(kind, src string) string {
		b, _ := json.Marshal(src)
		return `{"cell_type": "` + kind + `", "source": ` + string(b) + `}`
	}
	lines := func(n int) string { return strings.Repeat("x()\n\n", n) }
	nbOf := func(cells ...string) notebook {
		var nb notebook
		if err := json.Unmarshal([]byte(`{"cells": [`+strings.Join(cells, ",")+`]}`), &nb); err != nil {
			t.Fatal(err)
		}
		return nb
	}
	setup := cell("code", lines(50))
	for _, c := range []struct {
		path string
		nb   notebook
		want string
	}{
		{"03_build_your_own.ipynb", nbOf(setup, cell("markdown", "## 1. Task"), cell("code", lines(20)), cell("code", lines(10)), cell("markdown", "## 2. DPO"), cell("code", lines(30))), ""},
		{"03_build_your_own.ipynb", nbOf(setup, cell("markdown", "## 1. Task"), cell("code", lines(20)), cell("markdown", "no heading"), cell("code", lines(11))), `section "1. Task" (code cells 2, 3) has 31 lines`},
		{"10_capo.ipynb", nbOf(setup, cell("code", lines(25)), cell("code", lines(15))), ""},
		{"10_capo.ipynb", nbOf(setup, cell("code", lines(25)), cell("code", lines(16))), "41 lines of code beyond the setup cell"},
		{"02_calibration_probe.ipynb", nbOf(setup, cell("code", lines(90))), ""},
		{"02_calibration_probe.ipynb", nbOf(setup, cell("code", "v, err := f()\nif err != nil {\n\tpanic(err)\n}")), "code cell 2 checks `err != nil` by hand"},
	} {
		got := strings.Join(append(budgetProblems(c.path, c.nb), sectionProblems(c.path, c.nb)...), "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}
}

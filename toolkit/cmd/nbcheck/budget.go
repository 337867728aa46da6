package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Code budgets: a notebook is thin glue over toolkit functions that the CLI and tests
// also call, so its code stays short and reads errors the GoMLX way (must.M, must.M1).
const (
	// SectionBudget is the most lines of code a section of the build-your-own notebook may hold
	// (a section runs from a markdown cell with a heading to the next such cell; the setup cell, the
	// first code cell, is free).
	SectionBudget = 30
	// PaperBudget is the most lines of code a paper notebook (NN_… with NN ≥ 10) may hold in all
	// its code cells but the first (the setup cell).
	PaperBudget = 40
	// buildYourOwn is the notebook meant for editing.
	buildYourOwn = "03_build_your_own"
)

// linesOfCode counts the non-blank lines of a cell's source.
func linesOfCode(src string) int {
	n := 0
	for _, l := range strings.Split(src, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// heading is the first markdown heading of a cell's source ("" for none).
func heading(src string) string {
	for _, l := range strings.Split(src, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") {
			return strings.TrimSpace(strings.TrimLeft(t, "#"))
		}
	}
	return ""
}

// budgetProblems checks the notebook at path (named by its file name: an executed copy keeps it):
// no code cell checks `err != nil` by hand, and a paper notebook stays within PaperBudget lines of
// code beyond its setup cell. Each problem names the cell or the count.
func budgetProblems(path string, nb notebook) []string {
	name := strings.TrimSuffix(filepath.Base(path), ".ipynb")
	var problems []string
	code, lines := 0, 0
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		code++
		src := text(c.Source)
		if strings.Contains(src, "err != nil") {
			problems = append(problems, fmt.Sprintf("%s: code cell %d checks `err != nil` by hand: use must.M / must.M1 (github.com/janpfeifer/must) in notebook glue", path, code))
		}
		if code > 1 { // the setup cell is free
			lines += linesOfCode(src)
		}
	}
	if num, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0]); err == nil && num >= 10 && lines > PaperBudget {
		problems = append(problems, fmt.Sprintf("%s: %d lines of code beyond the setup cell, the budget of a paper notebook is %d", path, lines, PaperBudget))
	}
	return problems
}

// sectionProblems checks that every section of the build-your-own notebook holds at most
// SectionBudget lines of code, naming the sections over it; other notebooks have none.
func sectionProblems(path string, nb notebook) []string {
	if strings.TrimSuffix(filepath.Base(path), ".ipynb") != buildYourOwn {
		return nil
	}
	var problems []string
	code, section, lines := 0, "(before the first heading)", 0
	var cells []string // the section's code cells, by number
	closeSection := func() {
		if lines > SectionBudget {
			word := "code cell"
			if len(cells) > 1 {
				word = "code cells"
			}
			problems = append(problems, fmt.Sprintf("%s: section %q (%s %s) has %d lines of code, the budget is %d", path, section, word, strings.Join(cells, ", "), lines, SectionBudget))
		}
	}
	for _, c := range nb.Cells {
		src := text(c.Source)
		switch c.CellType {
		case "markdown":
			if h := heading(src); h != "" {
				closeSection()
				section, lines, cells = h, 0, nil
			}
		case "code":
			if code++; code > 1 {
				lines += linesOfCode(src)
				cells = append(cells, strconv.Itoa(code))
			}
		}
	}
	closeSection()
	return problems
}

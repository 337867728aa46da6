package doccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/repo"
)

// binary are the tracked files' extensions that hold no text to read.
var binary = map[string]bool{".png": true, ".gif": true, ".f32": true, ".gz": true, ".svg": true}

// userFacing says whether a tracked file is text a user reads (and so names no issue): Markdown,
// notebooks and committed results. Go sources are checked on their string literals (GoStrings).
func userFacing(rel string) bool {
	switch filepath.Ext(rel) {
	case ".md", ".ipynb":
		return true
	case ".json":
		return strings.HasPrefix(rel, "figures/")
	}
	return false
}

func tracked(t *testing.T) (string, []string) {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files", len(files))
	}
	return root, files
}

// Check runs every check on the files (paths relative to root) and returns what it found.
func check(t *testing.T, root string, files []string) []Finding {
	t.Helper()
	var found []Finding
	for _, rel := range files {
		if binary[filepath.Ext(rel)] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		found = append(found, Lines(rel, text, PrivatePaths, "path outside the repository")...)
		if userFacing(rel) {
			found = append(found, Lines(rel, text, IssueRefs, "issue reference")...)
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			found = append(found, GoStrings(rel, b)...)
		}
		if strings.HasSuffix(rel, ".md") {
			f, err := CheckLinks(root, rel)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, f...)
		}
	}
	return found
}

// No tracked file names a path outside the repository; no Markdown, notebook, committed result or Go
// string literal names an issue; every relative Markdown link resolves.
func TestRepositorySpeaksToReaders(t *testing.T) {
	root, files := tracked(t)
	for _, f := range check(t, root, files) {
		t.Error(f)
	}
}

// The checks catch what they are for: a planted issue number (in Markdown, a notebook, a result and
// a Go string, not a Go comment), a path to the project's private notes, a link to a missing file
// and to a missing heading — and pass the same files once fixed.
func TestPlantedProblemsAreFound(t *testing.T) {
	root := t.TempDir()
	shared := "../" + "shared/" + "papers/README.md" // split so this file does not match itself
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n\n## Results so far\n\nSee [the capo README](toolkit/capo/README.md#sources) and [gone](missing.md).\n"+
		"A [bad anchor](toolkit/capo/README.md#no-such-heading) and [this file](#results-so-far).\n"+
		"Rerun with the fair protocol of issue "+"12.\n`[not a link](nowhere.md)`\n")
	write("toolkit/capo/README.md", "# CAPO\n\n## Sources\n- **[C1]** the note in "+shared+"\n")
	write("notebooks/10.ipynb", `{"cells": [{"source": ["as Issue #`+`33 asks"]}]}`)
	write("figures/capo/metrics.json", `{"why": "needs ≥ 0.15 (`+`issue `+`35)"}`)
	write("toolkit/capo/claims.go", "package capo\n\n// Since "+"issue "+"36 a comment may say this (the code issue cleans comments).\nvar why = \"a follow-up "+"issue changes it\"\n")
	files := []string{"README.md", "toolkit/capo/README.md", "notebooks/10.ipynb", "figures/capo/metrics.json", "toolkit/capo/claims.go"}
	found := check(t, root, files)
	want := []string{
		`README.md:7: issue reference "issue ` + `12"`,
		`README.md:5: link "missing.md": no such file`,
		`README.md:6: link "toolkit/capo/README.md#no-such-heading": no heading with anchor #no-such-heading`,
		`toolkit/capo/README.md:4: path outside the repository "../` + `shared"`,
		`notebooks/10.ipynb:1: issue reference "Issue #33"`,
		`figures/capo/metrics.json:1: issue reference "issue ` + `35"`,
		`toolkit/capo/claims.go:4: issue reference "follow-up issue" in a string`,
	}
	var got []string
	for _, f := range found {
		got = append(got, f.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Fixed, the same files pass.
	write("README.md", "# Top\n\n## Results so far\n\nSee [the capo README](toolkit/capo/README.md#sources) and [this file](#results-so-far).\n")
	write("toolkit/capo/README.md", "# CAPO\n\n## Sources\n- **[C1]** a paper note (secondary): https://example.org/note\n")
	write("notebooks/10.ipynb", `{"cells": [{"source": ["as the protocol of 2026-12-03 asks"]}]}`)
	write("figures/capo/metrics.json", `{"why": "needs ≥ 0.15"}`)
	write("toolkit/capo/claims.go", "package capo\n\nvar why = \"changed on 2026-12-05: the gate reads the lower end\"\n")
	if found := check(t, root, files); len(found) > 0 {
		t.Fatalf("fixed files still flagged: %v", found)
	}
}

// GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered.
func TestAnchors(t *testing.T) {
	a := Anchors("# PaperLab\n## Reproducibility — bench/repro.sh\n## Verdicts on the papers' headline claims\n## GPU\n## GPU\n```\n# not a heading\n```\n")
	for _, k := range []string{"paperlab", "reproducibility--benchreprosh", "verdicts-on-the-papers-headline-claims", "gpu", "gpu-1"} {
		if !a[k] {
			t.Errorf("anchor %q missing from %v", k, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a line in a code block became a heading")
	}
}

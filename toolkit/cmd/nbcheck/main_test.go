package main

import (
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
	} {
		got := strings.Join(check(write(c.name, c.cells)), "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

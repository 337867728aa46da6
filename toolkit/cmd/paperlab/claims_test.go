package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// `paperlab claims -json` and `paperlab settings -json` print the machine-readable forms of the
// issue for every experiment with a committed result; bad input names the experiment or the file.
func TestClaimsAndSettingsJSON(t *testing.T) {
	for _, e := range exp.List() {
		dir, err := exp.OutDir(e.Name, exp.Default)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, exp.MetricsFile)); err != nil {
			continue
		}
		var out bytes.Buffer
		if err := claims([]string{"-json", e.Name}, &out); err != nil {
			t.Fatalf("claims -json %s: %v", e.Name, err)
		}
		var j struct {
			Experiment string
			Room       []map[string]any
			Claims     []map[string]any
		}
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatalf("claims -json %s: %v\n%s", e.Name, err, out.String())
		}
		if j.Experiment != e.Name || (e.Claims != nil && len(j.Claims) == 0) {
			t.Errorf("claims -json %s: experiment %q, %d claims", e.Name, j.Experiment, len(j.Claims))
		}
		for _, c := range j.Claims {
			v, _ := c["verdict"].(string)
			// A claim whose room check failed must never read "does not hold".
			if failed, _ := c["room_failed"].([]any); len(failed) > 0 && v != exp.Untestable {
				t.Errorf("%s: claim %q fails room %v but reads %q", e.Name, c["claim"], failed, v)
			}
		}
		out.Reset()
		if err := claims([]string{e.Name}, &out); err != nil || !strings.Contains(out.String(), "room checks") {
			t.Errorf("claims %s: %v\n%s", e.Name, err, out.String())
		}
		out.Reset()
		if err := settings([]string{"-json", e.Name}, &out); err != nil {
			t.Fatalf("settings -json %s: %v", e.Name, err)
		}
		var rows []map[string]any
		if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) == 0 {
			t.Fatalf("settings -json %s: %v (%d rows)", e.Name, err, len(rows))
		}
		for _, k := range []string{"field", "ours", "paper", "source", "differs", "why"} {
			if _, ok := rows[0][k]; !ok {
				t.Errorf("settings -json %s: no %q in %v", e.Name, k, rows[0])
			}
		}
	}
	var out bytes.Buffer
	if err := claims([]string{"nosuch"}, &out); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown experiment: %v", err)
	}
	if err := settings([]string{"nosuch"}, &out); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("settings of an unknown experiment: %v", err)
	}
	// A metrics.json without the result's fields is an error naming the file.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, exp.MetricsFile), []byte(`{"experiment": "tour", "scale": "default", "seeds": [1]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := claims([]string{"-in", dir, "tour"}, &out)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, exp.MetricsFile)) || !strings.Contains(err.Error(), "runs") {
		t.Errorf("metrics.json without runs: %v", err)
	}
	// A result of another experiment is refused, naming both.
	tourDir, _ := exp.OutDir("tour", exp.Default)
	if err := claims([]string{"-in", tourDir, "capo"}, &out); err == nil || !strings.Contains(err.Error(), `"tour"`) {
		t.Errorf("a tour result read as capo: %v", err)
	}
}

// README's "deviations from the paper" block is the one the settings tables generate.
func TestReadmeDeviationsAreGenerated(t *testing.T) {
	b := readme(t)
	block, err := exp.DeviationsMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), block) {
		t.Errorf("README.md's deviations block differs from the settings tables: run `go run ./toolkit/cmd/paperlab settings -readme`")
	}
}

// readme is the checkout's README.md.
func readme(t *testing.T) []byte {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

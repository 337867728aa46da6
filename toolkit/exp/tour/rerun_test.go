package tour

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// A notebook that trains again over a stored result (PAPERLAB_RERUN=1) shows the new run against the
// stored one instead of silently replacing it: same engine and CPU here, so every metric agrees and
// every seed is bit-identical. Without PAPERLAB_RERUN the stored result is loaded, no comparison.
func TestRerunIsComparedWithTheStoredResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tour")
	var log strings.Builder
	opt := exp.Options{Scale: exp.Smoke, Out: dir, Log: &log}
	if _, err := exp.RunOrLoad("tour", opt); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "your run vs stored") {
		t.Fatal("a first run compared with nothing")
	}
	log.Reset()
	t.Setenv("PAPERLAB_RERUN", "1")
	res, err := exp.RunOrLoad("tour", opt)
	if err != nil {
		t.Fatal(err)
	}
	out := log.String()
	if !strings.Contains(out, "your run vs stored") || !strings.Contains(out, " 0 of ") || !strings.Contains(out, "every seed should be bit-identical") {
		t.Fatalf("log:\n%s", out)
	}
	n := 0
	for _, m := range res.Methods() {
		n += len(res.Summary[m])
	}
	if strings.Count(out, "agree ") != n || strings.Count(out, fmt.Sprintf(" %d/%d ", len(res.Seeds), len(res.Seeds))) != n {
		t.Fatalf("want %d agreeing rows with every seed identical:\n%s", n, out)
	}
}

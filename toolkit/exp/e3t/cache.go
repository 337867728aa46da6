package e3t

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// A job cache (exp.Options.Cache) keeps every finished training of a run in <Cache>/<key>/
// (policy/, result.json, and with workers job.json and log.txt), so that a run that was stopped —
// or a run with methods added — trains only the jobs it does not find. The key is a hash of what
// decides the result: the job's configuration and seed (not its name), the keys of the jobs it
// needs (FCP's population), the content of its monitor partner, the engine and this machine's CPU
// (another CPU is another draw), and the Go source of every package training depends on
// (TrainingSources), so that a changed training loop never reuses an old agent.

// TrainingSources are the folders (relative to the checkout) whose Go files decide a training's
// result — exactly the packages marl/e3t and marl/fcp import from this module (a test checks the list
// against `go list -deps`; a folder ending in "/..." would include its sub-folders) — and go.mod /
// go.sum (the engine versions). Editing another package (marl/tape, say) keeps the cache valid.
var TrainingSources = []string{
	"toolkit/marl/e3t", "toolkit/marl/fcp", "toolkit/marl/ac", "toolkit/marl/env", "toolkit/marl/env/overcooked",
	"toolkit/backend", "toolkit/dist", "toolkit/fsx", "toolkit/nn", "toolkit/registry",
	"toolkit/repo", "toolkit/stats", "toolkit/track", "toolkit/plot/anim", "go.mod", "go.sum",
}

// cacheSalt hashes the training sources, the engine and the CPU.
func cacheSalt() (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	config, _ := backend.Choose()
	fmt.Fprintf(h, "engine %s\ncpu %s\n", config, backend.CPU())
	for _, src := range TrainingSources {
		dir, recursive := strings.CutSuffix(src, "/...")
		var files []string
		base := filepath.Join(root, dir)
		if st, err := os.Stat(base); err == nil && !st.IsDir() {
			files = []string{base}
		} else if err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && p != base && !recursive:
				return filepath.SkipDir
			case !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
				files = append(files, p)
			}
			return nil
		}); err != nil {
			return "", fmt.Errorf("job cache: training sources: %w", err)
		}
		slices.Sort(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return "", fmt.Errorf("job cache: %w", err)
			}
			rel, _ := filepath.Rel(root, f)
			fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// jobKey is the cache key of job given the keys of its population and of its monitor's content.
func jobKey(salt string, job Job, popKeys []string, monitorKey string) (string, error) {
	job.ID, job.Dir, job.PopulationDirs = "", "", nil
	job.Population, job.MonitorDir = popKeys, monitorKey
	b, err := json.Marshal(job)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(salt+"\n"), b...))
	return hex.EncodeToString(sum[:16]), nil
}

// hashDir hashes the regular files under dir (names and contents, in walk order).
func hashDir(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// cached reports whether dir holds a finished job (result.json is written last).
func cached(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "result.json"))
	return err == nil
}

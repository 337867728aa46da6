package e3t

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// A job cache (exp.Options.Cache) keeps every finished training of a run in <Cache>/<key>/
// (policy/, result.json, and with workers job.json and log.txt), so that a run that was stopped —
// or a run with methods added — trains only the jobs it does not find. The key is a hash of what
// decides the result: the job's configuration and seed (not its name), the keys of the jobs it
// needs (FCP's population), the content of its monitor partner, the engine (its configuration and,
// for ONNX Runtime, the library's content), the Go toolchain, this machine's CPU (another CPU is
// another draw) and the Go source of every package training depends on (TrainingSources), so that a
// changed training loop never reuses an old agent. A binary older than one of those sources is
// refused (its code may not be the one on disk), and one run at a time holds a cache folder (a lock
// file naming its process).

// TrainingSources are the files and folders (relative to the checkout) whose Go files decide a
// training's result: the packages marl/e3t and marl/fcp import from this module (a test checks the
// list against `go list -deps`; a folder ending in "/..." would include its sub-folders), this
// package's jobs.go (how a job trains: train, population, snapshots, snapshotPolicy) and go.mod /
// go.sum (the engine versions). Editing another package (marl/tape, say) keeps the cache valid.
var TrainingSources = []string{
	"toolkit/marl/e3t", "toolkit/marl/fcp", "toolkit/marl/ac", "toolkit/marl/env", "toolkit/marl/env/overcooked",
	"toolkit/backend", "toolkit/dist", "toolkit/fsx", "toolkit/nn", "toolkit/registry",
	"toolkit/repo", "toolkit/stats", "toolkit/track", "toolkit/plot/anim", "toolkit/exp/e3t/jobs.go", "go.mod", "go.sum",
}

// cacheSalt hashes the training sources, the engine, the toolchain and the CPU. It fails when this
// process's binary is older than a source file: the binary may not run the code being hashed.
func cacheSalt() (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	var built time.Time
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			built = st.ModTime()
		}
	}
	h := sha256.New()
	config, _ := backend.Choose()
	fmt.Fprintf(h, "engine %s\ngo %s\ncpu %s\n", config, runtime.Version(), backend.CPU())
	if strings.HasPrefix(config, "onnx") {
		if lib := backend.ORTLibrary(); lib != "" {
			if err := hashFile(h, lib, "onnxruntime"); err != nil {
				return "", fmt.Errorf("job cache: %w", err)
			}
		}
	}
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
			rel, _ := filepath.Rel(root, f)
			if st, err := os.Stat(f); err == nil && !built.IsZero() && st.ModTime().After(built) {
				return "", fmt.Errorf("job cache: %s changed after this binary was built (%s): rebuild paperlab, or run with -cache none",
					filepath.ToSlash(rel), built.Format(time.RFC3339))
			}
			if err := hashFile(h, f, filepath.ToSlash(rel)); err != nil {
				return "", fmt.Errorf("job cache: %w", err)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile adds name, the file's size and its content to h.
func hashFile(h io.Writer, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s %d\n", name, st.Size())
	_, err = io.Copy(h, f)
	return err
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
		rel, _ := filepath.Rel(dir, p)
		return hashFile(h, p, filepath.ToSlash(rel))
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// cached reports whether dir holds a finished job: result.json (written last) decodes and the
// policy is there. A folder that fails this is trained again (it is overwritten).
func cached(dir string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return false
	}
	var d done
	if json.Unmarshal(raw, &d) != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "policy", "policy.json"))
	return err == nil
}

// lockCache takes the cache folder for this process: <dir>/.lock holds its pid. A lock whose
// process is gone is taken over; one held by a live process is an error naming it.
func lockCache(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, ".lock")
	for range 2 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("job cache: %w", err)
		}
		raw, _ := os.ReadFile(path)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(raw)))
		if perr == nil && pid > 0 && syscall.Kill(pid, 0) == nil {
			return nil, fmt.Errorf("job cache %s is in use by process %d (one run per cache folder; -cache another folder, or none)", repo.ShowPath(dir), pid)
		}
		os.Remove(path) // its process is gone
	}
	return nil, fmt.Errorf("job cache %s: could not take %s", repo.ShowPath(dir), path)
}

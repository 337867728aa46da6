package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
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

// The cache (exp.Options.Cache) keeps every finished job of a run in <Cache>/<key>/ (what
// Kind.Save writes, and with workers job.json and log.txt). The key is a hash of what decides the
// result: the job's description (Kind.KeySpec; not its name), the keys of the jobs it needs, the
// engine (its configuration and, for ONNX Runtime, the library's content), the Go toolchain, this
// machine's CPU (another CPU is another draw) and the Go source of every package training depends
// on (Kind.Sources), so that a changed training loop never reuses an old agent. A binary older than
// one of those sources is refused (its code may not be the one on disk), and one run at a time holds
// a cache folder (Lock).

// Salt hashes the sources (files and folders relative to the checkout; a folder's Go files but its
// tests, and with a "/..." suffix its sub-folders' too), the engine, the toolchain and the CPU. It
// fails when this process's binary is older than a source file: the binary may not run the code
// being hashed.
func Salt(sources []string) (string, error) {
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
	for _, src := range sources {
		files, err := goFiles(root, src)
		if err != nil {
			return "", fmt.Errorf("job cache: training sources: %w", err)
		}
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

// goFiles are the files a source names, sorted: the file itself, or a folder's non-test Go files
// (and its sub-folders' with a "/..." suffix).
func goFiles(root, src string) ([]string, error) {
	dir, recursive := strings.CutSuffix(src, "/...")
	base := filepath.Join(root, dir)
	if st, err := os.Stat(base); err == nil && !st.IsDir() {
		return []string{base}, nil
	}
	var files []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != base && !recursive:
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
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

// key is job's cache key given the keys of the jobs it needs.
func (r *Runner[S, R]) key(job Job[S], needKeys []string) (string, error) {
	spec := job.Spec
	if r.kind.KeySpec != nil {
		spec = r.kind.KeySpec(spec)
	}
	b, err := json.Marshal(Job[S]{Spec: spec, Needs: needKeys})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(r.salt+"\n"), b...))
	return hex.EncodeToString(sum[:16]), nil
}

// HashDir hashes the regular files under dir (names and contents, in walk order): the content key
// of something a job reads by place (a saved policy).
func HashDir(dir string) (string, error) {
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

// Lock takes folder dir for this process: <dir>/.lock holds its pid. A lock whose process is gone
// is taken over; one held by a live process is an error naming it.
func Lock(dir string) (unlock func(), err error) {
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

// Uncovered are the packages of module mod that pkgs import (`go list -deps`) and sources (as Salt
// reads them) leave out: a package left out could change an agent without changing its cache key.
func Uncovered(mod string, sources []string, pkgs ...string) ([]string, error) {
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var missing []string
	for _, pkg := range strings.Fields(string(out)) {
		dir, ok := strings.CutPrefix(pkg, strings.TrimSuffix(mod, "/")+"/")
		if ok && !covers(sources, dir) {
			missing = append(missing, dir)
		}
	}
	return missing, nil
}

// covers reports whether sources hash package folder dir.
func covers(sources []string, dir string) bool {
	for _, src := range sources {
		if tree, rec := strings.CutSuffix(src, "/..."); (rec && (dir == tree || strings.HasPrefix(dir, tree+"/"))) || dir == src {
			return true
		}
	}
	return false
}

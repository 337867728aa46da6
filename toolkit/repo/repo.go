// Package repo is what PaperLab's packages need to know about the checkout they run in, without the
// experiment machinery (toolkit/exp) or an engine: where the checkout is (Root), how a path is shown
// to people and saved notebooks (ShowPath, HomeRelative), and the run scale that decides whether
// outputs go into the checkout or into a temporary folder (Scale, ScaleFromEnv). It imports only the
// standard library, so toolkit/probe, toolkit/backend and toolkit/exp can all use it.
package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the module path whose go.mod marks a PaperLab checkout.
const Module = "github.com/paperlab/paperlab"

// EnvRoot names the checkout explicitly; Root checks that it holds PaperLab's go.mod.
const EnvRoot = "PAPERLAB_ROOT"

// Root finds the PaperLab checkout: $PAPERLAB_ROOT when set, else the nearest directory, from
// the working directory or from $GONB_DIR (a gonb notebook's folder), whose go.mod declares module
// github.com/paperlab/paperlab.
func Root() (string, error) {
	if d := os.Getenv(EnvRoot); d != "" {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err != nil || !strings.Contains(firstLine(b), Module) {
			return "", fmt.Errorf("$%s=%s is not a PaperLab checkout (no go.mod of module %s)", EnvRoot, d, Module)
		}
		return d, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if d := os.Getenv("GONB_DIR"); d != "" {
		starts = append(starts, d)
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil &&
				strings.Contains(firstLine(b), Module) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find the PaperLab checkout above %v", starts)
}

// Runs is runs/<elem…> in the checkout: where results that stay out of git go (runs/ is ignored),
// e.g. Runs("probe", "capo-sft-seed1"). Nothing is created.
func Runs(elem ...string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{root, "runs"}, elem...)...), nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// ShowPath writes a path for people and saved notebooks: relative to the checkout when inside it
// ("figures/capo/metrics.json"), else relative to the home folder ("~/…"), else as it is.
func ShowPath(p string) string {
	if p == "" {
		return p
	}
	if root, err := Root(); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return rel
			}
		}
	}
	return HomeRelative(p)
}

// HomeRelative writes a path under the home folder as "~/…" (other paths unchanged).
func HomeRelative(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.Join("~", rel)
	}
	return p
}

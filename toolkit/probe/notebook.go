package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/paperlab/paperlab/toolkit/repo"
)

// ScaleOptions are the probe settings of notebook 02 at a scale: at smoke scale the first 60 held-out
// questions × 8 samples with 200 bootstrap resamples (seconds); at default scale every held-out
// question × 16 samples with 1000 resamples.
func ScaleOptions(s repo.Scale) Options {
	o := DefaultOptions()
	o.Boot = 1000
	if s == repo.Smoke {
		o.N, o.K, o.Boot = 60, 8, 200
	}
	return o
}

// weightsHash is the SHA-256 of a checkpoint's weights file.
func weightsHash(dir string) (string, error) {
	f, err := os.Open(filepath.Join(dir, "params.f32"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Cached probes the policy in dir on its held-out set (at most opt.N questions) and writes the report and figures to out,
// unless out already holds a report of the same weights (SHA-256 of params.f32) made with the same
// options, which is loaded instead. The figures are not shown.
func Cached(dir, out string, opt Options) (*Report, error) {
	if len(opt.Custom) > 0 {
		return nil, fmt.Errorf("probe %s: custom scores are not cached (a stored report cannot tell which function made them): use Run or Model", dir)
	}
	dir = resolve(dir)
	hash, err := weightsHash(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a checkpoint: %w", dir, err)
	}
	pol, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer pol.Close()
	qs, err := pol.HeldOut()
	if err != nil {
		return nil, err
	}
	opt.N = min(opt.N, len(qs)) // a smaller held-out set (a smoke run's) is probed whole
	want, err := opt.withDefaults(&pol.Prov)
	if err != nil {
		return nil, err
	}
	if old, err := Load(out); err == nil && old.Weights == hash && sameOptions(old.Options, want) {
		return old, nil
	}
	rep, err := Run(pol, qs, opt)
	if err != nil {
		return nil, err
	}
	rep.Source, rep.Weights = "held_out", hash
	if _, err := rep.WriteQuiet(out); err != nil {
		return nil, err
	}
	return rep, nil
}

func sameOptions(a, b Options) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Notebook probes each checkpoint (a folder, relative to the repository root or absolute) at the
// notebook's scale ($PAPERLAB_SCALE, ScaleOptions) through Cached: into figures/probe/<experiment>-<method>
// at default scale, into a temporary folder at smoke scale.
func Notebook(checkpoints ...string) ([]*Report, error) {
	scale, err := repo.ScaleFromEnv()
	if err != nil {
		return nil, err
	}
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	var reps []*Report
	for _, c := range checkpoints {
		dir := c
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, c)
		}
		pol, err := Open(dir)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("%s-%s", pol.Prov.Experiment, pol.Prov.Method)
		if pol.Prov.Seed != 1 {
			name += fmt.Sprintf("-seed%d", pol.Prov.Seed)
		}
		pol.Close()
		out := filepath.Join(root, "figures", "probe", name)
		if scale == repo.Smoke {
			out = filepath.Join(os.TempDir(), "paperlab-probe-smoke", name)
		}
		rep, err := Cached(dir, out, ScaleOptions(scale))
		if err != nil {
			return nil, err
		}
		rep.Checkpoint = c
		reps = append(reps, rep)
	}
	return reps, nil
}

package exp

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/paperlab/paperlab/toolkit/repo"
)

// DefaultOut is where a run writes when no folder is named. At smoke scale: a temporary folder
// (tests never touch the committed figures). At default scale: figures/<name> when it holds no
// result yet, or one made with the same seeds and configuration, or when opt.Overwrite is set;
// otherwise — and at smoke scale whenever opt.Config is set — a scratch folder
// runs/<name>/<scale>-<hash of the configuration and seeds> in the checkout (ignored by git), so a
// changed configuration never overwrites the committed results, and running the same change again
// finds its own earlier result. scratch reports the latter.
func DefaultOut(e Experiment, opt Options) (out string, scratch bool, err error) {
	opt = e.withDefaults(opt)
	committed, err := OutDir(e.Name, opt.Scale)
	if err != nil {
		return "", false, err
	}
	if opt.Part != "" { // a part never replaces the whole result: its own folder, merged later
		cfg, err := configJSON(e, opt)
		if err != nil {
			return "", false, fmt.Errorf("%s: config: %w", e.Name, err)
		}
		h := sha256.Sum256(append(cfg, fmt.Sprintf("|seeds=%d|%v", opt.Seeds, opt.SeedSet)...))
		leaf := fmt.Sprintf("part-%s-%s-%x", opt.Part, opt.Scale, h[:4])
		dir, err := repo.Runs(e.Name, leaf)
		if err != nil {
			return filepath.Join(os.TempDir(), "paperlab-runs", e.Name, leaf), true, nil
		}
		return dir, true, nil
	}
	if opt.Scale == Smoke && opt.Config == nil {
		return committed, false, nil
	}
	if opt.Scale != Smoke {
		if _, err := os.Stat(filepath.Join(committed, MetricsFile)); err != nil || opt.Overwrite {
			return committed, false, nil
		}
		if headerMatches(e, opt, committed) {
			return committed, false, nil
		}
	}
	cfg, err := configJSON(e, opt)
	if err != nil {
		return "", false, fmt.Errorf("%s: config: %w", e.Name, err)
	}
	seeds := fmt.Sprintf("|seeds=%d", opt.Seeds)
	if opt.SeedSet != nil {
		seeds = fmt.Sprintf("|seeds=%v", opt.SeedSet)
	}
	h := sha256.Sum256(append(cfg, seeds...))
	leaf := fmt.Sprintf("%s-%x", opt.Scale, h[:4])
	dir, err := repo.Runs(e.Name, leaf)
	if err != nil { // no checkout (a test binary elsewhere): beside the smoke folders
		return filepath.Join(os.TempDir(), "paperlab-runs", e.Name, leaf), true, nil
	}
	return dir, true, nil
}

// OutDir is where a run of name at scale writes: figures/<name> in the checkout at default scale,
// and a temporary folder at smoke scale, so tests never overwrite the committed figures.
func OutDir(name string, scale Scale) (string, error) {
	if scale == Smoke {
		return filepath.Join(os.TempDir(), "paperlab-smoke", name), nil
	}
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "figures", name), nil
}

func mustOutDir(name string, scale Scale) string {
	d, _ := OutDir(name, scale)
	return d
}

// loadMatching loads dir/metrics.json when it was made with opt's scale, seeds and configuration.
func loadMatching(e Experiment, opt Options, dir string) (*Result, bool) {
	old, err := Load(dir)
	if err != nil || !matches(e, opt, old.Scale, old.Seeds, old.Config) {
		return nil, false
	}
	return old, true
}

// matches reports whether a stored result's scale, seeds and configuration are opt's.
func matches(e Experiment, opt Options, scale Scale, seeds []uint64, config json.RawMessage) bool {
	return scale == opt.Scale && slices.Equal(seeds, opt.SeedList()) && sameConfig(config, e, opt)
}

// headerMatches is loadMatching's test on dir/metrics.json without decoding its runs (the files
// hold every curve: megabytes that DefaultOut, called by every notebook cell, does not need).
func headerMatches(e Experiment, opt Options, dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	if err != nil {
		return false
	}
	var h struct {
		Scale  Scale           `json:"scale"`
		Seeds  []uint64        `json:"seeds"`
		Config json.RawMessage `json:"config"`
	}
	return json.Unmarshal(b, &h) == nil && matches(e, opt, h.Scale, h.Seeds, h.Config)
}

// configJSON is the configuration a run with opt uses, as compact JSON.
func configJSON(e Experiment, opt Options) ([]byte, error) {
	c := opt.Config
	if c == nil {
		c = e.Config(opt.Scale)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = json.Compact(&out, b)
	return out.Bytes(), err
}

func sameConfig(stored json.RawMessage, e Experiment, opt Options) bool {
	cur, err := configJSON(e, opt)
	if err != nil {
		return false
	}
	var a bytes.Buffer
	if json.Compact(&a, stored) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), cur)
}

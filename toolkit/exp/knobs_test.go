package exp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type knobCfg struct {
	A int `json:"a"`
}

// A changed configuration from a notebook runs into a scratch folder and never over the committed
// results; a reload never rewrites figure files.
func TestNotebookWithNeverClobbersCommittedResults(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/paperlab/paperlab\n"), 0o644)
	t.Setenv("PAPERLAB_ROOT", root)
	t.Setenv(EnvScale, "default")
	t.Setenv("PAPERLAB_RERUN", "")
	calls, drawn := 0, 0
	Register(Experiment{
		Name: "knobexp", Seeds: map[Scale]int{Default: 2},
		Config: func(Scale) any { return knobCfg{A: 1} },
		Run: func(opt Options) (*Result, error) {
			cfg, err := ConfigOf(opt, func(Scale) knobCfg { return knobCfg{A: 1} })
			if err != nil {
				return nil, err
			}
			calls++
			r, err := NewResult("knobexp", opt, SeedList(opt.Seeds), cfg)
			for _, s := range r.Seeds {
				r.Runs = append(r.Runs, Run{Method: "m", Seed: s, Final: map[string]float64{"a": float64(cfg.A)}})
			}
			return r, err
		},
		Figures: func(_ *Result, dir string) ([]string, error) {
			drawn++
			if dir == "" {
				return nil, nil
			}
			os.MkdirAll(dir, 0o755)
			p := filepath.Join(dir, "fig.txt")
			return []string{p}, os.WriteFile(p, []byte(strings.Repeat("x", drawn)), 0o644)
		},
	})
	committed := filepath.Join(root, "figures", "knobexp")
	if res, err := Notebook("knobexp"); err != nil || calls != 1 || res.Summary["m"]["a"].Mean != 1 {
		t.Fatalf("first run: calls=%d err=%v", calls, err)
	}
	fig, _ := os.ReadFile(filepath.Join(committed, "fig.txt"))
	if _, err := Notebook("knobexp"); err != nil || calls != 1 || drawn != 2 {
		t.Fatalf("reload: calls=%d drawn=%d err=%v", calls, drawn, err)
	}
	if again, _ := os.ReadFile(filepath.Join(committed, "fig.txt")); string(again) != string(fig) {
		t.Fatal("reloading committed results rewrote a figure file")
	}
	res, err := NotebookWith("knobexp", func(c *knobCfg) { c.A = 5 })
	if err != nil || calls != 2 || res.Summary["m"]["a"].Mean != 5 {
		t.Fatalf("override: calls=%d err=%v", calls, err)
	}
	if back, err := Load(committed); err != nil || back.Summary["m"]["a"].Mean != 1 || !strings.Contains(string(back.Config), `"a": 1`) {
		t.Fatalf("committed result changed: %v %+v", err, back)
	}
	scratch, _ := filepath.Glob(filepath.Join(root, "runs", "knobexp", "default-*", MetricsFile))
	if len(scratch) != 1 {
		t.Fatalf("scratch results: %v", scratch)
	}
	if _, err := NotebookWith("knobexp", func(c *knobCfg) { c.A = 5 }); err != nil || calls != 2 {
		t.Fatalf("the same override again must reload its scratch result: calls=%d err=%v", calls, err)
	}
	if _, err := NotebookWith("knobexp", func(c *map[string]int) {}); err == nil || !strings.Contains(err.Error(), "exp.knobCfg") {
		t.Fatalf("wrong config type: %v", err)
	}
	e, _ := Lookup("knobexp")
	if out, scratch, _ := DefaultOut(e, Options{Scale: Default, Config: knobCfg{A: 7}, Overwrite: true}); out != committed || scratch {
		t.Fatalf("-overwrite: %s %v", out, scratch)
	}
	if out, scratch, _ := DefaultOut(e, Options{Scale: Default, Seeds: 3}); out == committed || !scratch {
		t.Fatalf("other seeds must go to scratch: %s", out)
	}
}

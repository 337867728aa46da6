package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootFromEnv(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "go.mod"), []byte("module "+Module+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvRoot, d)
	got, err := Root()
	if err != nil || got != d {
		t.Fatalf("Root() = %q, %v; want %q", got, err, d)
	}
	if s := ShowPath(filepath.Join(d, "figures", "capo", "metrics.json")); s != filepath.Join("figures", "capo", "metrics.json") {
		t.Errorf("ShowPath inside the checkout = %q", s)
	}
	if r, err := Runs("probe", "capo-sft-seed1"); err != nil || r != filepath.Join(d, "runs", "probe", "capo-sft-seed1") {
		t.Errorf("Runs = %q, %v", r, err)
	}
	t.Setenv(EnvRoot, t.TempDir()) // not a checkout
	if _, err := Runs("probe"); err == nil {
		t.Error("Runs outside a checkout: no error")
	}
}

func TestRootBadEnv(t *testing.T) {
	for name, mod := range map[string]string{"no go.mod": "", "another module": "module example.com/other\n"} {
		d := t.TempDir()
		if mod != "" {
			if err := os.WriteFile(filepath.Join(d, "go.mod"), []byte(mod), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv(EnvRoot, d)
		if _, err := Root(); err == nil || !strings.Contains(err.Error(), "$PAPERLAB_ROOT="+d+" is not a PaperLab checkout") {
			t.Errorf("%s: Root() error = %v", name, err)
		}
	}
}

func TestRootFromWorkingDir(t *testing.T) {
	t.Setenv(EnvRoot, "")
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if filepath.Join(root, "toolkit", "repo") != wd {
		t.Errorf("Root() = %q from %q", root, wd)
	}
}

func TestHomeRelative(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got := HomeRelative(filepath.Join(home, "lib", "x.so")); got != filepath.Join("~", "lib", "x.so") {
		t.Errorf("HomeRelative under home = %q", got)
	}
	if got := HomeRelative("/opt/x.so"); got != "/opt/x.so" {
		t.Errorf("HomeRelative outside home = %q", got)
	}
}

func TestScaleFromEnv(t *testing.T) {
	t.Setenv(EnvScale, "")
	if s, err := ScaleFromEnv(); s != Default || err != nil {
		t.Errorf("unset: %q, %v", s, err)
	}
	t.Setenv(EnvScale, "smoke")
	if s, err := ScaleFromEnv(); s != Smoke || err != nil {
		t.Errorf("smoke: %q, %v", s, err)
	}
	t.Setenv(EnvScale, "huge")
	if _, err := ScaleFromEnv(); err == nil {
		t.Error("huge: no error")
	}
}

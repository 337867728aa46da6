package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileLeavesNoTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "a.json")
	if err := WriteJSON(p, map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(entries))
	}
}

func TestWriteDirIsAllOrNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := WriteDir(dir, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "v1"), nil, 0o644) }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteDir(dir, func(tmp string) error {
		os.WriteFile(filepath.Join(tmp, "partial"), nil, 0o644)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "v1")); err != nil {
		t.Fatal("a failed write damaged the previous directory")
	}
	if _, err := os.Stat(filepath.Join(dir, "partial")); err == nil {
		t.Fatal("a failed write left its partial file")
	}
	if err := WriteDir(dir, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "v2"), nil, 0o644) }); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Fatalf("parent holds %d entries, want 1", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, "v1")); err == nil {
		t.Fatal("old content survived the replacement")
	}
}

// Package fsx writes files and directories atomically, so that nothing half-written is ever left
// behind: data goes to a temporary name beside the target and is renamed into place at the end.
package fsx

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically (temporary file in the same directory, fsync, rename).
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// WriteJSON writes v as indented JSON to path atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteDir builds a directory atomically: fill is called on a fresh temporary directory beside dir,
// and on success the temporary directory replaces dir (an older dir is removed only after the new
// one is complete). On failure the temporary directory is removed and dir is untouched.
func WriteDir(dir string, fill func(tmp string) error) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, tempPattern(dir))
	if err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = dir + ".old-" + filepath.Base(tmp)
		if err := os.Rename(dir, old); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("replacing %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		os.RemoveAll(tmp)
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// tempPattern is the name pattern of WriteDir's temporary directories beside dir: .NAME.tmp-*.
func tempPattern(dir string) string { return "." + filepath.Base(dir) + ".tmp-*" }

// RemoveTemporaries removes the temporary directories a killed WriteDir of dir left beside it. Only
// for a dir with one writer at a time (a sweep's shard): a WriteDir running now would lose its own.
func RemoveTemporaries(dir string) error {
	stale, err := filepath.Glob(filepath.Join(filepath.Dir(dir), tempPattern(dir)))
	if err != nil {
		return err
	}
	for _, d := range stale {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}

package all

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// Every experiment's paper settings name real fields, use a known source, and say why wherever the
// default configuration departs from the paper's value.
func TestPaperSettingsAreFollowedOrExplained(t *testing.T) {
	for _, e := range exp.List() {
		if err := exp.CheckSettings(e); err != nil {
			t.Error(err)
		}
	}
}

// On every committed result the room checks are measured (finite values, or a stated reason) and
// every claim's needed checks exist; no claim whose check fails reads anything but "untestable here".
func TestCommittedResultsJudge(t *testing.T) {
	for _, e := range exp.List() {
		dir, err := exp.OutDir(e.Name, exp.Default)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, exp.MetricsFile)); err != nil {
			continue
		}
		res, err := exp.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		j, err := exp.Judge(e, res)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if e.Claims != nil && e.Room == nil {
			t.Errorf("%s checks claims but defines no room checks", e.Name)
		}
		for _, r := range j.Room {
			if r.Why == "" {
				t.Errorf("%s: room check %s says not why it matters", e.Name, r.Name)
			}
		}
		for _, c := range j.Claims {
			if len(c.Untestable) > 0 && c.Verdict() != exp.Untestable {
				t.Errorf("%s: %q fails %v but reads %q", e.Name, c.Text, c.Untestable, c.Verdict())
			}
		}
	}
}

// Every setting taken from a paper, its code or a note cites a source its experiment's README lists,
// and that README exists in the repository.
func TestSettingsCiteTheirREADME(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exp.List() {
		if err := exp.CheckSources(e, root); err != nil {
			t.Error(err)
		}
	}
}

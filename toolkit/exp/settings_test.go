package exp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type innerCfg struct {
	Tau float64
	G   int
}

type settingsCfg struct {
	RL    innerCfg
	Steps int
	Name  string
}

func settingsExperiment(paper ...Setting) Experiment {
	return Experiment{Name: "settingstest", Config: func(Scale) any { return settingsCfg{RL: innerCfg{Tau: 0.2, G: 8}, Steps: 500, Name: "x"} }, Paper: paper}
}

func TestSettingsFlagAPaperValueTheDefaultDoesNotFollow(t *testing.T) {
	ok := settingsExperiment(
		Setting{Field: "RL.G", Paper: 8, Source: SourcePaper},
		Setting{Field: "RL.Tau", Paper: Range{0.5, 0.6}, Source: SourcePaper, Why: "a reason"},
		Setting{Field: "Steps", Paper: 500.0, Source: SourceCode})
	if err := CheckSettings(ok); err != nil {
		t.Fatalf("consistent settings: %v", err)
	}
	rows, err := Settings(ok, Default)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]SettingRow{}
	for _, r := range rows {
		got[r.Field] = r
	}
	if len(rows) != 4 || !got["RL.Tau"].Differs || got["RL.G"].Differs || got["Steps"].Differs || got["Name"].Source != SourceOurs {
		t.Errorf("rows %+v", rows)
	}
	// Marked as the paper's value (no Why) while the default differs: the check must fail, naming it.
	bad := settingsExperiment(Setting{Field: "RL.Tau", Paper: 0.5, Source: SourcePaper})
	if err := CheckSettings(bad); err == nil || !strings.Contains(err.Error(), "RL.Tau") || !strings.Contains(err.Error(), "0.2") {
		t.Errorf("undeclared deviation: err %v", err)
	}
	// A setting naming no field (a renamed field) is an error too, and so is an unknown source.
	if err := CheckSettings(settingsExperiment(Setting{Field: "RL.Temperature", Paper: 1.0, Source: SourcePaper})); err == nil {
		t.Error("a setting for a missing field passed")
	}
	if err := CheckSettings(settingsExperiment(Setting{Field: "RL.G", Paper: 8, Source: "blog"})); err == nil {
		t.Error("an unknown source passed")
	}
	dev, err := Deviations(ok)
	if err != nil || !strings.Contains(dev, "1 of 3") || !strings.Contains(dev, "RL.Tau") {
		t.Errorf("deviations line %q (%v)", dev, err)
	}
	// A value the sources leave open (Source ours, with its reason) never deviates and is not counted
	// as known, but the listing shows it with its reason; without a reason only the full listing does.
	open := settingsExperiment(Setting{Field: "RL.G", Paper: 8, Source: SourcePaper},
		Setting{Field: "RL.Tau", Paper: "not stated", Source: SourceOurs, Why: "our choice"})
	if dev, err := Deviations(open); err != nil || dev != "none (1 settings follow the paper)" {
		t.Errorf("deviations with an open value %q (%v)", dev, err)
	}
	rows, _ = Settings(open, Default)
	_, shown := SettingsTable(rows, false)
	if len(shown) != 2 || shown[1][0] != "RL.Tau" || shown[1][4] != "no" {
		t.Errorf("listing %q", shown)
	}
}

// A setting whose Ref cites no key of its README's "## Sources" list fails, naming the field; one
// that cites a listed key passes; a README without a Sources list fails.
func TestCheckSources(t *testing.T) {
	root := t.TempDir()
	readme := "# X\n\n## Sources\n- **[X1]** the paper, arXiv 0000.00000\n- **[X2]** a note, secondary: https://example.org\n\n## Other\n- **[X3]** not a source\n"
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := SourceKeys(readme); !slices.Equal(got, []string{"X1", "X2"}) {
		t.Fatalf("keys %v", got)
	}
	e := Experiment{Name: "x", Doc: "README.md", Paper: []Setting{
		{Field: "A", Source: SourceNote, Ref: "[X2] setup: lr 1e-6"},
		{Field: "B", Source: SourceOurs},
	}}
	if err := CheckSources(e, root); err != nil {
		t.Fatal(err)
	}
	e.Paper = append(e.Paper, Setting{Field: "C", Source: SourceCode, Ref: "[X3] config.yaml"})
	if err := CheckSources(e, root); err == nil || !strings.Contains(err.Error(), "C: ref") {
		t.Fatalf("a ref citing an unlisted key passed: %v", err)
	}
	e.Doc = ""
	if err := CheckSources(e, root); err == nil {
		t.Fatal("paper settings without a Doc passed")
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("# X\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Doc = "README.md"
	if err := CheckSources(e, root); err == nil {
		t.Fatal("a README without sources passed")
	}
}

package exp

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/paperlab/paperlab/toolkit/nb"
)

// Sources of a paper setting: the paper's text, the authors' code (or the framework defaults it
// trains with), a secondary note on the paper (a paper-note site quoting it, the abstract), or a
// PaperLab choice where none gives a value. The experiment's README lists each source by key.
const (
	SourcePaper = "paper"
	SourceCode  = "code"
	SourceNote  = "note"
	SourceOurs  = "ours"
)

// Setting is what the paper (or its authors' code) uses for one field of an experiment's
// configuration. Field is the Go path of the field in the experiment's Config ("RL.Adv.Tau");
// Paper is the value, compared with ours as JSON (numbers within 1e-9 relative; a Range for an
// interval the paper reports as robust or sweeps). Why is required whenever our default differs:
// the reason (scale, hardware, a named ablation) — a test fails when a setting that differs has
// none. Ref points at the source: a key the experiment's README lists under "## Sources" ("[C3]"),
// then where in it (a section, a file).
type Setting struct {
	Field  string
	Paper  any
	Source string
	Ref    string
	Why    string
}

// Range is a paper value given as an interval [Lo, Hi]: ours matches when it lies inside.
type Range struct{ Lo, Hi float64 }

func (r Range) String() string { return fmt.Sprintf("%g–%g", r.Lo, r.Hi) }

// SettingRow is one line of `paperlab settings <exp>`: every leaf field of the configuration, with
// the paper's value where one is known.
type SettingRow struct {
	Field   string `json:"field"`
	Ours    any    `json:"ours"`
	Paper   any    `json:"paper"`
	Source  string `json:"source"`
	Differs bool   `json:"differs"`
	Why     string `json:"why"`
	Ref     string `json:"ref,omitempty"`
}

// Settings lists every leaf field of e's configuration at scale (nested structs flattened to
// dotted Go paths; slices and maps are one leaf) beside the paper's values in e.Paper. A Setting
// naming a field the configuration lacks is an error (a renamed field must not silently drop out).
func Settings(e Experiment, scale Scale) ([]SettingRow, error) {
	leaves := map[string]any{}
	var order []string
	flatten(reflect.ValueOf(e.Config(scale)), "", func(path string, v any) {
		leaves[path] = v
		order = append(order, path)
	})
	paper := map[string]Setting{}
	for _, s := range e.Paper {
		if _, ok := leaves[s.Field]; !ok {
			return nil, fmt.Errorf("experiment %s: paper setting %q names no field of %T (fields: %s)", e.Name, s.Field, e.Config(scale), strings.Join(order, ", "))
		}
		if _, dup := paper[s.Field]; dup {
			return nil, fmt.Errorf("experiment %s: paper setting %q given twice", e.Name, s.Field)
		}
		paper[s.Field] = s
	}
	var rows []SettingRow
	for _, f := range order {
		row := SettingRow{Field: f, Ours: leaves[f], Source: SourceOurs}
		if s, ok := paper[f]; ok {
			row.Paper, row.Source, row.Why, row.Ref = s.Paper, s.Source, s.Why, s.Ref
			// a setting the sources leave open (Source ours, its reason given) cannot deviate
			row.Differs = s.Source != SourceOurs && !samePaperValue(row.Ours, s.Paper)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// flatten walks a configuration value, calling leaf for each exported non-struct field.
func flatten(v reflect.Value, path string, leaf func(string, any)) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			leaf(path, nil)
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		leaf(path, v.Interface())
		return
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			p = path
		}
		flatten(v.Field(i), p, leaf)
	}
}

// samePaperValue compares our value with the paper's: a Range by containment, numbers with a
// relative tolerance of 1e-9, anything else by its JSON form.
func samePaperValue(ours, paper any) bool {
	if r, ok := paper.(Range); ok {
		x, ok := asFloat(ours)
		return ok && x >= r.Lo-1e-12 && x <= r.Hi+1e-12
	}
	if a, ok := asFloat(ours); ok {
		if b, ok := asFloat(paper); ok {
			return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
		}
	}
	a, err1 := json.Marshal(ours)
	b, err2 := json.Marshal(paper)
	return err1 == nil && err2 == nil && string(a) == string(b)
}

func asFloat(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	}
	return 0, false
}

// ShowValue renders a setting's value for tables (JSON, strings unquoted, ranges as lo–hi).
func ShowValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case string:
		return x
	case Range:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return s
}

// SettingsTable is the table `paperlab settings` prints and the notebooks show: the fields with a
// known paper value first (deviations first among them), then PaperLab's own choices — those a
// Setting records with a reason (the sources leave the value open) always, the rest with all.
func SettingsTable(rows []SettingRow, all bool) (headers []string, out [][]string) {
	headers = []string{"field", "ours", "paper", "source", "differs", "why"}
	rank := func(r SettingRow) int {
		switch {
		case r.Differs:
			return 0
		case r.Source != SourceOurs:
			return 1
		}
		return 2
	}
	sorted := append([]SettingRow(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return rank(sorted[i]) < rank(sorted[j]) })
	for _, r := range sorted {
		if !all && r.Source == SourceOurs && r.Why == "" {
			continue
		}
		differs := "no"
		if r.Differs {
			differs = "YES"
		}
		src := r.Source
		if r.Ref != "" {
			src += " (" + r.Ref + ")"
		}
		out = append(out, []string{r.Field, ShowValue(r.Ours), ShowValue(r.Paper), src, differs, r.Why})
	}
	return headers, out
}

// Deviations is the one-line summary of where e's default configuration departs from the paper's
// settings: each differing field with ours and the source's value (the reasons are in Settings;
// the README's "deviations from the paper" lines come from it).
func Deviations(e Experiment) (string, error) {
	rows, err := Settings(e, Default)
	if err != nil {
		return "", err
	}
	var parts []string
	known := 0
	for _, r := range rows {
		if r.Source == SourceOurs {
			continue
		}
		known++
		if r.Differs {
			parts = append(parts, fmt.Sprintf("%s %s (%s %s)", r.Field, ShowValue(r.Ours), r.Source, ShowValue(r.Paper)))
		}
	}
	if known == 0 {
		return "no paper settings recorded", nil
	}
	if len(parts) == 0 {
		return fmt.Sprintf("none (%d settings follow the paper)", known), nil
	}
	return fmt.Sprintf("%d of %d known settings differ: %s — each with its reason in `paperlab settings %s`", len(parts), known, strings.Join(parts, "; "), e.Name), nil
}

// ShowSettings shows, in a notebook (text elsewhere), the experiment's settings against the
// paper's before its results: every field with a known paper value, deviations first; it waits
// until they are shown (nb.Sync).
func ShowSettings(name string) error {
	e, err := Lookup(name)
	if err != nil {
		return err
	}
	scale, err := ScaleFromEnv()
	if err != nil {
		return err
	}
	rows, err := Settings(e, scale)
	if err != nil {
		return err
	}
	head := fmt.Sprintf("**Settings against the paper** (%s scale; `paperlab settings %s` lists every field, `-json` for machines). Deviations first; each says why.", scale, name)
	if e.Doc != "" {
		head += fmt.Sprintf(" Each ref cites a source by key ([C3]) from `%s`, section Sources.", e.Doc)
	}
	h, r := SettingsTable(rows, false)
	if len(r) == 0 {
		head = fmt.Sprintf("**Settings against the paper**: none recorded for %s (the paper gives no settings this experiment follows).", name)
	}
	sweepHead := "**Sweeps**: the settings each method family was run at (a family compared on its front is chosen by a mean fixed in advance, `exp.ChooseFront`)."
	if nb.IsNotebook() {
		nb.Markdown(head)
		if len(r) > 0 {
			nb.Table(h, r)
		}
		if len(e.Sweeps) > 0 {
			nb.Markdown(sweepHead)
			nb.Table(SweepTable(e.Sweeps))
		}
		nb.Sync()
		return nil
	}
	fmt.Println(strings.ReplaceAll(head, "**", ""))
	fmt.Print(nb.TableText(h, r))
	if len(e.Sweeps) > 0 {
		fmt.Println(strings.ReplaceAll(sweepHead, "**", ""))
		fmt.Print(nb.TableText(SweepTable(e.Sweeps)))
	}
	return nil
}

// CheckSettings verifies e.Paper against e's default configuration: every field named exists,
// every source is one of paper, code, note, and every setting whose paper value our default does
// not follow says why — a setting recorded as the paper's value while the default differs is an
// error naming the field and both values.
func CheckSettings(e Experiment) error {
	rows, err := Settings(e, Default)
	if err != nil {
		return err
	}
	var errs []string
	for _, r := range rows {
		if r.Source == SourceOurs {
			continue
		}
		switch r.Source {
		case SourcePaper, SourceCode, SourceNote:
		default:
			errs = append(errs, fmt.Sprintf("%s: source %q (want paper, code or note)", r.Field, r.Source))
		}
		if r.Differs && strings.TrimSpace(r.Why) == "" {
			errs = append(errs, fmt.Sprintf("%s is recorded as the %s's value %s, but the default configuration has %s (follow it, or say why)",
				r.Field, r.Source, ShowValue(r.Paper), ShowValue(r.Ours)))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("experiment %s settings: %s", e.Name, strings.Join(errs, "; "))
	}
	return nil
}

// DeviationsBegin and DeviationsEnd delimit the README's generated "deviations from the paper"
// block (DeviationsMarkdown).
const (
	DeviationsBegin = "<!-- deviations:begin — generated by `go run ./toolkit/cmd/paperlab settings -readme`; a test keeps it equal to the code -->"
	DeviationsEnd   = "<!-- deviations:end -->"
)

// DeviationsMarkdown is the README's block: one line per experiment with paper settings, from
// Deviations, between DeviationsBegin and DeviationsEnd.
func DeviationsMarkdown() (string, error) {
	var b strings.Builder
	b.WriteString(DeviationsBegin + "\n")
	for _, e := range List() {
		if len(e.Paper) == 0 {
			continue
		}
		d, err := Deviations(e)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", e.Name, d)
	}
	b.WriteString(DeviationsEnd)
	return b.String(), nil
}

// ReplaceDeviations returns readme with its deviations block replaced by block; an error when the
// markers are missing.
func ReplaceDeviations(readme, block string) (string, error) {
	i := strings.Index(readme, DeviationsBegin)
	j := strings.Index(readme, DeviationsEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("README.md has no deviations block (%q … %q)", DeviationsBegin, DeviationsEnd)
	}
	return readme[:i] + block + readme[j+len(DeviationsEnd):], nil
}

// SourceKeys are the keys an experiment README defines under its "## Sources" heading: each source
// is a list item that starts with "- **[KEY]**" (e.g. "- **[C3]** a paper note, secondary: URL").
func SourceKeys(readme string) []string {
	var keys []string
	in := false
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line) == "## Sources"
			continue
		}
		if !in || !strings.HasPrefix(line, "- **[") {
			continue
		}
		rest := line[len("- **["):]
		if i := strings.Index(rest, "]**"); i > 0 {
			keys = append(keys, rest[:i])
		}
	}
	return keys
}

// CheckSources checks that every setting e takes from the paper, its authors' code or a note on it
// cites, in its Ref, a source its README (e.Doc, read under root) lists under "## Sources" by key,
// so a reader of `paperlab settings` can follow every source inside the repository.
func CheckSources(e Experiment, root string) error {
	if len(e.Paper) == 0 {
		return nil
	}
	if e.Doc == "" {
		return fmt.Errorf("experiment %s has paper settings but no Doc (its README with the sources they cite)", e.Name)
	}
	b, err := os.ReadFile(filepath.Join(root, e.Doc))
	if err != nil {
		return fmt.Errorf("experiment %s: its Doc: %w", e.Name, err)
	}
	keys := SourceKeys(string(b))
	if len(keys) == 0 {
		return fmt.Errorf("experiment %s: %s lists no sources (want \"- **[KEY]** …\" items under \"## Sources\")", e.Name, e.Doc)
	}
	var errs []string
	for _, s := range e.Paper {
		if s.Source == SourceOurs {
			continue
		}
		if !slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(s.Ref, "["+k+"]") }) {
			errs = append(errs, fmt.Sprintf("%s: ref %q cites none of %s's sources %v", s.Field, s.Ref, e.Doc, keys))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("experiment %s sources: %s", e.Name, strings.Join(errs, "; "))
	}
	return nil
}

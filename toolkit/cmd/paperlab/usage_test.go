package main

import (
	"errors"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// The dispatcher runs exactly the commands of the table, and usage prints exactly them: every name
// once, each with a one-line description; the help aliases reach help; a name outside the table is
// an experiment, and no experiment is hidden behind a command of the same name. No line of the usage
// is longer than 100 characters.
func TestCommandTable(t *testing.T) {
	var b strings.Builder
	usage(&b)
	var printed []string
	for _, line := range strings.Split(b.String(), "\n") {
		if utf8.RuneCountInString(line) > 100 {
			t.Errorf("usage line longer than 100 characters: %q", line)
		}
		if rest, ok := strings.CutPrefix(line, "  paperlab "); ok {
			printed = append(printed, strings.Fields(rest)[0])
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
		if slices.Contains(names[:len(names)-1], c.name) {
			t.Errorf("%s: twice in the table", c.name)
		}
		if c.about == "" || strings.Contains(c.about, "\n") {
			t.Errorf("%s: description %q, want one line", c.name, c.about)
		}
		got, ok := lookupCommand(c.name)
		switch {
		case c.name == anyExperiment:
			if ok || c.run != nil {
				t.Errorf("%s: the dispatcher's fallback, not a command it looks up", c.name)
			}
		case !ok || got.name != c.name:
			t.Errorf("%s: the dispatcher does not run it (found %q, %v)", c.name, got.name, ok)
		}
	}
	if !slices.Equal(printed, names) {
		t.Errorf("usage prints %q, the table holds %q", printed, names)
	}
	if !slices.Contains(names, anyExperiment) {
		t.Errorf("the table has no %s row", anyExperiment)
	}
	for _, a := range helpAliases {
		if c, ok := lookupCommand(a); !ok || c.name != "help" {
			t.Errorf("%s: runs %q, want help", a, c.name)
		}
	}
	for _, e := range exp.List() {
		if _, ok := lookupCommand(e.Name); ok {
			t.Errorf("experiment %s is hidden by the command of the same name", e.Name)
		}
	}
	if _, err := stderrOf(t, []string{"no-such-command"}); err == nil || !strings.Contains(err.Error(), "no-such-command") {
		t.Errorf("unknown name: %v, want the experiment lookup's error", err)
	}
}

// synopsisFlag finds the flags a synopsis names: -name at its start or after a space, [ or |.
var synopsisFlag = regexp.MustCompile(`(?:^|[\s\[|])-([a-z][a-z0-9-]*)`)

// Every flag a synopsis names exists in its command's flag set and every flag of the set is named
// (but those `all` refuses or cannot use); no flag's help names an experiment, whose own defaults
// `paperlab settings <experiment>` shows.
func TestSynopsisFlags(t *testing.T) {
	leading := map[string][]string{ // arguments a command wants before its flags
		anyExperiment: nil, "sweep": {"tour"}, "trace": {"overcooked:cramped_room"}, "data": {"arith"},
	}
	unnamed := map[string][]string{"all": {"out", "part"}} // all: -out is refused, -part names a part of one experiment
	var experiments []string
	for _, e := range exp.List() {
		experiments = append(experiments, regexp.QuoteMeta(e.Name))
	}
	expName := regexp.MustCompile(`\b(` + strings.Join(experiments, "|") + `)\b`)
	for _, c := range commands() {
		var named []string
		for _, m := range synopsisFlag.FindAllStringSubmatch(c.synopsis, -1) {
			named = append(named, m[1])
		}
		if len(named) == 0 {
			continue
		}
		name := c.name
		if name == anyExperiment {
			name = "tour"
		}
		help, err := stderrOf(t, append(append([]string{name}, leading[c.name]...), "-h"))
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s -h: %v, want flag.ErrHelp", c.name, err)
			continue
		}
		var defined []string
		for _, line := range strings.Split(help, "\n") {
			if strings.HasPrefix(line, "  -") {
				defined = append(defined, strings.TrimPrefix(strings.Fields(line)[0], "-"))
			} else if m := expName.FindString(line); m != "" && strings.HasPrefix(line, "    \t") {
				t.Errorf("%s: a flag's help names experiment %s: %q", c.name, m, strings.TrimSpace(line))
			}
		}
		for _, f := range named {
			if !slices.Contains(defined, f) {
				t.Errorf("%s: the synopsis names -%s, which the command does not define (%v)", c.name, f, defined)
			}
		}
		for _, f := range defined {
			if !slices.Contains(named, f) && !slices.Contains(unnamed[c.name], f) {
				t.Errorf("%s: flag -%s is missing from the synopsis %q", c.name, f, c.synopsis)
			}
		}
	}
}

// stderrOf runs `paperlab args…` and returns what it wrote to standard error (a flag set's -h help).
func stderrOf(t *testing.T, args []string) (string, error) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stderr := os.Stderr
	os.Stderr = f
	err = run(args)
	os.Stderr = stderr
	b, rerr := os.ReadFile(f.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return string(b), err
}

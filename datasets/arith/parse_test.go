package arith

import (
	"strings"
	"testing"
)

// Every generated prompt parses back into the problem it was rendered from.
func TestParsePromptInvertsGenerate(t *testing.T) {
	for _, cfg := range []Config{Default(), SkewedHidden(), Addition()} {
		ps, err := Generate(cfg, 5, 300, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range ps {
			got, err := ParsePrompt(want.Prompt, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Hidden != want.Hidden || got.Start != want.Start || strings.Join(got.Ops, "") != strings.Join(want.Ops, "") {
				t.Fatalf("%q parsed as %+v", want.Prompt, got)
			}
			if want.Hidden < 0 && (got.Answer != want.Answer || got.Check() != nil) {
				t.Fatalf("%q: answer %d, want %d (check %v)", want.Prompt, got.Answer, want.Answer, got.Check())
			}
		}
	}
}

func TestParsePromptErrorsNamePosition(t *testing.T) {
	for _, c := range []struct{ prompt, want string }{
		{"3+4", "must end with '='"},
		{"3/4=", "position 2"},
		{"3+=", "position 3: want a number"},
		{"?+3=", "position 1: want a number"},
		{"3+?-?=", "more than one hidden"},
		{"7=", "no operation"},
	} {
		if _, err := ParsePrompt(c.prompt, Default()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePrompt(%q) = %v, want an error with %q", c.prompt, err, c.want)
		}
	}
}

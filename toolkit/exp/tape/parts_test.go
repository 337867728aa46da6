package tape

import (
	"io"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// A run of one part trains that part's methods alone and records the part.
func TestRunOnePart(t *testing.T) {
	res, err := Run(exp.Options{Scale: exp.Smoke, Seeds: 1, Part: "matrix", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Parts) != 1 || res.Parts[0] != "matrix" || len(res.Runs) == 0 {
		t.Fatalf("parts %v, %d runs", res.Parts, len(res.Runs))
	}
	for _, r := range res.Runs {
		for k := range r.Curves {
			if !strings.HasPrefix(k, "matrix/") {
				t.Errorf("%s seed %d: curve %s of another part", r.Method, r.Seed, k)
			}
		}
	}
	for k := range res.Timing {
		if k != "matrix" {
			t.Errorf("timing of %s in a matrix-only run", k)
		}
	}
}

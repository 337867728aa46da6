package arith

import (
	"errors"
	"io"

	"github.com/paperlab/paperlab/toolkit/jsonl"
)

// WriteJSONL writes problems one JSON object per line to path, atomically (temporary file, rename).
func WriteJSONL(path string, problems []Problem) error { return jsonl.Write(path, problems) }

// ReadJSONL reads problems from path. A malformed line fails with "path:line: …" naming the field.
func ReadJSONL(path string) ([]Problem, error) {
	return jsonl.Read(path, freshProblem, checkProblem)
}

// DecodeJSONL reads problems from r; name labels errors (usually the file path). Blank lines are
// skipped. Every problem must pass Check, and unknown fields are rejected.
func DecodeJSONL(r io.Reader, name string) ([]Problem, error) {
	return jsonl.Decode(r, name, freshProblem, checkProblem)
}

// freshProblem marks "hidden" with an impossible value, so that a missing field is caught.
func freshProblem() Problem { return Problem{Hidden: -2} }

func checkProblem(p Problem) error {
	if p.Hidden == -2 {
		return errors.New("field hidden: missing")
	}
	return p.Check()
}

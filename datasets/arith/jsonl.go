package arith

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/paperlab/paperlab/toolkit/fsx"
)

// WriteJSONL writes problems one JSON object per line to path, atomically: a temporary file in the
// same directory is renamed over path only once everything is written.
func WriteJSONL(path string, problems []Problem) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, p := range problems {
		if err := enc.Encode(p); err != nil {
			return fmt.Errorf("%s: problem %d: %w", path, p.ID, err)
		}
	}
	return fsx.WriteFile(path, buf.Bytes())
}

// ReadJSONL reads problems from path. A malformed line fails with "path:line: …" naming the field.
func ReadJSONL(path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeJSONL(f, path)
}

// DecodeJSONL reads problems from r; name labels errors (usually the file path). Blank lines are
// skipped. Every problem must pass Check, and unknown fields are rejected.
func DecodeJSONL(r io.Reader, name string) ([]Problem, error) {
	var out []Problem
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		p := Problem{Hidden: -2} // so that a missing "hidden" field is caught by Check
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", name, line, describeJSONError(err))
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: trailing data after the JSON object", name, line)
		}
		if p.Hidden == -2 {
			return nil, fmt.Errorf("%s:%d: field hidden: missing", name, line)
		}
		if err := p.Check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}

func describeJSONError(err error) string {
	switch e := err.(type) {
	case *json.UnmarshalTypeError:
		return fmt.Sprintf("field %s: got JSON %s, want %s", e.Field, e.Value, e.Type)
	case nil:
		return ""
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "malformed JSON: the object is cut short"
	}
	switch e := err.(type) {
	case *json.SyntaxError:
		return fmt.Sprintf("malformed JSON at byte %d: %v", e.Offset, e)
	}
	return err.Error()
}

func jsonLine(p Problem) ([]byte, error) {
	b, err := json.Marshal(p)
	return append(b, '\n'), err
}

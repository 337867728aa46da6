// Package jsonl reads and writes JSON Lines files of records: writes are atomic (temporary file,
// then rename), and a malformed line fails with "name:line: field …: …".
package jsonl

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

// Write writes one JSON object per line to path, atomically.
func Write[T any](path string, items []T) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i, it := range items {
		if err := enc.Encode(it); err != nil {
			return fmt.Errorf("%s: record %d: %w", path, i, err)
		}
	}
	return fsx.WriteFile(path, buf.Bytes())
}

// Read reads path with Decode.
func Read[T any](path string, fresh func() T, check func(T) error) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path, fresh, check)
}

// Decode reads records from r; name labels errors (usually the file path). Each line is decoded into
// fresh() (so a record can carry sentinel defaults that reveal a missing field), unknown fields are
// rejected, blank lines are skipped, and check validates each record; its error is prefixed with
// the file and line.
func Decode[T any](r io.Reader, name string, fresh func() T, check func(T) error) ([]T, error) {
	var out []T
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
		v := fresh()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", name, line, describe(err))
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: trailing data after the JSON object", name, line)
		}
		if err := check(v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}

func describe(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("field %s: got JSON %s, want %s", te.Field, te.Value, te.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: the object is cut short"
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	}
	return err.Error()
}

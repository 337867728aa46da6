package prefs

import (
	"io"

	"github.com/paperlab/paperlab/toolkit/jsonl"
)

// WriteJSONL writes pairs one per line, atomically.
func WriteJSONL(path string, pairs []Pair) error { return jsonl.Write(path, pairs) }

// ReadJSONL reads pairs written by WriteJSONL and checks each against c; a malformed line fails
// with "path:line: field …".
func (c Config) ReadJSONL(path string) ([]Pair, error) {
	return jsonl.Read(path, func() Pair { return Pair{} }, c.Check)
}

// DecodeJSONL reads pairs from r; name labels errors.
func (c Config) DecodeJSONL(r io.Reader, name string) ([]Pair, error) {
	return jsonl.Decode(r, name, func() Pair { return Pair{} }, c.Check)
}

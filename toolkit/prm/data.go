package prm

import (
	"fmt"
	"strings"

	"github.com/paperlab/paperlab/toolkit/jsonl"
)

// Record is one labelled trace as stored in JSONL: {"prompt": "3+4*2-5=", "completion": "7#4#9#;9#",
// "labels": [1, 0.25, 0, 0], "gold": [true, true, false, false]} — one label per tag of the
// completion (soft, in [0, 1]) and, optionally, the verifier's judgement of each tag (gold) and where
// the labels came from (Source).
type Record struct {
	Prompt     string    `json:"prompt"`
	Completion string    `json:"completion"`
	Labels     []float64 `json:"labels"`
	Gold       []bool    `json:"gold,omitempty"`
	Source     string    `json:"source,omitempty"`
}

// Sources of a record's labels: Monte-Carlo rollouts (MCLabels) or a step judge.
const (
	SourceMC    = "mc"
	SourceJudge = "judge"
)

// WriteRecords writes records to path atomically.
func WriteRecords(path string, recs []Record) error { return jsonl.Write(path, recs) }

// ReadRecords reads labelled traces; a bad line fails with "path:line: field …": a missing prompt or
// completion, a label outside [0, 1], or a number of labels (or gold judgements) other than the
// completion's number of tags.
func ReadRecords(path string, tag rune) ([]Record, error) {
	return jsonl.Read(path, func() Record { return Record{} }, func(r Record) error {
		switch {
		case r.Prompt == "":
			return fmt.Errorf("field prompt: missing")
		case r.Completion == "":
			return fmt.Errorf("field completion: missing")
		case r.Source != "" && r.Source != SourceMC && r.Source != SourceJudge:
			return fmt.Errorf("field source: %q, want %q or %q", r.Source, SourceMC, SourceJudge)
		}
		tags := strings.Count(r.Completion, string(tag))
		if len(r.Labels) != tags {
			return fmt.Errorf("field labels: %d labels for the %d tags of %q", len(r.Labels), tags, r.Completion)
		}
		if r.Gold != nil && len(r.Gold) != tags {
			return fmt.Errorf("field gold: %d judgements for the %d tags of %q", len(r.Gold), tags, r.Completion)
		}
		for i, v := range r.Labels {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("field labels: labels[%d] = %v is not in [0, 1]", i, v)
			}
		}
		return nil
	})
}

package lm

import (
	"encoding/json"
	"fmt"

	"github.com/gomlx/compute"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// meta is the LM's part of a checkpoint manifest.
type meta struct {
	Kind     string          `json:"kind"`
	Config   Config          `json:"config"`
	Alphabet string          `json:"alphabet"`
	Extra    json.RawMessage `json:"extra,omitempty"`
}

// Checkpoint is a loaded checkpoint: the model, and the optimizer state when it was saved by a
// trainer.
type Checkpoint struct {
	Model *Model
	Step  int
	Opt   *OptConfig
	M, V  []float32
	// Extra is whatever JSON the saver attached (e.g. the training configuration).
	Extra json.RawMessage
}

// SaveCheckpoint writes m (and tr's optimizer state and step when tr is not nil) to dir, atomically
// (toolkit/nn.Save). extra is stored as JSON alongside.
func SaveCheckpoint(dir string, m *Model, tr *Trainer, extra any) error {
	md := meta{Kind: "lm", Config: m.Config}
	if m.Tok != nil {
		md.Alphabet = m.Tok.Alphabet
	}
	if extra != nil {
		b, err := json.Marshal(extra)
		if err != nil {
			return fmt.Errorf("checkpoint %s: extra: %w", dir, err)
		}
		md.Extra = b
	}
	var nt *nn.Trainer
	if tr != nil {
		nt = tr.Trainer // nn.Save rejects a trainer of another model
	}
	return nn.Save(dir, &m.Model, nt, md)
}

// LoadCheckpoint reads a checkpoint written by SaveCheckpoint onto the process-wide engine. Loading
// is immediate and exact: the weights are the saved bytes.
func LoadCheckpoint(dir string) (*Checkpoint, error) {
	be, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	return LoadCheckpointOn(be, dir)
}

// LoadCheckpointOn is LoadCheckpoint onto a given engine.
func LoadCheckpointOn(be compute.Backend, dir string) (*Checkpoint, error) {
	s, err := nn.Load(dir)
	if err != nil {
		return nil, err
	}
	var md meta
	if err := json.Unmarshal(s.Manifest.Meta, &md); err != nil || md.Kind != "lm" {
		return nil, fmt.Errorf("checkpoint %s: not an LM checkpoint (meta %s)", dir, s.Manifest.Meta)
	}
	if err := md.Config.Validate(); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	var tok *Tokenizer
	if md.Alphabet != "" {
		if tok, err = NewTokenizer(md.Alphabet); err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
		}
	}
	m, err := fromFlat(be, md.Config, tok, s.Weights) // checks the weight count against the layout
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	return &Checkpoint{Model: m, Step: s.Manifest.Step, Opt: s.Manifest.Opt, M: s.M, V: s.V, Extra: md.Extra}, nil
}

// Trainer rebuilds the trainer saved in the checkpoint (optimizer state and step restored) for the
// given loss, so that training resumes where it stopped.
func (ck *Checkpoint) Trainer(metricNames []string, loss Loss) (*Trainer, error) {
	if ck.Opt == nil {
		return nil, fmt.Errorf("checkpoint holds no optimizer state (saved without a trainer)")
	}
	tr, err := NewTrainer(ck.Model, *ck.Opt, metricNames, loss)
	if err != nil {
		return nil, err
	}
	return tr, tr.SetState(ck.M, ck.V, ck.Step)
}

package lm

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/fsx"
)

// CheckpointFormat tags checkpoint directories.
const CheckpointFormat = "paperlab-lm/1"

// manifest is model.json inside a checkpoint directory.
type manifest struct {
	Format   string          `json:"format"`
	Config   Config          `json:"config"`
	Alphabet string          `json:"alphabet"`
	Params   int             `json:"params"`
	Step     int             `json:"step"`
	Opt      *OptConfig      `json:"opt,omitempty"`
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

func writeFloats(path string, xs []float32) error {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return os.WriteFile(path, b, 0o644)
}

func readFloats(path string, n int) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) != 4*n {
		return nil, fmt.Errorf("%s: %d bytes, want %d (%d float32 values)", path, len(b), 4*n, n)
	}
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return xs, nil
}

// SaveCheckpoint writes m (and tr's optimizer state and step when tr is not nil) to dir, atomically:
// everything goes to a temporary directory that replaces dir only when complete. extra is stored as
// JSON alongside.
func SaveCheckpoint(dir string, m *Model, tr *Trainer, extra any) error {
	mf := manifest{Format: CheckpointFormat, Config: m.Config, Params: m.Layout.Size}
	if m.Tok != nil {
		mf.Alphabet = m.Tok.Alphabet
	}
	if extra != nil {
		b, err := json.Marshal(extra)
		if err != nil {
			return fmt.Errorf("checkpoint %s: extra: %w", dir, err)
		}
		mf.Extra = b
	}
	w, err := m.Weights()
	if err != nil {
		return err
	}
	var mom, vel []float32
	if tr != nil {
		if tr.Model != m {
			return fmt.Errorf("checkpoint %s: the trainer belongs to another model", dir)
		}
		mf.Step, mf.Opt = tr.Step, &tr.Opt
		if mom, err = tensors.CopyFlatData[float32](tr.M); err != nil {
			return err
		}
		if vel, err = tensors.CopyFlatData[float32](tr.V); err != nil {
			return err
		}
	}
	return fsx.WriteDir(dir, func(tmp string) error {
		if err := writeFloats(filepath.Join(tmp, "params.f32"), w); err != nil {
			return err
		}
		if tr != nil {
			if err := writeFloats(filepath.Join(tmp, "adam_m.f32"), mom); err != nil {
				return err
			}
			if err := writeFloats(filepath.Join(tmp, "adam_v.f32"), vel); err != nil {
				return err
			}
		}
		b, err := json.MarshalIndent(mf, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "model.json"), append(b, '\n'), 0o644)
	})
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
	b, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	var mf manifest
	if err := json.Unmarshal(b, &mf); err != nil {
		return nil, fmt.Errorf("checkpoint %s: model.json: %w", dir, err)
	}
	if mf.Format != CheckpointFormat {
		return nil, fmt.Errorf("checkpoint %s: format %q, want %q", dir, mf.Format, CheckpointFormat)
	}
	if err := mf.Config.Validate(); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	var tok *Tokenizer
	if mf.Alphabet != "" {
		if tok, err = NewTokenizer(mf.Alphabet); err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
		}
	}
	lay := NewLayout(mf.Config)
	if lay.Size != mf.Params {
		return nil, fmt.Errorf("checkpoint %s: model.json says %d weights, the config's layout has %d", dir, mf.Params, lay.Size)
	}
	w, err := readFloats(filepath.Join(dir, "params.f32"), lay.Size)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	ck := &Checkpoint{Model: fromFlat(be, mf.Config, tok, w), Step: mf.Step, Opt: mf.Opt, Extra: mf.Extra}
	if mf.Opt != nil {
		if ck.M, err = readFloats(filepath.Join(dir, "adam_m.f32"), lay.Size); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
		if ck.V, err = readFloats(filepath.Join(dir, "adam_v.f32"), lay.Size); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	return ck, nil
}

// Trainer rebuilds the trainer saved in the checkpoint (optimizer state and step restored) for the
// given loss, so that training resumes where it stopped.
func (ck *Checkpoint) Trainer(name string, metricNames []string, lossFn LossFn) (*Trainer, error) {
	if ck.Opt == nil {
		return nil, fmt.Errorf("checkpoint holds no optimizer state (saved without a trainer)")
	}
	tr, err := NewTrainer(ck.Model, *ck.Opt, name, metricNames, lossFn)
	if err != nil {
		return nil, err
	}
	tr.M = tensors.FromFlatDataAndDimensions(append([]float32(nil), ck.M...), len(ck.M))
	tr.V = tensors.FromFlatDataAndDimensions(append([]float32(nil), ck.V...), len(ck.V))
	tr.Step = ck.Step
	return tr, nil
}

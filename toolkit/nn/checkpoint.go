package nn

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/fsx"
)

// CheckpointFormat tags checkpoint directories written by Save.
const CheckpointFormat = "paperlab-nn/1"

// Manifest is manifest.json inside a checkpoint directory.
type Manifest struct {
	Format string     `json:"format"`
	Params int        `json:"params"`
	Step   int        `json:"step"`
	Opt    *OptConfig `json:"opt,omitempty"`
	// Meta is the model's own description (its configuration, tokenizer, …) as JSON.
	Meta json.RawMessage `json:"meta,omitempty"`
}

// Saved is what Load returns: the manifest, the weights and, when saved by a trainer, Adam's state.
type Saved struct {
	Manifest Manifest
	Weights  []float32
	M, V     []float32
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

// Save writes m's weights (and tr's optimizer state and step when tr is not nil) and meta to dir,
// atomically: everything goes to a temporary directory that replaces dir only when complete.
func Save(dir string, m *Model, tr *Trainer, meta any) error {
	mf := Manifest{Format: CheckpointFormat, Params: m.Layout.Size}
	if meta != nil {
		b, err := json.Marshal(meta)
		if err != nil {
			return fmt.Errorf("checkpoint %s: meta: %w", dir, err)
		}
		mf.Meta = b
	}
	w, err := m.Weights()
	if err != nil {
		return err
	}
	var mom, vel []float32
	if tr != nil {
		if tr.Net != m {
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
		return os.WriteFile(filepath.Join(tmp, "manifest.json"), append(b, '\n'), 0o644)
	})
}

// Load reads a checkpoint written by Save: the manifest first, then params.f32 (and Adam's moments
// when the manifest has an optimizer), checking every size.
func Load(dir string) (*Saved, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	var s Saved
	if err := json.Unmarshal(b, &s.Manifest); err != nil {
		return nil, fmt.Errorf("checkpoint %s: manifest.json: %w", dir, err)
	}
	if s.Manifest.Format != CheckpointFormat {
		return nil, fmt.Errorf("checkpoint %s: format %q, want %q", dir, s.Manifest.Format, CheckpointFormat)
	}
	n := s.Manifest.Params
	if s.Weights, err = readFloats(filepath.Join(dir, "params.f32"), n); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if s.Manifest.Opt != nil {
		if s.M, err = readFloats(filepath.Join(dir, "adam_m.f32"), n); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
		if s.V, err = readFloats(filepath.Join(dir, "adam_v.f32"), n); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	return &s, nil
}

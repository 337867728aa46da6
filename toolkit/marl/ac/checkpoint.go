package ac

import (
	"encoding/json"
	"fmt"

	"github.com/gomlx/compute"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// netMeta is what a saved Net's manifest describes: its sizes, and the caller's own description.
type netMeta struct {
	Kind  string          `json:"kind"`
	Sizes []int           `json:"sizes"`
	Meta  json.RawMessage `json:"meta,omitempty"`
}

const netKind = "ac.mlp"

// SaveNet writes the net's weights and sizes, with meta (any JSON value: its provenance), to dir
// atomically (nn.Save).
func SaveNet(dir string, n *Net, meta any) error {
	var raw json.RawMessage
	if meta != nil {
		b, err := json.Marshal(meta)
		if err != nil {
			return fmt.Errorf("checkpoint %s: meta: %w", dir, err)
		}
		raw = b
	}
	return nn.Save(dir, &n.Model, nil, netMeta{Kind: netKind, Sizes: n.Sizes, Meta: raw})
}

// LoadNet reads a net written by SaveNet onto engine b and returns it with the meta it was saved with.
func LoadNet(b compute.Backend, dir string) (*Net, json.RawMessage, error) {
	s, err := nn.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	var m netMeta
	if err := json.Unmarshal(s.Manifest.Meta, &m); err != nil || m.Kind != netKind {
		return nil, nil, fmt.Errorf("checkpoint %s: not an actor-critic MLP (manifest meta kind %q, want %q)", dir, m.Kind, netKind)
	}
	if len(m.Sizes) < 2 {
		return nil, nil, fmt.Errorf("checkpoint %s: sizes %v: need input and output sizes", dir, m.Sizes)
	}
	var l nn.Layout
	MLP(&l, "mlp", m.Sizes)
	if l.Size != len(s.Weights) {
		return nil, nil, fmt.Errorf("checkpoint %s: %d weights for an MLP %v of %d", dir, len(s.Weights), m.Sizes, l.Size)
	}
	model, err := nn.NewModel(b, l, s.Weights)
	if err != nil {
		return nil, nil, err
	}
	return &Net{Sizes: m.Sizes, Model: model}, m.Meta, nil
}

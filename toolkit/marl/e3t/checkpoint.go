package e3t

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/compute"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
)

// policyFile describes a saved Policy beside its networks (actor/, and pm/ with partner modelling).
type policyFile struct {
	K    int             `json:"k"` // the partner model's history length (0 without one)
	Meta json.RawMessage `json:"meta,omitempty"`
}

// SavePolicy writes a trained cook to dir atomically: actor/ (and pm/ for a partner-modelling E3T
// agent) as ac.SaveNet checkpoints and policy.json with K and meta (its provenance: experiment,
// method, layout, seed…). Acting settings (Greedy, Epsilon) are not saved: the loader chooses them.
func SavePolicy(dir string, p *Policy, meta any) error {
	raw, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("policy %s: meta: %w", dir, err)
	}
	return fsx.WriteDir(dir, func(tmp string) error {
		if err := ac.SaveNet(filepath.Join(tmp, "actor"), p.Actor, nil); err != nil {
			return err
		}
		f := policyFile{Meta: raw}
		if p.PM != nil {
			f.K = p.K
			if err := ac.SaveNet(filepath.Join(tmp, "pm"), p.PM, nil); err != nil {
				return err
			}
		}
		return fsx.WriteJSON(filepath.Join(tmp, "policy.json"), f)
	})
}

// LoadPolicy reads a cook written by SavePolicy onto engine b (sampling, ε = 0: set Greedy or
// Epsilon on the result to act otherwise) and returns it with its meta.
func LoadPolicy(b compute.Backend, dir string) (*Policy, json.RawMessage, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "policy.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("policy %s: %w", dir, err)
	}
	var f policyFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, nil, fmt.Errorf("policy %s: policy.json: %w", dir, err)
	}
	actor, _, err := ac.LoadNet(b, filepath.Join(dir, "actor"))
	if err != nil {
		return nil, nil, err
	}
	p := &Policy{Actor: actor}
	if _, err := os.Stat(filepath.Join(dir, "pm")); err == nil {
		if f.K < 1 {
			return nil, nil, fmt.Errorf("policy %s: policy.json: k = %d with a partner model, want ≥ 1", dir, f.K)
		}
		if p.PM, _, err = ac.LoadNet(b, filepath.Join(dir, "pm")); err != nil {
			return nil, nil, err
		}
		p.K = f.K
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	return p, f.Meta, nil
}

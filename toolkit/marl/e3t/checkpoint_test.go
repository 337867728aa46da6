package e3t

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// A saved cook (with and without a partner model) plays the same greedy game as the original after
// loading, with its meta back; a damaged checkpoint is an error naming the file.
func TestSaveLoadPolicy(t *testing.T) {
	be, _, err := backend.Get()
	if err != nil {
		t.Fatal(err)
	}
	const k = 2
	row := overcooked.VectorSize + overcooked.NumActions
	cfg := overcooked.DefaultConfig("cramped_room")
	cfg.Horizon = 40
	partner := overcooked.Func(func(g *overcooked.Episode, player int, rng *rand.Rand) int { return rng.IntN(overcooked.NumActions) })
	for _, withPM := range []bool{false, true} {
		in := overcooked.VectorSize
		p := &Policy{Greedy: true}
		if withPM {
			in += overcooked.NumActions
			if p.PM, err = ac.NewNet(be, []int{k*row + overcooked.VectorSize, 16, overcooked.NumActions}, 0.01, 3); err != nil {
				t.Fatal(err)
			}
			p.K = k
		}
		if p.Actor, err = ac.NewNet(be, []int{in, 32, overcooked.NumActions}, 1, 5); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "cook")
		if err := SavePolicy(dir, p, map[string]any{"method": "test", "pm": withPM}); err != nil {
			t.Fatal(err)
		}
		back, meta, err := LoadPolicy(be, dir)
		if err != nil {
			t.Fatal(err)
		}
		back.Greedy = true
		var m map[string]any
		if err := json.Unmarshal(meta, &m); err != nil || m["method"] != "test" || (back.PM != nil) != withPM || back.K != p.K {
			t.Fatalf("meta %s (%v), pm %v, k %d", meta, err, back.PM != nil, back.K)
		}
		want, _, err := overcooked.Play(cfg, p, partner, 1)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := overcooked.Play(cfg, back, partner, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("pm %v: the loaded cook plays differently", withPM)
		}
		if err := os.WriteFile(filepath.Join(dir, "actor", "params.f32"), []byte{1, 2, 3}, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadPolicy(be, dir); err == nil || !strings.Contains(err.Error(), "params.f32") {
			t.Fatalf("damaged weights: %v", err)
		}
	}
}

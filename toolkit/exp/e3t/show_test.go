package e3t

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// The notebook's tables: every key of every layout's table is in the committed summary of some
// method (the human-BC partner only where it passed its gate), ShowTables shows them without error, and the kitchens print.
func TestTablesOnCommittedResult(t *testing.T) {
	res, _ := exptest.Committed(t, "e3t")
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, layout := range cfg.Layouts {
		for _, k := range TableKeys(layout) {
			found := k == layout+"/human_bc_return"
			for _, m := range res.Methods() {
				if _, ok := res.Summary[m][k]; ok {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no method has %s", layout, k)
			}
		}
	}
	if err := ShowTables(res); err != nil {
		t.Fatal(err)
	}
	if err := ShowKitchens(); err != nil {
		t.Fatal(err)
	}
}

// The committed cooks load with their provenance and cook: self-play scores with itself; E3T (a
// partner model: a per-game history) plays itself only as two copies, one object in both seats is
// refused; a method that was never saved is an error naming the folder.
func TestCommittedCook(t *testing.T) {
	cfg := overcooked.DefaultConfig("cramped_room")
	p, saved, err := CommittedCook("sp", "cramped_room")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(saved, "seed 1, default scale, commit ") || len(saved) != len("seed 1, default scale, commit ")+7 {
		t.Errorf("provenance %q", saved)
	}
	ret, err := overcooked.Evaluate(cfg, p, p, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	if ret < 20 {
		t.Errorf("self-play cook with itself: return %v, want at least a soup", ret)
	}
	e1, _, err := CommittedCook("e3t", "cramped_room")
	if err != nil {
		t.Fatal(err)
	}
	e2, _, _ := CommittedCook("e3t", "cramped_room")
	if _, err := overcooked.Evaluate(cfg, e1, e1, 2, 7); err == nil || !strings.Contains(err.Error(), "copy of itself") {
		t.Errorf("one E3T object in both seats: %v", err)
	}
	if _, err := overcooked.Evaluate(cfg, e1, e2, 2, 7); err != nil {
		t.Error(err)
	}
	if _, _, err := CommittedCook("nope", "cramped_room"); err == nil || !strings.Contains(err.Error(), filepath.Join("checkpoints", "nope", "cramped_room")) {
		t.Errorf("unknown method: %v", err)
	}
}

// A trained cook from the committed run as the partner of a cook written as a function (notebook 03).
func ExampleCommittedCook() {
	sp, saved, err := CommittedCook("sp", "cramped_room")
	if err != nil {
		panic(err)
	}
	stay := overcooked.Func(func(*overcooked.Episode, int, *rand.Rand) int { return overcooked.Stay })
	if _, err := overcooked.Evaluate(overcooked.DefaultConfig("cramped_room"), sp, stay, 1, 7); err != nil {
		panic(err)
	}
	fmt.Println(saved[:strings.Index(saved, " commit")])
	// Output: seed 1, default scale,
}

// The metrics of notebook 30's table for one layout (summary keys "<layout>/<metric>").
func ExampleTableKeys() {
	fmt.Println(TableKeys("cramped_room")[:3])
	// Output: [cramped_room/pool_return cramped_room/scripted_return cramped_room/learned_return]
}

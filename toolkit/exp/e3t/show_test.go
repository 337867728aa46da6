package e3t

import (
	"encoding/json"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp/exptest"
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

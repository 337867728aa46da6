package agents

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestPilotSmoke runs the pilot at smoke scale: every arm pretrained once with the measures its
// table reads, and the table has a row per arm.
func TestPilotSmoke(t *testing.T) {
	_, back, _ := exptest.Smoke(t, "agents-pilot")
	exptest.RequireMetrics(t, back, BindArms, []string{"colour_gap", "swap_drop", "val_over_ceiling", "pretrain_hit_cap", "pretrain_plateau_step", "swap/success"}, 1)
	if rows, _, _ := PilotTable(back); len(rows) != len(BindArms) {
		t.Fatalf("%d rows", len(rows))
	}
	if !strings.Contains(PilotMarkdown(back), "| obs-prefix |") {
		t.Fatal(PilotMarkdown(back))
	}
}

// TestPilotPick: an arm binds when its mean swap drop reaches MinSwapDrop and its colour-blind
// gap's lower end is above 0; the pick is the binding arm with the largest mean gap, none when no
// arm binds.
func TestPilotPick(t *testing.T) {
	pc := PilotConfigFor(exp.Default)
	b, _ := json.Marshal(pc)
	res := &exp.Result{Experiment: "agents-pilot", Config: b}
	// arm: gap, gap spread, swap drop
	arms := map[string][3]float64{BindNone: {0.02, 0.01, 0.07}, BindAux: {0.2, 0.3, 0.3}, BindPairs: {0.1, 0.01, 0.25}, BindObsPrefix: {0.2, 0.01, 0.15}}
	for s := uint64(1); s <= 3; s++ {
		res.Seeds = append(res.Seeds, s)
		sign := float64(int(s%2)*2 - 1)
		for arm, v := range arms {
			res.Runs = append(res.Runs, exp.Run{Method: arm, Seed: s, Final: map[string]float64{"colour_gap": v[0] + sign*v[1], "swap_drop": v[2], "val_over_ceiling": 0.9, "pretrain_success": 0.5}})
		}
	}
	rows, pick, binding := PilotTable(res)
	binds := map[string]bool{}
	for _, r := range rows {
		binds[r.Arm] = r.Binds
	}
	// aux: swap enough but its gap's interval reaches below 0; obs-prefix: swap too small
	if pick != BindPairs || !binding || binds[BindAux] || binds[BindObsPrefix] || binds[BindNone] || !binds[BindPairs] {
		t.Fatalf("pick %q, binds %v", pick, binds)
	}
	for i := range res.Runs {
		res.Runs[i].Final["swap_drop"] = 0.1
	}
	// none binds: the arm with the largest mean gap (aux), flagged
	if _, pick, binding := PilotTable(res); pick != BindAux || binding {
		t.Fatalf("pick %q (binding %v) with no arm binding", pick, binding)
	}
	// a cap hit makes a binding arm ineligible, and the fallback prefers arms without one
	for i := range res.Runs {
		res.Runs[i].Final["swap_drop"] = 0.3
		if res.Runs[i].Method == BindPairs && res.Runs[i].Seed == 1 {
			res.Runs[i].Final["pretrain_hit_cap"] = 1
		}
		if res.Runs[i].Method == BindAux {
			res.Runs[i].Final["pretrain_hit_cap"] = 1
		}
	}
	if _, pick, binding := PilotTable(res); pick != BindObsPrefix || !binding {
		t.Fatalf("pick %q (binding %v): pairs hit its cap once, aux does not bind", pick, binding)
	}
}

// The committed pilot is what notebook 70 reloads: its recorded configuration is the preset's at
// default scale (a drift would make the notebook run the pilot again), it holds every arm on 3
// seeds, and the main run's default binding is its pick.
func TestCommittedPilot(t *testing.T) {
	res, e := exptest.Committed(t, "agents-pilot")
	want, err := json.Marshal(e.Config(exp.Default))
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, res.Config); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, want); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("the committed pilot's configuration is not the preset's:\n%s\n%s", a.String(), b.String())
	}
	rows, pick, _ := PilotTable(res)
	if len(res.Seeds) != 3 || len(rows) != len(BindArms) {
		t.Fatalf("%d seeds, %d rows", len(res.Seeds), len(rows))
	}
	if got := ConfigFor(exp.Default).Bind; got != pick {
		t.Fatalf("the main run binds with %q, the pilot picked %q", got, pick)
	}
}

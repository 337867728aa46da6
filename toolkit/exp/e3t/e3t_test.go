package e3t

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestSmokeRunMetricsComplete runs experiment "e3t" at smoke scale and checks the summary keys the
// experiment records (those its figures, claims and README read), FCP's cost accounting, the
// per-partner numbers, the efficiency curves and the episode animation.
func TestSmokeRunMetricsComplete(t *testing.T) {
	_, back, dir := exptest.Smoke(t, "e3t")
	cfg := ConfigFor("smoke")
	exptest.RequireMetrics(t, back, []string{"sp", "fcp", "e3t", "e3t-nopm"}, []string{"pool_return", "heldout_return", "env_steps", "cramped_room/pool_return", "coordination_ring/pool_return"}, 1)
	if n := back.Summary["e3t"]["pool_return"].N; n != len(back.Seeds) {
		t.Fatalf("pool_return averaged over layouts has n = %d, want one per seed (%d)", n, len(back.Seeds))
	}

	s := back.Summary
	if !(s["fcp"]["env_steps"].Mean > s["e3t"]["env_steps"].Mean) {
		t.Fatalf("FCP's cost (%v) does not include its population (E3T %v)", s["fcp"]["env_steps"].Mean, s["e3t"]["env_steps"].Mean)
	}
	for _, layout := range cfg.Layouts {
		var partners []Partner
		if err := back.GetExtra("partners_"+layout, &partners); err != nil {
			t.Fatal(err)
		}
		// The shared pool: every method that ran on the layout, every seed, every partner —
		// its own family's held-out agents included.
		kinds := map[string]int{}
		for _, p := range partners {
			kinds[p.Kind]++
			for _, m := range cfg.Methods {
				if !m.On(layout) {
					continue
				}
				for _, seed := range back.Seeds {
					if _, ok := back.Final(m.Name, layout+"/partner/"+p.Name, seed); !ok {
						t.Fatalf("%s: method %s seed %d was not scored with partner %s (%s %s)", layout, m.Name, seed, p.Name, p.Kind, p.Family)
					}
				}
			}
		}
		// 3 roles scripted; human data only for cramped_room; SP, E3T and FCP on 3 held-out seeds each.
		wantBC := map[string]int{"cramped_room": 1, "coordination_ring": 0}[layout]
		if kinds["scripted"] != 3 || kinds["human_bc"] != wantBC || kinds["learned"] != 3*len(cfg.HeldOutSeeds) || len(cfg.HeldOutSeeds) < 3 {
			t.Fatalf("%s: pool kinds %v", layout, kinds)
		}
		for _, k := range []string{"pool_return", "heldout_return", "scripted_return", "learned_sp_return", "learned_fcp_return", "learned_e3t_return"} {
			if _, ok := s["e3t"][layout+"/"+k]; !ok {
				t.Fatalf("no %s/%s", layout, k)
			}
		}
		// The competence check: a family with an agent below one soup (with itself or a noiseless scripted
		// cook, whichever is higher) is reported apart,
		// and learned_return averages only the other families.
		weak, inPool := map[string]bool{}, 0
		for _, p := range partners {
			if p.Kind == "learned" && p.Competence() < MinCookReturn {
				weak[p.Family] = true
			}
		}
		for _, p := range partners {
			if p.Kind == "learned" && p.Apart != weak[p.Family] {
				t.Fatalf("%s: partner %s (self-play %v) apart = %v, its family weak = %v", layout, p.Name, p.SelfPlay, p.Apart, weak[p.Family])
			}
			if p.Kind == "learned" && !p.Apart {
				inPool++
			}
		}
		if _, ok := s["e3t"][layout+"/learned_return"]; ok != (inPool > 0) {
			t.Fatalf("%s: learned_return present %v with %d learned partners in the pool", layout, ok, inPool)
		}
		// Budgets: the layout's iterations (LayoutIters), FCP's best response at FCPIters, its cost
		// counting every self-play run of its population (the SP method's seeds and PopulationSeeds).
		perIter := cfg.Train.Envs * cfg.Horizon
		sp, _ := back.Final("sp", layout+"/env_steps", back.Seeds[0])
		if want := cfg.Iters(layout) * perIter; int(sp) != want {
			t.Fatalf("%s: sp env steps %v, want %d", layout, sp, want)
		}
		fcpOwn, _ := back.Final("fcp", layout+"/env_steps", back.Seeds[0])
		offset, _ := back.Final("fcp", layout+"/offset_steps", back.Seeds[0])
		if want := float64((len(back.Seeds) + len(cfg.PopulationSeeds)) * cfg.Iters(layout) * perIter); offset != want || fcpOwn-offset != float64(cfg.FCPIters*perIter) {
			t.Fatalf("%s: fcp env steps %v with offset %v, want offset %v and %d of its own", layout, fcpOwn, offset, want, cfg.FCPIters*perIter)
		}
		// The cost curves: E3T's and FCP's snapshots scored with the pool, against steps and CPU
		// seconds growing along training, FCP's starting at its population's cost.
		for _, m := range []string{"e3t", "fcp"} {
			st, _ := back.CurveOf(m, layout+"/pool_by_steps", back.Seeds[0])
			cpu, _ := back.CurveOf(m, layout+"/pool_by_cpu", back.Seeds[0])
			if len(st.X) < 2 || len(cpu.X) != len(st.X) || !slices.IsSorted(st.X) || !slices.IsSorted(cpu.X) {
				t.Fatalf("%s %s: cost curves %+v %+v", layout, m, st, cpu)
			}
			if c, _ := back.Final(m, layout+"/cpu_seconds", back.Seeds[0]); !(c > 0) {
				t.Fatalf("%s %s: cpu_seconds %v", layout, m, c)
			}
		}
		// FCP's population as chosen: every self-play run of it, at three checkpoints (initial, middle,
		// final) in training order.
		var members []Member
		if err := back.GetExtra("population_"+layout, &members); err != nil || len(members) != len(back.Seeds)+len(cfg.PopulationSeeds) {
			t.Fatalf("%s: population %v (%v)", layout, members, err)
		}
		for _, m := range members {
			if len(m.Iters) != 3 || m.Iters[0] != 0 || m.Iters[2] != cfg.Iters(layout) || !(m.Iters[1] > 0 && m.Iters[1] < m.Iters[2]) {
				t.Fatalf("%s: member %+v", layout, m)
			}
		}
		if c, _ := back.CurveOf("fcp", layout+"/pool_by_steps", back.Seeds[0]); c.X[0] != offset {
			t.Fatalf("%s: FCP's cost curve starts at %v steps, its population cost %v", layout, c.X[0], offset)
		}
	}
	if _, ok := s["e3t"]["cramped_room/human_bc_return"]; !ok {
		t.Fatal("no cramped_room/human_bc_return")
	}
	var fits map[string]map[string]float64
	if err := back.GetExtra("bc", &fits); err != nil || fits["cramped_room"]["heldout_examples"] < 100 {
		t.Fatalf("behaviour-cloning fit: %v %v", err, fits)
	}
	run := back.RunsOf("e3t")[0]
	if c := run.Curves["cramped_room/monitor_return"]; len(c.Y) == 0 {
		t.Fatal("no monitor curve")
	}
	if c := run.Curves["cramped_room/pm_accuracy"]; len(c.Y) == 0 || c.Y[len(c.Y)-1] < 0 || c.Y[len(c.Y)-1] > 1 {
		t.Fatalf("partner-model accuracy curve %v", c.Y)
	}
	// The partner model's bounds, recorded every iteration: the ceiling between uniform guessing and
	// what ε = 0.7 leaves predictable, the best constant guess below it.
	n := len(run.Curves["cramped_room/pm_accuracy"].Y)
	ceil, floor := run.Curves["cramped_room/pm_ceiling"], run.Curves["cramped_room/pm_floor"]
	if len(ceil.Y) != n || len(floor.Y) != n || len(run.Curves["cramped_room/pm_ceiling_half"].Y) != n {
		t.Fatalf("pm_ceiling %v, pm_floor %v, pm_ceiling_half %v", ceil.Y, floor.Y, run.Curves["cramped_room/pm_ceiling_half"].Y)
	}
	for i, y := range ceil.Y {
		if y < 1.0/6-1e-9 || y > 0.7/6+0.3+1e-9 || floor.Y[i] > y+1e-9 {
			t.Fatalf("pm_ceiling %v (floor %v) outside [1/6, 0.7/6 + 0.3]", y, floor.Y[i])
		}
	}
	var ep Episode
	if err := back.GetExtra("episode", &ep); err != nil || len(ep.Actions) != cfg.Horizon {
		t.Fatalf("episode: %v (%d actions)", err, len(ep.Actions))
	}
	for _, l := range cfg.Layouts {
		for _, fig := range []string{"cost_", "partner_model_"} {
			if st, err := os.Stat(filepath.Join(dir, fig+l+".png")); err != nil || st.Size() < 1000 {
				t.Fatalf("figure %s%s: %v", fig, l, err)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "episode.gif")); err != nil || st.Size() < 1000 {
		t.Fatalf("episode.gif: %v", err)
	}
}

// TestJudgedSharedPool: with a shared pool every method meets every partner; without it (the runs
// before 2026-12-04) a method is kept from its own family's learned agents only.
func TestJudgedSharedPool(t *testing.T) {
	pool := []Partner{{Name: "onion-0", Kind: "scripted"}, {Name: "human-bc", Kind: "human_bc"},
		{Name: "sp-h101", Kind: "learned", Family: "sp"}, {Name: "e3t-h101", Kind: "learned", Family: "e3t"}, {Name: "fcp-h101", Kind: "learned", Family: "fcp"}}
	for _, m := range ConfigFor("default").Methods {
		if got := Judged(pool, m, true); len(got) != len(pool) {
			t.Errorf("shared pool: %s meets %d of %d partners", m.Name, len(got), len(pool))
		}
		old := Judged(pool, m, false)
		if len(old) != len(pool)-1 {
			t.Errorf("own-family rule: %s meets %d partners, want %d", m.Name, len(old), len(pool)-1)
		}
		for _, p := range old {
			if p.Kind == "learned" && p.Family == m.Family() {
				t.Errorf("own-family rule: %s meets its own family's %s", m.Name, p.Name)
			}
		}
	}
}

// TestPoolReturnsBCGate: the human-BC partner enters pool_return only when its fit beats always
// playing the commonest action by more than BCMargin; it is reported apart either way.
func TestPoolReturnsBCGate(t *testing.T) {
	if BCGate(map[string]float64{"heldout_accuracy": 0.720, "majority_accuracy": 0.716}) {
		t.Error("a BC partner 0.004 above the commonest action passes the gate (cramped_room's committed fit)")
	}
	if !BCGate(map[string]float64{"heldout_accuracy": 0.76, "majority_accuracy": 0.716}) {
		t.Error("a BC partner 0.044 above the commonest action fails the gate")
	}
	if BCGate(map[string]float64{"heldout_accuracy": 0.9}) {
		t.Error("a fit without the majority baseline passes the gate")
	}
	kinds := map[string][]float64{"scripted": {10, 20}, "human_bc": {100}, "learned": {30, 60}, "learned_sp": {30}, "learned_e3t": {60}}
	shut, open := PoolReturns(kinds, false), PoolReturns(kinds, true)
	for name, got := range map[string]float64{"gate shut": shut["pool_return"], "gate open": open["pool_return"]} {
		want := map[string]float64{"gate shut": (15 + 45) / 2.0, "gate open": (15 + 45 + 100) / 3.0}[name]
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: pool_return %v, want %v", name, got, want)
		}
	}
	if shut["human_bc_return"] != 100 || shut["heldout_return"] != (15+100)/2.0 || shut["learned_sp_return"] != 30 {
		t.Errorf("per-kind returns %v", shut)
	}
}

// TestMethodLayouts: a method with Layouts runs only there (the smoke run with an extra E3T that
// runs on cramped_room alone).
func TestMethodLayouts(t *testing.T) {
	cfg := ConfigFor(exp.Smoke)
	if !slices.ContainsFunc(cfg.Methods, func(m Method) bool {
		return m.Name == "e3t-eps0.25" && slices.Equal(m.Layouts, []string{"cramped_room"})
	}) {
		t.Fatal("the preset has no e3t-eps0.25 on cramped_room alone")
	}
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	res, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Config: cfg, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Summary["e3t-eps0.25"]["cramped_room/pool_return"]; !ok {
		t.Fatal("e3t-eps0.25 has no cramped_room/pool_return")
	}
	if _, ok := res.Summary["e3t-eps0.25"]["coordination_ring/pool_return"]; ok {
		t.Fatal("e3t-eps0.25 ran on coordination_ring, outside its Layouts")
	}
	if _, ok := res.Summary["e3t-eps0.25"]["pool_return"]; ok {
		t.Fatal("a method on one layout got a mean over layouts")
	}
}

// TestParts: part ablations trains only the Extra methods (E3T without its partner model, the ε
// sweep; with the held-out pool, no FCP population), part main every other method.
func TestParts(t *testing.T) {
	if testing.Short() {
		t.Skip("two smoke runs")
	}
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(exp.Smoke)
	for _, part := range []string{PartAblations, PartMain} {
		res, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Log: io.Discard, Part: part})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cfg.Methods {
			if got := len(res.RunsOf(m.Name)) > 0; got != (m.Part() == part) {
				t.Errorf("part %s: method %s (part %s) has runs: %v", part, m.Name, m.Part(), got)
			}
		}
		if _, ok := res.Timing["population_cramped_room"]; ok != (part == PartMain) {
			t.Errorf("part %s: FCP's population trained: %v", part, ok)
		}
	}
}

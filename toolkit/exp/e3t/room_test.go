package e3t

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestRoomOnCommittedResult: every claim names room checks that exist, and every check has a
// finite value on the committed run.
func TestRoomOnCommittedResult(t *testing.T) {
	res, e := exptest.Committed(t, "e3t")
	j := exptest.Judge(t, e, res)
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	// Per layout: a plateau and a learned-to-cook check per method, two partner-model checks per
	// partner-model method, two partner sets, the BC fit; and the budget.
	want := 1
	for _, l := range cfg.Layouts {
		want += 2 // the two partner sets
		if hasBC(res, l) {
			want++ // the BC fit, where the layout has human data
		}
		for _, m := range cfg.Methods {
			if m.On(l) {
				want += 2
				if m.PartnerModel {
					want += 2
				}
			}
		}
	}
	if len(j.Room) != want {
		t.Fatalf("%d room checks, want %d", len(j.Room), want)
	}
	for _, r := range j.Room {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			t.Errorf("room check %q is not measured on the committed run: %s", r.Name, r.ValueText())
		}
		if strings.TrimSpace(r.Why) == "" {
			t.Errorf("room check %q has no why", r.Name)
		}
	}
	if len(j.Claims) == 0 {
		t.Fatal("no claims")
	}
	for _, c := range j.Claims {
		if len(c.Room) == 0 {
			t.Errorf("claim %q needs no room check", c.Text)
		}
		// A claim over the mean of the layouts needs the checks of every layout.
		if strings.HasPrefix(c.Text, "mean over layouts") {
			for _, l := range cfg.Layouts {
				if !slices.Contains(c.Room, flatName(l, "e3t")) {
					t.Errorf("claim %q does not need %q", c.Text, flatName(l, "e3t"))
				}
			}
		}
	}
}

// TestRoomPartnerSetsRecomputed recomputes, from the raw final keys, which learned held-out
// partners each method meets: each method is kept from its own family's agent, so no learned
// partner is common to all methods and the check reads 0, while the scripted and BC partners are
// common (1).
func TestRoomPartnerSetsRecomputed(t *testing.T) {
	res, e := exptest.Committed(t, "e3t")
	j := exptest.Judge(t, e, res)
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	for _, l := range cfg.Layouts {
		var pool []Partner
		if err := res.GetExtra("partners_"+l, &pool); err != nil {
			t.Fatal(err)
		}
		learned, commonLearned, fixed, commonFixed := 0, 0, 0, 0
		for _, p := range pool {
			met := 0
			for _, run := range res.Runs {
				if _, ok := run.Final[l+"/partner/"+p.Name]; ok {
					met++
				}
			}
			on := 0 // the methods that run on this layout (Method.Layouts)
			for _, m := range cfg.Methods {
				if m.On(l) {
					on++
				}
			}
			all := met == on*len(res.Seeds) // one run per method, seed and layout
			if p.Kind == "learned" {
				learned++
				if all {
					commonLearned++
				}
			} else {
				fixed++
				if all {
					commonFixed++
				}
			}
		}
		learnedSet, fixedSet := exptest.RoomCheck(t, j.Room, learnedSetName(l)), exptest.RoomCheck(t, j.Room, fixedSetName(l))
		if got, want := learnedSet.Value, float64(commonLearned)/float64(learned); got != want {
			t.Errorf("%s: learned share %v, recomputed %v", l, got, want)
		}
		if got, want := fixedSet.Value, float64(commonFixed)/float64(fixed); got != want {
			t.Errorf("%s: scripted + BC share %v, recomputed %v", l, got, want)
		}
		// With a shared pool (issue 36) every method meets every partner; before it each method was
		// kept from its own family's learned agents.
		if learnedSet.OK != cfg.SharedPool || !fixedSet.OK {
			t.Errorf("%s: learned set ok %v (shared pool %v), fixed set ok %v", l, learnedSet.OK, cfg.SharedPool, fixedSet.OK)
		}
	}
}

// TestRoomFanoCeiling: for a distribution that puts 1 − Pe on one action and Pe/5 on each other,
// Fano's bound is tight, so the bisection must return Pe; a uniform policy leaves 1/6.
func TestRoomFanoCeiling(t *testing.T) {
	for _, pe := range []float64{0, 0.05, 0.3, 0.6, 5.0 / 6} {
		h := 0.0
		for _, p := range append([]float64{1 - pe}, pe/5, pe/5, pe/5, pe/5, pe/5) {
			if p > 0 {
				h -= p * math.Log(p)
			}
		}
		if got := fanoError(h, 6); math.Abs(got-pe) > 1e-9 {
			t.Errorf("entropy %.4f: Pe %v, want %v", h, got, pe)
		}
	}
	if got := pmCeiling(0.5, 0); math.Abs(got-(0.5+0.5/6)) > 1e-12 {
		t.Errorf("deterministic partner, ε 0.5: ceiling %v", got)
	}
	if got := pmCeiling(0.5, math.Log(6)); math.Abs(got-1.0/6) > 1e-9 {
		t.Errorf("uniform partner: ceiling %v, want 1/6", got)
	}
}

// setCurve replaces method's curve key on every seed (y as a function of the point's index).
func setCurve(res *exp.Result, method, key string, y func(i, n int) float64) {
	for ri := range res.Runs {
		run := &res.Runs[ri]
		c, ok := run.Curves[key]
		if run.Method != method || !ok {
			continue
		}
		ys := make([]float64, len(c.Y))
		for i := range ys {
			ys[i] = y(i, len(ys))
		}
		c.Y = ys
		run.Curves[key] = c
	}
}

// TestRoomPlateauTurnsTheVerdict edits the committed curves: SP's and E3T's cramped_room training
// returns made flat at a cooking level (and the human-BC partner made better than the commonest
// action) leave the cramped_room headline testable, with the interval's own verdict; E3T's return
// made a straight line makes it untestable again, naming E3T's plateau alone.
func TestRoomPlateauTurnsTheVerdict(t *testing.T) {
	const l = "cramped_room"
	res, e := exptest.Committed(t, "e3t")
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	headline := l + ": E3T beats SP with held-out partners"
	if cfg.SharedPool {
		headline = l + ": E3T beats SP with the shared held-out pool"
	}
	for _, m := range []string{"sp", "e3t"} {
		setCurve(res, m, l+"/episodic_return", func(i, n int) float64 { return 100 })
	}
	var fits map[string]map[string]float64
	if err := res.GetExtra("bc", &fits); err != nil {
		t.Fatal(err)
	}
	fits[l]["heldout_accuracy"] = fits[l]["majority_accuracy"] + 2*BCMargin
	if err := res.SetExtra("bc", fits); err != nil {
		t.Fatal(err)
	}
	after := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, res).Claims, headline)
	if after.Verdict() == exp.Untestable {
		t.Fatalf("SP and E3T flat: still %s (fails %v)", after.VerdictText(), after.Untestable)
	}
	for _, c := range Claims(res) { // without the room applied: the interval's own verdict
		if strings.HasPrefix(c.Text, headline) && c.Verdict() != after.Verdict() {
			t.Errorf("flat: verdict %q, the interval's %q", after.Verdict(), c.Verdict())
		}
	}
	setCurve(res, "e3t", l+"/episodic_return", func(i, n int) float64 { return float64(i) })
	again := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, res).Claims, headline)
	if again.Verdict() != exp.Untestable || !slices.Equal(again.Untestable, []string{flatName(l, "e3t")}) {
		t.Fatalf("E3T rising: %s (fails %v), want untestable on %q alone", again.Verdict(), again.Untestable, flatName(l, "e3t"))
	}
}

package agents

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	gw "github.com/paperlab/paperlab/toolkit/agents/gridworld"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestRoomOnCommittedResult: every claim's checks exist and each check has a finite value on the
// committed run.
func TestRoomOnCommittedResult(t *testing.T) {
	res, e := exptest.Committed(t, "agents")
	j := exptest.Judge(t, e, res)
	if len(j.Room) != len(pretrainNeeds)+1 || len(j.Claims) == 0 {
		t.Fatalf("%d room checks, %d claims", len(j.Room), len(j.Claims))
	}
	for _, r := range j.Room {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			t.Errorf("room check %q not measured: %s", r.Name, r.ValueText())
		}
	}
	for _, c := range j.Claims {
		if !slices.Equal(c.Room, pretrainNeeds) {
			t.Errorf("claim %q needs %v", c.Text, c.Room)
		}
	}
}

// TestRoomNoiseCeiling checks the ceiling on hand-made data and, on the committed run, that it is
// the audit's "~0.75", that the check's value is the validation accuracy over it, and that the
// pretraining data regenerated from the configuration gives the recorded ceiling.
func TestRoomNoiseCeiling(t *testing.T) {
	tr := func(e gw.Embodiment, steps int) gw.Trajectory {
		return gw.Trajectory{Embodiment: int(e), Actions: make([]int, steps)}
	}
	// One task, 2 episodes at noises 0 and 0.6, both embodiments, 10 and 20 steps.
	data := []gw.Trajectory{tr(gw.Walker, 10), tr(gw.Diagonal, 10), tr(gw.Walker, 20), tr(gw.Diagonal, 20)}
	want := (10 + 10 + 20*(1-0.6+0.6/4) + 20*(1-0.6+0.6/8)) / 60
	if got, err := NoiseCeiling(data, 2, []float64{0, 0.6}); err != nil || math.Abs(got-want) > 1e-12 {
		t.Fatalf("ceiling %v (%v), want %v", got, err, want)
	}
	if _, err := NoiseCeiling(data[:3], 2, []float64{0, 0.6}); err == nil {
		t.Error("a ragged data set gave a ceiling")
	}
	if _, err := NoiseCeiling([]gw.Trajectory{data[1], data[0], data[3], data[2]}, 2, []float64{0, 0.6}); err == nil {
		t.Error("data out of gw.Collect's order gave a ceiling")
	}
	res, e := exptest.Committed(t, "agents")
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	var ceils []float64
	for _, s := range res.Seeds {
		c, ok := ceilingOf(res, cfg, s)
		if !ok || math.Abs(c-0.75) > 0.02 {
			t.Fatalf("seed %d: ceiling %v (%v), the audit's ~0.75", s, c, ok)
		}
		ceils = append(ceils, c)
	}
	r := exptest.RoomCheck(t, exptest.Judge(t, e, res).Room, accCeilingName)
	for i, s := range r.Seeds { // since issue 39: the validation accuracy on streams that name the colour
		acc, _ := res.Final("pretrained", "pretrain_val_accuracy_colour", s)
		if want := acc / ceils[i]; math.Abs(r.PerSeed[i]-want) > 1e-12 {
			t.Errorf("seed %d: %v, want %v", s, r.PerSeed[i], want)
		}
	}
	// The ceiling regenerated from the configuration and the recorded task types (results that
	// predate pretrain_noise_ceiling) equals the one recorded.
	for i := range res.Runs {
		if res.Runs[i].Method == "pretrained" && res.Runs[i].Seed == res.Seeds[0] {
			delete(res.Runs[i].Final, "pretrain_noise_ceiling")
		}
	}
	if c, ok := ceilingOf(res, cfg, res.Seeds[0]); !ok || math.Abs(c-ceils[0]) > 1e-12 {
		t.Errorf("regenerated ceiling %v (%v), recorded %v", c, ok, ceils[0])
	}
	// A recorded ceiling is read instead of regenerated.
	for i := range res.Runs {
		if res.Runs[i].Method == "pretrained" {
			res.Runs[i].Final["pretrain_noise_ceiling"] = 0.5
		}
	}
	if c, ok := ceilingOf(res, cfg, res.Seeds[1]); !ok || c != 0.5 {
		t.Errorf("recorded ceiling 0.5 read as %v", c)
	}
}

// TestRoomMDE: the audit's "~0.13 over 5 seeds" with 60 episodes at p ≈ 0.25, and the formula.
func TestRoomMDE(t *testing.T) {
	if got := MDE(60, 5, 0.25, 0.8); math.Abs(got-0.13) > 0.005 {
		t.Errorf("MDE at p 0.25: %v, the audit's ~0.13", got)
	}
	want := (2.7764451 + 0.9409646) * math.Sqrt(2*0.25/60/5)
	if got := MDE(60, 5, 0.5, 0.8); math.Abs(got-want) > 1e-5 {
		t.Errorf("MDE at p 0.5: %v, want %v", got, want)
	}
	if !math.IsNaN(MDE(60, 1, 0.5, 0.8)) {
		t.Error("one seed has an MDE")
	}
}

// TestRoomTurnsTheVerdict edits the committed result until every check passes (the pretrained
// agent near its ceiling and well above the colour-blind navigator on every seed): the claims then
// read their intervals; putting pretrain_success back makes each untestable naming that check
// alone (the committed run fails it, and the ceiling check is kept passing).
func TestRoomTurnsTheVerdict(t *testing.T) {
	res, e := exptest.Committed(t, "agents")
	for _, c := range exptest.Judge(t, e, res).Claims {
		if c.Verdict() != exp.Untestable {
			t.Fatalf("committed claim %q reads %q", c.Text, c.Verdict())
		}
	}
	saved := map[uint64]float64{}
	for i := range res.Runs {
		run := &res.Runs[i]
		if run.Method != "pretrained" {
			continue
		}
		run.Final["pretrain_noise_ceiling"], run.Final["pretrain_val_accuracy_colour"] = 0.75, 0.7 // ≥ 0.9 · 0.75
		saved[run.Seed] = run.Final["pretrain_success"]
		run.Final["pretrain_success"] = run.Final["ref/"+gw.RefColourBlind+"/indist/success"] + 0.2 + 0.01*float64(run.Seed)
	}
	j := exptest.Judge(t, e, res)
	if failed := exp.FailedRoom(j.Room); len(failed) > 0 {
		t.Fatalf("edited result still fails %v", failed)
	}
	for _, c := range j.Claims {
		if c.Verdict() == exp.Untestable {
			t.Errorf("claim %q untestable with every check passing", c.Text)
		}
	}
	for i := range res.Runs {
		if res.Runs[i].Method == "pretrained" {
			res.Runs[i].Final["pretrain_success"] = saved[res.Runs[i].Seed]
		}
	}
	for _, c := range exptest.Judge(t, e, res).Claims {
		if c.Verdict() != exp.Untestable || !slices.Equal(c.Untestable, []string{colourName}) || !strings.Contains(c.VerdictText(), colourName) {
			t.Errorf("claim %q: %s, want untestable on %q alone", c.Text, c.VerdictText(), colourName)
		}
	}
}

// TestPaperSettings: the position paper states no settings, so none are recorded (the settings
// themselves are checked for all experiments in toolkit/exp/all).
func TestPaperSettings(t *testing.T) {
	e, err := exp.Lookup("agents")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Paper) != 0 {
		t.Errorf("%d paper settings recorded for a paper that states none", len(e.Paper))
	}
}

package agents

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	gw "github.com/paperlab/paperlab/toolkit/agents/gridworld"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/stats"
)

// TestRoomOnCommittedResult: every claim's checks exist and each check has a finite value on the
// committed run (the protocol of 2026-12-07): every claim needs the converged and ceiling checks,
// the navigation-prior claims the random walker's (and the moved check at their k), the
// task-knowledge claims the colour and swap checks. The run converged on every seed and moved off
// the pretrained weights on 3, 3 and 5 of 5 seeds at k = 5, 10, 20, but its ceiling (lower end 0.729)
// and swap (lower end 0.116) checks fail.
func TestRoomOnCommittedResult(t *testing.T) {
	res, e := exptest.Committed(t, "agents")
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.PretrainDecayFrac == 0 {
		t.Fatal("the committed run is not of the protocol of 2026-12-07")
	}
	j := exptest.Judge(t, e, res)
	names := map[string]bool{}
	for _, r := range j.Room {
		names[r.Name] = true
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			t.Errorf("room check %q not measured: %s", r.Name, r.ValueText())
		}
	}
	if len(j.Room) != 9 || len(j.Claims) == 0 {
		t.Fatalf("%d room checks, %d claims", len(j.Room), len(j.Claims))
	}
	exptest.Stats(t, j.Room)
	for _, c := range j.Claims {
		for _, n := range pretrainNeeds(cfg) {
			if !slices.Contains(c.Room, n) {
				t.Errorf("claim %q does not need %q", c.Text, n)
			}
		}
		for _, n := range c.Room {
			if !names[n] {
				t.Errorf("claim %q needs %q, which is no room check", c.Text, n)
			}
		}
		var k int
		if _, err := fmt.Sscanf(c.Text, "a navigation prior transfers: pretrained + fine-tuning on k = %d demonstrations", &k); err == nil &&
			(!slices.Contains(c.Room, movedName(k)) || !slices.Contains(c.Room, navigatesName) || slices.Contains(c.Room, swapName)) {
			t.Errorf("navigation claim %q needs %v", c.Text, c.Room)
		}
		if strings.HasPrefix(c.Text, "task knowledge transfers") && (!slices.Contains(c.Room, swapName) || !slices.Contains(c.Room, colourName)) {
			t.Errorf("task-knowledge claim %q needs %v", c.Text, c.Room)
		}
	}
	for k, want := range map[int]float64{5: 3, 10: 3, 20: 5} {
		if r := exptest.RoomCheck(t, j.Room, movedName(k)); !r.OK || r.Stat != exp.StatCount || r.Value != want {
			t.Errorf("%s: %s, ok %v; want %v seeds", r.Name, r.ValueText(), r.OK, want)
		}
	}
	for name, ok := range map[string]bool{convergedName: true, accCeilingName: false, swapName: false, colourName: true, navigatesName: true} {
		if r := exptest.RoomCheck(t, j.Room, name); r.OK != ok {
			t.Errorf("%s: %s, ok %v, want %v", name, r.ValueText(), r.OK, ok)
		}
	}
	if r := exptest.RoomCheck(t, j.Room, swapName); math.Abs(r.Value-0.116) > 0.001 {
		t.Errorf("swap drop's lower end %v, the run's 0.116", r.Value)
	}
}

// The moved check counts the seeds whose fine-tuning kept a step after 0, passing from half; since
// 2026-12-07 the kept step must also have lowered the validation loss by MinMovedDrop of the start's.
func TestMovedCheck(t *testing.T) {
	cfg := ConfigFor(exp.Default)
	old := cfg
	old.PretrainDecayFrac = 0
	for moved, ok := range map[int]bool{2: false, 3: true, 5: true} {
		final := func(drop float64) func(seed uint64) map[string]float64 {
			return func(seed uint64) map[string]float64 {
				f := map[string]float64{}
				for _, k := range cfg.Shots {
					p := fmt.Sprintf("adapt_k%d/", k)
					f[p+"best_step"], f[p+"val_loss_start"], f[p+"val_loss"] = 0, 1, 1
					if int(seed) <= moved {
						f[p+"best_step"], f[p+"val_loss"] = 40, 1-drop
					}
				}
				return f
			}
		}
		for _, c := range []struct {
			cfg  Config
			drop float64
			ok   bool
		}{{old, 0.001, ok}, {cfg, 0.05, ok}, {cfg, 0.01, false}} {
			res := syntheticOf(c.cfg, 5, final(c.drop), func(i int) float64 { return float64(i) })
			for _, r := range movedChecks(res, c.cfg) {
				if r.OK != c.ok {
					t.Errorf("%d of 5 moved by %v (converged protocol %v): %s ok %v (%s)", moved, c.drop, c.cfg.PretrainDecayFrac > 0, r.Name, r.OK, r.ValueText())
				}
			}
		}
	}
}

// synthetic is a result of the default configuration (decay set as given) with a "pretrained" run
// per seed 1…n whose final metrics final(seed) gives, and a pretraining validation curve of 10
// points over the step cap shaped by curve(i) (i = 0…9).
func synthetic(n int, decay bool, final func(seed uint64) map[string]float64, curve func(i int) float64) *exp.Result {
	cfg := ConfigFor(exp.Default)
	cfg.PretrainDecay, cfg.PretrainDecayFrac = decay, 0 // the protocol before 2026-12-07 (TestConvergedProtocolChecks: after it)
	return syntheticOf(cfg, n, final, curve)
}

// syntheticOf is synthetic with configuration cfg.
func syntheticOf(cfg Config, n int, final func(seed uint64) map[string]float64, curve func(i int) float64) *exp.Result {
	b, _ := json.Marshal(cfg)
	res := &exp.Result{Experiment: "agents", Config: b}
	for s := uint64(1); s <= uint64(n); s++ {
		c := exp.Curve{}
		for i := range 10 {
			c.X = append(c.X, float64((i+1)*cfg.PretrainSteps/10))
			c.Y = append(c.Y, curve(i))
		}
		res.Seeds = append(res.Seeds, s)
		res.Runs = append(res.Runs, exp.Run{Method: "pretrained", Seed: s, Final: final(s),
			Curves: map[string]exp.Curve{"pretrain/val_action_accuracy": c, "pretrain/val_action_loss": c}})
	}
	return res
}

// TestRoomChecksPassAndFail: each room check passes on one synthetic result and fails on another —
// the colour-blind gate on the lower end of the paired interval (a mean above 0 whose interval
// reaches below it fails), the noise ceiling on the mean share, the minimum detectable effect on
// the protocol's value, and the settled check (made only with a constant rate) on the mean signed
// tail share.
func TestRoomChecksPassAndFail(t *testing.T) {
	ref := "ref/" + gw.RefColourBlind + "/indist/success"
	finals := func(gap, spread, acc float64) func(uint64) map[string]float64 {
		return func(s uint64) map[string]float64 {
			sign := float64(int(s%2)*2 - 1) // alternate seeds above and below the gap
			return map[string]float64{"pretrain_success": 0.4 + gap + sign*spread, ref: 0.4,
				"pretrain_val_accuracy": acc, "pretrain_val_accuracy_colour": acc, "pretrain_noise_ceiling": 0.75, "pretrain_best_step": 6000}
		}
	}
	flat := func(i int) float64 { return 0.6 - 0.3*math.Exp(-float64(i)) }
	rising := func(i int) float64 { return 0.3 + 0.03*float64(i) }
	check := func(res *exp.Result, name string) exp.RoomCheck {
		return exptest.RoomCheck(t, Room(res), name)
	}
	good, bad := synthetic(6, false, finals(0.1, 0.02, 0.7), flat), synthetic(6, false, finals(0.02, 0.1, 0.6), rising)
	for _, c := range []struct {
		name string
		stat string
	}{{colourName, exp.StatCILow}, {accCeilingName, exp.StatMean}, {accFlatName, exp.StatTailMean}} {
		g, b := check(good, c.name), check(bad, c.name)
		if !g.OK || b.OK || g.Stat != c.stat || b.Stat != c.stat {
			t.Errorf("%s: passes %v (%s %v), fails %v (%s %v), want %s", c.name, g.OK, g.Stat, g.Value, !b.OK, b.Stat, b.Value, c.stat)
		}
	}
	if c := check(bad, colourName); stats.Mean(c.PerSeed) <= 0 {
		t.Errorf("the failing colour gate's mean %v should be above 0 (read on the interval's lower end)", stats.Mean(c.PerSeed))
	}
	// The minimum detectable effect: the default protocol's 10 seeds pass, 2 seeds fail.
	if m := check(good, mdeName); m.Stat != exp.StatValue || m.OK == false {
		t.Errorf("MDE with 6 seeds: %v (%s), want passing", m.Value, m.Stat)
	}
	if m := check(synthetic(2, false, finals(0.1, 0.02, 0.7), flat), mdeName); m.OK {
		t.Errorf("MDE with 2 seeds: %v passes", m.Value)
	}
	// With a decaying rate the settled check is not made: the rising curve is no longer a failure.
	decayed := synthetic(6, true, finals(0.1, 0.02, 0.7), rising)
	for _, r := range Room(decayed) {
		if r.Name == accFlatName {
			t.Errorf("settled check made on a decaying rate: %v", r)
		}
	}
	// A result older than the references on the same worlds: success against the audit's constant.
	for level, want := range map[float64]bool{0.6: true, ColourBlindSuccess: false} {
		old := synthetic(6, false, func(s uint64) map[string]float64 {
			return map[string]float64{"pretrain_success": level + 0.01*float64(s%3) - 0.01}
		}, flat)
		if c := check(old, colourName); c.OK != want || c.Stat != exp.StatCILow {
			t.Errorf("success %v against the constant %v: %s, ok %v", level, ColourBlindSuccess, c.ValueText(), c.OK)
		}
	}
	exptest.Stats(t, Room(good))
}

// TestPretrainNote: the note that a decaying rate's flat tail says nothing (the protocol of
// 2026-12-04, pretraining to a 6,000-step cap) reads the run's cap; the committed run of 2026-12-07
// stops by its patience rule, so no claim carries it or the sweep's cap note — the converged check
// gates them instead.
func TestPretrainNote(t *testing.T) {
	res, e := exptest.Committed(t, "agents")
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	if note := pretrainNote(res, cfg); !strings.Contains(note, fmt.Sprintf("%d-step cap", cfg.PretrainSteps)) || !strings.Contains(note, "in 0 of 5 seeds") {
		t.Fatalf("note %q", note)
	}
	for _, c := range exptest.Judge(t, e, res).Claims {
		if slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "cap") }) || !slices.Contains(c.Room, convergedName) {
			t.Errorf("claim %q: notes %v, needs %v", c.Text, c.Notes, c.Room)
		}
	}
}

// TestHeadlineClaim: exactly one claim answers agents-1, pretrained against the same transformer
// from scratch on the fewest demonstrations of the held-out task types.
func TestHeadlineClaim(t *testing.T) {
	res, e := exptest.Committed(t, "agents")
	var tagged []exp.Claim
	for _, c := range exptest.Judge(t, e, res).Claims {
		if c.Headline != "" {
			tagged = append(tagged, c)
		}
	}
	if len(tagged) != 1 || tagged[0].Headline != "agents-1" || tagged[0].Measure != "success(pretrained) − success(scratch), k = 5" {
		t.Fatalf("tagged claims %v", tagged)
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
	for i, s := range r.Seeds { // since 2026-12-04: the validation accuracy on streams that name the colour
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

// TestRoomTurnsTheVerdict edits the committed result until every check passes (pretraining near
// its ceiling, naming another colour dropping success by 0.3 on every seed): the claims then read
// their intervals; putting the swapped success back makes the task-knowledge claims untestable
// naming the swap check alone, and leaves the navigation-prior claims, which do not need it, as
// they were.
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
		saved[run.Seed] = run.Final["swap/success"]
		run.Final["swap/success"] = run.Final["indist/success"] - 0.3 - 0.01*float64(run.Seed)
	}
	j := exptest.Judge(t, e, res)
	if failed := exp.FailedRoom(j.Room); len(failed) > 0 {
		t.Fatalf("edited result still fails %v", failed)
	}
	verdicts := map[string]string{}
	for _, c := range j.Claims {
		if c.Verdict() == exp.Untestable {
			t.Errorf("claim %q untestable with every check passing", c.Text)
		}
		verdicts[c.Text] = c.Verdict()
	}
	for i := range res.Runs {
		if res.Runs[i].Method == "pretrained" {
			res.Runs[i].Final["swap/success"] = saved[res.Runs[i].Seed]
		}
	}
	for _, c := range exptest.Judge(t, e, res).Claims {
		needsSwap := slices.Contains(c.Room, swapName)
		if needsSwap && (c.Verdict() != exp.Untestable || !slices.Equal(c.Untestable, []string{swapName})) {
			t.Errorf("claim %q: %s, want untestable on %q alone", c.Text, c.VerdictText(), swapName)
		}
		if !needsSwap && c.Verdict() != verdicts[c.Text] {
			t.Errorf("claim %q without the swap check: %s, was %s", c.Text, c.Verdict(), verdicts[c.Text])
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

// TestConvergedProtocolChecks: since 2026-12-07 the convergence check counts the seeds with no
// pretraining at its cap (the sweep's included), the swap and random-walker checks read the lower
// end of their intervals, the ceiling its lower end too; the task-knowledge claim needs the colour
// gate and the swap, the navigation claims the random walker, and none the settled check.
func TestConvergedProtocolChecks(t *testing.T) {
	cfg := ConfigFor(exp.Default)
	cb, rw := "ref/"+gw.RefColourBlind+"/indist/success", "ref/"+gw.RefRandom+"/heldout/success"
	finals := func(capHit uint64, swap, acc, spread float64) func(uint64) map[string]float64 {
		return func(s uint64) map[string]float64 {
			sign := float64(int(s%2)*2 - 1)
			f := map[string]float64{"pretrain_success": 0.6, "indist/success": 0.6, cb: 0.4, "swap/success": 0.6 - swap + sign*0.01, "heldout/success": 0.3 + sign*0.02, rw: 0.1,
				"pretrain_val_accuracy_colour": acc + sign*spread, "pretrain_val_accuracy": acc, "pretrain_noise_ceiling": 0.75, "pretrain_hit_cap": 0, "sweep/div2/hit_cap": 0, "sweep/div8/hit_cap": 0}
			if s == capHit {
				f["sweep/div2/hit_cap"] = 1
			}
			return f
		}
	}
	flat := func(i int) float64 { return 0.6 }
	good, bad := syntheticOf(cfg, 5, finals(0, 0.3, 0.7, 0.005), flat), syntheticOf(cfg, 5, finals(3, 0.1, 0.69, 0.03), flat)
	for _, name := range []string{convergedName, swapName, accCeilingName} {
		g, b := exptest.RoomCheck(t, Room(good), name), exptest.RoomCheck(t, Room(bad), name)
		if !g.OK || b.OK {
			t.Errorf("%s: good passes %v (%s), bad fails %v (%s)", name, g.OK, g.ValueText(), !b.OK, b.ValueText())
		}
	}
	if c := exptest.RoomCheck(t, Room(bad), accCeilingName); c.Stat != exp.StatCILow || !(stats.Mean(c.PerSeed) > CeilingShare) {
		t.Errorf("the ceiling is read on the lower end: %s, mean %v", c.Stat, stats.Mean(c.PerSeed))
	}
	if c := exptest.RoomCheck(t, Room(good), navigatesName); !c.OK || c.Stat != exp.StatCILow {
		t.Errorf("navigates: %v %s", c.OK, c.ValueText())
	}
	lost := syntheticOf(cfg, 5, func(s uint64) map[string]float64 {
		f := finals(0, 0.3, 0.7, 0.005)(s)
		f["heldout/success"] = f[rw] + 0.01*float64(int(s%2)*2-1) + 0.005 // a random walker's, give or take
		return f
	}, flat)
	if c := exptest.RoomCheck(t, Room(lost), navigatesName); c.OK {
		t.Errorf("an agent at a random walker's held-out success passes: %s", c.ValueText())
	}
	// The main pretraining at its cap on one seed fails the converged check as a sweep's does.
	mainCap := syntheticOf(cfg, 5, func(s uint64) map[string]float64 {
		f := finals(0, 0.3, 0.7, 0.005)(s)
		if s == 2 {
			f["pretrain_hit_cap"] = 1
		}
		return f
	}, flat)
	if c := exptest.RoomCheck(t, Room(mainCap), convergedName); c.OK || c.Value != 4 {
		t.Errorf("the main pretraining at its cap on one seed: %s, ok %v", c.ValueText(), c.OK)
	}
	for _, r := range Room(good) {
		if r.Name == accFlatName {
			t.Error("a settled check on a run to convergence")
		}
	}
	var taskClaim, navClaim *exp.Claim
	claims := Claims(good)
	for i, c := range claims {
		switch {
		case strings.HasPrefix(c.Text, "task knowledge transfers"):
			taskClaim = &claims[i]
		case strings.HasPrefix(c.Text, "a navigation prior transfers") && navClaim == nil:
			navClaim = &claims[i]
		}
	}
	if taskClaim == nil || navClaim == nil || !slices.Contains(taskClaim.Room, swapName) || !slices.Contains(taskClaim.Room, colourName) || slices.Contains(taskClaim.Room, navigatesName) ||
		!slices.Contains(navClaim.Room, navigatesName) || slices.Contains(navClaim.Room, colourName) || !slices.Contains(navClaim.Room, convergedName) || navClaim.Headline != "agents-1" {
		t.Fatalf("task claim %+v; navigation claim %+v", taskClaim, navClaim)
	}
}

package e3t

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/stats"
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
	// Per layout: a settled and a learned-to-cook check per method, a settled partner-model check
	// per partner-model method, two partner sets, the BC fit.
	want := 0
	for _, l := range cfg.Layouts {
		want += 2 // the two partner sets
		if f, ok := methodNamed(cfg, "fcp"); ok && f.On(l) {
			want++ // FCP level with SP
		}
		if hasBC(res, l) {
			want++ // the BC fit, where the layout has human data
		}
		for _, m := range cfg.Methods {
			if m.On(l) {
				want += 2
				if m.PartnerModel {
					want++
				}
			}
		}
	}
	if len(j.Room) != want {
		t.Fatalf("%d room checks, want %d", len(j.Room), want)
	}
	exptest.Stats(t, j.Room)
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
		// With a shared pool (since 2026-12-04) every method meets every partner; before it each method was
		// kept from its own family's learned agents.
		if learnedSet.OK != cfg.SharedPool || !fixedSet.OK {
			t.Errorf("%s: learned set ok %v (shared pool %v), fixed set ok %v", l, learnedSet.OK, cfg.SharedPool, fixedSet.OK)
		}
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

// synthetic is a one-layout result (cramped_room; sp, fcp, e3t with a partner model, e3t-nopm)
// over seeds 1…5: each method's training return, and E3T's partner-model accuracy, follow
// curve(method, seed, i) over 20 iterations; every method is scored with every partner of a
// two-partner pool (one scripted cook, one learned agent); pool(method, seed) is each run's pool
// return; FCP's cost is six runs' steps and about twice E3T's seconds.
func synthetic(curve func(method string, seed uint64, i int) float64, pool func(method string, seed uint64) float64) *exp.Result {
	const l = "cramped_room"
	cfg := ConfigFor(exp.Default)
	cfg.Layouts = []string{l}
	cfg.Methods = []Method{{Name: "sp", Mode: "sp"}, {Name: "fcp", Mode: "fcp"}, {Name: "e3t", Mode: "e3t", Epsilon: 0.7, PartnerModel: true}, {Name: "e3t-nopm", Mode: "e3t", Epsilon: 0.7}}
	cfg.FCPIters, cfg.PopulationSeeds = 0, nil // the protocol before 2026-12-07 (syntheticMeasured: after)
	b, _ := json.Marshal(cfg)
	res := &exp.Result{Experiment: "e3t", Config: b}
	partners := []Partner{{Name: "cook", Kind: "scripted"}, {Name: "sp-h101", Kind: "learned", Family: "sp"}}
	if err := res.SetExtra("partners_"+l, partners); err != nil {
		panic(err)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		res.Seeds = append(res.Seeds, seed)
		for _, m := range cfg.Methods {
			c := exp.Curve{}
			for i := range 20 {
				c.X, c.Y = append(c.X, float64((i+1)*240_000)), append(c.Y, curve(m.Name, seed, i))
			}
			steps, secs := 4.8e6, 300.0
			if m.family().WithPartners { // its cost counts its population's
				steps, secs = 6*4.8e6, 600+float64(seed)
			}
			final := map[string]float64{l + "/pool_return": pool(m.Name, seed), l + "/env_steps": steps, l + "/train_seconds": secs}
			for _, p := range partners {
				final[l+"/partner/"+p.Name] = 50
			}
			curves := map[string]exp.Curve{l + "/episodic_return": c}
			if m.PartnerModel {
				curves[l+"/pm_accuracy"] = c
			}
			res.Runs = append(res.Runs, exp.Run{Method: m.Name, Seed: seed, Final: final, Curves: curves})
		}
	}
	return res
}

// TestRoomChecksPassAndFail: each kind of room check passes on one synthetic result and fails on
// another — settled (a curve that flattens passes; one still climbing, or all seeds turning back,
// fails), learned to cook (the mean of the last 20 % of iterations on the interval's lower end: a
// dip at the last point does not fail it, seeds around one soup do), one held-out set (value), and
// the BC fit (value).
func TestRoomChecksPassAndFail(t *testing.T) {
	const l = "cramped_room"
	pool := func(string, uint64) float64 { return 50 }
	judge := func(curve func(string, uint64, int) float64) []exp.RoomCheck { return Room(synthetic(curve, pool)) }
	flattening := func(_ string, s uint64, i int) float64 { return 80*(1-math.Exp(-float64(i)/3)) + float64(s) }
	climbing := func(_ string, s uint64, i int) float64 { return 5*float64(i) + float64(s) }
	turning := func(_ string, s uint64, i int) float64 { return 60 - math.Abs(float64(i)-10)*4 + float64(s) } // up, then back down
	for _, name := range []string{flatName(l, "sp"), flatName(l, "fcp"), pmFlatName(l, "e3t")} {
		good := exptest.RoomCheck(t, judge(flattening), name)
		if !good.OK || good.Stat != exp.StatTailMean {
			t.Errorf("%s: flattening curve %s, ok %v", name, good.ValueText(), good.OK)
		}
		for what, curve := range map[string]func(string, uint64, int) float64{"climbing": climbing, "turning back": turning} {
			if bad := exptest.RoomCheck(t, judge(curve), name); bad.OK {
				t.Errorf("%s: %s curve passes (%s)", name, what, bad.ValueText())
			}
		}
	}
	dip := func(_ string, s uint64, i int) float64 { // 30 throughout but a last point of 10
		if i == 19 {
			return 10
		}
		return 30 + float64(s)/10
	}
	spread := func(_ string, s uint64, i int) float64 { return []float64{10, 40, 12, 38, 25}[s-1] } // mean 25, lower end below 20
	if c := exptest.RoomCheck(t, judge(dip), cookName(l, "fcp")); !c.OK || c.Stat != exp.StatCILow {
		t.Errorf("cook with a last-point dip: %s, ok %v", c.ValueText(), c.OK)
	}
	if c := exptest.RoomCheck(t, judge(spread), cookName(l, "fcp")); c.OK || stats.Mean(c.PerSeed) < MinCookReturn {
		t.Errorf("cook with seeds around one soup: %s, ok %v", c.ValueText(), c.OK)
	}
	// One held-out set: every method scored with every partner passes; a method missing one fails.
	res := synthetic(flattening, pool)
	if c := exptest.RoomCheck(t, Room(res), learnedSetName(l)); !c.OK || c.Value != 1 || c.Stat != exp.StatValue {
		t.Errorf("learned set complete: %v", c)
	}
	delete(res.Runs[0].Final, l+"/partner/sp-h101")
	if c := exptest.RoomCheck(t, Room(res), learnedSetName(l)); c.OK || c.Value != 0 {
		t.Errorf("learned set with a partner missing: %v", c)
	}
	// The BC fit: 0.044 above the commonest action passes, 0.004 fails.
	for acc, want := range map[float64]bool{0.76: true, 0.72: false} {
		if err := res.SetExtra("bc", map[string]map[string]float64{l: {"heldout_accuracy": acc, "majority_accuracy": 0.716}}); err != nil {
			t.Fatal(err)
		}
		if c := bcCheck(res, l); c.OK != want || c.Stat != exp.StatValue {
			t.Errorf("BC accuracy %v: %v, want ok %v", acc, c, want)
		}
	}
	exptest.Stats(t, judge(flattening))
}

// TestRoomCommittedAudit: on the committed run the settled check reads the mean of the signed tail
// shares (coordination_ring FCP: 0.013, where the absolute values averaged 0.157) and the cook
// check the mean of each seed's last 20 % of iterations (coordination_ring FCP: every seed ≥ 20.9
// where the last iterations averaged 19.1).
func TestRoomCommittedAudit(t *testing.T) {
	const l = "coordination_ring"
	res, e := exptest.Committed(t, "e3t")
	j := exptest.Judge(t, e, res)
	flat := exptest.RoomCheck(t, j.Room, flatName(l, "fcp"))
	abs := 0.0
	for _, v := range flat.PerSeed {
		abs += math.Abs(v) / float64(len(flat.PerSeed))
	}
	if math.Abs(flat.Value-0.013) > 0.001 || math.Abs(abs-0.157) > 0.001 || !flat.OK {
		t.Errorf("FCP settled: signed mean %v (absolute %v), ok %v", flat.Value, abs, flat.OK)
	}
	cook := exptest.RoomCheck(t, j.Room, cookName(l, "fcp"))
	last := 0.0
	for i, s := range cook.Seeds {
		c, _ := res.CurveOf("fcp", l+"/episodic_return", s)
		if cook.PerSeed[i] != tailMean(c, PlateauFrac) || cook.PerSeed[i] < 20.9 {
			t.Errorf("seed %d: cook value %v, tail mean %v", s, cook.PerSeed[i], tailMean(c, PlateauFrac))
		}
		last += c.Y[len(c.Y)-1] / float64(len(cook.Seeds))
	}
	if math.Abs(last-19.07) > 0.01 || !cook.OK {
		t.Errorf("FCP's last iterations average %v; the check %s, ok %v", last, cook.ValueText(), cook.OK)
	}
}

// TestClaimComparableToFCP: "E3T coordinates as well as or better than FCP" is a non-inferiority
// claim with margin FCPMargin (half a soup): E3T 5 below FCP holds, 15 below does not, and its
// context is the ratio; every claim comparing with FCP carries the weak-population note, and the
// cost claim reads the measured wall-time ratio, with the note that the environment-step ratio is
// the configuration's 1/6 and that ratio beside it.
func TestClaimComparableToFCP(t *testing.T) {
	settled := func(_ string, s uint64, i int) float64 { return 80*(1-math.Exp(-float64(i)/3)) + float64(s) }
	for gap, want := range map[float64]string{-5: exp.Holds, -15: exp.DoesNotHold, 3: exp.Holds} {
		res := synthetic(settled, func(m string, s uint64) float64 {
			if m == "e3t" {
				return 60 + gap + 0.3*float64(s%3)
			}
			return 60
		})
		e, err := exp.Lookup("e3t")
		if err != nil {
			t.Fatal(err)
		}
		c := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, res).Claims, "cramped_room: E3T coordinates as well as or better than FCP")
		if c.Kind != exp.KindNonInferior || c.Margin != FCPMargin || c.Verdict() != want || c.Headline != "e3t-1" {
			t.Errorf("E3T %+g against FCP: %s (kind %q, margin %v, headline %q), want %s", gap, c.VerdictText(), c.Kind, c.Margin, c.Headline, want)
		}
		if !strings.Contains(c.Context, "pool return(e3t) / (fcp)") || !hasNote(c, "FCP is a weak population baseline: 5 SP agents at 0 %, 25 %, 50 %, 100 % of training (5 of its 20 members untrained)") {
			t.Errorf("context %q, notes %v", c.Context, c.Notes)
		}
		cost := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, res).Claims, "cramped_room: … at a fraction")
		if !hasNote(cost, "1/6 = 0.167") || !hasNote(cost, "weak population") || !strings.Contains(cost.Measure, "wall time") || !strings.Contains(cost.Context, "env steps") || cost.Verdict() != exp.Holds {
			t.Errorf("cost claim %s: notes %v, context %q", cost.VerdictText(), cost.Notes, cost.Context)
		}
	}
}

// FCP far below SP with the held-out partners fails the FCP-level check, and the claim it gates
// (E3T against FCP) turns untestable naming it; FCP level with SP passes.
func TestFCPLevelWithSP(t *testing.T) {
	settled := func(_ string, s uint64, i int) float64 { return 80*(1-math.Exp(-float64(i)/3)) + float64(s) }
	e, err := exp.Lookup("e3t")
	if err != nil {
		t.Fatal(err)
	}
	for fcp, ok := range map[float64]bool{40: false, 58: true} {
		res := synthetic(settled, func(m string, s uint64) float64 {
			if m == "fcp" {
				return fcp + 0.5*float64(s%3)
			}
			return 60
		})
		j := exptest.Judge(t, e, res)
		r := exptest.RoomCheck(t, j.Room, fcpLevelName("cramped_room"))
		c := exptest.ClaimWithPrefix(t, j.Claims, "cramped_room: E3T coordinates as well as or better than FCP")
		if r.OK != ok || r.Stat != exp.StatCILow || slices.Contains(c.Untestable, r.Name) == ok {
			t.Errorf("FCP at %v against SP's 60: check ok %v (%s), claim %s", fcp, r.OK, r.ValueText(), c.VerdictText())
		}
	}
}

// hasNote reports whether one of c's notes contains s.
func hasNote(c exp.Claim, s string) bool {
	return slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, s) })
}

// TestClaimHeadlines: on the committed run each of e3t-1…3 tags exactly one claim, on
// HeadlineLayout; no claim needs a budget or partner-model-ceiling check (both are notes now); the
// partner model's claim reads its data (cramped_room −0.37 [−4.15, +3.41], not significant).
func TestClaimHeadlines(t *testing.T) {
	res, e := exptest.Committed(t, "e3t")
	j := exptest.Judge(t, e, res)
	tags := map[string][]string{}
	for _, c := range j.Claims {
		if c.Headline != "" {
			tags[c.Headline] = append(tags[c.Headline], c.Text)
		}
		for _, n := range c.Room {
			if strings.Contains(n, "budget") || strings.Contains(n, "ceiling") {
				t.Errorf("claim %q needs %q", c.Text, n)
			}
		}
		if !hasNote(c, "the configuration sets the budget: 4.8 M environment steps per E3T run, 1.00× the authors' 4.8 M") {
			t.Errorf("claim %q has no budget note: %v", c.Text, c.Notes)
		}
	}
	want := map[string]string{"e3t-1": "E3T coordinates as well as or better than FCP", "e3t-2": "… at a fraction of its training cost", "e3t-3": "the partner model helps"}
	for id, text := range want {
		if got := tags[id]; len(got) != 1 || got[0] != HeadlineLayout+": "+text {
			t.Errorf("%s tags %v", id, got)
		}
	}
	pm := exptest.ClaimWithPrefix(t, j.Claims, HeadlineLayout+": the partner model helps")
	if pm.Verdict() != exp.NotSignificant || math.Abs(pm.Stat.Mean+0.37) > 0.01 || !hasNote(pm, "at most 0.417 of its actions") {
		t.Errorf("partner model: %s %s, notes %v", pm.Interval(), pm.VerdictText(), pm.Notes)
	}
	// A one-layout difference records its recipe, so it recomputes from metrics.json alone.
	if want := (exp.MetricOf{Method: "e3t", Metric: HeadlineLayout + "/pool_return"}); pm.From == nil || pm.From.A != want || pm.From.B.Method != "e3t-nopm" {
		t.Errorf("partner model's recipe %+v", pm.From)
	}
}

// TestPMShare: the share of the room between the best constant guess and the ceiling the partner
// model's accuracy fills, from the tail means of the three curves (0 at the floor, 1 at the
// ceiling); absent without the curves or with no room.
func TestPMShare(t *testing.T) {
	curve := func(ys ...float64) exp.Curve {
		c := exp.Curve{}
		for i, y := range ys {
			c.X, c.Y = append(c.X, float64(i+1)), append(c.Y, y)
		}
		return c
	}
	run := func(seed uint64, acc, floor, ceil exp.Curve) exp.Run {
		return exp.Run{Method: "e3t", Seed: seed, Curves: map[string]exp.Curve{"l/pm_accuracy": acc, "l/pm_floor": floor, "l/pm_ceiling": ceil}}
	}
	res := &exp.Result{Seeds: []uint64{1, 2, 3}, Runs: []exp.Run{
		// Tail (last 20 % of 5 points: the last one): accuracy 0.3, floor 0.2, ceiling 0.4 → 0.5.
		run(1, curve(0.1, 0.1, 0.1, 0.1, 0.3), curve(0, 0, 0, 0, 0.2), curve(1, 1, 1, 1, 0.4)),
		run(2, curve(0.2, 0.2), curve(0.2, 0.2), curve(0.2, 0.2)), // no room
		{Method: "e3t", Seed: 3, Curves: map[string]exp.Curve{"l/pm_accuracy": curve(0.3)}},
	}}
	f := pmShare(res, "e3t", "l", PlateauFrac)
	if v, ok := f(1); !ok || math.Abs(v-0.5) > 1e-12 {
		t.Fatalf("seed 1: %v, %v; want 0.5", v, ok)
	}
	for _, seed := range []uint64{2, 3} {
		if v, ok := f(seed); ok {
			t.Fatalf("seed %d: %v without room or curves", seed, v)
		}
	}
}

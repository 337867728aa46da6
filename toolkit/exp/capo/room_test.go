package capo

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

// synthetic is a result of the default configuration with hand-set numbers: 8 seeds, the main
// methods on all, the ablations on the first 5; evaluations every 50 of 600 steps. GRPO's mean@16
// rises 0.40 → 0.60 by step 300 and stays; its greedy accuracy is flat at 0.60 (seed-dependent
// wobble of ±0.005); its AUC falls 0.92 → 0.80. CAPO's accuracy rises to 0.58 only (its path never
// reaches GRPO's final 0.60) and its AUC to 0.88; the SFT warm start has AUC 0.92, greedy 0.60 ± a
// seed offset, and a median |lpm gap| of 0.4.
func synthetic() *exp.Result {
	cfg := ConfigFor(exp.Default)
	raw, _ := json.Marshal(cfg)
	res := &exp.Result{Experiment: "capo", Scale: exp.Default, Config: raw}
	steps := []float64{}
	for s := 0; s <= 600; s += 50 {
		steps = append(steps, float64(s))
	}
	curve := func(f func(x float64) float64) exp.Curve {
		c := exp.Curve{X: steps}
		for _, x := range steps {
			c.Y = append(c.Y, f(x))
		}
		return c
	}
	rise := func(from, to, by float64) func(float64) float64 {
		return func(x float64) float64 { return from + (to-from)*math.Min(x, by)/by }
	}
	for s := uint64(1); s <= 8; s++ {
		res.Seeds = append(res.Seeds, s)
		off := 0.01 * float64(s%3)
		res.Runs = append(res.Runs, exp.Run{Method: "sft", Seed: s, Final: map[string]float64{
			"auc": 0.92 + off, "greedy_accuracy": 0.60 + off, "accuracy": 0.40, "majority_accuracy_n16": 0.56, "lpm_gap_median": 0.4,
			"rpc_accuracy_n16": 0.57, "aurc": 0.1, "precision_at_50": 0.9, "auc_solvable": 0.9, "auc_hidden": 0.7, "ece": 0.2}, Curves: finalCurves()})
		for _, m := range Methods {
			if m.Seeds > 0 && s > uint64(m.Seeds) {
				continue
			}
			accTo, aucTo := 0.60, 0.80
			if m.Estimator == "capo" {
				accTo, aucTo = 0.58, 0.88
			}
			wobble := func(x float64) float64 { return 0.60 + 0.005*math.Sin(x+float64(s)) }
			run := exp.Run{Method: m.Name, Seed: s, Final: map[string]float64{
				"accuracy": accTo, "greedy_accuracy": 0.60, "majority_accuracy_n16": 0.60, "auc": aucTo, "aurc": 1 - aucTo, "precision_at_50": aucTo,
				"rpc_accuracy_n16": accTo + 0.01, "mask_kept": 0.9, "auc_solvable": aucTo, "auc_hidden": 0.7, "ece": 0.3},
				Curves: map[string]exp.Curve{
					accCurve:         curve(rise(0.40, accTo, 300)),
					greedyCurve:      curve(wobble),
					aucCurve:         curve(rise(0.92, aucTo, 600)),
					covCurve:         curve(func(float64) float64 { return map[bool]float64{true: 0.1, false: 0.2}[m.Estimator == "capo"] }),
					"train/entropy":  curve(func(float64) float64 { return 0.1 }),
					"train/eval_ece": curve(func(float64) float64 { return 0.3 }),
					"train/reward":   curve(func(float64) float64 { return 0.5 }),
					"train/" + diagPrefix + "misranked_weight_share": curve(func(float64) float64 { return 0.3 }),
				}}
			for k, c := range finalCurves() {
				run.Curves[k] = c
			}
			res.Runs = append(res.Runs, run)
		}
	}
	res.Summarize()
	return res
}

// finalCurves are the curves of a final evaluation (the figures' precision–coverage, voting and
// reliability), flat.
func finalCurves() map[string]exp.Curve {
	return map[string]exp.Curve{
		"precision_coverage": {X: []float64{0.5, 1}, Y: []float64{0.8, 0.6}},
		"majority_vs_n":      {X: []float64{1, 2}, Y: []float64{0.5, 0.6}},
		"rpc_vs_n":           {X: []float64{1, 2}, Y: []float64{0.5, 0.6}},
		"reliability":        {X: []float64{0.3, 0.8}, Y: []float64{0.2, 0.9}},
		"reliability_count":  {X: []float64{0.25, 0.75}, Y: []float64{10, 20}},
	}
}

// TestRoomOnASyntheticResult recomputes every kind of check from the synthetic result's numbers.
func TestRoomOnASyntheticResult(t *testing.T) {
	res := synthetic()
	room := Room(res)
	seen := map[string]bool{}
	for _, r := range room {
		if seen[r.Name] {
			t.Errorf("room check %s defined twice", r.Name)
		}
		seen[r.Name] = true
		if math.IsNaN(r.Value) || r.Missing != "" || strings.TrimSpace(r.Why) == "" {
			t.Errorf("room check %s: value %v, missing %q, why %q", r.Name, r.Value, r.Missing, r.Why)
		}
	}
	// τ against the median gap 0.4, per CAPO method on its own seeds: 0.5 and 1.0 pass, 0.2 does not.
	for m, want := range map[string]float64{"capo": 0.5 / 0.4, "capo-tau1.0": 1.0 / 0.4, "capo-tau0.2": 0.2 / 0.4, "capo-gnorm": 0.5 / 0.4} {
		r := exptest.RoomCheck(t, room, tauCheck(m))
		if math.Abs(r.Value-want) > 1e-12 || r.OK != (want >= MinTauGapRatio) {
			t.Errorf("%s: %v (ok %v), want %v", r.Name, r.Value, r.OK, want)
		}
	}
	if r := exptest.RoomCheck(t, room, tauCheck("capo-nomask")); len(r.Seeds) != 5 {
		t.Errorf("capo-nomask's τ check on seeds %v", r.Seeds)
	}
	// Spreads: the sample standard deviations of the SFT finals.
	var g, a []float64
	for s := uint64(1); s <= 8; s++ {
		off := 0.01 * float64(s%3)
		g, a = append(g, 0.60+off), append(a, 0.92+off)
	}
	if r := exptest.RoomCheck(t, room, roomSFTGreedySD); math.Abs(r.Value-stats.Summarize(g).Std) > 1e-12 || !r.OK {
		t.Errorf("greedy spread %+v", r)
	}
	if r := exptest.RoomCheck(t, room, roomSFTAUCSD); math.Abs(r.Value-stats.Summarize(a).Std) > 1e-12 || !r.OK {
		t.Errorf("AUC spread %+v", r)
	}
	// Budgets: every RL method's mean@16 is flat over its last 20 % (x 500…600); GRPO's greedy
	// wobbles by ±0.005, its tail change the mean of exp.TailChange over seeds.
	for _, m := range rlMethods(res) {
		if r := exptest.RoomCheck(t, room, budgetCheck(m)); math.Abs(r.Value) > 1e-12 || !r.OK {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	var sum float64
	for _, run := range res.RunsOf("grpo") {
		sum += exp.TailChange(run.Curves[greedyCurve], TailFrac)
	}
	if r := exptest.RoomCheck(t, room, roomBudgetGreed); math.Abs(r.Value-sum/8) > 1e-12 || !r.OK {
		t.Errorf("budget-grpo-greedy %v, recomputed %v", r.Value, sum/8)
	}
	// GRPO moved mean@16 (+0.2) but neither greedy (0) nor majority (+0.04) enough.
	for name, ok := range map[string]bool{roomGRPOAcc: true, roomGRPOGreedy: false, roomGRPOMaj: false, roomSFTCeiling: true, roomSFTFloor: true} {
		if r := exptest.RoomCheck(t, room, name); r.OK != ok {
			t.Errorf("%s: %+v, want ok %v", name, r, ok)
		}
	}
	if r := exptest.RoomCheck(t, room, roomAblSeeds); r.Value != 5 || !r.OK {
		t.Errorf("ablation seeds %+v", r)
	}
	// Reach: CAPO's mean@16 path ends at 0.58 below GRPO's 0.60 (no crossing on any seed); GRPO's
	// path crosses CAPO's 0.58 on every seed.
	if r := exptest.RoomCheck(t, room, reachCheck("capo", "grpo", accCurve)); r.Value != 0 || r.OK {
		t.Errorf("capo reaches grpo: %+v", r)
	}
	if r := exptest.RoomCheck(t, room, reachCheck("grpo", "capo", accCurve)); r.Value != 8 || !r.OK || r.Test.X != 4 {
		t.Errorf("grpo reaches capo: %+v (threshold: half the 8 seeds)", r)
	}
}

// TestClaimsOnASyntheticResult: every needed check exists; the matched claims follow issue 33's
// rule (a crossing where there is one, A's final point named in the notes where there is not);
// a failed check makes the claims needing it untestable and leaves the others alone.
func TestClaimsOnASyntheticResult(t *testing.T) {
	res := synthetic()
	e, err := exp.Lookup("capo")
	if err != nil {
		t.Fatal(err)
	}
	j := exptest.Judge(t, e, res)
	byText := map[string]exp.Claim{}
	for _, c := range j.Claims {
		byText[c.Text] = c
		if len(c.Room) == 0 && !strings.HasPrefix(c.Text, "GRPO raises") {
			t.Errorf("claim %q names no room check", c.Text)
		}
	}
	// CAPO at GRPO's final mean@16 (0.60): never reached, so CAPO's final AUC (0.88) − GRPO's (0.80).
	up := byText["CAPO's AUC at GRPO's final mean@16 accuracy is above GRPO's final AUC (matched accuracy)"]
	if len(up.Diffs) != 8 || math.Abs(up.Stat.Mean-0.08) > 1e-9 || len(up.Notes) != 8 || !strings.Contains(up.Notes[0], "final point used") {
		t.Errorf("matched capo→grpo: %+v", up)
	}
	if !slices.Contains(up.Untestable, reachCheck("capo", "grpo", accCurve)) {
		t.Errorf("no seed crosses, yet the claim is testable: %v", up.Untestable)
	}
	// GRPO at CAPO's final 0.58: crossed at step 270 (0.40 + 0.2·270/300), where GRPO's AUC is
	// 0.92 − 0.12·270/600 = 0.866; minus CAPO's 0.88.
	down := byText["GRPO's AUC at CAPO's final mean@16 accuracy is below CAPO's final AUC (matched accuracy)"]
	if len(down.Diffs) != 8 || math.Abs(down.Stat.Mean-(0.866-0.88)) > 1e-9 || len(down.Untestable) != 0 {
		t.Errorf("matched grpo→capo: mean %v, untestable %v, notes %v", down.Stat.Mean, down.Untestable, down.Notes)
	}
	// GRPO's greedy never moved: the greedy claims are untestable, naming the check.
	for _, c := range j.Claims {
		if strings.Contains(c.Text, "greedy") && !strings.HasPrefix(c.Text, "GRPO raises") && !slices.Contains(c.Untestable, roomGRPOGreedy) {
			t.Errorf("%q: untestable %v, want %s", c.Text, c.Untestable, roomGRPOGreedy)
		}
	}
	// The mechanism: GRPO's Cov per |A| is 0.2 on every seed, CAPO's 0.1.
	if c := byText["CAPO's advantage sharpens less than GRPO's: lower Cov(lpm, A) per unit |A| (the audit's mechanism)"]; math.Abs(c.Stat.Mean+0.1) > 1e-12 || c.Verdict() != exp.Holds {
		t.Errorf("mechanism claim %+v", c)
	}
	// A warm start whose AUC sits at 0.97 fails the ceiling: the claims needing it turn untestable,
	// GRPO's mean@16 gain (which needs nothing) keeps its verdict.
	high := exptest.Judge(t, e, withSFTFinal(res, "auc", 0.97))
	n := 0
	for i, c := range high.Claims {
		if slices.Contains(c.Room, roomSFTCeiling) {
			n++
			if c.Verdict() != exp.Untestable || !strings.Contains(c.VerdictText(), roomSFTCeiling) {
				t.Errorf("%q: verdict %q", c.Text, c.VerdictText())
			}
		}
		if c.Text == "GRPO raises accuracy (mean@16)" && c.Verdict() != j.Claims[i].Verdict() {
			t.Errorf("%q changed verdict", c.Text)
		}
	}
	if n == 0 {
		t.Fatal("no claim needs the SFT AUC ceiling")
	}
}

// TestFiguresOfASyntheticResult: every figure, the mechanism and both frontiers among them, draws.
func TestFiguresOfASyntheticResult(t *testing.T) {
	paths, err := Figures(synthetic(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mechanism.png", "frontier_auc_greedy.svg", "frontier_auc_accuracy.png", "dynamics_greedy.png", "dynamics_auc.svg"} {
		if !slices.ContainsFunc(paths, func(p string) bool { return strings.HasSuffix(p, "/"+want) }) {
			t.Errorf("no %s among %d figure files", want, len(paths))
		}
	}
}

// TestRoomOnTheCommittedResult: on the committed run every claim's needed checks exist (Judge
// returns no error) and each room check has a finite value.
func TestRoomOnTheCommittedResult(t *testing.T) {
	res, e := exptest.Committed(t, "capo")
	j := exptest.Judge(t, e, res)
	if len(j.Room) == 0 || len(j.Claims) != len(Claims(res)) {
		t.Fatalf("%d room checks, %d claims", len(j.Room), len(j.Claims))
	}
	for _, r := range j.Room {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || r.Missing != "" {
			t.Errorf("room check %s: value %v (missing %q) on the committed run", r.Name, r.Value, r.Missing)
		}
	}
}

// TestSettingsFollowOrSayWhy: τ, G, the PPO epochs, the step count and the evaluation samples follow
// the paper (or verl's defaults); the normalisation differs and says why (that every setting names
// a field and says why where it differs is checked for all experiments in toolkit/exp/all).
func TestSettingsFollowOrSayWhy(t *testing.T) {
	e, err := exp.Lookup("capo")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exp.Settings(e, exp.Default)
	if err != nil {
		t.Fatal(err)
	}
	follow := map[string]bool{"RL.Adv.Tau": true, "RL.G": true, "RL.PPOEpochs": true, "RL.Steps": true, "EvalSamples": true, "RL.Opt.ClipNorm": true}
	for _, r := range rows {
		if follow[r.Field] && (r.Differs || r.Paper == nil) {
			t.Errorf("%s: %+v, want the paper's value", r.Field, r)
		}
		if r.Field == "RL.Adv.CAPONorm" && (!r.Differs || !strings.Contains(r.Why, "Adam")) {
			t.Errorf("normalisation row %+v", r)
		}
	}
}

// TestRoomGapMedian checks lpmGapMedian on a hand-made set: 2 prompts × 3 samples.
func TestRoomGapMedian(t *testing.T) {
	// prompt 0: samples 0, 2, 4; prompt 1: samples 1, 3, 5.
	lpm := []float64{-0.1, -0.5, -0.3, -0.2, -0.9, -0.4}
	ok := []bool{true, true, false, false, false, true}
	// prompt 0: right {-0.1}, wrong {-0.3, -0.9}: gaps 0.2, 0.8; prompt 1: right {-0.5, -0.4}, wrong {-0.2}: 0.3, 0.2.
	g, has := lpmGapMedian(lpm, ok, 2)
	if !has || math.Abs(g-0.25) > 1e-12 {
		t.Errorf("median gap %v (%v), want 0.25", g, has)
	}
	if _, has := lpmGapMedian([]float64{-1, -2}, []bool{true, true}, 1); has {
		t.Error("a median gap with no wrong answer")
	}
}

// withSFTFinal is a copy of res whose sft runs have final metric key set to v (res is unchanged).
func withSFTFinal(res *exp.Result, key string, v float64) *exp.Result {
	out := *res
	out.Runs = nil
	for _, run := range res.Runs {
		if run.Method == "sft" {
			f := map[string]float64{}
			for k, x := range run.Final {
				f[k] = x
			}
			f[key] = v
			run.Final = f
		}
		out.Runs = append(out.Runs, run)
	}
	return &out
}

// windowMeans averages a per-step curve over (previous evaluation, evaluation]: nothing at step 0,
// a window whose steps logged nothing (a diagnostic undefined there) is left out.
func TestWindowMeans(t *testing.T) {
	per := exp.Curve{X: []float64{1, 2, 3, 4, 6}, Y: []float64{1, 2, 3, 5, 7}}
	got := windowMeans(per, []float64{0, 2, 4, 5, 6})
	want := exp.Curve{X: []float64{2, 4, 6}, Y: []float64{1.5, 4, 7}}
	if !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
		t.Fatalf("windows %+v, want %+v", got, want)
	}
	if c := windowMeans(per, nil); len(c.Y) != 0 {
		t.Fatalf("no evaluations: %+v", c)
	}
}

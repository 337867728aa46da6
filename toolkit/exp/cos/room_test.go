package cos

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// synthetic is a five-seed result in which every room check passes: SFT far below its ceiling, the
// oracle well above the rankings and majority voting, a PRM that beats the policy's own step score
// and judges answers well on every seed, traces with room for steps and lengths. set edits the
// finals of method's run on each seed (after the defaults).
func synthetic(t *testing.T, set map[string]func(seed uint64, f map[string]float64)) *exp.Result {
	t.Helper()
	cfg, err := json.Marshal(Config{SearchN: []int{1, 4, 16}, WeightSweep: []float64{0, 0.1, 0.2, 0.5, 0.8, 1}, PRMSizes: []int{32, 64, 128}})
	if err != nil {
		t.Fatal(err)
	}
	res := &exp.Result{Experiment: "cos", Seeds: []uint64{1, 2, 3, 4, 5}, Config: cfg}
	base := map[string]func(seed uint64) map[string]float64{
		"sft":      func(uint64) map[string]float64 { return map[string]float64{"accuracy": 0.6, "accuracy_mean16": 0.5} },
		"majority": func(uint64) map[string]float64 { return map[string]float64{"acc_n4": 0.5, "acc_n16": 0.55} },
		"step-weight": func(uint64) map[string]float64 {
			return map[string]float64{"oracle_bon": 0.9, "bon_w0": 0.6, "bon_w0.1": 0.7, "bon_w0.2": 0.7, "bon_w0.5": 0.65, "bon_w0.8": 0.62, "bon_w1": 0.6, "self_bon": 0.62}
		},
		"dpo-answer":  func(uint64) map[string]float64 { return map[string]float64{"accuracy_mean16": 0.6} },
		"dpo-outcome": func(uint64) map[string]float64 { return map[string]float64{"accuracy_mean16": 0.6} },
		"prm-d32": func(uint64) map[string]float64 {
			return map[string]float64{"heldout_step_auc": 0.85, "heldout_self_step_auc": 0.8, "at_cap": 0}
		},
		"prm-d64": func(uint64) map[string]float64 {
			return map[string]float64{"heldout_step_auc": 0.88, "heldout_self_step_auc": 0.8, "at_cap": 0}
		},
		"prm-d128": func(uint64) map[string]float64 {
			return map[string]float64{"heldout_step_auc": 0.9, "heldout_self_step_auc": 0.8, "at_cap": 0}
		},
		"prm": func(seed uint64) map[string]float64 {
			d := 0.01 * float64(seed)
			return map[string]float64{metricWrongStep: 0.3 + d, metricOffLength: 0.2, "heldout_step_auc": 0.9 + d, "heldout_self_step_auc": 0.8, "at_cap": 0,
				"heldout_answer_auc": 0.9 + d, "heldout_within_trace_auc": 0.85 + d, "heldout_within_self_auc": 0.8}
		},
	}
	for _, m := range []string{"sft", "majority", "step-weight", "prm", "prm-d32", "prm-d64", "prm-d128", "dpo-answer", "dpo-outcome"} {
		for _, s := range res.Seeds {
			f := base[m](s)
			if edit := set[m]; edit != nil {
				edit(s, f)
			}
			res.Runs = append(res.Runs, exp.Run{Method: m, Seed: s, Final: f})
		}
	}
	return res
}

// Every room check passes on the synthetic result, reads the statistic its kind fixes, and fails on
// a result that breaks only its own precondition — for the PRM's trace ranking and answer AUC, one
// whose mean passes but whose interval's lower end does not (the statistic decides); for "PRM
// trained", one seed of five below the policy's own step AUC.
func TestRoomChecksPassAndFail(t *testing.T) {
	kinds := map[string]string{
		roomWrongStep: exp.StatValue, roomLength: exp.StatValue,
		roomGreedy: exp.StatMean, roomSample: exp.StatMean, roomRanking: exp.StatMean, roomVoting: exp.StatMean,
		roomTrained: exp.StatCount, roomTraceRank: exp.StatCILow, roomPairRank: exp.StatCILow, roomSizeCeiling: exp.StatMean, roomSizesTrained: exp.StatCount,
	}
	good := Room(synthetic(t, nil))
	if len(good) != len(kinds) {
		t.Fatalf("%d room checks, want %d", len(good), len(kinds))
	}
	exptest.Stats(t, good)
	for _, r := range good {
		if !r.OK || r.Stat != kinds[r.Name] || len(r.PerSeed) != 5 {
			t.Errorf("%s: ok %v, stat %q (want %q), %d per-seed values", r.Name, r.OK, r.Stat, kinds[r.Name], len(r.PerSeed))
		}
	}
	spread := []float64{0, 0.04, 0.03, 0.05, -0.08, 0.08} // by seed: mean +0.024, interval below 0
	breaks := map[string]map[string]func(seed uint64, f map[string]float64){
		roomWrongStep:   {"prm": func(_ uint64, f map[string]float64) { f[metricWrongStep] = 0.1 }},
		roomLength:      {"prm": func(_ uint64, f map[string]float64) { f[metricOffLength] = 0.001 }},
		roomGreedy:      {"sft": func(_ uint64, f map[string]float64) { f["accuracy"] = 0.95 }},
		roomSample:      {"sft": func(_ uint64, f map[string]float64) { f["accuracy_mean16"] = 0.95 }},
		roomRanking:     {"step-weight": func(_ uint64, f map[string]float64) { f["self_bon"] = 0.88 }},
		roomVoting:      {"majority": func(_ uint64, f map[string]float64) { f["acc_n16"] = 0.88 }},
		roomSizeCeiling: {"prm-d32": func(_ uint64, f map[string]float64) { f["heldout_step_auc"] = 0.99 }},
		roomSizesTrained: {"prm-d128": func(s uint64, f map[string]float64) {
			if s == 3 {
				f["heldout_step_auc"] = 0.79
			}
		}},
		roomTraceRank: {"prm": func(s uint64, f map[string]float64) {
			f["heldout_within_self_auc"] = f["heldout_within_trace_auc"] - spread[s]
		}},
		roomPairRank: {"prm": func(s uint64, f map[string]float64) {
			f["heldout_within_trace_auc"], f["heldout_within_self_auc"] = MinPairAUC+2*spread[s], 0.5
		}},
		roomTrained: {"prm": func(s uint64, f map[string]float64) {
			if s == 4 {
				f["heldout_step_auc"] = f["heldout_self_step_auc"] - 0.01
			}
		}},
	}
	// A PRM cut off by the step cap while improving fails its trained check too, main or width.
	for name, m := range map[string]string{roomTrained: "prm", roomSizesTrained: "prm-d64"} {
		edit := map[string]func(uint64, map[string]float64){m: func(s uint64, f map[string]float64) {
			if s == 2 {
				f["at_cap"] = 1
			}
		}}
		if r := exptest.RoomCheck(t, Room(synthetic(t, edit)), name); r.OK {
			t.Errorf("%s passes with %s at the step cap on seed 2: %+v", name, m, r)
		}
	}
	for name, edit := range breaks {
		for _, r := range Room(synthetic(t, edit)) {
			if r.OK == (r.Name == name) {
				t.Errorf("breaking %q: check %q ok = %v (value %v)", name, r.Name, r.OK, r.Value)
			}
			if r.Name == name && r.Stat == exp.StatCILow && !(mean(r.PerSeed) > r.Test.X) {
				t.Errorf("%s: the failing case's mean %v should pass on the mean", name, mean(r.PerSeed))
			}
		}
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Without the per-seed metrics the trace checks read not measured (and fail); nothing is read from
// files beside the result.
func TestRoomTracePropertiesMissing(t *testing.T) {
	res := synthetic(t, map[string]func(uint64, map[string]float64){"prm": func(_ uint64, f map[string]float64) {
		delete(f, metricWrongStep)
		delete(f, metricOffLength)
	}})
	for _, name := range []string{roomWrongStep, roomLength} {
		r := exptest.RoomCheck(t, Room(res), name)
		if r.OK || !math.IsNaN(r.Value) || r.Missing == "" || r.Stat != exp.StatValue {
			t.Errorf("%s without its metric: %+v", name, r)
		}
	}
}

// On both committed results every check is measured on every seed with its kind's statistic (on
// cos-vision, which runs the main part only, the PRM widths' checks read not measured, naming the
// prm-size part), every claim names at least one check, and each of the paper's headline ids tags
// exactly one claim: cos-1…3, and cos-4 on the text variant (its reasoning part).
func TestRoomCommitted(t *testing.T) {
	for _, name := range []string{"cos", "cos-vision"} {
		t.Run(name, func(t *testing.T) {
			res, e := exptest.Committed(t, name)
			j := exptest.Judge(t, e, res)
			exptest.Stats(t, j.Room)
			if len(j.Room) != 11 {
				t.Fatalf("%d room checks, want 11", len(j.Room))
			}
			for _, r := range j.Room {
				if name == "cos-vision" && (r.Name == roomSizeCeiling || r.Name == roomSizesTrained) {
					if !math.IsNaN(r.Value) || !strings.Contains(r.Missing, "prm-size part") {
						t.Errorf("room check %q on cos-vision: value %v, missing %q", r.Name, r.Value, r.Missing)
					}
					continue
				}
				if math.IsNaN(r.Value) || len(r.Seeds) != len(res.Seeds) {
					t.Errorf("room check %q not measured on every seed: %v (%s)", r.Name, r.Seeds, r.Missing)
				}
				if r.Why == "" {
					t.Errorf("room check %q says not why", r.Name)
				}
			}
			tags := map[string]int{}
			for _, c := range j.Claims {
				if len(c.Room) == 0 {
					t.Errorf("claim %q names no room check", c.Text)
				}
				if c.Headline != "" {
					tags[c.Headline]++
				}
			}
			want := map[string]int{"cos-1": 1, "cos-2": 1, "cos-3": 1}
			if name == "cos" {
				want["cos-4"] = 1
			}
			if !mapsEqual(tags, want) {
				t.Errorf("headline tags %v, want %v", tags, want)
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A PRM whose within-question trace-score AUC falls short of MinPairAUC makes the claims that weigh
// its score against the verifier's outcome — step&answer (or re-trained) pairs against outcome pairs,
// cos-1 among them, and GRPO's PRM reward against the outcome reward — untestable naming the check,
// while step&answer against answer-only PRM pairs (both scored by the same PRM) and the right-chosen
// arm (its chosen answer checked by the verifier) do not need it.
func TestPairRankGatesOutcomeClaims(t *testing.T) {
	res, e := exptest.Committed(t, "cos")
	for i := range res.Runs {
		if res.Runs[i].Method == "prm" {
			res.Runs[i].Final["heldout_within_trace_auc"] = 0.67 + 0.01*float64(res.Runs[i].Seed)
		}
	}
	j := exptest.Judge(t, e, res)
	if r := exptest.RoomCheck(t, j.Room, roomPairRank); r.OK {
		t.Fatalf("pair-rank check passes at AUC 0.68–0.72: %+v", r)
	}
	gated := 0
	for _, c := range j.Claims {
		vsOutcome := (strings.HasPrefix(c.Text, "step&answer PRM pairs") && strings.Contains(c.Text, "outcome pairs") && !strings.Contains(c.Text, "right chosen")) ||
			strings.HasPrefix(c.Text, "GRPO rewarded by the PRM")
		if got := slices.Contains(c.Untestable, roomPairRank); got != vsOutcome {
			t.Errorf("%q: fails pair-rank check %v, want %v", c.Text, got, vsOutcome)
		}
		if vsOutcome {
			gated++
		}
		if c.Headline == "cos-1" && (!vsOutcome || c.Verdict() != exp.Untestable) {
			t.Errorf("cos-1 reads %q on %q", c.Verdict(), c.Text)
		}
	}
	if gated < 5 {
		t.Errorf("%d claims against the outcome gated, want ≥ 5", gated)
	}
}

// A result whose recorded share of right answers after a wrong step is 0 makes the step-aware
// claims untestable (naming the check) and leaves the others alone; one with a large share lets
// them be judged. The DPO pair claims also need a PRM that beats the policy's own step score on
// every seed: one seed below it is enough to fail.
func TestRoomTurnsClaimsUntestable(t *testing.T) {
	res, e := exptest.Committed(t, "cos")
	set := func(metric string, v float64) {
		for i := range res.Runs {
			if res.Runs[i].Method == "prm" {
				res.Runs[i].Final[metric] = v
			}
		}
	}
	set(metricWrongStep, 0)
	set(metricOffLength, 0.5)
	j := exptest.Judge(t, e, res)
	if r := exptest.RoomCheck(t, j.Room, roomWrongStep); r.OK || len(r.Seeds) != len(res.Seeds) {
		t.Fatalf("recorded share 0 on every seed: %+v", r)
	}
	c := exptest.ClaimWithPrefix(t, j.Claims, "step&answer PRM pairs beat outcome pairs on answer accuracy")
	if c.Verdict() != exp.Untestable || !slices.Contains(c.Untestable, roomWrongStep) {
		t.Fatalf("%q reads %q (fails %v)", c.Text, c.Verdict(), c.Untestable)
	}
	if c := exptest.ClaimWithPrefix(t, j.Claims, "PRM-DPO (step&answer) shortens"); len(c.Untestable) != 0 {
		t.Fatalf("chain claim fails %v with chains free to change", c.Untestable)
	}
	set(metricWrongStep, 0.5)
	j = exptest.Judge(t, e, res)
	if c := exptest.ClaimWithPrefix(t, j.Claims, "step&answer PRM pairs beat outcome pairs on answer accuracy"); slices.Contains(c.Untestable, roomWrongStep) {
		t.Fatalf("fails %v with half the right answers after a wrong step", c.Untestable)
	}
	for _, d := range []float64{-0.1, 0.1} {
		for i := range res.Runs {
			if res.Runs[i].Method == "prm" {
				res.Runs[i].Final["heldout_self_step_auc"] = 0.8
				res.Runs[i].Final["heldout_step_auc"] = 0.8 + 0.1
				res.Runs[i].Final["at_cap"] = 0
				if res.Runs[i].Seed == 2 {
					res.Runs[i].Final["heldout_step_auc"] = 0.8 + d
				}
			}
		}
		c := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, res).Claims, "step&answer PRM pairs beat outcome pairs on whole-chain correctness")
		if got := slices.Contains(c.Untestable, roomTrained); got != (d < 0) {
			t.Fatalf("PRM step AUC %+g against the policy's own: claim fails %v", d, c.Untestable)
		}
	}
}

func TestWrongStepAndLengthShares(t *testing.T) {
	v, ok := WrongStepShare([][]bool{{true, true}, {false, true}, {true, false, false}, {false, true, true}})
	if !ok || v != 2.0/3 {
		t.Fatalf("WrongStepShare = %v, %v; want 2/3", v, ok)
	}
	if _, ok := WrongStepShare([][]bool{{true, false}}); ok {
		t.Fatal("no right answer: no share")
	}
	if v, ok := OffLengthShare([]int{2, 3, 4, 4}, []int{2, 3, 3, 4}); !ok || v != 0.25 {
		t.Fatalf("OffLengthShare = %v, %v", v, ok)
	}
}

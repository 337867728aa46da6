package m3apg

import (
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
	"github.com/paperlab/paperlab/toolkit/marl/m3apg"
)

// TestSmokeRun runs experiment "m3apg" at smoke scale (seconds): every method with the metrics the
// claims and figures read, per N and unprefixed at the largest N; the curves the figures need; every claim
// evaluable.
func TestSmokeRun(t *testing.T) {
	_, back, _ := exptest.Smoke(t, "m3apg")
	cfg := ConfigFor(exp.Smoke)
	exptest.RequireMetrics(t, back, Methods[:4], []string{"return", "n3/return", "n4/return"}, 1)
	// The hard game (default since 2026-12-04): every critic kind, per N and at the largest N, at each budget.
	exptest.RequireMetrics(t, back, hardCritics, []string{"hard_critic_error_unseen", "n3/hard_critic_error_seen", "hard_q_total_spread",
		"b1k/critic_error_unseen", "b1k/critic_error_seen", "budget_auc/critic_error_unseen"}, 1)
	exptest.RequireMetrics(t, back, Methods[1:3], []string{"b1k/embed_effect_share", "hard_embed_effect_share"}, 1)
	exptest.RequireMetrics(t, back, Methods[:3], []string{"critic_error_seen", "critic_error_unseen", "n3/critic_error_unseen", "n4/critic_error_seen",
		"sparse_critic_error_unseen", "n3/sparse_critic_error_seen"}, 1)
	exptest.RequireMetrics(t, back, Methods[1:3], []string{"embed_effect_share", "sparse_embed_effect_share", "n3/init_embed_effect_share"}, 1)
	for _, m := range Methods[1:3] {
		r := back.RunsOf(m)[0]
		for _, k := range []string{"embed/shaped/pc1", "embed/sparse/pc2", "embed/sparse/push_x"} {
			if len(r.Curves[k].Y) != 64 { // every joint action of N = PictureN = 3
				t.Fatalf("%s: curve %s has %d points, want 64", m, k, len(r.Curves[k].Y))
			}
		}
		if s := r.Final["embed_effect_share"]; !(s >= 0 && s <= 1) {
			t.Fatalf("%s: effect share %v", m, s)
		}
	}
	for _, m := range Methods[:4] {
		r := back.RunsOf(m)[0]
		if len(r.Curves["return_vs_n"].X) != len(cfg.Agents) || len(r.Curves["n4/episodic_return"].Y) == 0 {
			t.Fatalf("%s: curves %v", m, r.Curves["return_vs_n"])
		}
	}
	// 9 on SMAX; 12 on the shaped and sparse games (the return against the baselines' front among
	// them); on the hard game 3 baselines, 2 gaps, 2 per budget, 1 over the budgets.
	if claims, want := Claims(back), 9+12+3+2+2*len(cfg.Budgets)+1; len(claims) != want {
		t.Fatalf("%d claims, want %d", len(claims), want)
	}
	if len(back.Figures) < 6 {
		t.Fatalf("%d figure files", len(back.Figures))
	}
}

// Shards of m3apg merged equal a one-process run, claims included (see exptest.CheckMerge).
func TestMergeEqualsOneProcess(t *testing.T) { exptest.CheckMerge(t, "m3apg") }

// The notebook's table keys are all in the committed summary of some method.
func TestTableKeysOnCommittedResult(t *testing.T) {
	res, _ := exptest.Committed(t, "m3apg")
	for _, k := range TableKeys(ConfigFor(res.Scale)) {
		found := false
		for _, m := range res.Methods() {
			if _, ok := res.Summary[m][k]; ok {
				found = true
			}
		}
		if !found {
			t.Errorf("no method has %s", k)
		}
	}
}

// Part smax alone: every critic kind's policy evaluation scored against the shared Monte-Carlo set
// (finite errors, the set's scale, curves at every budget), every learner's return and win rate;
// the SMAX claims are the headlines (m3apg-1 against the COMA-style critic, m3apg-2 against the
// baselines' front, m3apg-3 the MI term), with their room checks; no push claim or figure.
func TestSMAXPart(t *testing.T) {
	e, _ := exp.Lookup("m3apg")
	res, err := exp.Execute(e, exp.Options{Scale: exp.Smoke, Seeds: 2, Part: PartSMAX, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFor(exp.Smoke).SMAX
	for _, kind := range hardCritics {
		m := SMAXMethod(kind)
		for _, seed := range res.Seeds {
			for _, k := range []string{"joint_error_unseen", "joint_error_seen", "critic_error_unseen", "q_joint_spread", "mc_noise"} {
				if v, ok := res.Final(m, k, seed); !ok || math.IsNaN(v) || v < 0 {
					t.Fatalf("%s seed %d: %s = %v (%v)", m, seed, k, v, ok)
				}
			}
		}
		if got := len(res.RunsOf(m)[0].Curves["eval/joint_error_unseen"].Y); got != len(cfg.budgets()) {
			t.Fatalf("%s: %d points of eval/joint_error_unseen, want %d", m, got, len(cfg.budgets()))
		}
	}
	// One Monte-Carlo set per seed: every kind reads the same scale.
	a, _ := res.Final(SMAXMethod(m3apg.M3APG), "q_total_spread", res.Seeds[0])
	b, _ := res.Final(SMAXMethod(m3apg.VOnly), "q_total_spread", res.Seeds[0])
	if a != b {
		t.Fatalf("q_total_spread %v for m3apg, %v for v-only: not one set", a, b)
	}
	for _, kind := range cfg.Learners {
		for _, k := range []string{"return", "win_rate"} {
			if v, ok := res.Final(SMAXMethod(kind), k, res.Seeds[0]); !ok || (k == "win_rate" && (v < 0 || v > 1)) {
				t.Fatalf("%s: %s = %v (%v)", SMAXMethod(kind), k, v, ok)
			}
		}
	}
	j, err := exp.Judge(e, res)
	if err != nil {
		t.Fatal(err)
	}
	heads := map[string]exp.Claim{}
	for _, c := range j.Claims {
		if _, ok := heads[c.Headline]; !ok && c.Headline != "" {
			heads[c.Headline] = c
		}
		if !strings.HasPrefix(c.Text, "SMAX 3m") {
			t.Errorf("a claim outside part smax: %q", c.Text)
		}
	}
	for id, want := range map[string][]string{
		"m3apg-1": {smaxSignalName(), smaxConvergedName(m3apg.ComaQ, "joint_error_unseen"), smaxLearnsName(m3apg.ComaQ)},
		"m3apg-2": {smaxReturnLearns(SMAXMethod(m3apg.M3APG)), smaxReturnLearns(SMAXMethod(m3apg.ComaQ)), smaxGateName()},
		"m3apg-3": {smaxHidesName(), smaxConvergedName(m3apg.M3APGNoMI, "joint_error_unseen"), smaxLearnsName(m3apg.M3APGNoMI)},
	} {
		c, ok := heads[id]
		if !ok {
			t.Fatalf("no claim for %s", id)
		}
		for _, r := range want {
			if !slices.Contains(c.Room, r) {
				t.Errorf("%s (%q) does not need %s (needs %v)", id, c.Text, r, c.Room)
			}
		}
	}
	names := map[string]bool{}
	for _, r := range Room(res) {
		names[r.Name] = true
	}
	for _, c := range j.Claims {
		for _, r := range c.Room {
			if !names[r] {
				t.Errorf("claim %q needs %s, which Room does not measure", c.Text, r)
			}
		}
	}
	paths, err := Figures(res, t.TempDir())
	if err != nil || len(paths) == 0 {
		t.Fatalf("figures %v: %v", paths, err)
	}
	for _, p := range paths {
		if !strings.Contains(p, "smax_") {
			t.Errorf("a push figure from part smax: %s", p)
		}
	}
}

// smaxSynthetic is a result of part smax alone on 5 seeds: critics that rank joint actions (joint
// error a fifth of the joint spread) or not (joint error at the spread: the probes' finding), a
// joint-action part of Q 4× or 1.2× its noise, learners that learn, MAPPO past the gate.
func smaxSynthetic(t *testing.T, ranks bool) *exp.Result {
	t.Helper()
	cfg := ConfigFor(exp.Default)
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := &exp.Result{Experiment: "m3apg", Scale: exp.Default, Config: raw, Seeds: []uint64{1, 2, 3, 4, 5}, Timing: map[string]float64{}}
	flat := func(level float64) exp.Curve {
		var c exp.Curve
		for i := 1; i <= 16; i++ {
			c.X, c.Y = append(c.X, float64(i*38400)), append(c.Y, level)
		}
		return c
	}
	rising := func(top float64) exp.Curve {
		var c exp.Curve
		for i := 0; i <= 100; i++ {
			c.X, c.Y = append(c.X, float64(i*16000)), append(c.Y, top*math.Min(1, float64(i)/40))
		}
		return c
	}
	for _, seed := range res.Seeds {
		jitter := 0.002 * float64(seed)
		for _, kind := range hardCritics {
			joint := 0.10 + jitter // at the spread: ranks nothing
			if ranks && kind != m3apg.VOnly {
				joint = 0.02 + jitter
			}
			signal := 1.2
			if ranks {
				signal = 4
			}
			run := exp.Run{Method: SMAXMethod(kind), Seed: seed, Final: map[string]float64{
				"joint_error_seen": joint, "joint_error_unseen": joint + 0.01, "critic_error_seen": 0.1, "critic_error_unseen": 0.12,
				"q_total_spread": 0.33, "q_joint_spread": 0.10 + jitter, "mc_noise": (0.10 + jitter) / signal, "reward_hidden_share": 0.9},
				Curves: map[string]exp.Curve{"eval/joint_error_unseen": flat(joint), "eval/critic_error_unseen": flat(0.12)}}
			if kind == m3apg.M3APG || kind == m3apg.M3APGNoMI || kind == m3apg.ComaQ {
				top := 1.5 + 0.01*float64(seed)
				run.Final["return"], run.Final["return_auc"], run.Final["win_rate"] = top, top*0.7, 0.8
				run.Curves["episodic_return"] = rising(top)
			}
			res.Runs = append(res.Runs, run)
		}
		res.Runs = append(res.Runs, exp.Run{Method: SMAXMethod("mappo"), Seed: seed, Final: map[string]float64{"return": 1.9, "return_auc": 1.6, "win_rate": 0.92},
			Curves: map[string]exp.Curve{"episodic_return": rising(1.9)}})
	}
	res.Summarize()
	return res
}

// The SMAX room checks on synthetic results: critics that rank joint actions, with a joint-action
// part well above its noise, pass them and m3apg-1 reads its data; critics at the V(s) floor with
// a joint part near its noise fail the signal and ranking checks, and m3apg-1 and m3apg-3 read
// "untestable here" (and, marked HeadlineIfTestable, stand aside for the push game's readings).
func TestSMAXRoomPassesAndFails(t *testing.T) {
	e, _ := exp.Lookup("m3apg")
	for _, ranks := range []bool{true, false} {
		j := exptest.Judge(t, e, smaxSynthetic(t, ranks))
		for _, name := range []string{smaxSignalName(), smaxLearnsName(m3apg.M3APG), smaxLearnsName(m3apg.ComaQ)} {
			if r := exptest.RoomCheck(t, j.Room, name); r.OK != ranks {
				t.Errorf("ranks %v: %s = %v ok %v", ranks, name, r.Value, r.OK)
			}
		}
		for _, name := range []string{smaxConvergedName(m3apg.M3APG, "joint_error_unseen"), smaxHidesName(), smaxGateName(), smaxCeilingName(),
			smaxReturnLearns(SMAXMethod(m3apg.M3APG))} {
			if r := exptest.RoomCheck(t, j.Room, name); !r.OK {
				t.Errorf("ranks %v: %s = %v fails", ranks, name, r.Value)
			}
		}
		for _, id := range []string{"m3apg-1", "m3apg-3"} {
			c, ok := exp.HeadlineClaim(j.Claims, id)
			if !ok || !c.IfTestable || (c.Verdict() == exp.Untestable) == ranks {
				t.Errorf("ranks %v: %s reads %q: %s", ranks, id, c.Text, c.VerdictText())
			}
		}
	}
}

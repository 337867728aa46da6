package m3apg

import (
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
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
	// 12 on the shaped and sparse games (the return against the baselines' front among them); on the hard game 3 baselines, 2 gaps, 2 per budget, 1 over the budgets.
	if claims, want := Claims(back), 12+3+2+2*len(cfg.Budgets)+1; len(claims) != want {
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

package e3t

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// TestSmokeRunMetricsComplete runs experiment "e3t" at smoke scale and checks the summary keys the
// issue names, FCP's cost accounting, the per-partner numbers, the efficiency curves and the episode
// animation.
func TestSmokeRunMetricsComplete(t *testing.T) {
	_, back, dir := exptest.Smoke(t, "e3t")
	exptest.RequireMetrics(t, back, []string{"sp", "fcp", "e3t", "e3t-nopm"}, []string{"heldout_return", "env_steps", "cramped_room/heldout_return", "asymmetric_advantages/heldout_return"}, 1)
	if n := back.Summary["e3t"]["heldout_return"].N; n != len(back.Seeds) {
		t.Fatalf("heldout_return averaged over layouts has n = %d, want one per seed (%d)", n, len(back.Seeds))
	}
	s := back.Summary
	if !(s["fcp"]["env_steps"].Mean > s["e3t"]["env_steps"].Mean) {
		t.Fatalf("FCP's cost (%v) does not include its population (E3T %v)", s["fcp"]["env_steps"].Mean, s["e3t"]["env_steps"].Mean)
	}
	for _, layout := range ConfigFor("smoke").Layouts {
		var partners []Partner
		if err := back.GetExtra("partners_"+layout, &partners); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, p := range partners {
			kinds[p.Kind]++
			for _, m := range []string{"sp", "fcp", "e3t", "e3t-nopm"} {
				fam := map[string]string{"sp": "sp", "fcp": "fcp", "e3t": "e3t", "e3t-nopm": "e3t"}[m]
				_, ok := s[m][layout+"/partner/"+p.Name]
				if own := p.Kind == "learned" && p.Family == fam; ok == own {
					t.Fatalf("%s: method %s with partner %s (%s %s): judged %v", layout, m, p.Name, p.Kind, p.Family, ok)
				}
			}
		}
		// 3 roles scripted; human data exists for both default layouts; SP, E3T and FCP held out.
		if kinds["scripted"] != 3 || kinds["human_bc"] != 1 || kinds["learned"] != 3 {
			t.Fatalf("%s: pool kinds %v", layout, kinds)
		}
		for _, k := range []string{"heldout_return", "scripted_return", "human_bc_return", "learned_return"} {
			if _, ok := s["e3t"][layout+"/"+k]; !ok {
				t.Fatalf("no %s/%s", layout, k)
			}
		}
	}
	var fits map[string]map[string]float64
	if err := back.GetExtra("bc", &fits); err != nil || fits["cramped_room"]["heldout_examples"] < 100 {
		t.Fatalf("behaviour-cloning fit: %v %v", err, fits)
	}
	run := back.RunsOf("e3t")[0]
	if c := run.Curves["cramped_room/monitor_return"]; len(c.Y) == 0 {
		t.Fatal("no monitor curve")
	}
	if c := run.Curves["cramped_room/pm_accuracy"]; len(c.Y) == 0 {
		t.Fatal("no partner-model accuracy curve")
	}
	var ep Episode
	if err := back.GetExtra("episode", &ep); err != nil || len(ep.Actions) != ConfigFor("smoke").Horizon {
		t.Fatalf("episode: %v (%d actions)", err, len(ep.Actions))
	}
	if st, err := os.Stat(filepath.Join(dir, "episode.gif")); err != nil || st.Size() < 1000 {
		t.Fatalf("episode.gif: %v", err)
	}
}

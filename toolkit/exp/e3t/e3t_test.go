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
	exptest.RequireMetrics(t, back, []string{"sp", "fcp", "e3t", "e3t-nopm"}, []string{"heldout_return", "env_steps"}, 2)
	s := back.Summary
	if !(s["fcp"]["env_steps"].Mean > s["e3t"]["env_steps"].Mean) {
		t.Fatalf("FCP's cost (%v) does not include its population (E3T %v)", s["fcp"]["env_steps"].Mean, s["e3t"]["env_steps"].Mean)
	}
	var partners []string
	if err := back.GetExtra("partners", &partners); err != nil || len(partners) < 4 {
		t.Fatalf("partners %v: %v", partners, err)
	}
	for _, p := range partners {
		if _, ok := s["e3t"]["cramped_room/partner/"+p]; !ok {
			t.Fatalf("no cramped_room return with partner %s", p)
		}
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

package exptest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// CommittedDir is the folder of experiment name's committed result in this checkout,
// figures/<name>. It fails the test when the checkout's root cannot be found.
func CommittedDir(t testing.TB, name string) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "figures", name)
}

// Committed loads the committed result figures/<name>/metrics.json of this checkout — a fresh copy
// on each call, so a test may edit it — and looks up the experiment name. It fails the test, naming
// the file, when the result cannot be loaded, and when no experiment of that name is registered.
func Committed(t testing.TB, name string) (*exp.Result, exp.Experiment) {
	t.Helper()
	dir := CommittedDir(t, name)
	res, err := exp.Load(dir)
	if err != nil {
		t.Fatalf("committed result %s: %v", filepath.Join(dir, exp.MetricsFile), err)
	}
	e, err := exp.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return res, e
}

// Judge applies e's room checks to res's claims (exp.Judge), failing the test on an error (a claim
// naming a room check that does not exist, say).
func Judge(t testing.TB, e exp.Experiment, res *exp.Result) exp.Judged {
	t.Helper()
	j, err := exp.Judge(e, res)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// RoomCheck is the room check called name, failing the test when room has none.
func RoomCheck(t testing.TB, room []exp.RoomCheck, name string) exp.RoomCheck {
	t.Helper()
	for _, r := range room {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no room check %q", name)
	return exp.RoomCheck{}
}

// ClaimWithPrefix is the first claim whose text starts with prefix, failing the test when none does.
func ClaimWithPrefix(t testing.TB, claims []exp.Claim, prefix string) exp.Claim {
	t.Helper()
	for _, c := range claims {
		if strings.HasPrefix(c.Text, prefix) {
			return c
		}
	}
	t.Fatalf("no claim %q…", prefix)
	return exp.Claim{}
}

// Headline is the claim tagged with the headline id (exp.Claim.For), failing the test when none is.
func Headline(t testing.TB, claims []exp.Claim, id string) exp.Claim {
	t.Helper()
	for _, c := range claims {
		if c.Headline == id {
			return c
		}
	}
	t.Fatalf("no claim tagged %s", id)
	return exp.Claim{}
}

// Stats fails the test for every room check whose statistic is not one of the table's
// (exp.StatCILow, StatTailMean, StatMean, StatValue, StatCount, StatModifiedZ), or that is measured
// per seed but records no per-seed values (every statistic but exp.StatValue is).
func Stats(t testing.TB, room []exp.RoomCheck) {
	t.Helper()
	for _, r := range room {
		switch r.Stat {
		case exp.StatCILow, exp.StatTailMean, exp.StatMean, exp.StatCount, exp.StatModifiedZ:
			if len(r.PerSeed) == 0 && r.Missing == "" {
				t.Errorf("room check %s (%s): no per-seed values", r.Name, r.Stat)
			}
		case exp.StatValue:
		default:
			t.Errorf("room check %s: statistic %q is not one of the table's", r.Name, r.Stat)
		}
	}
}

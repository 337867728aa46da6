package cos

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// committed loads figures/<name> (skipping when the checkout has no committed result).
func committed(t *testing.T, name string) (*exp.Result, string) {
	t.Helper()
	root, err := exp.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "figures", name)
	if _, err := os.Stat(filepath.Join(dir, exp.MetricsFile)); err != nil {
		t.Skipf("no committed %s result", name)
	}
	res, err := exp.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return res, dir
}

func roomByName(t *testing.T, j exp.Judged, name string) exp.RoomCheck {
	t.Helper()
	for _, r := range j.Room {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no room check %q", name)
	return exp.RoomCheck{}
}

func claimByText(t *testing.T, j exp.Judged, prefix string) exp.Claim {
	t.Helper()
	for _, c := range j.Claims {
		if len(c.Text) >= len(prefix) && c.Text[:len(prefix)] == prefix {
			return c
		}
	}
	t.Fatalf("no claim %q…", prefix)
	return exp.Claim{}
}

// On both committed results every claim names existing room checks, each check has a finite value,
// and every claim names at least one.
func TestRoomCommitted(t *testing.T) {
	for _, name := range []string{"cos", "cos-vision"} {
		t.Run(name, func(t *testing.T) {
			res, _ := committed(t, name)
			e, err := exp.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			j, err := exp.Judge(e, res)
			if err != nil {
				t.Fatal(err)
			}
			if len(j.Room) != 6 {
				t.Fatalf("%d room checks, want 6", len(j.Room))
			}
			for _, r := range j.Room {
				if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
					t.Errorf("room check %q not measured on the committed run: %s", r.Name, r.Missing)
				}
				if r.Why == "" {
					t.Errorf("room check %q says not why", r.Name)
				}
			}
			for _, c := range j.Claims {
				if len(c.Room) == 0 {
					t.Errorf("claim %q names no room check", c.Text)
				}
			}
		})
	}
}

// The trace-based checks of a committed result (which predates the per-seed metrics) equal a
// recomputation from the raw JSONL of seed 1, and are measured on seed 1 only.
func TestRoomTracesRecomputed(t *testing.T) {
	for _, name := range []string{"cos", "cos-vision"} {
		t.Run(name, func(t *testing.T) {
			res, dir := committed(t, name)
			if _, ok := res.Final("prm", metricWrongStep, 1); ok {
				t.Skip("the result records the metric itself")
			}
			f, err := os.Open(filepath.Join(dir, TracesFile))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var right, wrongStep float64
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var rec struct {
					Gold []bool `json:"gold"`
				}
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatal(err)
				}
				if n := len(rec.Gold); n > 0 && rec.Gold[n-1] {
					right++
					if slices.Contains(rec.Gold[:n-1], false) {
						wrongStep++
					}
				}
			}
			e, _ := exp.Lookup(name)
			j, err := exp.Judge(e, res)
			if err != nil {
				t.Fatal(err)
			}
			r := roomByName(t, j, roomWrongStep)
			if want := wrongStep / right; math.Abs(r.Value-want) > 1e-12 || !slices.Equal(r.Seeds, []uint64{1}) {
				t.Fatalf("%s = %v on seeds %v, recomputed %v on seed 1", roomWrongStep, r.Value, r.Seeds, want)
			}
			if l := roomByName(t, j, roomLength); !slices.Equal(l.Seeds, []uint64{1}) {
				t.Fatalf("%s measured on seeds %v, want [1]", roomLength, l.Seeds)
			}
		})
	}
}

// A result whose recorded share of right answers after a wrong step is 0 makes the step-aware
// claims untestable (naming the check) and leaves the others alone; one with a large share lets
// them be judged. A stored trace file that does not belong to the result is not read.
func TestRoomTurnsClaimsUntestable(t *testing.T) {
	res, _ := committed(t, "cos")
	e, _ := exp.Lookup("cos")
	set := func(metric string, v float64) {
		for i := range res.Runs {
			if res.Runs[i].Method == "prm" {
				res.Runs[i].Final[metric] = v
			}
		}
	}
	set(metricWrongStep, 0)
	set(metricOffLength, 0.5)
	j, err := exp.Judge(e, res)
	if err != nil {
		t.Fatal(err)
	}
	if r := roomByName(t, j, roomWrongStep); r.OK || len(r.Seeds) != len(res.Seeds) {
		t.Fatalf("recorded share 0 on every seed: %+v", r)
	}
	c := claimByText(t, j, "step&answer PRM pairs beat outcome pairs (one-sample")
	if c.Verdict() != exp.Untestable || !slices.Contains(c.Untestable, roomWrongStep) {
		t.Fatalf("%q reads %q (fails %v)", c.Text, c.Verdict(), c.Untestable)
	}
	if c := claimByText(t, j, "PRM-DPO (step&answer) shortens"); len(c.Untestable) != 0 {
		t.Fatalf("chain claim fails %v with chains free to change", c.Untestable)
	}
	set(metricWrongStep, 0.5)
	j, _ = exp.Judge(e, res)
	if c := claimByText(t, j, "step&answer PRM pairs beat outcome pairs (one-sample"); len(c.Untestable) != 0 {
		t.Fatalf("fails %v with half the right answers after a wrong step", c.Untestable)
	}
	// Without the recorded metrics, a trace file that disagrees with seed 1's prm run is ignored.
	for i := range res.Runs {
		if res.Runs[i].Method == "prm" {
			delete(res.Runs[i].Final, metricWrongStep)
			delete(res.Runs[i].Final, metricOffLength)
			if res.Runs[i].Seed == 1 {
				res.Runs[i].Final["label_traces"]++
			}
		}
	}
	j, _ = exp.Judge(e, res)
	if r := roomByName(t, j, roomWrongStep); r.OK || !math.IsNaN(r.Value) || r.Missing == "" {
		t.Fatalf("traces of another run were read: %+v", r)
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

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
	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// On both committed results every claim names existing room checks, each check has a finite value,
// and every claim names at least one.
func TestRoomCommitted(t *testing.T) {
	for _, name := range []string{"cos", "cos-vision"} {
		t.Run(name, func(t *testing.T) {
			res, e := exptest.Committed(t, name)
			j := exptest.Judge(t, e, res)
			if len(j.Room) != 7 {
				t.Fatalf("%d room checks, want 7", len(j.Room))
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
			res, e := exptest.Committed(t, name)
			if _, ok := res.Final("prm", metricWrongStep, 1); ok {
				t.Skip("the result records the metric itself")
			}
			f, err := os.Open(filepath.Join(exptest.CommittedDir(t, name), TracesFile))
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
			j := exptest.Judge(t, e, res)
			r := exptest.RoomCheck(t, j.Room, roomWrongStep)
			if want := wrongStep / right; math.Abs(r.Value-want) > 1e-12 || !slices.Equal(r.Seeds, []uint64{1}) {
				t.Fatalf("%s = %v on seeds %v, recomputed %v on seed 1", roomWrongStep, r.Value, r.Seeds, want)
			}
			if l := exptest.RoomCheck(t, j.Room, roomLength); !slices.Equal(l.Seeds, []uint64{1}) {
				t.Fatalf("%s measured on seeds %v, want [1]", roomLength, l.Seeds)
			}
		})
	}
}

// A result whose recorded share of right answers after a wrong step is 0 makes the step-aware
// claims untestable (naming the check) and leaves the others alone; one with a large share lets
// them be judged. A stored trace file that does not belong to the result is not read.
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
	// DPO pair claims also need a PRM that ranks steps better than the policy's own step probability.
	for _, d := range []float64{-0.1, 0.1} {
		for i := range res.Runs {
			if res.Runs[i].Method == "prm" {
				res.Runs[i].Final["step_auc"] = res.Runs[i].Final["self_step_auc"] + d
			}
		}
		c := exptest.ClaimWithPrefix(t, exptest.Judge(t, e, res).Claims, "step&answer PRM pairs beat outcome pairs on whole-chain correctness")
		if got := slices.Contains(c.Untestable, roomPRM); got != (d < 0) {
			t.Fatalf("PRM step AUC %+g against the policy's own: claim fails %v", d, c.Untestable)
		}
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
	j = exptest.Judge(t, e, res)
	if r := exptest.RoomCheck(t, j.Room, roomWrongStep); r.OK || !math.IsNaN(r.Value) || r.Missing == "" {
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

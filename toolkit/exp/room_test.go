package exp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// roomResult is a two-method result whose "gap" metric and "curve" curve a room check can read.
func roomResult() *Result {
	res := &Result{Experiment: "roomtest", Seeds: []uint64{1, 2, 3, 4, 5}}
	for _, s := range res.Seeds {
		f := float64(s)
		res.Runs = append(res.Runs,
			Run{Method: "a", Seed: s, Final: map[string]float64{"score": 1 + 0.01*f, "gap": 0.3 + 0.01*f}},
			Run{Method: "b", Seed: s, Final: map[string]float64{"score": 0.5 + 0.02*f}})
	}
	return res
}

func TestFailedRoomCheckTurnsTheVerdict(t *testing.T) {
	res := roomResult()
	claim := res.Check("a beats b", "score(a) − score(b)", Positive, res.Diff("a", "score", "b", "score")).Needs("gap-small")
	if v := claim.Verdict(); v != Holds {
		t.Fatalf("before the room is applied: %q, want %q", v, Holds)
	}
	gap := func(s uint64) (float64, bool) { return res.Final("a", "gap", s) }
	for _, c := range []struct {
		threshold float64
		want      string
	}{{0.5, Holds}, {0.2, Untestable}} {
		room := []RoomCheck{res.CheckRoom("gap-small", Test{Op: Below, X: c.threshold}, "why", "no gap", gap)}
		judged, err := ApplyRoom([]Claim{claim}, room)
		if err != nil {
			t.Fatal(err)
		}
		if got := judged[0].Verdict(); got != c.want {
			t.Errorf("gap 0.33 against < %g: verdict %q, want %q", c.threshold, got, c.want)
		}
		if c.want == Untestable && !strings.Contains(judged[0].VerdictText(), "gap-small") {
			t.Errorf("verdict text %q does not name the failed check", judged[0].VerdictText())
		}
		if math.Abs(room[0].Value-0.33) > 1e-12 || len(room[0].PerSeed) != 5 {
			t.Errorf("room value %v over %d seeds, want the mean 0.33 over 5", room[0].Value, len(room[0].PerSeed))
		}
	}
	// A claim that names a check nobody defines is a programming error, not a pass.
	if _, err := ApplyRoom([]Claim{claim.Needs("nonexistent")}, nil); err == nil || !strings.Contains(err.Error(), "does not define") {
		t.Errorf("unknown room check: err %v", err)
	}
	// Missing data fails the check (not measured) and so makes the claim untestable.
	room := []RoomCheck{res.CheckRoom("gap-small", Test{Op: Below, X: 1}, "why", "no curve x", func(uint64) (float64, bool) { return 0, false })}
	if room[0].OK || !strings.Contains(room[0].ValueText(), "no curve x") {
		t.Errorf("missing data: ok %v, value %q", room[0].OK, room[0].ValueText())
	}
	judged, _ := ApplyRoom([]Claim{claim}, room)
	if judged[0].Verdict() != Untestable {
		t.Errorf("a claim needing an unmeasured check reads %q", judged[0].Verdict())
	}
}

func TestJudgedJSONHasTheIssueFields(t *testing.T) {
	res := roomResult()
	c := res.Check("a beats b", "m", Positive, res.Diff("a", "score", "b", "score")).Needs("r")
	room := []RoomCheck{Room("r", 0.4, Test{Op: Above, X: 0.5}, "needs room"), RoomMissing("s", Positive, "w", "no data")}
	claims, err := ApplyRoom([]Claim{c}, room)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(Judged{Experiment: "roomtest", Room: room, Claims: claims})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Experiment string
		Room       []map[string]any
		Claims     []map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "value", "threshold", "ok", "why"} {
		if _, ok := got.Room[0][k]; !ok {
			t.Errorf("room check JSON lacks %q: %s", k, b)
		}
	}
	if got.Room[1]["value"] != nil {
		t.Errorf("an unmeasured value must be null, got %v", got.Room[1]["value"])
	}
	for _, k := range []string{"claim", "measure", "mean", "ci95", "n", "verdict", "room"} {
		if _, ok := got.Claims[0][k]; !ok {
			t.Errorf("claim JSON lacks %q: %s", k, b)
		}
	}
	if got.Claims[0]["verdict"] != Untestable {
		t.Errorf("verdict %v, want %q", got.Claims[0]["verdict"], Untestable)
	}
	// The room list survives metrics.json (UnmarshalJSON reads what MarshalJSON writes).
	var back []RoomCheck
	rb, _ := json.Marshal(room)
	if err := json.Unmarshal(rb, &back); err != nil || back[0].Test != room[0].Test || back[0].Value != 0.4 || !math.IsNaN(back[1].Value) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestTailShare(t *testing.T) {
	line := Curve{}
	plateau := Curve{}
	falling := Curve{}
	for i := 0; i <= 100; i++ {
		x := float64(i)
		line.X, line.Y = append(line.X, x), append(line.Y, 2*x)
		plateau.X, plateau.Y = append(plateau.X, x), append(plateau.Y, 1-math.Exp(-x/10))
		falling.X, falling.Y = append(falling.X, x), append(falling.Y, 5-0.03*x)
	}
	if v := TailShare(line, 0.2); math.Abs(v-0.2) > 0.02 {
		t.Errorf("straight line: %v, want about 0.2", v)
	}
	if v := TailShare(plateau, 0.2); v < 0 || v > 0.01 {
		t.Errorf("plateau: %v, want about 0", v)
	}
	if v := TailShare(falling, 0.2); math.Abs(v-0.2) > 0.02 {
		t.Errorf("a falling error still falling: %v, want about 0.2", v)
	}
	if v := TailShare(Curve{X: []float64{1, 2}, Y: []float64{1, 2}}, 0.2); !math.IsNaN(v) {
		t.Errorf("two points: %v, want NaN", v)
	}
}

// TailChange: a line rising 1 per x unit over 10 points changes by 2 across its last 30 % (3
// points, x 8…10), a falling line by −2; a flat curve with noise gives its fitted noise,
// not noise divided by a change that never happened.
func TestTailChange(t *testing.T) {
	var line, flat Curve
	for i := 1; i <= 10; i++ {
		line.X, line.Y = append(line.X, float64(i)), append(line.Y, float64(i))
		flat.X, flat.Y = append(flat.X, float64(i)), append(flat.Y, 0.6+0.01*float64(i%2))
	}
	if v := TailChange(line, 0.3); math.Abs(v-2) > 1e-12 {
		t.Fatalf("line: %v, want 2", v)
	}
	fall := Curve{X: line.X, Y: []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}}
	if v := TailChange(fall, 0.3); math.Abs(v+2) > 1e-12 {
		t.Fatalf("falling line: %v, want −2", v)
	}
	// Last 3 points 0.6, 0.61, 0.6 (x 8, 9, 10): slope 0, change 0.
	if v := TailChange(flat, 0.3); math.Abs(v) > 1e-12 {
		t.Fatalf("flat: %v", v)
	}
	if v := TailChange(Curve{X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}}, 0.2); !math.IsNaN(v) {
		t.Fatalf("3 points: %v, want NaN", v)
	}
	r := &Result{Seeds: []uint64{1}, Runs: []Run{{Method: "m", Seed: 1, Curves: map[string]Curve{"c": line}}}}
	if v, ok := r.TailChangeOf("m", "c", 0.2)(1); !ok || math.Abs(v-1) > 1e-12 { // last 2 points
		t.Fatalf("TailChangeOf: %v %v", v, ok)
	}
	if _, ok := r.TailChangeOf("m", "other", 0.2)(1); ok {
		t.Fatal("TailChangeOf of a missing curve is ok")
	}
}

// FallPerDoubling reads a power law's fall per doubling, 0 on a plateau, a negative value on a rise,
// and ignores everything before the last doubling.
func TestFallPerDoubling(t *testing.T) {
	var law, late, rise Curve
	for x := 1000.0; x <= 64000; x += 1000 {
		law.X, law.Y = append(law.X, x), append(law.Y, math.Pow(x, -1)) // halves per doubling
		y := 0.02
		if x < 32000 {
			y = 1 / x // falls steeply, then stops before the last doubling
		}
		late.X, late.Y = append(late.X, x), append(late.Y, y)
		rise.X, rise.Y = append(rise.X, x), append(rise.Y, x)
	}
	// Over the last doubling y = 1/x falls from 2/x_last to 1/x_last; its slope on log₂ x relative to
	// its mean there is about 0.7 (a half per doubling, fitted by a line, over a mean of 1.44/x_last).
	if v := FallPerDoubling(law); v < 0.6 || v > 0.8 {
		t.Errorf("1/x: %v, want about 0.7", v)
	}
	if v := FallPerDoubling(late); math.Abs(v) > 1e-12 {
		t.Errorf("plateau over the last doubling: %v, want 0", v)
	}
	if v := FallPerDoubling(rise); v >= 0 {
		t.Errorf("a rising curve: %v, want < 0", v)
	}
	if v := FallPerDoubling(Curve{X: []float64{1, 2, 4}, Y: []float64{3, 2, 1}}); !math.IsNaN(v) {
		t.Errorf("two points in the last doubling: %v, want NaN", v)
	}
}

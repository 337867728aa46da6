package foundation

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/agents/dt"
	gw "github.com/paperlab/paperlab/toolkit/agents/gridworld"
)

// oracle plays the expert's plan for the world an evaluation stream is in: it regenerates nothing,
// it replays the stream's actions in a copy of the world Evaluate made (matched by the first
// observation) — a policy that must reach every target.
type oracle struct{ worlds []*gw.World }

func (o oracle) ActionLogits(seqs []dt.Seq) ([][]float32, error) {
	out := make([][]float32, len(seqs))
	for i, s := range seqs {
		e := gw.Embodiment(s.Prefix[3] - 7)
		for _, w0 := range o.worlds {
			if !equal(w0.Obs(e), s.Obs[0]) {
				continue
			}
			w := w0.Clone()
			for _, a := range s.Actions {
				w.Step(e, a)
			}
			plan, ok := gw.Plan(w, e)
			if !ok || len(plan) == 0 {
				break
			}
			out[i] = make([]float32, gw.MaxActions)
			out[i][plan[0]] = 1
		}
		if out[i] == nil {
			out[i] = make([]float32, gw.MaxActions)
		}
	}
	return out, nil
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Evaluate with a policy that follows the expert succeeds everywhere; with a policy that never moves
// it fails everywhere; the trajectories record what was played.
func TestEvaluate(t *testing.T) {
	tasks := gw.HeldOut()
	es := []gw.Embodiment{gw.Walker, gw.Diagonal}
	cfg := EvalConfig{Episodes: 3, Seed: 100, Greedy: true, TargetRTG: 1}
	var worlds []*gw.World
	for k := 0; k < len(tasks)*len(es)*cfg.Episodes; k++ {
		task := tasks[k/(len(es)*cfg.Episodes)]
		w, err := gw.Generate(task, cfg.Seed+uint64(k))
		if err != nil {
			t.Fatal(err)
		}
		worlds = append(worlds, w)
	}
	s, trs, err := Evaluate(oracle{worlds}, tasks, es, cfg)
	if err != nil || s != 1 || len(trs) != 18 {
		t.Fatalf("oracle: success %v, %d trajectories (%v)", s, len(trs), err)
	}
	for _, tr := range trs {
		if !tr.Success || len(tr.Actions) != len(tr.Obs) || len(tr.Rewards) != len(tr.Actions) {
			t.Fatalf("trajectory %+v", tr)
		}
	}
	s, trs, err = Evaluate(stay{}, tasks, es, cfg)
	if err != nil || s != 0 || len(trs[0].Actions) != gw.Limit {
		t.Fatalf("no policy: success %v, %d steps (%v)", s, len(trs[0].Actions), err)
	}
}

// stay pushes into the north wall… or wherever action 0 leads; against a 2–18-step plan with a
// goal never directly north, it rarely succeeds — the test only needs it to fail on these seeds.
type stay struct{}

func (stay) ActionLogits(seqs []dt.Seq) ([][]float32, error) {
	out := make([][]float32, len(seqs))
	for i := range out {
		out[i] = make([]float32, gw.MaxActions)
		out[i][0] = 1
	}
	return out, nil
}

// Seqs: prefixes, returns-to-go, and prompts drawn from other successful trajectories of the same
// task and embodiment.
func TestSeqs(t *testing.T) {
	trs, err := gw.Collect(gw.TrainTasks()[:2], []gw.Embodiment{gw.Walker, gw.Diagonal}, 4, []float64{0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	seqs, err := Seqs(trs, 1, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seqs {
		task, _ := gw.ParseTask(trs[i].Task)
		p := Prefix(task, gw.Embodiment(trs[i].Embodiment))
		if len(s.Prefix) != 4 || s.Prefix[3] != p[3] || s.Prefix[2] != 4+gw.TaskParts(task)[2] {
			t.Fatalf("prefix %v for %s/%d", s.Prefix, trs[i].Task, trs[i].Embodiment)
		}
		best, err := BestReturn(task, trs[i].Seed, gw.Embodiment(trs[i].Embodiment))
		if err != nil {
			t.Fatal(err)
		}
		// Noiseless experts play a shortest plan: their normalised return-to-go is 1.
		if math.Abs(s.RTG[0]-trs[i].Return()/best) > 1e-12 || math.Abs(s.RTG[0]-1) > 1e-9 || s.Prompt == nil {
			t.Fatalf("sequence %d: rtg %v return %v best %v, prompt %v", i, s.RTG[0], trs[i].Return(), best, s.Prompt != nil)
		}
		if len(s.Prompt.Obs[0]) != len(s.Obs[0]) {
			t.Fatalf("sequence %d: prompt of another embodiment", i)
		}
	}
}

// prefixes records the colour tokens of the streams it is asked about and stays put.
type prefixes struct{ colours map[int]bool }

func (p prefixes) ActionLogits(seqs []dt.Seq) ([][]float32, error) {
	for _, s := range seqs {
		p.colours[s.Prefix[2]] = true
	}
	return stay{}.ActionLogits(seqs)
}

// The colour swap names another colour in the prefix and nothing else changes; EvaluateReference
// plays the worlds Evaluate plays, in its order; Tally counts endings and the goal the token named.
func TestColourSwapReferencesTally(t *testing.T) {
	task := gw.HeldOut()[0] // open/key/blue
	es := []gw.Embodiment{gw.Walker, gw.Diagonal}
	cfg := EvalConfig{Episodes: 4, Seed: 500, Greedy: true, TargetRTG: 1, ColourShift: 1}
	p := prefixes{colours: map[int]bool{}}
	_, played, err := Evaluate(p, []gw.Task{task}, es, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := 4 + gw.TaskParts(gw.Task{Layout: "open", Door: "key", Colour: "red"})[2]; len(p.colours) != 1 || !p.colours[want] {
		t.Fatalf("colour tokens %v, want only %d (blue shifted by one: red)", p.colours, want)
	}
	if ShiftColour(task, 2).Colour != "green" || ShiftColour(task, -1).Colour != "green" || ShiftColour(task, 3) != task {
		t.Fatal("ShiftColour")
	}
	for _, tr := range played {
		if tr.Task != task.String() || tr.Ending == "" {
			t.Fatalf("trajectory %s ending %q: the world's own task and its ending are recorded", tr.Task, tr.Ending)
		}
	}
	s, refs, err := EvaluateReference(gw.RefExpert, []gw.Task{task}, es, cfg)
	if err != nil || s != 1 || len(refs) != len(played) {
		t.Fatalf("expert reference: success %v, %d episodes (%v)", s, len(refs), err)
	}
	for i := range refs {
		if refs[i].Seed != played[i].Seed || refs[i].Embodiment != played[i].Embodiment {
			t.Fatalf("episode %d: reference world %d/e%d, evaluated world %d/e%d", i, refs[i].Seed, refs[i].Embodiment, played[i].Seed, played[i].Embodiment)
		}
	}
	o, err := Tally([]gw.Trajectory{
		{Task: "open/key/blue", Ending: gw.EndSuccess, Reached: "blue"},
		{Task: "open/key/blue", Ending: gw.EndWrongGoal, Reached: "red"},
		{Task: "open/key/blue", Ending: gw.EndWrongGoal, Reached: "green"},
		{Task: "open/key/blue", Ending: gw.EndTimeOut},
	}, 1)
	if err != nil || o != (Outcome{Episodes: 4, Success: 0.25, WrongGoal: 0.5, TimeOut: 0.25, TokenGoal: 0.25}) {
		t.Fatalf("tally %+v (%v)", o, err)
	}
	if _, err := Tally([]gw.Trajectory{{Task: "open/key/blue"}}, 0); err == nil {
		t.Fatal("a trajectory without an ending was tallied")
	}
}

// NoColour hides the colour in the prefix (and only there): the evaluated streams carry the
// NoColour token; PrefixNoColour keeps layout, door and embodiment.
func TestNoColourPrefix(t *testing.T) {
	task := gw.HeldOut()[1]
	p, q := Prefix(task, gw.Diagonal), PrefixNoColour(task, gw.Diagonal)
	if q[2] != NoColour || p[0] != q[0] || p[1] != q[1] || p[3] != q[3] || p[2] == NoColour || p[3] != Prefixes-1 || NoColour != PrefixesNoColour-1 {
		t.Fatalf("prefix %v, without colour %v", p, q)
	}
	rec := prefixes{colours: map[int]bool{}}
	if _, _, err := Evaluate(rec, []gw.Task{task}, []gw.Embodiment{gw.Walker}, EvalConfig{Episodes: 2, Seed: 3, Greedy: true, TargetRTG: 1, NoColour: true}); err != nil {
		t.Fatal(err)
	}
	if len(rec.colours) != 1 || !rec.colours[NoColour] {
		t.Fatalf("colour tokens %v, want only NoColour", rec.colours)
	}
	// An agent made without the NoColour token says so instead of reading another token.
	a, err := dt.New(DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, _, err := Evaluate(a, []gw.Task{task}, []gw.Embodiment{gw.Walker}, EvalConfig{Episodes: 1, Seed: 3, Greedy: true, TargetRTG: 1, NoColour: true}); err == nil || !strings.Contains(err.Error(), "prefix entry") {
		t.Fatalf("NoColour on an agent without the token: %v", err)
	}
}

// MaskColour replaces the colour token only in streams with a demonstration in context, in a copy
// of their prefix, at about the probability asked; streams without one draw nothing.
func TestMaskColour(t *testing.T) {
	task := gw.TrainTasks()[0]
	var seqs []dt.Seq
	prompt, shared := &dt.Seq{}, Prefix(task, gw.Walker) // one prefix slice: a change in place would show everywhere
	for i := 0; i < 400; i++ {
		s := dt.Seq{Prefix: shared}
		if i%2 == 0 {
			s.Prompt = prompt
		}
		seqs = append(seqs, s)
	}
	MaskColour(seqs, 0.5, rand.New(rand.NewPCG(1, 2)))
	masked := 0
	for i, s := range seqs {
		if s.Prefix[2] == NoColour {
			if s.Prompt == nil {
				t.Fatalf("stream %d without a prompt lost its colour", i)
			}
			masked++
		} else if s.Prefix[2] != Prefix(task, gw.Walker)[2] {
			t.Fatalf("stream %d: prefix %v", i, s.Prefix)
		}
	}
	if masked < 70 || masked > 130 { // 200 prompted streams at 0.5: 100 ± 3.5 sd
		t.Fatalf("%d of 200 prompted streams masked at probability 0.5", masked)
	}
	before := slices.Clone(seqs[1].Prefix)
	MaskColour(seqs[1:2], 1, rand.New(rand.NewPCG(1, 2)))
	if !slices.Equal(before, seqs[1].Prefix) {
		t.Fatal("a stream without a prompt was masked at probability 1")
	}
}

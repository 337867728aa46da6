package exp

import (
	"reflect"
	"strings"
	"testing"
)

// partsRun is an experiment with two named parts, each its own methods: part a runs method "a"
// on every seed, part b methods "b1" and "b2".
func partsRun(opt Options) (*Result, error) {
	res, err := NewResult("partsexp", opt, opt.SeedList(), knobCfg{A: 1})
	if err != nil {
		return nil, err
	}
	for _, part := range []struct {
		name    string
		methods []string
	}{{"a", []string{"a"}}, {"b", []string{"b1", "b2"}}} {
		if !opt.RunsPart(part.name) {
			continue
		}
		for _, m := range part.methods {
			for _, s := range res.Seeds {
				res.Runs = append(res.Runs, Run{Method: m, Seed: s, Final: map[string]float64{"x": float64(s) + float64(len(m))}})
			}
		}
		res.Timing[part.name] = 1
	}
	res.Started, res.Commit = "t", "c"
	return res, nil
}

func TestParts(t *testing.T) {
	e := Experiment{Name: "partsexp", Parts: []string{"a", "b"}, Run: partsRun, Config: func(Scale) any { return knobCfg{A: 1} },
		Figures: func(*Result, string) ([]string, error) { return nil, nil }}
	Register(e)
	if err := e.CheckPart("c"); err == nil || !strings.Contains(err.Error(), "parts: a, b") {
		t.Errorf("unknown part: %v", err)
	}
	if err := (Experiment{Name: "x"}).CheckPart("a"); err == nil {
		t.Error("a part of an experiment without parts was accepted")
	}
	whole, _ := partsRun(Options{Seeds: 3})
	a, _ := partsRun(Options{Seeds: 3, Part: "a"})
	b, _ := partsRun(Options{Seeds: 3, Part: "b"})
	if !reflect.DeepEqual(a.Parts, []string{"a"}) || len(a.Runs) != 3 || len(b.Runs) != 6 {
		t.Fatalf("part runs: %v %d %d", a.Parts, len(a.Runs), len(b.Runs))
	}
	whole.Summarize()
	m, err := Merge([]*Result{b, a}, []string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts != nil || !reflect.DeepEqual(m.Seeds, whole.Seeds) || !reflect.DeepEqual(m.Summary, whole.Summary) || len(m.Runs) != len(whole.Runs) {
		t.Errorf("merged parts: parts %v seeds %v, %d runs; want the whole run's", m.Parts, m.Seeds, len(m.Runs))
	}
	// Parts merge with seed shards of a part too: part a split over two shards.
	a1, _ := partsRun(Options{SeedSet: []uint64{1, 2}, Part: "a"})
	a2, _ := partsRun(Options{SeedSet: []uint64{3}, Part: "a"})
	if m, err := Merge([]*Result{a1, a2}, []string{"a1", "a2"}); err != nil || !reflect.DeepEqual(m.Parts, []string{"a"}) || len(m.Runs) != 3 {
		t.Errorf("shards of one part: %v, %v", m, err)
	}
	for _, c := range []struct {
		shards []*Result
		want   string
	}{
		{[]*Result{a, a1}, "part a seed 1 is in both"},
		{[]*Result{a, whole}, "mix a whole run with named parts"},
	} {
		if _, err := Merge(c.shards, []string{"x", "y"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("merge: %v, want %q", err, c.want)
		}
	}
	// A method in two parts' results for one seed is an error.
	bad, _ := partsRun(Options{Seeds: 1, Part: "b"})
	bad.Parts = []string{"c"}
	if _, err := Merge([]*Result{b, bad}, []string{"b", "c"}); err == nil || !strings.Contains(err.Error(), "method b1 seed 1 is in both") {
		t.Errorf("a method twice: %v", err)
	}
}

package plot

import (
	"errors"
	"strings"
	"testing"
)

// Outside a notebook a live figure prints one line per update; it records only its metrics, per run,
// and draws one panel per metric with one line per run.
func TestLive(t *testing.T) {
	l := NewLive("sort3", "step", "reward", "eval_accuracy")
	var out strings.Builder
	l.fig.Out, l.fig.Interval = &out, 0
	for s := 0; s < 5; s++ {
		if err := l.Add("grpo", float64(s), map[string]float64{"reward": 0.1 * float64(s), "kl": 1}); err != nil {
			t.Fatal(err)
		}
		if err := l.Add("capo", float64(s), map[string]float64{"reward": 0.05 * float64(s), "eval_accuracy": 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(out.String(), "sort3 grpo step 4: reward 0.400\n") || !strings.Contains(out.String(), "sort3 capo step 4: reward 0.200 eval_accuracy 0.500\n") {
		t.Fatalf("lines:\n%s", out.String())
	}
	if c := l.Curves("grpo"); len(c["reward"].X) != 5 || len(c["kl"].X) != 0 || len(c["eval_accuracy"].X) != 0 {
		t.Fatalf("grpo curves %v", c)
	}
	f, err := l.Figure()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 1 || len(f.Panels[0]) != 2 || len(f.Legend.Entries) != 2 {
		t.Fatalf("%d rows, %d panels, %d legend entries", len(f.Panels), len(f.Panels[0]), len(f.Legend.Entries))
	}
	if png, err := f.Render("png"); err != nil || len(png) < 1000 {
		t.Fatalf("render: %v (%d bytes)", err, len(png))
	}
	if _, err := NewLive("empty", "step").Figure(); err == nil {
		t.Fatal("a live figure without metrics drew")
	}
}

// Eval passes an evaluation's metrics through and draws them; a failed evaluation draws nothing.
func TestLiveEval(t *testing.T) {
	l := NewLive("sft", "step", "eval_accuracy")
	l.fig.Out = &strings.Builder{}
	calls := 0
	hook := l.Eval("sft", func(step int) (map[string]float64, error) {
		if calls++; step < 0 {
			return nil, errors.New("no")
		}
		return map[string]float64{"eval_accuracy": float64(step) / 10}, nil
	})
	for _, s := range []int{0, 10, -1} {
		m, err := hook(s)
		if (err != nil) != (s < 0) || (s >= 0 && m["eval_accuracy"] != float64(s)/10) {
			t.Fatalf("step %d: %v, %v", s, m, err)
		}
	}
	if c := l.Curves("sft")["eval_accuracy"]; calls != 3 || len(c.X) != 2 || c.X[1] != 10 || c.Y[1] != 1 {
		t.Fatalf("calls %d, curve %v", calls, c)
	}
}

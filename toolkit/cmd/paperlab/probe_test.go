package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/repo"
)

// Every committed policy (figures/<exp>/checkpoints/<method>) opens and is probed by the CLI from a
// fresh clone: probe.json has the documented shape and the figures are written.
func TestProbeEveryCommittedCheckpoint(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "figures", "*", "checkpoints", "*", "manifest.json"))
	exps := map[string]bool{}
	for _, mf := range dirs {
		dir := filepath.Dir(mf)
		exps[filepath.Base(filepath.Dir(filepath.Dir(dir)))] = true
		out := t.TempDir()
		var buf bytes.Buffer
		if err := probeCmd([]string{"-checkpoint", dir, "-n", "6", "-k", "3", "-boot", "20", "-out", out}, &buf); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		b, err := os.ReadFile(filepath.Join(out, "probe.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Checkpoint string
			Scores     []string
			Questions  []struct {
				Prompt, Answer, Gold, Subset string
				Correct                      *bool
				Confidence                   map[string]float64
			}
			Metrics map[string]map[string]any
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Questions) != 6 || len(rep.Scores) != 6 || rep.Questions[0].Correct == nil || rep.Questions[0].Subset == "" {
			t.Fatalf("%s: probe.json questions %+v", dir, rep.Questions)
		}
		for _, s := range rep.Scores {
			m := rep.Metrics[s]
			if _, ok := m["ece"]; !ok || m["by_subset"] == nil {
				t.Fatalf("%s: metrics of %s: %v", dir, s, m)
			}
		}
		if _, ok := rep.Questions[0].Confidence["rpc"]; !ok {
			t.Fatalf("%s: no rpc confidence", dir)
		}
		for _, f := range []string{"reliability_lpm.png", "precision_coverage.svg", "confidence_hist.png"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Fatal(err)
			}
		}
		if !strings.Contains(buf.String(), "answer_prob") {
			t.Fatalf("no table printed: %s", buf.String())
		}
	}
	for _, e := range []string{"lm", "capo", "spo"} {
		if !exps[e] {
			t.Errorf("no committed policy of experiment %s under figures/%s/checkpoints", e, e)
		}
	}
}

func TestProbeErrors(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-checkpoint", tmp}, tmp + " is not a checkpoint"},
		{[]string{}, "want -checkpoint DIR"},
		{[]string{"-checkpoint", "figures/capo/checkpoints/grpo", "-scores", "lpm,confidence"}, `unknown score "confidence"`},
		{[]string{"-checkpoint", "figures/capo/checkpoints/grpo", "-prompts", filepath.Join(tmp, "none.jsonl")}, "none.jsonl does not exist"},
		{[]string{"-checkpoint", "figures/capo/checkpoints/grpo", "-n", "100000"}, "n = 100000, but there are"},
	} {
		var buf bytes.Buffer
		if err := probeCmd(append(c.args, "-out", tmp), &buf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("probe %v: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

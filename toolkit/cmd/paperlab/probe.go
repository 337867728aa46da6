package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/probe"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// probeCmd is `paperlab probe`: the calibration of a saved policy on its held-out set or a prompts
// file, written as DIR/probe.json with its figures, and a table of every score on w.
func probeCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	def := probe.DefaultOptions()
	ckpt := fs.String("checkpoint", "", "folder of a saved LLM policy (a run's <out>/checkpoints/<method>)")
	k := fs.Int("k", def.K, "completions sampled per question")
	n := fs.Int("n", 0, "probe the first n questions (0: all)")
	temp := fs.Float64("temperature", def.Temperature, "sampling temperature (0: greedy); confidences are the model's probabilities at temperature 1")
	scores := fs.String("scores", strings.Join(probe.Scores, ","), "confidence scores, comma-separated")
	prompts := fs.String("prompts", "", `JSONL file of {"prompt": …, "answer": …} lines (default: the policy's own held-out set)`)
	bins := fs.Int("bins", 15, "equal-width bins of ECE, MCE and the reliability diagrams")
	boot := fs.Int("boot", 1000, "bootstrap resamples of the questions for the 95 % intervals (0: none)")
	seed := fs.Uint64("seed", 0, "sampling seed (0: the experiment's evaluation seed, so the held-out probe repeats its final evaluation)")
	maxNew := fs.Int("max-new", 0, "longest completion (0: the experiment's)")
	out := fs.String("out", "", "output folder (default: runs/probe/<experiment>-<method>-seed<seed>)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *ckpt == "" || fs.NArg() > 0 {
		return fmt.Errorf("probe: want -checkpoint DIR and flags only (got %q)", strings.Join(fs.Args(), " "))
	}
	opt := probe.Options{K: *k, N: *n, Temperature: *temp, Bins: *bins, Boot: *boot, Seed: *seed, MaxNew: *maxNew}
	if *boot == 0 {
		opt.Boot = -1
	}
	for _, s := range strings.Split(*scores, ",") {
		if s = strings.TrimSpace(s); s != "" {
			opt.Scores = append(opt.Scores, s)
		}
	}
	fmt.Fprintln(w, backend.Describe())
	pol, err := probe.Open(*ckpt)
	if err != nil {
		return err
	}
	defer pol.Close()
	var qs []probe.Question
	if *prompts != "" {
		if qs, err = pol.ReadQuestions(*prompts); err != nil {
			return err
		}
	}
	rep, err := probe.Run(pol, qs, opt)
	if err != nil {
		return err
	}
	if *prompts != "" {
		rep.Source = *prompts
	}
	if *out == "" {
		if *out, err = repo.Runs("probe", fmt.Sprintf("%s-%s-seed%d", pol.Prov.Experiment, pol.Prov.Method, pol.Prov.Seed)); err != nil {
			return fmt.Errorf("probe: no -out and %w", err)
		}
	}
	files, err := rep.Write(*out)
	if err != nil {
		return err
	}
	fmt.Fprint(w, rep.Text())
	fmt.Fprintf(w, "wrote %s and %d figure files (%.1fs)\n", repo.ShowPath(filepath.Join(*out, probe.File)), len(files)-1, rep.Seconds)
	return nil
}

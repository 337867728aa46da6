// Command paperlab runs PaperLab's experiments headless, the same functions the notebooks call.
//
// `paperlab help` lists its commands, each with its arguments and what it does, and
// `paperlab <command> -h` a command's flags with their defaults. Both come from the code: the list
// from the command table (commands), which the dispatcher (run) also runs from, the flags from each
// command's flag set.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	_ "github.com/paperlab/paperlab/toolkit/exp/all"
	"github.com/paperlab/paperlab/toolkit/exp/sweep"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// command is one row of paperlab's command table: the dispatcher runs it by name, usage prints it.
type command struct {
	name     string                    // the word after paperlab; anyExperiment stands for an experiment's name
	synopsis string                    // its arguments and flags, as usage prints them ([…] optional, a|b one of)
	about    string                    // what it does, one line
	run      func(args []string) error // runs it on the arguments after the name; nil for anyExperiment
}

// anyExperiment is the table's name for `paperlab <experiment> …`: a name that is none of the other
// commands is run as an experiment (runExperiment).
const anyExperiment = "<experiment>"

// helpAliases are other names of the help command.
var helpAliases = []string{"-h", "--help"}

// commands is paperlab's command table, in the order usage prints it. Each synopsis names every flag
// of its command (a test checks them against the flag sets).
func commands() []command {
	return []command{
		{"list", "",
			"list the experiments: name, description, seeds at smoke and default scale", listCmd},
		{anyExperiment, "[-scale smoke|default] [-seeds N|A-B|a,b] [-out DIR] [-overwrite] [-save first|all|none] [-jobs N] [-atomic] [-part NAME] [-cache auto|none|DIR]",
			"train and evaluate one experiment: summary and claims here; metrics.json, figures in -out", nil},
		{"all", "[-scale smoke|default] [-seeds N|A-B|a,b] [-overwrite] [-save first|all|none] [-jobs N] [-atomic] [-cache auto|none|DIR]",
			"run every experiment in turn, each into its default folder", runAll},
		{"merge", "-out DIR [-commits REV,REV…] SHARD…",
			"merge shard or part runs of one experiment: one metrics.json, its summary, claims, figures", mergeCmd},
		{"sweep", "<experiment> -out DIR [-seeds N|A-B|a,b] [-scale smoke|default] [-shard-size 1] [-runner local|slurm] [-jobs N | -devices 0,1,…] [-retries 2] [-save none|first|all] [-progress 30s] [-poll 10s] [-partition P] [-time T] [-mem M] [-gpus G] [-cpus C] [-submit=false]",
			"the seeds as shards (child processes or a Slurm job array) merged into DIR; a rerun resumes", sweepCmd},
		{"compare", "[-strict] A B",
			"two results of one experiment side by side: means, Welch 95 % interval of the difference",
			func(args []string) error { return compareCmd(args, os.Stdout) }},
		{"redraw", "[-in DIR] [-out DIR] <experiment>…|all",
			"draw the figures again from a stored metrics.json (default figures/<name>; no training)", redraw},
		{"claims", "[-in DIR] [-json] <experiment>",
			"room checks and the paper's claims checked on a stored result (default figures/<name>)",
			func(args []string) error { return claims(args, os.Stdout) }},
		{"verdicts", "[-json] [-readme]",
			"our verdict on each headline claim from the committed results (-readme: README.md's table)",
			func(args []string) error { return verdicts(args, os.Stdout) }},
		{"settings", "[-json] [-scale smoke|default] [-all=false] <experiment> | -readme",
			"every configuration field: ours, the paper's or the authors' code's, source, differs, why",
			func(args []string) error { return settings(args, os.Stdout) }},
		{"probe", "-checkpoint DIR [-k 16] [-n N] [-temperature 1] [-scores lpm,rpc,…] [-prompts FILE.jsonl] [-bins 15] [-boot 1000] [-seed S] [-max-new N] [-out DIR]",
			"calibration of a saved policy: k samples per question, each confidence score measured",
			func(args []string) error { return probeCmd(args, os.Stdout) }},
		{"trace", "overcooked:<layout>|lbf:<task> [-seed S] [-steps N] [-actions FILE] [-grid FILE] [-state FILE]",
			"one JSON line per step of an Overcooked (-grid) or Level-Based Foraging (-state) episode",
			func(args []string) error { return trace(args, os.Stdout) }},
		{"data", "arith [-n N] [-seed S] [-out FILE]",
			"generate the arithmetic problems (default datasets/arith/sample.jsonl)", data},
		{"engine", "",
			"print the compute engine that would run", engineCmd},
		{"-reference", "<command> …",
			"run a command on the reference engine (pure Go, no SIMD: the same bits on every x86-64)", reexecReference},
		{"help", "",
			"print this list (also -h, --help)", helpCmd},
		{"worker", "<experiment> JOB",
			"internal: one training job of a run whose experiment trains in worker processes", workerCmd},
	}
}

// usage prints the command table: each command with its synopsis, then what it does.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: paperlab <command> [arguments]   (paperlab <command> -h: its flags with their defaults)")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprint(w, synopsisLines(c, 100))
		fmt.Fprintf(w, "      %s\n", c.about)
	}
}

// synopsisLines is "  paperlab NAME SYNOPSIS\n", wrapped before width characters at the spaces
// outside brackets, continuation lines indented under the synopsis.
func synopsisLines(c command, width int) string {
	line := "  paperlab " + c.name
	indent := strings.Repeat(" ", len(line))
	var b strings.Builder
	for _, g := range synopsisGroups(c.synopsis) {
		if n := utf8.RuneCountInString(line + " " + g); n > width && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
			line = indent
		}
		line += " " + g
	}
	b.WriteString(line + "\n")
	return b.String()
}

// synopsisGroups splits a synopsis at its spaces outside brackets: "[-out DIR] A" is "[-out DIR]", "A".
func synopsisGroups(s string) []string {
	var groups []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == ' ' && depth == 0:
			if i > start {
				groups = append(groups, s[start:i])
			}
			start = i + 1
		}
	}
	if start < len(s) {
		groups = append(groups, s[start:])
	}
	return groups
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "paperlab:", err)
		os.Exit(1)
	}
}

// run dispatches `paperlab args…`: the command of the table named args[0], else the experiment of
// that name.
func run(args []string) error {
	if len(args) == 0 {
		usage(os.Stderr)
		return fmt.Errorf("no command given")
	}
	name, rest := args[0], args[1:]
	if c, ok := lookupCommand(name); ok {
		return c.run(rest)
	}
	return runExperiment(name, rest)
}

// lookupCommand is the command of the table called name (or one of its aliases), not anyExperiment.
func lookupCommand(name string) (command, bool) {
	if slices.Contains(helpAliases, name) {
		name = "help"
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c, true
		}
	}
	return command{}, false
}

func helpCmd([]string) error {
	usage(os.Stderr)
	return nil
}

func listCmd([]string) error {
	for _, e := range exp.List() {
		fmt.Printf("%-10s %s (seeds: smoke %d, default %d)\n", e.Name, e.Description, e.Seeds[exp.Smoke], e.Seeds[exp.Default])
	}
	return nil
}

func engineCmd([]string) error {
	fmt.Println(backend.Describe())
	return nil
}

// runExperiment is `paperlab <experiment> [flags]`: one run of the experiment (runOne).
func runExperiment(name string, args []string) error {
	e, err := exp.Lookup(name)
	if err != nil {
		usage(os.Stderr)
		return err
	}
	fs, f := runFlags(name)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", name, strings.Join(fs.Args(), " "))
	}
	return runOne(e, f, workerProcesses)
}

// runAll is `paperlab all [flags]`: every experiment in turn, each into its default folder.
func runAll(args []string) error {
	fs, f := runFlags("all")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *f.out != "" {
		return fmt.Errorf("all: -out takes one experiment")
	}
	for _, e := range exp.List() {
		if err := runOne(e, f, workerProcesses); err != nil {
			return err
		}
	}
	return nil
}

// mergeCmd is `paperlab merge -out DIR SHARD…`: shard or part runs of one experiment merged into one
// result, whose summary and claims it prints.
func mergeCmd(args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("out", "", "directory for the merged metrics.json and figures; the shards' artefact folders (checkpoints/, pairs/…) are moved into it")
	commits := fs.String("commits", "", "comma-separated full revisions: shards recorded at any of them merge although their commits differ (you vouch that the code that ran is the same); the result notes each shard's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("merge: give -out DIR and at least one shard directory")
	}
	var opt exp.MergeOptions
	if *commits != "" {
		opt.Commits = strings.Split(*commits, ",")
	}
	res, err := exp.MergeDirsWith(fs.Args(), *out, os.Stderr, opt)
	if err != nil {
		return err
	}
	e, err := exp.Lookup(res.Experiment)
	if err != nil {
		return err
	}
	printSummary(res)
	printClaims(res, e)
	return nil
}

// workerCmd is `paperlab worker <experiment> JOB`, internal: one training job of a run whose
// experiment trains in worker processes (exp.Options.Workers), started by that run.
func workerCmd(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("worker: want an experiment and a job file")
	}
	e, err := exp.Lookup(args[0])
	if err != nil {
		return err
	}
	if e.Worker == nil {
		return fmt.Errorf("worker: experiment %s trains in one process", e.Name)
	}
	return e.Worker(args[1])
}

// claims prints the room checks and the paper's claims checked on a stored result (figures/<name>
// or -in DIR); -json prints them as {"experiment", "room": […], "claims": […]}.
func claims(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	in := fs.String("in", "", "folder holding metrics.json (default: figures/<experiment>)")
	asJSON := fs.Bool("json", false, "print the room checks and claims as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("claims: name one experiment")
	}
	e, err := exp.Lookup(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	dir := *in
	if dir == "" {
		if dir, err = exp.OutDir(e.Name, exp.Default); err != nil {
			return err
		}
	}
	res, err := exp.Load(dir)
	if err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	if res.Experiment != e.Name {
		return fmt.Errorf("claims: %s holds experiment %q, not %q", filepath.Join(dir, exp.MetricsFile), res.Experiment, e.Name)
	}
	if *asJSON {
		j, err := exp.Judge(e, res)
		if err != nil {
			return err
		}
		b, err := json.MarshalIndent(j, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	return writeClaims(w, res, e)
}

// printClaims prints the room checks and the claims table (paired 95 % intervals) of a result.
func printClaims(res *exp.Result, e exp.Experiment) {
	if err := writeClaims(os.Stdout, res, e); err != nil {
		fmt.Fprintln(os.Stderr, "paperlab:", err)
	}
}

func writeClaims(w io.Writer, res *exp.Result, e exp.Experiment) error {
	j, err := exp.Judge(e, res)
	if err != nil {
		return err
	}
	return exp.WriteClaims(w, res, j)
}

// settings prints every field of an experiment's default configuration beside the paper's value
// (paperlab settings [-scale S] [-all=false] [-json] <experiment>).
func settings(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("settings", flag.ContinueOnError)
	scale := fs.String("scale", "default", "smoke or default")
	asJSON := fs.Bool("json", false, "print [{field, ours, paper, source, differs, why}] as JSON")
	all := fs.Bool("all", true, "list PaperLab's own choices too, not only fields with a paper value")
	readme := fs.Bool("readme", false, "rewrite README.md's \"deviations from the paper\" block from every experiment's settings")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *readme {
		return updateReadme(w)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("settings: name one experiment")
	}
	e, err := exp.Lookup(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	sc, err := exp.ParseScale(*scale)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	rows, err := exp.Settings(e, sc)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	dev, err := exp.Deviations(e)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "settings of %s at %s scale against the paper (source: paper | code | note = a secondary note | ours)\ndeviations at default scale: %s\n", e.Name, sc, dev)
	if e.Doc != "" {
		fmt.Fprintf(w, "sources ([KEY] in each ref): %s#sources\n", e.Doc)
	}
	fmt.Fprint(w, nb.TableText(exp.SettingsTable(rows, *all)))
	if len(e.Sweeps) > 0 {
		fmt.Fprintln(w, "sweeps (the settings each method family was run at):")
		fmt.Fprint(w, nb.TableText(exp.SweepTable(e.Sweeps)))
	}
	return nil
}

// verdicts prints the verdict table of the headline claims on the committed results.
func verdicts(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("verdicts", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	readme := fs.Bool("readme", false, "rewrite README.md's verdict table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("verdicts: unexpected arguments %q", strings.Join(fs.Args(), " "))
	}
	results, err := exp.CommittedResults()
	if err != nil {
		return fmt.Errorf("verdicts: %w", err)
	}
	rows, err := exp.Verdicts(results)
	if err != nil {
		return fmt.Errorf("verdicts: %w", err)
	}
	switch {
	case *asJSON:
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	case *readme:
		n, err := exp.CountClaims(results)
		if err != nil {
			return err
		}
		return rewriteReadme(w, "verdict table", func(s string) (string, error) {
			return exp.ReplaceBlock(s, exp.VerdictsBegin, exp.VerdictsEnd, exp.VerdictsMarkdown(rows, n))
		})
	}
	_, err = fmt.Fprint(w, nb.TableText(exp.VerdictTable(rows, " · ")))
	return err
}

// rewriteReadme rewrites a generated block of the checkout's README.md (replace returns the new text).
func rewriteReadme(w io.Writer, what string, replace func(string) (string, error)) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	path := filepath.Join(root, "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s, err := replace(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := fsx.WriteFile(path, []byte(s)); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote the %s of %s\n", what, repo.ShowPath(path))
	return nil
}

// updateReadme rewrites the deviations block of the checkout's README.md (exp.DeviationsMarkdown).
func updateReadme(w io.Writer) error {
	block, err := exp.DeviationsMarkdown()
	if err != nil {
		return err
	}
	return rewriteReadme(w, "deviations block", func(s string) (string, error) { return exp.ReplaceDeviations(s, block) })
}

func redraw(args []string) error {
	fs := flag.NewFlagSet("redraw", flag.ContinueOnError)
	in := fs.String("in", "", "folder holding metrics.json (default: figures/<experiment>; one experiment only)")
	out := fs.String("out", "", "folder for the figures (default: the -in folder, whose metrics.json then gets the new summary)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	names := fs.Args()
	if len(names) == 1 && names[0] == "all" {
		names = nil
		for _, e := range exp.List() {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("redraw: name an experiment (or all)")
	}
	if (*in != "" || *out != "") && len(names) > 1 {
		return fmt.Errorf("redraw: -in and -out take one experiment")
	}
	all := len(fs.Args()) == 1 && fs.Arg(0) == "all"
	for _, name := range names {
		dir := *in
		if dir == "" {
			var err error
			if dir, err = exp.OutDir(name, exp.Default); err != nil {
				return err
			}
		}
		if _, err := os.Stat(filepath.Join(dir, exp.MetricsFile)); err != nil && all {
			fmt.Printf("%s: no stored result in %s, skipped\n", name, repo.ShowPath(dir))
			continue
		}
		res, err := exp.Redraw(name, dir, *out, os.Stderr)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %d figure files drawn from %s\n", name, len(res.Figures), repo.ShowPath(filepath.Join(dir, exp.MetricsFile)))
	}
	return nil
}

// runFlagSet holds the flags of an experiment run.
type runFlagSet struct {
	scale     *string
	seeds     *string
	out       *string
	overwrite *bool
	save      *string
	jobs      *int
	atomic    *bool
	cache     *string
	part      *string
}

func runFlags(name string) (*flag.FlagSet, runFlagSet) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	return fs, runFlagSet{
		scale: fs.String("scale", string(exp.Default), "smoke or default"),
		seeds: fs.String("seeds", "0", "seeds: N (1..N; 0 the experiment's default for the scale), A-B or a,b,c (a shard of a sweep; see merge)"),
		out: fs.String("out", "", "output directory (default: figures/<experiment> at default scale — or runs/<experiment>/… when "+
			"the seeds or configuration differ from the committed metrics.json — and a temp folder at smoke scale)"),
		overwrite: fs.Bool("overwrite", false, "write into figures/<experiment> even when the committed metrics.json was made with other seeds or configuration"),
		save:      fs.String("save", exp.SaveFirst, "trained LLM policies saved under <out>/checkpoints: first (seed 1 of every method), all (every seed) or none"),
		jobs: fs.Int("jobs", 0, "run the seeds as this many child processes at once (a local sweep of one-seed shards, merged into -out; "+
			"results equal the serial run's; see BENCHMARKS.md for when it is faster) or, for an experiment that trains in worker processes, "+
			"its trainings in this many worker processes (1: in this process); 0: the experiment's default (shards: more than 1 only on ONNX Runtime "+
			"with two cores or more; an experiment with worker processes: its own number on ONNX Runtime at default scale)"),
		atomic: fs.Bool("atomic", false, "build -out in a hidden temporary folder and move it into place when the run is complete (sweep shards use it)"),
		part: fs.String("part", "", "run one named part of the experiment (its own methods and budget; a name it lacks is refused with the list of its parts) "+
			"into its own folder (default runs/<experiment>/part-<NAME>-…); paperlab merge -out DIR PART… merges parts into the whole result"),
		cache: fs.String("cache", "auto", "for an experiment that trains in worker processes: folder of finished trainings reused by a re-run "+
			"(a stopped run resumes, added methods train alone); auto: runs/<experiment>/jobs at default scale, none at smoke scale; none: keep nothing"),
	}
}

// runOne runs e with the flags f and prints its summary and claims. spawnWorkers lets an experiment
// that trains in worker processes start them when -jobs is not given (autoWorkers).
func runOne(e exp.Experiment, f runFlagSet, spawnWorkers bool) error {
	scale, err := exp.ParseScale(*f.scale)
	if err != nil {
		return err
	}
	n, set, err := exp.ParseSeeds(*f.seeds)
	if err != nil {
		return err
	}
	save, err := exp.ParseSave(*f.save)
	if err != nil {
		return err
	}
	if err := e.CheckPart(*f.part); err != nil {
		return err
	}
	opt := exp.Options{Scale: scale, Seeds: n, SeedSet: set, Out: *f.out, Overwrite: *f.overwrite, Save: save, Atomic: *f.atomic, Part: *f.part}
	if opt.Out == "" {
		out, scratch, err := exp.DefaultOut(e, opt)
		if err != nil {
			return err
		}
		if scratch {
			fmt.Fprintf(os.Stderr, "%s: seeds or configuration differ from the committed figures/%s/metrics.json: writing to %s (-overwrite to replace the committed results)\n",
				e.Name, e.Name, repo.ShowPath(out))
		}
		opt.Out = out
	}
	jobs := *f.jobs
	if e.Worker != nil { // the experiment trains through worker processes, not seed shards
		workers := jobs // -jobs N: N worker processes; -jobs 1: this process
		if jobs == 0 {
			workers = autoWorkers(e, opt.Scale, spawnWorkers)
		} else if jobs == 1 {
			workers = 0
		}
		if workers >= 1 {
			if opt.WorkerBin, err = childBinary(); err != nil {
				return err
			}
			opt.Workers = workers
			fmt.Fprintf(os.Stderr, "%s: trainings in up to %d worker process(es) at once (-jobs 1 trains in this process; the results are the same)\n", e.Name, workers)
		}
		if opt.Cache, err = cacheDir(e, opt.Scale, *f.cache); err != nil {
			return err
		}
		if opt.Cache != "" {
			fmt.Fprintf(os.Stderr, "%s: finished trainings kept in %s and reused by a re-run (-cache none: keep nothing)\n", e.Name, repo.ShowPath(opt.Cache))
		}
		jobs = 1
	}
	if jobs == 0 {
		if jobs = autoJobs(e, opt); jobs > 1 {
			fmt.Fprintf(os.Stderr, "%s: %d seeds as one-seed shards, %d processes at once (the experiment's default on this engine and machine; -jobs 1 runs them in one process)\n",
				e.Name, len(e.SeedsOf(opt)), jobs)
		}
	}
	var res *exp.Result
	if jobs > 1 {
		res, err = parallelSeeds(e, opt, jobs)
	} else {
		res, err = exp.Execute(e, opt)
	}
	if err != nil {
		return err
	}
	printSummary(res)
	printClaims(res, e)
	return nil
}

// autoJobs is how many one-seed shards a run of e starts at once when -jobs is not given: e.Jobs
// when there is more than one seed to run, the machine has more than one core and the engine keeps
// one process on one core (ONNX Runtime); otherwise 1. e.Jobs may exceed the cores: three shards
// on two cores keep both busy to the end of five seeds, where two would leave the fifth alone on
// one core. The pure-Go engine spreads one process over every core already, and XLA on a GPU has
// one device to share (-devices gives each shard its own).
func autoJobs(e exp.Experiment, opt exp.Options) int {
	seeds := len(e.SeedsOf(opt))
	if e.Jobs < 2 || seeds < 2 || runtime.NumCPU() < 2 {
		return 1
	}
	if cfg, _ := backend.Choose(); !strings.HasPrefix(cfg, "onnx") {
		return 1
	}
	return min(e.Jobs, seeds)
}

// cacheDir is exp.Options.Cache for the -cache flag: "auto" is runs/<name>/jobs at default scale
// (nothing at smoke scale), "none" nothing, anything else that folder.
func cacheDir(e exp.Experiment, scale exp.Scale, flag string) (string, error) {
	switch flag {
	case "none", "":
		return "", nil
	case "auto":
		if scale == exp.Smoke {
			return "", nil
		}
		return repo.Runs(e.Name, "jobs")
	}
	return filepath.Abs(flag)
}

// workerProcesses is runOne's spawnWorkers for the commands a user types: true. The package's tests
// set it false, as their binary (os.Executable, what a run starts its workers with) serves as
// `paperlab worker` only where a test asks it to (TestMain).
var workerProcesses = true

// autoWorkers is how many worker processes an experiment with a Worker starts when -jobs is not
// given: e.Workers on ONNX Runtime (one graph at a time per process, so the run's evaluation goes on
// beside a worker's training, and a worker's CPU clock counts its training alone) with a core per
// worker, at default scale (a smoke run is seconds), when spawn allows it; else 0, this process.
func autoWorkers(e exp.Experiment, scale exp.Scale, spawn bool) int {
	if e.Workers < 1 || runtime.NumCPU() < e.Workers || scale == exp.Smoke || !spawn {
		return 0
	}
	if cfg, _ := backend.Choose(); !strings.HasPrefix(cfg, "onnx") {
		return 0
	}
	return e.Workers
}

// parallelSeeds runs opt's seeds as one-seed shards, jobs child processes at a time, in a hidden
// folder beside opt.Out that is removed once the shards are merged into opt.Out.
func parallelSeeds(e exp.Experiment, opt exp.Options, jobs int) (*exp.Result, error) {
	if opt.Out == "" {
		return nil, fmt.Errorf("%s: -jobs needs an output folder", e.Name)
	}
	seeds := e.SeedsOf(opt)
	if err := os.MkdirAll(filepath.Dir(opt.Out), 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Dir(opt.Out), "."+filepath.Base(opt.Out)+".shards-*")
	if err != nil {
		return nil, err
	}
	bin, err := childBinary()
	if err != nil {
		return nil, err
	}
	plan := sweep.Plan{Experiment: e.Name, Scale: opt.Scale, Seeds: seeds, ShardSize: 1, Out: opt.Out, Work: work, Save: opt.Save, Part: opt.Part}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	res, err := sweep.Local(ctx, plan, bin, sweep.Options{Jobs: jobs, Log: os.Stderr})
	if err != nil {
		return nil, fmt.Errorf("%w (shards and logs kept in %s)", err, work)
	}
	// timing.total is the shards' own times summed (what one process would take, about); "wall" is
	// how long the parallel run took.
	res.Timing["wall"] = time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "%s: wall time %.0f s for %.0f s of shard time (%d at once)\n", e.Name, res.Timing["wall"], res.Timing["total"], jobs)
	if err := res.Write(opt.Out); err != nil {
		return nil, err
	}
	return res, os.RemoveAll(work)
}

// printSummary prints each method's metrics as mean ± half-width of the 95 % interval over seeds.
func printSummary(res *exp.Result) {
	for _, m := range res.Methods() {
		var parts []string
		for _, k := range sortedKeys(res.Summary[m]) {
			s := res.Summary[m][k]
			if h := s.HalfWidth(); !math.IsNaN(h) {
				parts = append(parts, fmt.Sprintf("%s %.3f±%.3f", k, s.Mean, h))
			} else {
				parts = append(parts, fmt.Sprintf("%s %.3f", k, s.Mean))
			}
		}
		fmt.Printf("  %-14s %s\n", m, strings.Join(parts, "  "))
	}
	fmt.Printf("  total %.1fs\n", res.Timing["total"])
}

func sortedKeys[V any](m map[string]V) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	for i := 1; i < len(k); i++ {
		for j := i; j > 0 && k[j] < k[j-1]; j-- {
			k[j], k[j-1] = k[j-1], k[j]
		}
	}
	return k
}

func data(args []string) error {
	if len(args) == 0 || args[0] != "arith" {
		return fmt.Errorf("data: want `data arith` (the only generator so far)")
	}
	fs := flag.NewFlagSet("data arith", flag.ContinueOnError)
	n := fs.Int("n", arith.SampleSize, "number of problems")
	seed := fs.Uint64("seed", arith.SampleSeed, "generator seed")
	out := fs.String("out", "", "output JSONL file (default: datasets/arith/sample.jsonl in the checkout)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" {
		root, err := repo.Root()
		if err != nil {
			return err
		}
		*out = filepath.Join(root, "datasets", "arith", "sample.jsonl")
	}
	ps, err := arith.Generate(arith.Default(), *seed, *n, 0)
	if err != nil {
		return err
	}
	if err := arith.WriteJSONL(*out, ps); err != nil {
		return err
	}
	fmt.Printf("wrote %d problems (seed %d) to %s\n", len(ps), *seed, *out)
	return nil
}

// childBinary is this binary, to start shards or workers with: they inherit this process's Commit
// ($PAPERLAB_COMMIT, exp.PassCommit), so every one records the revision the run started from.
func childBinary() (string, error) {
	if err := exp.PassCommit(); err != nil {
		return "", err
	}
	return os.Executable()
}

// reexecReference runs `paperlab args…` again on the reference engine: the same executable with
// GOMLX_BACKEND=reference and the SIMD kernels switched off in its environment (they are read when a
// process starts, so this process cannot switch them itself).
func reexecReference(args []string) error {
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	env := append(os.Environ(), backend.EnvBackend+"="+backend.ReferenceConfig)
	env = append(env, backend.ReferenceEnv...)
	return syscall.Exec(bin, append([]string{bin}, args...), env)
}

// compareCmd is `paperlab compare [-strict] A B`: two results of one experiment side by side.
func compareCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	strict := fs.Bool("strict", false, "exit with an error when any metric differs (its Welch interval excludes 0)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("compare: give two results (metrics.json files or the folders holding them): paperlab compare A B")
	}
	a, err := exp.LoadAny(fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := exp.LoadAny(fs.Arg(1))
	if err != nil {
		return err
	}
	c, err := exp.Compare(a, b)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: A = %s (%d seeds), B = %s (%d seeds)\n", c.Experiment, fs.Arg(0), len(a.Seeds), fs.Arg(1), len(b.Seeds))
	exp.ShowComparison(a, b, "A", "B", w)
	if n := c.Disagreements(); *strict && n > 0 {
		return fmt.Errorf("compare: %d metrics differ (-strict)", n)
	}
	return nil
}

// sweepCmd is `paperlab sweep`: shards of an experiment's seeds run locally or as a Slurm array.
func sweepCmd(args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("sweep: name the experiment first: paperlab sweep <experiment> -out DIR …")
	}
	name := args[0]
	e, err := exp.Lookup(name)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	out := fs.String("out", "", "sweep directory: shards in DIR/shard-NNNN, logs in DIR/logs, the merged result in DIR")
	seeds := fs.String("seeds", "0", "seeds: N (1..N; 0 the experiment's default), A-B or a,b,c")
	scale := fs.String("scale", string(exp.Default), "smoke or default")
	size := fs.Int("shard-size", 1, "seeds per shard")
	runner := fs.String("runner", "local", "local (child processes on this machine) or slurm (an sbatch job array)")
	jobs := fs.Int("jobs", max(1, runtime.NumCPU()/2), "local: shards at a time (default one per two cores)")
	devices := fs.String("devices", "", "local: GPU ids, e.g. 0,1,2,3 — one shard per GPU at a time, each child with its own CUDA_VISIBLE_DEVICES (overrides -jobs)")
	retries := fs.Int("retries", 2, "extra tries of a failed shard (local) or array task (slurm)")
	save := fs.String("save", exp.SaveNone, "trained LLM policies kept (moved into DIR/checkpoints when merged): none, first or all")
	progress := fs.Duration("progress", 30*time.Second, "how often a line shows the running shards' latest progress")
	poll := fs.Duration("poll", 10*time.Second, "slurm: how often squeue is asked for the array's state")
	partition := fs.String("partition", "", "slurm: --partition")
	tlimit := fs.String("time", "", "slurm: --time")
	mem := fs.String("mem", "", "slurm: --mem")
	gpus := fs.Int("gpus", 0, "slurm: --gpus")
	cpus := fs.Int("cpus", 2, "slurm: --cpus-per-task")
	submit := fs.Bool("submit", true, "slurm: submit the array, follow it (squeue; failed tasks resubmitted) and merge; -submit=false only writes the script")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("sweep: -out DIR is required")
	}
	sc, err := exp.ParseScale(*scale)
	if err != nil {
		return err
	}
	n, set, err := exp.ParseSeeds(*seeds)
	if err != nil {
		return err
	}
	set = e.SeedsOf(exp.Options{Scale: sc, Seeds: n, SeedSet: set})
	bin, err := childBinary()
	if err != nil {
		return err
	}
	if *out, err = filepath.Abs(*out); err != nil { // Slurm tasks may start elsewhere
		return err
	}
	plan := sweep.Plan{Experiment: name, Scale: sc, Seeds: set, ShardSize: *size, Out: *out, Save: *save}
	opts := sweep.Options{Jobs: *jobs, Retries: *retries, Progress: *progress, Poll: *poll, Log: os.Stderr}
	if *devices != "" {
		opts.Devices = strings.Split(*devices, ",")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var res *exp.Result
	switch *runner {
	case "local":
		if res, err = sweep.Local(ctx, plan, bin, opts); err != nil {
			return err
		}
	case "slurm":
		script, err := sweep.SlurmScript(plan, bin, sweep.SlurmOptions{Partition: *partition, Time: *tlimit, Mem: *mem, GPUs: *gpus, CPUs: *cpus})
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(*out, "logs"), 0o755); err != nil {
			return err
		}
		path := filepath.Join(*out, "sweep.sbatch")
		if err := fsx.WriteFile(path, []byte(script)); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", path)
		if !*submit {
			fmt.Printf("submit with: sbatch %s\nthen merge with: %s\n(or run this command again without -submit=false: it submits, follows and merges)\n",
				path, sweep.MergeCommand(plan, bin))
			return nil
		}
		if res, err = sweep.Follow(ctx, plan, sweep.Slurm{}, path, opts); err != nil {
			return err
		}
	default:
		return fmt.Errorf("sweep: -runner %q, want local or slurm", *runner)
	}
	printSummary(res)
	printClaims(res, e)
	return nil
}

package exp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paperlab/paperlab/toolkit/repo"
)

// ParseSeeds reads a -seeds value: "N" (seeds 1..N; 0 the experiment's default), "A-B" (seeds A to
// B, a shard) or "a,b,c". It returns the count for "N" and the explicit set otherwise.
func ParseSeeds(s string) (n int, set []uint64, err error) {
	s = strings.TrimSpace(s)
	bad := func(why string) error {
		return fmt.Errorf("-seeds %q: %s (want N, A-B or a,b,c with seeds ≥ 1)", s, why)
	}
	if s == "" {
		return 0, nil, nil
	}
	if v, err := strconv.Atoi(s); err == nil {
		if v < 0 {
			return 0, nil, bad("negative")
		}
		return v, nil, nil
	}
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, err1 := strconv.ParseUint(a, 10, 64)
		hi, err2 := strconv.ParseUint(b, 10, 64)
		if err1 != nil || err2 != nil || lo < 1 || hi < lo {
			return 0, nil, bad("not a range")
		}
		for x := lo; x <= hi; x++ {
			set = append(set, x)
		}
		return len(set), set, nil
	}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil || v < 1 {
			return 0, nil, bad(fmt.Sprintf("%q is not a seed", f))
		}
		if slices.Contains(set, v) {
			return 0, nil, bad(fmt.Sprintf("seed %d twice", v))
		}
		set = append(set, v)
	}
	return len(set), set, nil
}

// Merge combines shard results (each a run of some seeds of one experiment, with names for the
// errors) into one result: the runs in seed order (within a seed, in the order the shard recorded
// them), the timings summed, the notes kept once each, the summary recomputed — the runs, summary
// and claims of a one-process run of the same seeds. Shards of different experiments, scales,
// configurations, commits or engines, with a seed twice, or with tables or extra data (which are
// not per seed and cannot be merged) are errors naming the shards.
//
// Shards that hold named parts (Result.Parts, from runs with Options.Part) merge as parts: two
// shards of different parts may hold the same seeds, a part in two shards may not share a seed,
// and a method of one seed in two shards is an error. The merged result holds the union of the
// parts (nil when that is every part of the experiment).
func Merge(shards []*Result, names []string) (*Result, error) {
	return MergeWith(shards, names, MergeOptions{})
}

// MergeOptions relax Merge's checks where the person merging vouches for it.
type MergeOptions struct {
	// Commits: shards recorded at any of these revisions (full hashes) merge although their commits
	// differ — for a run whose shards recorded different revisions of the same code (a binary
	// built at one revision, run from a checkout at another whose changes the run does not
	// read). The merged result keeps the first shard's commit and a note naming each shard's.
	Commits []string
}

// MergeWith is Merge with opt's relaxations.
func MergeWith(shards []*Result, names []string, opt MergeOptions) (*Result, error) {
	if len(shards) == 0 || len(names) != len(shards) {
		return nil, fmt.Errorf("merge: %d shards with %d names", len(shards), len(names))
	}
	first := shards[0]
	owner := map[string]string{} // part and seed → the shard that holds them
	var parts []string
	byPart := len(first.Parts) > 0
	out := &Result{Experiment: first.Experiment, Scale: first.Scale, Backend: first.Backend, CPU: first.CPU, Config: first.Config,
		Timing: map[string]float64{}, Started: first.Started, Commit: first.Commit}
	for i, s := range shards {
		differ := func(field, a, b string) error {
			return fmt.Errorf("merge: %s has %s %q, %s has %q", names[0], field, a, names[i], b)
		}
		switch {
		case s.Experiment != first.Experiment:
			return nil, differ("experiment", first.Experiment, s.Experiment)
		case s.Scale != first.Scale:
			return nil, differ("scale", string(first.Scale), string(s.Scale))
		case !bytes.Equal(s.Config, first.Config):
			return nil, fmt.Errorf("merge: %s and %s were run with different configurations", names[0], names[i])
		case s.Commit != first.Commit && !(slices.Contains(opt.Commits, s.Commit) && slices.Contains(opt.Commits, first.Commit)):
			return nil, differ("commit", first.Commit, s.Commit)
		case s.Backend != first.Backend:
			return nil, differ("engine", first.Backend, s.Backend)
		case len(s.Tables) > 0 || len(s.Extra) > 0:
			return nil, fmt.Errorf("merge: %s records tables or extra data of all its seeds together; experiment %s cannot be merged from shards", names[i], s.Experiment)
		}
		if (len(s.Parts) > 0) != byPart {
			return nil, fmt.Errorf("merge: %s and %s mix a whole run with named parts", names[0], names[i])
		}
		sp := s.Parts
		if !byPart {
			sp = []string{""}
		}
		for _, p := range sp {
			for _, seed := range s.Seeds {
				key := fmt.Sprintf("%s/%d", p, seed)
				if o, dup := owner[key]; dup {
					if p != "" {
						return nil, fmt.Errorf("merge: part %s seed %d is in both %s and %s", p, seed, o, names[i])
					}
					return nil, fmt.Errorf("merge: seed %d is in both %s and %s", seed, o, names[i])
				}
				owner[key] = names[i]
			}
			if p != "" && !slices.Contains(parts, p) {
				parts = append(parts, p)
			}
		}
		for _, seed := range s.Seeds {
			if !slices.Contains(out.Seeds, seed) {
				out.Seeds = append(out.Seeds, seed)
			}
		}
		if s.CPU != out.CPU && !strings.Contains(out.CPU, s.CPU) { // shards from several kinds of node: allowed, recorded
			out.CPU = "mixed: " + strings.TrimPrefix(out.CPU, "mixed: ") + "; " + s.CPU
		}
		for k, v := range s.Timing {
			out.Timing[k] += v
		}
		for _, n := range s.Notes {
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
		if s.Started < out.Started {
			out.Started = s.Started
		}
	}
	slices.Sort(out.Seeds)
	seen := map[string]string{}
	for _, seed := range out.Seeds {
		for i, s := range shards {
			for _, r := range s.Runs {
				if r.Seed != seed {
					continue
				}
				key := fmt.Sprintf("%s/%d", r.Method, r.Seed)
				if o, dup := seen[key]; dup && o != names[i] {
					return nil, fmt.Errorf("merge: method %s seed %d is in both %s and %s", r.Method, r.Seed, o, names[i])
				}
				seen[key] = names[i]
				out.Runs = append(out.Runs, r)
			}
		}
	}
	if byPart {
		out.Parts = parts
		if e, err := Lookup(out.Experiment); err == nil {
			ordered := []string{}
			for _, p := range e.Parts {
				if slices.Contains(parts, p) {
					ordered = append(ordered, p)
				}
			}
			out.Parts = ordered
			if len(ordered) == len(e.Parts) {
				out.Parts = nil
			}
		}
	}
	out.Summarize()
	return out, nil
}

// MergeDirs merges the shard directories' metrics.json into out (metrics.json and the figures,
// drawn again from the merged result) and moves the artefacts the shards' runs wrote into folders
// (MoveArtefacts: saved policies, per-seed pairs and traces) into out's.
func MergeDirs(dirs []string, out string, log io.Writer) (*Result, error) {
	return MergeDirsWith(dirs, out, log, MergeOptions{})
}

// MergeDirsWith is MergeDirs with opt's relaxations (MergeOptions).
func MergeDirsWith(dirs []string, out string, log io.Writer, opt MergeOptions) (*Result, error) {
	if log == nil {
		log = os.Stderr
	}
	var shards []*Result
	for _, d := range dirs {
		r, err := Load(d)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		shards = append(shards, r)
	}
	res, err := MergeWith(shards, dirs, opt)
	if err != nil {
		return nil, err
	}
	var byCommit []string
	for i, r := range shards {
		if t, ok := r.Timing["total"]; ok { // each shard's own seconds, beside their sum
			res.Timing["shard_total/"+filepath.Base(dirs[i])] = t
		}
		if r.Commit != res.Commit {
			byCommit = append(byCommit, fmt.Sprintf("%s at %s", filepath.Base(dirs[i]), r.Commit))
		}
	}
	if len(byCommit) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("merged from shards recorded at different commits, declared the same code by the person merging (paperlab merge -commits): the result's commit %s; %s",
			res.Commit, strings.Join(byCommit, ", ")))
	}
	e, err := Lookup(res.Experiment)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "merged %d shards of %s (seeds %v) into %s\n", len(dirs), res.Experiment, res.Seeds, repo.ShowPath(filepath.Join(out, MetricsFile)))
	if err := finish(e, res, Options{Scale: res.Scale, Seeds: len(res.Seeds), Out: out, Log: log}, true); err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(filepath.Clean(d), filepath.Clean(out)); err == nil && !strings.HasPrefix(rel, "..") {
			continue // out is the shard or lies inside it: nothing to move
		}
		if err := MoveArtefacts(d, out); err != nil {
			return nil, fmt.Errorf("merge: moving %s's artefacts: %w", d, err)
		}
	}
	return res, nil
}

// MoveArtefacts moves what a shard's run wrote into its folders (its saved policies under
// checkpoints/, spo's preference pairs under pairs/, cos's PRM traces under checkpoints/prm-traces…)
// into the same folders of out, entry by entry (a file, or a folder such as checkpoints/seed3 moved
// whole): each run names its per-seed artefacts by seed, so shards never collide, and an entry already in out (an earlier merge) is replaced. The shard's
// top-level files (metrics.json, figures) are not moved: the merge writes and draws them again.
func MoveArtefacts(shard, out string) error {
	dirs, err := os.ReadDir(shard)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(shard, d.Name()))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(out, d.Name()), 0o755); err != nil {
			return err
		}
		for _, e := range entries {
			from, to := filepath.Join(shard, d.Name(), e.Name()), filepath.Join(out, d.Name(), e.Name())
			if err := os.RemoveAll(to); err != nil {
				return err
			}
			if err := os.Rename(from, to); err != nil {
				return err
			}
		}
	}
	return nil
}

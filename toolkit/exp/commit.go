package exp

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/paperlab/paperlab/toolkit/repo"
)

// Commit is the source revision of this process: the VCS revision stamped into the binary (go
// build), else `git rev-parse HEAD` of the checkout (go run, go test and notebooks are not
// stamped), with "+dirty" when tracked files differ from it; "unknown" outside a git checkout.
// Checkpoints and metrics.json record it, so a result names the code that made it. A process started
// by another paperlab process (a shard, a worker: see PassCommit) takes its parent's from $PAPERLAB_COMMIT.
var Commit = sync.OnceValue(commit)

// EnvCommit is the variable through which a paperlab process passes its Commit to the processes it
// starts, so that every shard of a run records the revision the run started from — not one read
// again, at the shard's start, from a checkout edited since (which would stamp it "+dirty" and make
// merge refuse it).
const EnvCommit = "PAPERLAB_COMMIT"

// PassCommit sets $PAPERLAB_COMMIT to this process's Commit, for the processes it starts to inherit.
func PassCommit() error { return os.Setenv(EnvCommit, Commit()) }

func commit() string {
	if c := os.Getenv(EnvCommit); c != "" {
		return c
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "+dirty"
			}
			return rev
		}
	}
	root, err := repo.Root()
	if err != nil {
		return "unknown"
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "+dirty"
	}
	return rev
}

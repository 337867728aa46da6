package exp

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/paperlab/paperlab/toolkit/repo"
)

// Commit is the source revision of this process: the VCS revision stamped into the binary (go
// build), else `git rev-parse HEAD` of the checkout (go run, go test and notebooks are not
// stamped), with "+dirty" when tracked files differ from it; "unknown" outside a git checkout.
// Checkpoints and metrics.json record it, so a result names the code that made it.
var Commit = sync.OnceValue(func() string {
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
})

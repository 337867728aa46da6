package jobs

import (
	"context"
	"os"
	"os/exec"
)

// RunLogged runs bin with args as a child process, its output (stdout and stderr) in the file
// logPath (created or truncated); env, when set, is added to this process's environment. It is how
// a Runner starts a worker and how exp/sweep starts a shard.
func RunLogged(ctx context.Context, logPath string, env []string, bin string, args ...string) error {
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	return cmd.Run()
}

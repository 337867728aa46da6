package exp

import (
	"os"
	"testing"
)

// A process started with $PAPERLAB_COMMIT records that revision (its parent's) instead of reading the
// checkout again; without it the checkout's revision is read (a 40-hex-digit commit, maybe "+dirty").
func TestCommitFromParent(t *testing.T) {
	t.Setenv(EnvCommit, "")
	os.Unsetenv(EnvCommit)
	own := commit()
	if own != "unknown" && len(own) < 40 {
		t.Fatalf("own commit %q", own)
	}
	t.Setenv(EnvCommit, "0123456789abcdef0123456789abcdef01234567")
	if got := commit(); got != "0123456789abcdef0123456789abcdef01234567" {
		t.Fatalf("with $%s set: %q", EnvCommit, got)
	}
}

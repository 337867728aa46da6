package tour

import (
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp/exptest"
)

// Shards of tour merged equal a one-process run (see exptest.CheckMerge).
func TestMergeEqualsOneProcess(t *testing.T) { exptest.CheckMerge(t, "tour") }

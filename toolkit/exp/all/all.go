// Package all registers every PaperLab experiment; the CLI and `make reproduce` import it.
package all

import (
	_ "github.com/paperlab/paperlab/toolkit/exp/tinylm"
	_ "github.com/paperlab/paperlab/toolkit/exp/tour"
)

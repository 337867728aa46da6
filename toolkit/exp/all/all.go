// Package all registers every PaperLab experiment; the CLI and `make reproduce` import it.
package all

import (
	_ "github.com/paperlab/paperlab/toolkit/exp/agents"
	_ "github.com/paperlab/paperlab/toolkit/exp/capo"
	_ "github.com/paperlab/paperlab/toolkit/exp/cos"
	_ "github.com/paperlab/paperlab/toolkit/exp/e3t"
	_ "github.com/paperlab/paperlab/toolkit/exp/m3apg"
	_ "github.com/paperlab/paperlab/toolkit/exp/smax"
	_ "github.com/paperlab/paperlab/toolkit/exp/spo"
	_ "github.com/paperlab/paperlab/toolkit/exp/tape"
	_ "github.com/paperlab/paperlab/toolkit/exp/tinylm"
	_ "github.com/paperlab/paperlab/toolkit/exp/tour"
)

package agents

import "github.com/paperlab/paperlab/toolkit/exp"

// PaperSettings is empty on purpose: the foundation-agents paper (Liu, Lou, Jiao, Zhang, ICML 2024)
// is a position paper with no experiments and no code (shared/papers §5), so no source states a
// value for any field of Config. The numbers in §5.2 (~8 grid-world task types, 5–20
// demonstrations) are this project's plan for an illustrative demonstration, not the paper's
// settings, and are not recorded as such. Settings of a fuller protocol, should one be adopted,
// are issue 39.
var PaperSettings []exp.Setting

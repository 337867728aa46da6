package agents

import "github.com/paperlab/paperlab/toolkit/exp"

// PaperSettings is empty on purpose: the foundation-agents paper (Liu, Lou, Jiao, Zhang, ICML 2024;
// sources in README.md, section Sources) is a position paper with no experiments and no code, so no
// source states a value for any field of Config. The grid-world task types, the number of
// demonstrations (5–20) and every other value are PaperLab's design for an illustrative
// demonstration, not the paper's settings, and are not recorded as such. A fuller protocol that
// took values from a source would list them here, each citing a key of that README.
var PaperSettings []exp.Setting

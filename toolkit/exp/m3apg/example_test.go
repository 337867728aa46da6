package m3apg

import "fmt"

// The metrics of notebook 60's summary table: per team size the critic errors, the embedding's
// effect share and the return ("n<agents>/<metric>"), the hard game's where it runs, then the hard
// game at every budget ("b<k steps>k/<metric>").
func ExampleTableKeys() {
	c := Config{Agents: []int{2, 4}, HardAgents: []int{4}, Budgets: []int{20000}}
	keys := TableKeys(c)
	fmt.Println(len(keys), keys[0], keys[len(keys)-3], keys[len(keys)-1])
	// Output: 16 n2/critic_error_unseen n4/hard_critic_error_seen b20k/embed_effect_share
}

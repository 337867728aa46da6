package smax

import (
	"encoding/json"
	"fmt"

	"github.com/paperlab/paperlab/toolkit/exp"
)

// GateName is the room check the TAPE and M3APG claims on SMAX will need: MAPPO wins the gate's
// scenario.
func GateName(scenario string) string { return "MAPPO wins " + scenario + " (the gate)" }

// climbName is the check that a method's greedy win rate stopped climbing.
func climbName(method string) string { return method + " greedy win rate stopped climbing" }

// Room measures, on a stored result: the gate (MAPPO's final greedy win rate, the mean over seeds,
// at least GateWinRate) and, per method, that its greedy win rate has stopped climbing (the change
// across the last TailFrac of training of a least-squares line through its evaluations, per seed,
// at most MaxTailClimb on the upper end of the 95 % interval over seeds): a win rate still climbing
// when the budget ends says the budget, not the method, set the number.
func Room(res *exp.Result) []exp.RoomCheck {
	var cfg Config
	_ = json.Unmarshal(res.Config, &cfg)
	out := []exp.RoomCheck{res.CheckRoom(GateName(cfg.Scenario), exp.AtLeast(cfg.GateWinRate),
		fmt.Sprintf("TAPE and M3APG are compared on SMAX only where a plain MAPPO learns to win: its final greedy win rate against the heuristic enemy (%d battles per seed, "+
			"each from its own seed) on the mean over seeds must reach %g (fixed before any run).", cfg.FinalEpisodes, cfg.GateWinRate),
		"no mappo greedy_win_rate", func(seed uint64) (float64, bool) { return res.Final("mappo", "greedy_win_rate", seed) })}
	for _, m := range cfg.Methods {
		out = append(out, res.CheckAchieves(climbName(m.Name), exp.AtLeast(-cfg.MaxTailClimb),
			fmt.Sprintf("A win rate still climbing when the budget ends is set by the budget: over the last %.0f %% of training the greedy win rate may rise by at most %g "+
				"(a least-squares line through its evaluations, per seed; the upper end of the 95 %% interval over seeds, shown negated). [UNVERIFIED] PaperLab's choice.",
				100*cfg.TailFrac, cfg.MaxTailClimb),
			"no "+m.Name+" greedy_win_rate curve", res.CurveMeasure(m.Name, "greedy_win_rate", func(c exp.Curve) float64 { return -exp.TailChange(c, cfg.TailFrac) })))
	}
	return out
}

package smax

import (
	"fmt"

	smaxenv "github.com/paperlab/paperlab/toolkit/marl/env/smax"
	"github.com/paperlab/paperlab/toolkit/nb"
)

// TeamScenarios are the maps of the scripted-team table (the list).
var TeamScenarios = []string{"3m", "2s3z", "3s_vs_5z", "5m_vs_6m"}

// ShowTeams plays the scripted ally teams (random, nearest, focus) against SMAX's heuristic enemy
// for episodes battles on each map of TeamScenarios and shows their win rates, mean returns and
// battle lengths as a table (text outside a notebook): the sanity table of the environment.
func ShowTeams(episodes int) error {
	rs, err := smaxenv.PlayTeams(TeamScenarios, []string{"random", "nearest", "focus"}, episodes, 1)
	if err != nil {
		return err
	}
	rows := make([][]string, len(rs))
	for i, r := range rs {
		rows[i] = []string{r.Scenario, r.Team, fmt.Sprint(r.Episodes), fmt.Sprintf("%.2f", r.WinRate), fmt.Sprintf("%.3f", r.Return), fmt.Sprintf("%.1f", r.Steps)}
	}
	headers := []string{"map", "ally team", "battles", "win rate", "mean return", "mean steps"}
	if nb.IsNotebook() {
		nb.Table(headers, rows)
		nb.Sync()
		return nil
	}
	fmt.Print(nb.TableText(headers, rows))
	return nil
}

package env

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// LBFActionNames are lb-foraging's action names, in action order.
var LBFActionNames = []string{"NONE", "NORTH", "SOUTH", "WEST", "EAST", "LOAD"}

// ReadLBFActions reads joint actions, one line per step, each player's action by name separated by
// commas ("NONE,LOAD"; case does not matter; blank lines and # comments are skipped). A bad line is
// an error naming name:line.
func ReadLBFActions(r io.Reader, name string, players int) ([][]int, error) {
	var out [][]int
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.Split(text, ",")
		if len(parts) != players {
			return nil, fmt.Errorf("%s:%d: %d actions, the task has %d players", name, line, len(parts), players)
		}
		joint := make([]int, players)
		for i, p := range parts {
			a := slices.Index(LBFActionNames, strings.ToUpper(strings.TrimSpace(p)))
			if a < 0 {
				return nil, fmt.Errorf("%s:%d: action %q of player %d: want one of %s", name, line, strings.TrimSpace(p), i, strings.Join(LBFActionNames, ", "))
			}
			joint[i] = a
		}
		out = append(out, joint)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// LBFStateFile is an initial state as a file gives it: players as [row, col, level] in player order,
// foods as [row, col, level] — the "initial" of bench/lbf_record.py's recordings.
type LBFStateFile struct {
	Players [][3]int `json:"players"`
	Foods   [][3]int `json:"foods"`
}

// ReadLBFState reads an LBFStateFile (JSON); unknown fields and malformed entries are errors naming
// name and the field.
func ReadLBFState(r io.Reader, name string) ([]LBFPlayer, map[[2]int]int, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s LBFStateFile
	if err := dec.Decode(&s); err != nil {
		return nil, nil, fmt.Errorf("%s: %w (want {\"players\": [[row, col, level], …], \"foods\": [[row, col, level], …]})", name, err)
	}
	players, foods, err := s.State()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return players, foods, nil
}

// State is the file's players and foods as NewState takes them.
func (s LBFStateFile) State() ([]LBFPlayer, map[[2]int]int, error) {
	if len(s.Players) == 0 {
		return nil, nil, fmt.Errorf("field players: empty")
	}
	players := make([]LBFPlayer, len(s.Players))
	for i, p := range s.Players {
		players[i] = LBFPlayer{Row: p[0], Col: p[1], Level: p[2]}
	}
	foods := map[[2]int]int{}
	for i, f := range s.Foods {
		if _, dup := foods[[2]int{f[0], f[1]}]; dup {
			return nil, nil, fmt.Errorf("field foods[%d]: a second food at (%d, %d)", i, f[0], f[1])
		}
		foods[[2]int{f[0], f[1]}] = f[2]
	}
	return players, foods, nil
}

// StateFrom is the state of a state file's players and foods (NewState).
func (e *LBF) StateFrom(s LBFStateFile) (*LBFState, error) {
	players, foods, err := s.State()
	if err != nil {
		return nil, err
	}
	return e.NewState(players, foods)
}

// LBFTraceStep is one line of `paperlab trace lbf:…`.
type LBFTraceStep struct {
	Step    int       `json:"step"`
	Actions []string  `json:"actions"`
	Players [][3]int  `json:"players"` // [row, col, level]
	Foods   [][3]int  `json:"foods"`   // [row, col, level], row-major
	Rewards []float64 `json:"rewards"`
	Done    bool      `json:"done"`
}

// Trace is state st after a step, as a trace line.
func (st *LBFState) Trace(actions []int, t Transition) LBFTraceStep {
	s := LBFTraceStep{Step: st.step, Rewards: t.Rewards, Done: t.Done, Foods: [][3]int{}}
	for _, a := range actions {
		if a < 0 || a >= len(LBFActionNames) {
			a = LBFNone // Step plays an out-of-range action as the no-op; the trace says so
		}
		s.Actions = append(s.Actions, LBFActionNames[a])
	}
	for _, p := range st.players {
		s.Players = append(s.Players, [3]int{p.row, p.col, p.level})
	}
	for i, f := range st.field {
		if f > 0 {
			s.Foods = append(s.Foods, [3]int{i / st.size, i % st.size, f})
		}
	}
	return s
}

// LBFRecorded is one trajectory recorded from semitable/lb-foraging (bench/lbf_record.py; the files
// in testdata/lbf): the initial state and, per step, the joint action and what lb-foraging returned.
type LBFRecorded struct {
	Task    string `json:"task"`
	Policy  string `json:"policy"`
	Seed    int    `json:"seed"`
	Initial struct {
		LBFStateFile
		FoodSpawned int            `json:"food_spawned"`
		Obs         [][]float32    `json:"obs"`
		Grid        [][3][][]int64 `json:"grid"`
	} `json:"initial"`
	Steps []struct {
		Actions []int          `json:"actions"`
		Players [][3]int       `json:"players"`
		Foods   [][3]int       `json:"foods"`
		Rewards []float64      `json:"rewards"`
		Done    bool           `json:"done"`
		Obs     [][]float32    `json:"obs"`
		Grid    [][3][][]int64 `json:"grid"`
	} `json:"steps"`
}

// ReadLBFRecorded reads a recorded task file: its header's source commit, then one trajectory per
// line; a bad line is an error naming path:line.
func ReadLBFRecorded(path string) (commit string, trajs []LBFRecorded, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			var h struct{ Commit string }
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				return "", nil, fmt.Errorf("%s:1: %w", path, err)
			}
			commit = h.Commit
			continue
		}
		var t LBFRecorded
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return "", nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		trajs = append(trajs, t)
	}
	if err := sc.Err(); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return commit, trajs, nil
}

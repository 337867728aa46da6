package env

import "testing"

// Payoffs of named games at chosen joint actions, read through the environment API (one step, the
// shared reward and every agent's reward equal to the table entry).
func TestMatrixPayoffs(t *testing.T) {
	for _, c := range []struct {
		game  string
		joint []int
		want  float64
	}{
		{"climbing", []int{0, 0}, 11}, {"climbing", []int{0, 1}, -30}, {"climbing", []int{1, 0}, -30},
		{"climbing", []int{1, 1}, 7}, {"climbing", []int{1, 2}, 6}, {"climbing", []int{2, 2}, 5}, {"climbing", []int{2, 0}, 0},
		{"penalty", []int{0, 0}, 10}, {"penalty", []int{0, 2}, -10}, {"penalty", []int{1, 1}, 2}, {"penalty", []int{2, 2}, 10},
		{"penalty-25", []int{2, 0}, -25},
		{"coord5", []int{0, 0, 0, 0, 0}, 10}, // everyone coordinates
		{"coord5", []int{0, 0, 2, 0, 0}, 10}, // N−1 play action 0
		{"coord5", []int{0, 1, 2, 0, 0}, -5}, // miscoordination
		{"coord5", []int{0, 1, 1, 2, 2}, -5}, // a single agent on action 0
		{"coord5", []int{1, 2, 1, 2, 1}, 2},  // the safe local optimum: nobody on action 0
		{"coord3", []int{0, 0, 1}, 10}, {"coord3", []int{0, 1, 1}, -5}, {"coord3", []int{2, 2, 1}, 2},
	} {
		e, err := Make("matrix:" + c.game)
		if err != nil {
			t.Fatal(err)
		}
		s, _, err := e.Reset(1)
		if err != nil {
			t.Fatal(err)
		}
		_, tr, err := e.Step(s, c.joint)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Shared != c.want || !tr.Done {
			t.Errorf("%s %v: shared reward %v (done %v), want %v", c.game, c.joint, tr.Shared, tr.Done, c.want)
		}
		for i, r := range tr.Rewards {
			if r != c.want {
				t.Errorf("%s %v: agent %d reward %v, want %v", c.game, c.joint, i, r, c.want)
			}
		}
	}
}

// Best is the table's highest payoff.
func TestMatrixBest(t *testing.T) {
	for name, want := range map[string]float64{"coord5": 10, "climbing": 11} {
		e, err := Make("matrix:" + name)
		if err != nil {
			t.Fatal(err)
		}
		if b := e.(*Matrix).Best(); b != want {
			t.Fatalf("%s: best %v, want %v", name, b, want)
		}
	}
}

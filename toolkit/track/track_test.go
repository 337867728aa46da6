package track

import (
	"reflect"
	"testing"
	"time"
)

// Binned averages blocks of consecutive points, each at its last x; short curves stay as they are.
func TestBinned(t *testing.T) {
	c := Curve{X: []float64{1, 2, 3, 4, 5}, Y: []float64{1, 3, 5, 7, 9}}
	if got, want := c.Binned(2), (Curve{X: []float64{3, 5}, Y: []float64{3, 8}}); !reflect.DeepEqual(got, want) {
		t.Errorf("Binned(2) = %+v, want %+v", got, want)
	}
	if got := c.Binned(5); !reflect.DeepEqual(got, c) {
		t.Errorf("Binned(5) changed the curve: %+v", got)
	}
	if got := c.Binned(0); !reflect.DeepEqual(got, c) {
		t.Errorf("Binned(0) changed the curve: %+v", got)
	}
}

func TestClockCountsThisProcessCPU(t *testing.T) {
	c := StartClock()
	x := 0.0
	for i := 0; i < 30_000_000; i++ { // busy work: CPU time must grow with it
		x += float64(i % 7)
	}
	if x == 0 {
		t.Fatal("unreachable")
	}
	if cpu := c.CPU(); !(cpu > 0.005) {
		t.Fatalf("CPU seconds after a busy loop: %v, want > 0.005", cpu)
	}
	if c.Wall() <= 0 {
		t.Fatal("wall seconds not positive")
	}
	start := StartClock()
	time.Sleep(50 * time.Millisecond) // sleeping costs wall time, next to no CPU time
	if cpu, wall := start.CPU(), start.Wall(); cpu > wall/2 || wall < 0.05 {
		t.Fatalf("sleeping 50 ms: cpu %v wall %v", cpu, wall)
	}
}

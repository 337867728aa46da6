package track

import (
	"reflect"
	"testing"
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

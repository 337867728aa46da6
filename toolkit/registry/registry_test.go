package registry

import (
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New[int]("widget")
	r.Add("b", 2)
	r.Add("a", 1)
	if v, err := r.Get("b"); err != nil || v != 2 {
		t.Fatalf("get b: %v %v", v, err)
	}
	if _, err := r.Get("c"); err == nil || !strings.Contains(err.Error(), `unknown widget "c" (known: a, b)`) {
		t.Fatalf("unknown name: %v", err)
	}
	if n := r.Names(); len(n) != 2 || n[0] != "a" {
		t.Fatalf("names %v", n)
	}
	for _, name := range []string{"a", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%q) did not panic", name)
				}
			}()
			r.Add(name, 3)
		}()
	}
}

// Package registry is the name → value table behind PaperLab's plug-in points (experiments,
// environment families, the LM's renderers): registered from package init functions, looked up by
// name with an error that lists what is known.
package registry

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Registry maps names to values of one kind; What names the kind in messages ("experiment").
type Registry[T any] struct {
	What string
	mu   sync.RWMutex
	m    map[string]T
}

// New returns an empty registry of a kind.
func New[T any](what string) *Registry[T] { return &Registry[T]{What: what, m: map[string]T{}} }

// Add registers a value; a duplicate or empty name panics (a programming error).
func (r *Registry[T]) Add(name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == "" {
		panic(fmt.Sprintf("registry: %s without a name", r.What))
	}
	if _, dup := r.m[name]; dup {
		panic(fmt.Sprintf("registry: duplicate %s %q", r.What, name))
	}
	r.m[name] = v
}

// Get returns the named value, or an error naming it and listing the known names.
func (r *Registry[T]) Get(name string) (T, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if v, ok := r.m[name]; ok {
		return v, nil
	}
	var zero T
	return zero, fmt.Errorf("unknown %s %q (known: %s)", r.What, name, strings.Join(r.namesLocked(), ", "))
}

// Names lists the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked()
}

func (r *Registry[T]) namesLocked() []string {
	out := make([]string, 0, len(r.m))
	for k := range r.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

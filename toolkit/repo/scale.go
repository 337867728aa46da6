package repo

import (
	"fmt"
	"os"
)

// Scale is the size of a run: "smoke" (seconds to a minute, for tests and CI) or "default" (the
// reproduction, minutes on 2 CPU cores). A smoke run writes into a temporary folder, a default one
// into the checkout (figures/…), so tests never overwrite the committed results.
type Scale string

const (
	Smoke   Scale = "smoke"
	Default Scale = "default"
)

// ParseScale accepts "smoke" and "default".
func ParseScale(s string) (Scale, error) {
	switch Scale(s) {
	case Smoke, Default:
		return Scale(s), nil
	}
	return "", fmt.Errorf("unknown scale %q (want smoke or default)", s)
}

// EnvScale is the environment variable notebooks read their scale from.
const EnvScale = "PAPERLAB_SCALE"

// ScaleFromEnv returns $PAPERLAB_SCALE, or Default when it is unset.
func ScaleFromEnv() (Scale, error) {
	s := os.Getenv(EnvScale)
	if s == "" {
		return Default, nil
	}
	return ParseScale(s)
}

//go:build !unix

package track

import "math"

// ProcessCPUSeconds is NaN on a platform without getrusage: CPU-second costs read as missing.
func ProcessCPUSeconds() float64 { return math.NaN() }

//go:build cgo && !noxla && linux && amd64

package backend

import "github.com/gomlx/go-xla/compute/xla" // registers "xla" (PJRT plugins, e.g. CUDA)

const xlaCompiledIn = true

// disableXLAAutoInstall stops go-xla from downloading PJRT plugins: only installed plugins or an
// absolute plugin path ("xla:/path/to/pjrt_plugin.so") are used.
func disableXLAAutoInstall() { xla.EnableAutoInstall(false) }

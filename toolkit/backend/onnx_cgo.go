//go:build cgo && !noonnx

package backend

import _ "github.com/gomlx/compute-onnx" // registers "onnx" (ONNX Runtime, needs cgo)

const onnxCompiledIn = true

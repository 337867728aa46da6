//go:build !cgo || noonnx

package backend

const onnxCompiledIn = false

// Package backendtest gives tests the ONNX Runtime engine under the project's rule: a test that
// needs it skips where it is missing, and fails instead under PAPERLAB_REQUIRE_ONNX=1 (set by
// `make test`, whose setup installs it), so the comparison never silently disappears.
package backendtest

import (
	"os"
	"testing"

	"github.com/gomlx/compute"
	"github.com/paperlab/paperlab/toolkit/backend"
)

// HaveONNX reports whether ONNX Runtime can run here; its absence fails t under
// PAPERLAB_REQUIRE_ONNX=1.
func HaveONNX(t testing.TB) bool {
	t.Helper()
	if backend.ONNXAvailable() {
		return true
	}
	if os.Getenv("PAPERLAB_REQUIRE_ONNX") == "1" {
		t.Fatal("PAPERLAB_REQUIRE_ONNX=1 but the ONNX Runtime engine is missing (library or cgo); run `make setup`")
	}
	return false
}

// ONNX returns the ONNX Runtime engine, skipping t where it is missing (failing it under
// PAPERLAB_REQUIRE_ONNX=1).
func ONNX(t testing.TB) compute.Backend {
	t.Helper()
	if !HaveONNX(t) {
		t.Skip("ONNX Runtime engine not available")
	}
	be, _, err := backend.New(backend.ONNXConfig)
	if err != nil {
		t.Fatal(err)
	}
	return be
}

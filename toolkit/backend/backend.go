// Package backend chooses the GoMLX compute engine that PaperLab runs on and reports it in one line.
//
// Order of choice (see Choose):
//
//  1. $GOMLX_BACKEND when set: "onnx:cpu", "go", "go:parallelism=-1", "xla:cuda", "xla:/abs/path/pjrt_plugin.so", …
//  2. ONNX Runtime on the CPU ("onnx:cpu") when its shared library is found (see ORTLibrary). On the 2-core
//     development machine it trains the tiny-LM reference workload about 8× faster than the pure-Go engine.
//  3. GoMLX's pure-Go engine with "parallelism=-1". Its default parallelism (and 1 or 2) was measured to
//     deadlock on 2 cores after the first training step; -1 never did.
//
// No default path depends on XLA's CPU PJRT plugin, which cannot be downloaded on the development machine;
// automatic plugin and library downloads are switched off.
package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // registers "go"
	"github.com/paperlab/paperlab/toolkit/repo"
)

const (
	// EnvBackend selects the engine, GoMLX's own variable.
	EnvBackend = compute.ConfigEnvVar
	// EnvORTLibrary is read by GoMLX's ONNX Runtime backend: the full path of libonnxruntime.so.
	EnvORTLibrary = "ONNXRUNTIME_SHARED_LIBRARY_PATH"
	// EnvNoAutoInstall stops GoMLX backends from downloading libraries or plugins from the internet.
	EnvNoAutoInstall = "GOMLX_NO_AUTO_INSTALL"

	// GoConfig is the pure-Go engine's configuration used by default: parallelism=-1 (see package doc).
	GoConfig = "go:parallelism=-1"
	// ONNXConfig is the ONNX Runtime engine's configuration used by default.
	ONNXConfig = "onnx:cpu"
	// ReferenceConfig names the reference engine: the pure-Go engine (parallelism=-1) with every SIMD
	// matmul kernel off, so that its float32 arithmetic is plain Go on every x86-64 CPU (measured in
	// BENCHMARKS.md: the same bits with and without AVX-512 and AVX, under emulated CPUs and with 1 or
	// 2 threads). GoMLX reads the kernel switches (ReferenceEnv) when the process starts, so they must
	// be in the environment before it does: `paperlab -reference …` re-executes itself with them.
	ReferenceConfig = "reference"
)

// ReferenceEnv are the variables that switch the pure-Go engine's SIMD kernels off at start-up.
var ReferenceEnv = []string{"GOMLX_SIMD_AVX512=0", "GOMLX_SIMD_AVX2=0"}

// ReferenceReady reports whether this process started with the SIMD kernels switched off.
func ReferenceReady() bool {
	for _, kv := range ReferenceEnv {
		k, v, _ := strings.Cut(kv, "=")
		if os.Getenv(k) != v {
			return false
		}
	}
	return true
}

// Info describes the engine in use.
type Info struct {
	// Config is the GoMLX backend configuration string, e.g. "onnx:cpu" or "go:parallelism=-1".
	Config string `json:"config"`
	// Name is the short engine name: "onnx", "go" or "xla".
	Name string `json:"name"`
	// Description is the backend's own description.
	Description string `json:"description"`
	// Reason says why this engine was chosen.
	Reason string `json:"reason"`
	// ORTLibrary is the ONNX Runtime library used, when Name is "onnx".
	ORTLibrary string `json:"ort_library,omitempty"`
}

// String is the one line that every CLI run and notebook prints. The library's path is written
// relative to the home folder ("~/…"), so a saved notebook carries no path of the machine that ran it.
func (i Info) String() string {
	s := fmt.Sprintf("engine: %s — %s (%s)", i.Config, i.Description, i.Reason)
	if i.ORTLibrary != "" {
		s += "; library " + repo.HomeRelative(i.ORTLibrary)
	}
	return s
}

// ORTLibraryCandidates lists, in order, the places searched for ONNX Runtime's shared library when
// $ONNXRUNTIME_SHARED_LIBRARY_PATH is unset. `make setup` installs it into the first one.
func ORTLibraryCandidates() []string {
	home, _ := os.UserHomeDir()
	var c []string
	if home != "" {
		dir := filepath.Join(home, ".local", "lib", "onnxruntime")
		c = append(c, filepath.Join(dir, "libonnxruntime.so.1"), filepath.Join(dir, "libonnxruntime.so"))
	}
	return c
}

// ONNXAvailable reports whether the ONNX Runtime engine can run here: compiled in (cgo) and its
// shared library found.
func ONNXAvailable() bool { return onnxCompiledIn && ORTLibrary() != "" }

// ORTLibrary returns the path of ONNX Runtime's shared library, or "" when none is found.
// An explicit $ONNXRUNTIME_SHARED_LIBRARY_PATH wins even when the file is missing, so that
// a wrong setting is reported rather than silently replaced.
func ORTLibrary() string {
	if p := os.Getenv(EnvORTLibrary); p != "" {
		return p
	}
	for _, p := range ORTLibraryCandidates() {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Choose returns the backend configuration to use and why, without creating the backend.
func Choose() (config, reason string) {
	if c, ok := os.LookupEnv(EnvBackend); ok && strings.TrimSpace(c) != "" {
		return normalize(strings.TrimSpace(c)), "$" + EnvBackend
	}
	if !onnxCompiledIn {
		return GoConfig, "ONNX Runtime backend not compiled in (needs cgo)"
	}
	if lib := ORTLibrary(); lib != "" {
		if _, err := os.Stat(lib); err == nil {
			return ONNXConfig, "ONNX Runtime library found"
		}
	}
	return GoConfig, "no ONNX Runtime library (run `make setup`); pure-Go fallback"
}

// normalize fills in the pure-Go engine's parallelism when it is not given, since the backend's own
// default deadlocks on 2 cores.
func normalize(config string) string {
	name, opts, _ := strings.Cut(config, ":")
	if name == "go" && !strings.Contains(opts, "parallelism") {
		if opts == "" {
			return GoConfig
		}
		return GoConfig + "," + opts
	}
	return config
}

var (
	mu       sync.Mutex
	cached   compute.Backend
	cachedIn Info
)

// New creates the backend for config (as GOMLX_BACKEND would take it), preparing the environment the
// engines need: ONNX Runtime's library path and no automatic downloads.
func New(config string) (compute.Backend, Info, error) {
	config = normalize(config)
	if config == ReferenceConfig {
		if !ReferenceReady() {
			return nil, Info{Config: config, Name: "go"}, fmt.Errorf("backend %q: the reference engine needs %s in the environment when the process starts "+
				"(GoMLX registers its SIMD kernels before main runs): use `paperlab -reference …`, or export them first", config, strings.Join(ReferenceEnv, " "))
		}
		b, info, err := New(GoConfig)
		info.Config = ReferenceConfig
		if err == nil {
			info.Description += ", SIMD kernels off (reference: the same bits on every x86-64 CPU)"
		}
		return b, info, err
	}
	name, _, _ := strings.Cut(config, ":")
	info := Info{Config: config, Name: name}
	_ = os.Setenv(EnvNoAutoInstall, "1")
	switch name {
	case "onnx", "onnxruntime":
		info.Name = "onnx"
		if !onnxCompiledIn {
			return nil, info, fmt.Errorf("backend %q: the ONNX Runtime backend is not compiled into this binary (it needs cgo and gcc)", config)
		}
		lib := ORTLibrary()
		if lib == "" {
			return nil, info, fmt.Errorf("backend %q: ONNX Runtime library not found (looked in $%s and %s); run `make setup`, or set %s=go",
				config, EnvORTLibrary, strings.Join(ORTLibraryCandidates(), ", "), EnvBackend)
		}
		if _, err := os.Stat(lib); err != nil {
			return nil, info, fmt.Errorf("backend %q: $%s=%s: %w", config, EnvORTLibrary, lib, err)
		}
		_ = os.Setenv(EnvORTLibrary, lib)
		info.ORTLibrary = lib
	case "xla", "stablehlo", "hlo", "shlo":
		info.Name = "xla"
		if !xlaCompiledIn {
			return nil, info, fmt.Errorf("backend %q: the XLA backend is not compiled into this binary (build with cgo, without the noxla tag)", config)
		}
		disableXLAAutoInstall()
	case "go":
	default:
		return nil, info, fmt.Errorf("backend %q: unknown engine %q (known: onnx, go, xla)", config, name)
	}
	b, err := newBackend(config)
	if err != nil {
		return nil, info, fmt.Errorf("backend %q: %w", config, err)
	}
	info.Description = b.Description()
	return b, info, nil
}

// newBackend calls compute.NewWithConfig, turning its panics (unknown backend) into errors.
func newBackend(config string) (b compute.Backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return compute.NewWithConfig(config)
}

// Get returns the process-wide backend chosen by Choose, created once.
func Get() (compute.Backend, Info, error) {
	mu.Lock()
	defer mu.Unlock()
	if cached != nil {
		return cached, cachedIn, nil
	}
	config, reason := Choose()
	b, info, err := New(config)
	if err != nil {
		return nil, info, err
	}
	info.Reason = reason
	cached, cachedIn = b, info
	return b, info, nil
}

// MustGet is Get for programs and notebooks: it panics with a clear message on failure.
func MustGet() (compute.Backend, Info) {
	b, info, err := Get()
	if err != nil {
		panic(err)
	}
	return b, info
}

// Describe returns the one-line description of the process-wide backend (creating it if needed).
func Describe() string {
	_, info, err := Get()
	if err != nil {
		return "engine: error: " + err.Error()
	}
	return info.String()
}

package backend

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// CPU describes this machine's processor as results record it: the model name and the widest x86
// vector extension the engines can use ("AVX-512", "AVX2", or none), e.g. "Intel Xeon … (AVX-512)".
// Float rounding in ONNX Runtime and the pure-Go engine's SIMD kernels depends on it, so per-seed
// numbers are comparable bit for bit only between runs with the same CPU line (and engine).
func CPU() string {
	model, flags := "", ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() && (model == "" || flags == "") {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name":
				model = strings.TrimSpace(v)
			case "flags":
				flags = " " + strings.TrimSpace(v) + " "
			}
		}
	}
	if model == "" {
		model = runtime.GOARCH
	}
	switch {
	case strings.Contains(flags, " avx512f "):
		return model + " (AVX-512)"
	case strings.Contains(flags, " avx2 "):
		return model + " (AVX2)"
	}
	return model
}

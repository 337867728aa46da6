package backend

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

func TestChooseHonoursEnv(t *testing.T) {
	t.Setenv(EnvBackend, "go")
	c, why := Choose()
	if c != GoConfig || why != "$"+EnvBackend {
		t.Fatalf("Choose() = %q, %q; want %q from the environment", c, why, GoConfig)
	}
	t.Setenv(EnvBackend, "go:ops_sequential")
	if c, _ := Choose(); c != GoConfig+",ops_sequential" {
		t.Fatalf("Choose() = %q; want parallelism=-1 added to other options", c)
	}
	t.Setenv(EnvBackend, "onnx:cpu")
	if c, _ := Choose(); c != "onnx:cpu" {
		t.Fatalf("Choose() = %q; want onnx:cpu", c)
	}
}

func TestChooseFallsBackToGo(t *testing.T) {
	os.Unsetenv(EnvBackend)
	t.Setenv(EnvORTLibrary, "")
	t.Setenv("HOME", t.TempDir())
	if c, _ := Choose(); c != GoConfig {
		t.Fatalf("without an ONNX Runtime library Choose() = %q; want %q", c, GoConfig)
	}
}

func TestUnknownEngineIsAClearError(t *testing.T) {
	if _, _, err := New("tpu-magic"); err == nil {
		t.Fatal("New(tpu-magic) succeeded; want an error naming the engine")
	}
	t.Setenv(EnvORTLibrary, "/nonexistent/libonnxruntime.so")
	if _, _, err := New("onnx:cpu"); err == nil {
		t.Fatal("New(onnx:cpu) with a missing library succeeded; want an error")
	}
}

// trainMLP trains a 2-layer tanh MLP on a fixed regression problem with Adam, from initial weights
// drawn with a fixed seed, and returns the loss of each step.
func trainMLP(t *testing.T, config string, steps int) []float64 {
	t.Helper()
	b, _, err := New(config)
	if err != nil {
		t.Fatalf("engine %s: %v", config, err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	const n, din, hidden = 64, 8, 16
	x := make([][]float32, n)
	y := make([][]float32, n)
	for i := range x {
		x[i] = make([]float32, din)
		s := 0.0
		for j := range x[i] {
			x[i][j] = float32(rng.NormFloat64())
			s += math.Sin(float64(x[i][j]) * float64(j+1))
		}
		y[i] = []float32{float32(s / din)}
	}
	randMat := func(r, c int) [][]float32 {
		m := make([][]float32, r)
		for i := range m {
			m[i] = make([]float32, c)
			for j := range m[i] {
				m[i][j] = float32(rng.NormFloat64() / math.Sqrt(float64(r)))
			}
		}
		return m
	}
	store := model.NewStore()
	root := store.RootScope()
	w1 := root.VariableWithValue("w1", randMat(din, hidden))
	w2 := root.VariableWithValue("w2", randMat(hidden, 1))
	opt := optimizer.Adam().LearningRate(1e-2).Done()
	exec, err := model.NewExec(b, store, func(scope *model.Scope, x, y *Node) *Node {
		g := x.Graph()
		h := Tanh(Dot(x, w1.NodeValue(g)).Product())
		pred := Dot(h, w2.NodeValue(g)).Product()
		loss := ReduceAllMean(Square(Sub(pred, y)))
		opt.UpdateGraph(scope, g, loss)
		return loss
	})
	if err != nil {
		t.Fatal(err)
	}
	xt, yt := tensors.FromValue(x), tensors.FromValue(y)
	losses := make([]float64, steps)
	for i := range losses {
		out, err := exec.Call1(xt, yt)
		if err != nil {
			t.Fatalf("%s step %d: %v", config, i, err)
		}
		losses[i] = float64(tensors.ToScalar[float32](out))
	}
	return losses
}

// TestEnginesAgree trains the same model from the same weights on the pure-Go and ONNX Runtime engines
// and checks that the losses agree step by step. It needs the ONNX Runtime library (`make setup`);
// PAPERLAB_REQUIRE_ONNX=1 (set by `make test`) turns its absence into a failure instead of a skip.
func TestEnginesAgree(t *testing.T) {
	if !ONNXAvailable() {
		if os.Getenv("PAPERLAB_REQUIRE_ONNX") == "1" {
			t.Fatal("PAPERLAB_REQUIRE_ONNX=1 but the ONNX Runtime library is missing; run `make setup`")
		}
		t.Skip("ONNX Runtime library not installed")
	}
	const steps = 60
	goLoss := trainMLP(t, GoConfig, steps)
	onnxLoss := trainMLP(t, ONNXConfig, steps)
	if !(goLoss[steps-1] < 0.5*goLoss[0]) {
		t.Fatalf("loss did not fall: %.4g -> %.4g", goLoss[0], goLoss[steps-1])
	}
	maxDiff := 0.0
	for i := range goLoss {
		d := math.Abs(goLoss[i] - onnxLoss[i])
		if d > 2e-6*math.Max(1, math.Abs(goLoss[i])) {
			t.Fatalf("step %d: go loss %.8g, onnx loss %.8g (diff %.3g)", i, goLoss[i], onnxLoss[i], d)
		}
		maxDiff = math.Max(maxDiff, d)
	}
	t.Logf("%d Adam steps: loss %.4g -> %.4g; largest go/onnx difference %.3g", steps, goLoss[0], goLoss[steps-1], maxDiff)
}

// TestGoEngineDeterministic: the same seed gives bit-identical losses on the pure-Go engine.
func TestGoEngineDeterministic(t *testing.T) {
	a := trainMLP(t, GoConfig, 20)
	b := trainMLP(t, GoConfig, 20)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d: %v != %v", i, a[i], b[i])
		}
	}
}

// The reference engine refuses to start unless the SIMD kernels were switched off before the process
// started (they cannot be switched afterwards), and the error says how.
func TestReferenceNeedsItsEnvironment(t *testing.T) {
	if ReferenceReady() {
		t.Skip("this process already runs with the SIMD kernels off")
	}
	_, _, err := New(ReferenceConfig)
	if err == nil || !strings.Contains(err.Error(), "paperlab -reference") || !strings.Contains(err.Error(), "GOMLX_SIMD_AVX512=0") {
		t.Fatalf("reference without its environment: %v", err)
	}
	for _, kv := range ReferenceEnv {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	if !ReferenceReady() {
		t.Fatal("ReferenceReady false with every variable set")
	}
}

package lm

import (
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
)

// Engine workarounds, in one place (environment.md lists the engine facts behind them). Every engine runs the same portable graph
// — ONNX Runtime, the pure-Go engine and XLA compute the same numbers up to float rounding — so the
// graph code above calls these functions instead of the ops some engine lacks:
//
//   - rows: embeddings are Gathers with int64 ids, because the gradient of a Gather becomes a
//     ScatterND whose int32 indices ONNX Runtime rejects (int64 measured ~5 % faster than a one-hot ×
//     table matmul on ORT, equal on the pure-Go engine);
//   - cacheWrite: the KV cache is written with a one-hot blend, because DynamicUpdateSlice exists on
//     neither the pure-Go nor the ONNX Runtime engine;
//   - rsqrt: 1/√x is Inverse(Sqrt), because ORT lacks Rsqrt;
//   - rotate (graph.go) turns half of each head with a signed-permutation matmul, and qkv uses three
//     matmuls instead of one fused one, because slicing needs Pad in the gradient (missing on ORT).
//
// A faster engine-specific variant (native Rsqrt, DynamicUpdateSlice on XLA) would go here, behind
// one switch; none is needed on the CPU engines today.

// rows gathers table rows [N, D] for ids [N] (int32 in the graph, widened to int64 for ORT).
func rows(table, ids *Node) *Node {
	return Gather(table, InsertAxes(ConvertDType(ids, dtypes.Int64), -1))
}

// rsqrt is 1/√x.
func rsqrt(x *Node) *Node { return Inverse(Sqrt(x)) }

// cacheWrite returns layer l's cache [B,Tmax,H,Dh] of cache [L,B,Tmax,H,Dh] with column col (a scalar
// int32) replaced by x [B,1,H,Dh]: cache·(1 − onehot) + x·onehot.
func cacheWrite(cache *Node, l int, x, col *Node) *Node {
	cd := cache.Shape().Dimensions
	b, tmax, h, dh := cd[1], cd[2], cd[3], cd[4]
	oh := Reshape(OneHot(col, tmax, dtypes.Float32), 1, tmax, 1, 1)
	layer := Reshape(SliceAxis(cache, 0, AxisElem(l)), b, tmax, h, dh)
	return Add(Mul(layer, OneMinus(oh)), Mul(x, oh))
}

package lm

import (
	"math"
	"strconv"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
)

// This file holds the pure graph functions of the model. Shapes are noted as [B,T,…]; all weights
// come from a *Views of the flat parameter vector.
//
// Engine notes (see shared/engines.md): embeddings are Gathers with int64 ids, because the gradient
// of a Gather becomes a ScatterND whose int32 indices ONNX Runtime rejects (int64 was measured ~5%
// faster than a one-hot × table matmul on ORT, equal on the pure-Go engine); the KV
// cache is written with a one-hot blend, because DynamicUpdateSlice exists on neither the pure-Go
// nor the ONNX Runtime engine; 1/sqrt is Inverse(Sqrt), because ORT lacks Rsqrt.

const layerNormEps = 1e-5

// maskValue is added to attention scores of keys a query must not see.
const maskValue = -1e9

// lead reshapes a vector v [n] to rank r with leading unit axes ([1,…,1,n]), since GoMLX only
// broadcasts between operands of equal rank.
func lead(v *Node, r int) *Node {
	dims := make([]int, r)
	for i := range dims {
		dims[i] = 1
	}
	dims[r-1] = v.Shape().Dimensions[0]
	return Reshape(v, dims...)
}

func layerNorm(x, gain, bias *Node) *Node {
	axis := x.Rank() - 1
	mean := ReduceAndKeep(x, ReduceMean, axis)
	centered := Sub(x, mean)
	variance := ReduceAndKeep(Square(centered), ReduceMean, axis)
	inv := Inverse(Sqrt(AddScalar(variance, layerNormEps)))
	return Add(Mul(Mul(centered, inv), lead(gain, x.Rank())), lead(bias, x.Rank()))
}

func activate(kind string, x *Node) *Node {
	switch kind {
	case "relu":
		return Max(x, ZerosLike(x))
	case "gelu_tanh":
		// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
		inner := MulScalar(Add(x, MulScalar(Mul(Square(x), x), 0.044715)), math.Sqrt(2/math.Pi))
		return Mul(MulScalar(x, 0.5), AddScalar(Tanh(inner), 1))
	default: // "gelu", exact
		return Mul(MulScalar(x, 0.5), AddScalar(Erf(MulScalar(x, 1/math.Sqrt2)), 1))
	}
}

// dense is x·w + b for x [N, in].
func dense(x, w, b *Node) *Node { return Add(MatMul(x, w), lead(b, 2)) }

// rows gathers table rows [N, D] for ids [N] (int32 in the graph, widened to int64 for ORT).
func rows(table, ids *Node) *Node {
	return Gather(table, InsertAxes(ConvertDType(ids, dtypes.Int64), -1))
}

// embed returns the input embeddings [N, D] of token ids [N] at positions [N].
func embed(c Config, w *Views, ids, pos *Node) *Node {
	x := rows(w.W("embed/tokens"), ids)
	if c.Positions == "learned" {
		x = Add(x, rows(w.W("embed/positions"), pos))
	}
	return x
}

// rotaryTables returns cos and sin of the rotary angles for positions [N] as [N, Dh], the
// Dh/2 frequencies repeated for both halves.
func rotaryTables(c Config, pos *Node) (cos, sin *Node) {
	g := pos.Graph()
	dh, half := c.HeadDim(), c.HeadDim()/2
	cosT := make([][]float32, c.Context)
	sinT := make([][]float32, c.Context)
	for p := 0; p < c.Context; p++ {
		cosT[p] = make([]float32, dh)
		sinT[p] = make([]float32, dh)
		for j := 0; j < half; j++ {
			a := float64(p) * math.Pow(10000, -2*float64(j)/float64(dh))
			cosT[p][j], sinT[p][j] = float32(math.Cos(a)), float32(math.Sin(a))
			cosT[p][j+half], sinT[p][j+half] = cosT[p][j], sinT[p][j]
		}
	}
	return rows(Const(g, cosT), pos), rows(Const(g, sinT), pos)
}

// rotate applies RoPE (GPT-NeoX layout: dimension j is paired with j+Dh/2) to x [B,T,H,Dh] with
// cos, sin [B,T,1,Dh] (each half repeated): x·cos + rotateHalf(x)·sin. rotateHalf is a matmul with
// a fixed signed permutation, since slicing x would need Pad in the gradient (missing on ORT).
func rotate(x, cos, sin *Node) *Node {
	dh := x.Shape().Dimensions[3]
	half := dh / 2
	r := make([][]float32, dh) // x·r = [−x2, x1]
	for i := range r {
		r[i] = make([]float32, dh)
	}
	for j := 0; j < half; j++ {
		r[j+half][j] = -1
		r[j][j+half] = 1
	}
	rot := MatMul(x, Reshape(Const(x.Graph(), r), 1, 1, dh, dh))
	return Add(Mul(x, cos), Mul(rot, sin))
}

// qkv projects rows x [B·T, D] to queries, keys and values of shape [B, T, H, Dh] (no transpose:
// attention contracts over the head layout directly). The three projections are separate matmuls:
// splitting one fused output would need a Slice, whose gradient (Pad) ONNX Runtime lacks.
func qkv(c Config, w *Views, p string, x *Node, b, t int) (q, k, v *Node) {
	heads := func(name string) *Node {
		return Reshape(dense(x, w.W(p+"attn/"+name), w.W(p+"attn/"+name+"_bias")), b, t, c.Heads, c.HeadDim())
	}
	return heads("q"), heads("k"), heads("v")
}

// attend computes softmax(q·kᵀ/√Dh + bias)·v for q [B,Tq,H,Dh], k, v [B,Tk,H,Dh] and an additive
// bias broadcastable to [B,H,Tq,Tk]; it returns [B,Tq,H,Dh].
func attend(q, k, v, bias *Node) *Node {
	dh := q.Shape().Dimensions[3]
	scores := DotGeneral(q, []int{3}, []int{0, 2}, k, []int{3}, []int{0, 2}) // [B,H,Tq,Tk]
	scores = Add(MulScalar(scores, 1/math.Sqrt(float64(dh))), bias)
	out := DotGeneral(Softmax(scores, -1), []int{3}, []int{0, 1}, v, []int{1}, []int{0, 2}) // [B,H,Tq,Dh]
	return TransposeAllAxes(out, 0, 2, 1, 3)
}

// Forward runs the transformer on tokens [B,T] (int32) at positions pos [B,T] (int32), where
// keyMask [B,T] (float32, 1 = real token, 0 = padding) says which positions may be attended to
// (attention is also causal). It returns logits [B,T,V] and each layer's keys and values
// [B,T,H,Dh] (to fill a KV cache).
func Forward(c Config, w *Views, tokens, pos, keyMask *Node) (logits *Node, keys, values []*Node) {
	g := tokens.Graph()
	dims := tokens.Shape().Dimensions
	b, t := dims[0], dims[1]
	n := b * t
	x := embed(c, w, Reshape(tokens, n), Reshape(pos, n)) // [N, D]

	// bias [B,1,T,T]: 0 where key j ≤ query i and j is a real token, maskValue elsewhere.
	causal := make([][]float32, t)
	for i := range causal {
		causal[i] = make([]float32, t)
		for j := range causal[i] {
			if j <= i {
				causal[i][j] = 1
			}
		}
	}
	allowed := Mul(Reshape(Const(g, causal), 1, 1, t, t), Reshape(keyMask, b, 1, 1, t))
	bias := MulScalar(OneMinus(allowed), maskValue)

	var cos, sin *Node
	if c.Positions == "rotary" {
		cos, sin = rotaryTables(c, Reshape(pos, n))
		cos = Reshape(cos, b, t, 1, c.HeadDim())
		sin = Reshape(sin, b, t, 1, c.HeadDim())
	}
	for l := 0; l < c.Layers; l++ {
		p := layerPrefix(l)
		h := layerNorm(x, w.W(p+"ln1/gain"), w.W(p+"ln1/bias"))
		q, k, v := qkv(c, w, p, h, b, t)
		if cos != nil {
			q, k = rotate(q, cos, sin), rotate(k, cos, sin)
		}
		keys, values = append(keys, k), append(values, v)
		a := Reshape(attend(q, k, v, bias), n, c.Dim) // [N, D]
		x = Add(x, dense(a, w.W(p+"attn/out"), w.W(p+"attn/out_bias")))
		h = layerNorm(x, w.W(p+"ln2/gain"), w.W(p+"ln2/bias"))
		h = activate(c.Activation, dense(h, w.W(p+"ff/in"), w.W(p+"ff/in_bias")))
		x = Add(x, dense(h, w.W(p+"ff/out"), w.W(p+"ff/out_bias")))
	}
	x = layerNorm(x, w.W("final_ln/gain"), w.W("final_ln/bias"))
	logits = Reshape(Add(MatMul(x, w.W("unembed")), neverPredicted(g, c, 2)), b, t, c.Vocab)
	return logits, keys, values
}

func layerPrefix(l int) string { return "layer" + strconv.Itoa(l) + "/" }

// DecodeStep runs one token per row through the model using a KV cache. tokens, pos [B] (int32) are
// the new tokens and their positions; col (scalar int32) is the cache column they are written to;
// keyMask [B,Tmax] marks the valid cache columns (col included); cacheK, cacheV [L,B,Tmax,H,Dh].
// It returns logits [B,V] and the updated caches.
func DecodeStep(c Config, w *Views, tokens, pos, col, keyMask, cacheK, cacheV *Node) (logits, newK, newV *Node) {
	cd := cacheK.Shape().Dimensions
	b, tmax := cd[1], cd[2]
	h, dh := c.Heads, c.HeadDim()
	x := embed(c, w, tokens, pos) // [B, D]
	// one-hot of the written column, [1,Tmax,1,1], for the cache blend.
	oh := Reshape(OneHot(col, tmax, dtypes.Float32), 1, tmax, 1, 1)
	keep := OneMinus(oh)
	bias := Reshape(MulScalar(OneMinus(keyMask), maskValue), b, 1, 1, tmax)
	var cos, sin *Node
	if c.Positions == "rotary" {
		cos, sin = rotaryTables(c, pos)
		cos = Reshape(cos, b, 1, 1, dh)
		sin = Reshape(sin, b, 1, 1, dh)
	}
	var ks, vs []*Node
	for l := 0; l < c.Layers; l++ {
		p := layerPrefix(l)
		hh := layerNorm(x, w.W(p+"ln1/gain"), w.W(p+"ln1/bias"))
		q, k, v := qkv(c, w, p, hh, b, 1) // [B,1,H,Dh]
		if cos != nil {
			q, k = rotate(q, cos, sin), rotate(k, cos, sin)
		}
		lk := Reshape(SliceAxis(cacheK, 0, AxisElem(l)), b, tmax, h, dh)
		lv := Reshape(SliceAxis(cacheV, 0, AxisElem(l)), b, tmax, h, dh)
		lk = Add(Mul(lk, keep), Mul(k, oh)) // k [B,1,H,Dh] broadcast over Tmax
		lv = Add(Mul(lv, keep), Mul(v, oh))
		ks, vs = append(ks, InsertAxes(lk, 0)), append(vs, InsertAxes(lv, 0))
		a := Reshape(attend(q, lk, lv, bias), b, c.Dim)
		x = Add(x, dense(a, w.W(p+"attn/out"), w.W(p+"attn/out_bias")))
		hh = layerNorm(x, w.W(p+"ln2/gain"), w.W(p+"ln2/bias"))
		hh = activate(c.Activation, dense(hh, w.W(p+"ff/in"), w.W(p+"ff/in_bias")))
		x = Add(x, dense(hh, w.W(p+"ff/out"), w.W(p+"ff/out_bias")))
	}
	x = layerNorm(x, w.W("final_ln/gain"), w.W("final_ln/bias"))
	logits = Add(MatMul(x, w.W("unembed")), neverPredicted(x.Graph(), c, 2))
	return logits, Concatenate(ks, 0), Concatenate(vs, 0)
}

// neverPredicted is a logit bias of rank r ([1,…,1,V]) that removes PAD and BOS from every
// next-token distribution: the model never emits them, so scoring and sampling agree exactly.
func neverPredicted(g *Graph, c Config, r int) *Node {
	bias := make([]float32, c.Vocab)
	bias[PAD], bias[BOS] = maskValue, maskValue
	return lead(Const(g, bias), r)
}

// TokenLogProbs returns log p(targets) [B,T] under logits [B,T,V].
func TokenLogProbs(logits, targets *Node) *Node {
	v := logits.Shape().Dimensions[2]
	return ReduceSum(Mul(LogSoftmax(logits, -1), OneHot(targets, v, dtypes.Float32)), -1)
}

// TokenEntropy returns the entropy of each position's next-token distribution, [B,T].
func TokenEntropy(logits *Node) *Node {
	lp := LogSoftmax(logits, -1)
	return Neg(ReduceSum(Mul(Exp(lp), lp), -1))
}

// MaskedMean is Σ x·mask / max(Σ mask, 1) over all positions (token-level mean).
func MaskedMean(x, mask *Node) *Node {
	den := Max(ReduceAllSum(mask), OnesLike(ReduceAllSum(mask)))
	return Div(ReduceAllSum(Mul(x, mask)), den)
}

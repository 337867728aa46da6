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
// Engine notes (see shared/engines.md): embeddings are one-hot × table matmuls, because the gradient
// of an embedding Gather becomes a ScatterND with int32 indices that ONNX Runtime rejects; the KV
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

// oneHotRows turns ids [N] (int32) into one-hot rows [N, depth] (float32).
func oneHotRows(ids *Node, depth int) *Node {
	return OneHot(ids, depth, dtypes.Float32)
}

// embed returns the input embeddings [N, D] of token ids [N] at positions [N].
func embed(c Config, w *Views, ids, pos *Node) *Node {
	x := MatMul(oneHotRows(ids, c.Vocab), w.W("embed/tokens"))
	if c.Positions == "learned" {
		x = Add(x, MatMul(oneHotRows(pos, c.Context), w.W("embed/positions")))
	}
	return x
}

// rotaryTables returns cos and sin of the rotary angles for positions [N] as [N, Dh/2].
func rotaryTables(c Config, pos *Node) (cos, sin *Node) {
	g := pos.Graph()
	half := c.HeadDim() / 2
	cosT := make([][]float32, c.Context)
	sinT := make([][]float32, c.Context)
	for p := 0; p < c.Context; p++ {
		cosT[p] = make([]float32, half)
		sinT[p] = make([]float32, half)
		for j := 0; j < half; j++ {
			a := float64(p) * math.Pow(10000, -2*float64(j)/float64(c.HeadDim()))
			cosT[p][j], sinT[p][j] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	oh := oneHotRows(pos, c.Context)
	return MatMul(oh, Const(g, cosT)), MatMul(oh, Const(g, sinT))
}

// rotate applies RoPE (GPT-NeoX layout: the two halves of each head are rotated as pairs) to x
// [B, H, T, Dh] with cos, sin [B, 1, T, Dh/2].
func rotate(x, cos, sin *Node) *Node {
	half := x.Shape().Dimensions[3] / 2
	x1 := SliceAxis(x, 3, AxisRange(0, half))
	x2 := SliceAxis(x, 3, AxisRange(half, 2*half))
	return Concatenate([]*Node{
		Sub(Mul(x1, cos), Mul(x2, sin)),
		Add(Mul(x2, cos), Mul(x1, sin)),
	}, 3)
}

// splitHeads turns qkv rows [B·T, 3D] into q, k, v of shape [B, H, T, Dh].
func splitHeads(c Config, qkv *Node, b, t int) (q, k, v *Node) {
	h, dh := c.Heads, c.HeadDim()
	x := Reshape(qkv, b, t, 3, h, dh)
	x = TransposeAllAxes(x, 2, 0, 3, 1, 4) // [3, B, H, T, Dh]
	q = Reshape(SliceAxis(x, 0, AxisElem(0)), b, h, t, dh)
	k = Reshape(SliceAxis(x, 0, AxisElem(1)), b, h, t, dh)
	v = Reshape(SliceAxis(x, 0, AxisElem(2)), b, h, t, dh)
	return
}

// attend computes softmax(q·kᵀ/√Dh + bias)·v for q [B,H,Tq,Dh], k, v [B,H,Tk,Dh] and an additive
// bias broadcastable to [B,H,Tq,Tk]; it returns [B,H,Tq,Dh].
func attend(q, k, v, bias *Node) *Node {
	dh := q.Shape().Dimensions[3]
	scores := MulScalar(MatMul(q, Transpose(k, 2, 3)), 1/math.Sqrt(float64(dh)))
	scores = Add(scores, bias)
	return MatMul(Softmax(scores, -1), v)
}

// Forward runs the transformer on tokens [B,T] (int32) at positions pos [B,T] (int32), where
// keyMask [B,T] (float32, 1 = real token, 0 = padding) says which positions may be attended to
// (attention is also causal). It returns logits [B,T,V] and each layer's keys and values
// [B,H,T,Dh] (to fill a KV cache).
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
		cos = Reshape(cos, b, 1, t, c.HeadDim()/2)
		sin = Reshape(sin, b, 1, t, c.HeadDim()/2)
	}
	for l := 0; l < c.Layers; l++ {
		p := layerPrefix(l)
		h := layerNorm(x, w.W(p+"ln1/gain"), w.W(p+"ln1/bias"))
		q, k, v := splitHeads(c, dense(h, w.W(p+"attn/qkv"), w.W(p+"attn/qkv_bias")), b, t)
		if cos != nil {
			q, k = rotate(q, cos, sin), rotate(k, cos, sin)
		}
		keys, values = append(keys, k), append(values, v)
		a := attend(q, k, v, bias)                                 // [B,H,T,Dh]
		a = Reshape(TransposeAllAxes(a, 0, 2, 1, 3), n, c.Dim) // [N, D]
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
// keyMask [B,Tmax] marks the valid cache columns (col included); cacheK, cacheV [L,B,H,Tmax,Dh].
// It returns logits [B,V] and the updated caches.
func DecodeStep(c Config, w *Views, tokens, pos, col, keyMask, cacheK, cacheV *Node) (logits, newK, newV *Node) {
	cd := cacheK.Shape().Dimensions
	b, tmax := cd[1], cd[3]
	h, dh := c.Heads, c.HeadDim()
	x := embed(c, w, tokens, pos) // [B, D]
	// one-hot of the written column, [1,1,Tmax,1], for the cache blend.
	oh := Reshape(OneHot(col, tmax, dtypes.Float32), 1, 1, tmax, 1)
	keep := OneMinus(oh)
	bias := Reshape(MulScalar(OneMinus(keyMask), maskValue), b, 1, 1, tmax)
	var cos, sin *Node
	if c.Positions == "rotary" {
		cos, sin = rotaryTables(c, pos)
		cos = Reshape(cos, b, 1, 1, dh/2)
		sin = Reshape(sin, b, 1, 1, dh/2)
	}
	var ks, vs []*Node
	for l := 0; l < c.Layers; l++ {
		p := layerPrefix(l)
		hh := layerNorm(x, w.W(p+"ln1/gain"), w.W(p+"ln1/bias"))
		q, k, v := splitHeads(c, dense(hh, w.W(p+"attn/qkv"), w.W(p+"attn/qkv_bias")), b, 1) // [B,H,1,Dh]
		if cos != nil {
			q, k = rotate(q, cos, sin), rotate(k, cos, sin)
		}
		lk := Reshape(SliceAxis(cacheK, 0, AxisElem(l)), b, h, tmax, dh)
		lv := Reshape(SliceAxis(cacheV, 0, AxisElem(l)), b, h, tmax, dh)
		lk = Add(Mul(lk, keep), Mul(k, oh)) // k [B,H,1,Dh] broadcast over Tmax
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

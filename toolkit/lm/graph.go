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
// The graph is split as embedder → blocks → heads: TokenEmbed (or another embedder producing
// [B·T, D]) feeds Hidden, whose hidden states feed LMHead and any extra Head the configuration
// declares; one block function serves the full forward pass and the KV-cache decode. The engine
// workarounds (ops missing on ONNX Runtime or the pure-Go engine) live in compat.go only.

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
	inv := rsqrt(AddScalar(variance, layerNormEps))
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

// TokenEmbed is the token embedder: embeddings [B·T, D] of token ids [B,T] at positions [B,T].
func TokenEmbed(c Config, w *Views, tokens, pos *Node) *Node {
	n := tokens.Shape().Size()
	return embed(c, w, Reshape(tokens, n), Reshape(pos, n))
}

// Embed is the configured embedder over a batch's named inputs: TokenEmbed of "tokens" at
// "positions", and for a patch embedder (Config.Renderer) the rendered positions ("patch_mask" 1)
// replaced by the linear embedding of their pixels ("patches" [B,T,Pixels]; an MLP with
// Config.PatchHidden) — or, with
// Config.PatchAdd, that embedding added to their token's — plus the position embedding. Output
// [B·T, D].
func Embed(c Config, w *Views, in In) *Node {
	tokens, pos := in.Get("tokens"), in.Get("positions")
	if c.Renderer == "" {
		return TokenEmbed(c, w, tokens, pos)
	}
	n := tokens.Shape().Size()
	ids, p := Reshape(tokens, n), Reshape(pos, n)
	mask := Reshape(in.Get("patch_mask"), n, 1)
	pix := dense(Reshape(in.Get("patches"), n, c.Pixels), w.W("embed/patch/w"), w.W("embed/patch/bias"))
	if c.PatchHidden > 0 {
		pix = dense(activate(c.Activation, pix), w.W("embed/patch/w2"), w.W("embed/patch/bias2"))
	}
	tok := rows(w.W("embed/tokens"), ids)
	if !c.PatchAdd {
		tok = Mul(tok, OneMinus(mask))
	}
	return addPositions(c, w, Add(tok, Mul(pix, mask)), p)
}

// embed returns the input embeddings [N, D] of token ids [N] at positions [N].
func embed(c Config, w *Views, ids, pos *Node) *Node {
	return addPositions(c, w, rows(w.W("embed/tokens"), ids), pos)
}

// addPositions adds learned position embeddings (rotary positions act in attention instead).
func addPositions(c Config, w *Views, x, pos *Node) *Node {
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

// rope holds the rotary tables of a call ([B,T,1,Dh] or [B,1,1,Dh]); nil for learned positions.
type rope struct{ cos, sin *Node }

func newRope(c Config, pos *Node, b, t int) *rope {
	if c.Positions != "rotary" {
		return nil
	}
	cos, sin := rotaryTables(c, Reshape(pos, b*t))
	return &rope{Reshape(cos, b, t, 1, c.HeadDim()), Reshape(sin, b, t, 1, c.HeadDim())}
}

// block is transformer block l (pre-LN): x [B·T, D] → x + attention, then + feed-forward. attn turns
// the block's queries, keys and values [B,T,H,Dh] into attention outputs [B,T,H,Dh]: over the
// sequence itself in the full forward pass, over the KV cache in decoding — the only difference
// between the two, so both run this one function.
func block(c Config, w *Views, l int, x *Node, b, t int, r *rope, attn func(q, k, v *Node) *Node) *Node {
	p := layerPrefix(l)
	h := layerNorm(x, w.W(p+"ln1/gain"), w.W(p+"ln1/bias"))
	q, k, v := qkv(c, w, p, h, b, t)
	if r != nil {
		q, k = rotate(q, r.cos, r.sin), rotate(k, r.cos, r.sin)
	}
	a := Reshape(attn(q, k, v), b*t, c.Dim) // [N, D]
	x = Add(x, dense(a, w.W(p+"attn/out"), w.W(p+"attn/out_bias")))
	h = layerNorm(x, w.W(p+"ln2/gain"), w.W(p+"ln2/bias"))
	h = activate(c.Activation, dense(h, w.W(p+"ff/in"), w.W(p+"ff/in_bias")))
	return Add(x, dense(h, w.W(p+"ff/out"), w.W(p+"ff/out_bias")))
}

// Hidden runs input embeddings x [B·T, D] (an embedder's output, e.g. TokenEmbed) through every
// block and the final layer norm: hidden states [B·T, D] (row b·T + t), which the heads read, and
// each layer's keys and values [B,T,H,Dh] (to fill a KV cache). keyMask [B,T] (1 = real token)
// says which positions may be attended to; attention is also causal.
func Hidden(c Config, w *Views, x, pos, keyMask *Node) (h *Node, keys, values []*Node) {
	g := x.Graph()
	dims := pos.Shape().Dimensions
	b, t := dims[0], dims[1]
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
	r := newRope(c, pos, b, t)
	for l := 0; l < c.Layers; l++ {
		x = block(c, w, l, x, b, t, r, func(q, k, v *Node) *Node {
			keys, values = append(keys, k), append(values, v)
			return attend(q, k, v, bias)
		})
	}
	return finalNorm(w, x), keys, values
}

// finalNorm is the layer norm after the last block.
func finalNorm(w *Views, x *Node) *Node {
	return layerNorm(x, w.W("final_ln/gain"), w.W("final_ln/bias"))
}

// LMHead is the next-token head: logits [N, V] of hidden states [N, D] (PAD and BOS never
// predicted).
func LMHead(c Config, w *Views, h *Node) *Node {
	return Add(MatMul(h, w.W("unembed")), neverPredicted(h.Graph(), c, 2))
}

// Head is the extra head name declared in the configuration (Config.ExtraHeads): outputs
// [N, Out] = h·W + b of hidden states [N, D].
func Head(c Config, w *Views, name string, h *Node) *Node {
	return dense(h, w.W("heads/"+name+"/w"), w.W("heads/"+name+"/bias"))
}

// HeadWithFeatures is Head plus features [N, Features] read by the head's feature weights:
// h·W + f·F + b (HeadSpec.Features).
func HeadWithFeatures(c Config, w *Views, name string, h, f *Node) *Node {
	return Add(Head(c, w, name, h), MatMul(f, w.W("heads/"+name+"/features")))
}

// Forward runs the transformer on a batch's named inputs: "tokens" [B,T] (int32) at "positions"
// [B,T] (int32), where "key_mask" [B,T] (float32, 1 = real token, 0 = padding) says which positions
// may be attended to (attention is also causal), plus the embedder's inputs (Config.EmbedInputs).
// It returns logits [B,T,V] and each layer's keys and values [B,T,H,Dh] (to fill a KV cache). It is
// Embed → Hidden → LMHead.
func Forward(c Config, w *Views, in In) (logits *Node, keys, values []*Node) {
	tokens, pos := in.Get("tokens"), in.Get("positions")
	dims := tokens.Shape().Dimensions
	b, t := dims[0], dims[1]
	h, keys, values := Hidden(c, w, Embed(c, w, in), pos, in.Get("key_mask"))
	return Reshape(LMHead(c, w, h), b, t, c.Vocab), keys, values
}

func layerPrefix(l int) string { return "layer" + strconv.Itoa(l) + "/" }

// DecodeStep runs one token per row through the model using a KV cache. tokens, pos [B] (int32) are
// the new tokens and their positions; col (scalar int32) is the cache column they are written to;
// keyMask [B,Tmax] marks the valid cache columns (col included); cacheK, cacheV [L,B,Tmax,H,Dh].
// It returns logits [B,V] and the updated caches.
func DecodeStep(c Config, w *Views, tokens, pos, col, keyMask, cacheK, cacheV *Node) (logits, newK, newV *Node) {
	cd := cacheK.Shape().Dimensions
	b, tmax := cd[1], cd[2]
	x := embed(c, w, tokens, pos) // [B, D]
	bias := Reshape(MulScalar(OneMinus(keyMask), maskValue), b, 1, 1, tmax)
	r := newRope(c, pos, b, 1)
	var ks, vs []*Node
	for l := 0; l < c.Layers; l++ {
		x = block(c, w, l, x, b, 1, r, func(q, k, v *Node) *Node {
			lk := cacheWrite(cacheK, l, k, col) // [B,Tmax,H,Dh]
			lv := cacheWrite(cacheV, l, v, col)
			ks, vs = append(ks, InsertAxes(lk, 0)), append(vs, InsertAxes(lv, 0))
			return attend(q, lk, lv, bias)
		})
	}
	return LMHead(c, w, finalNorm(w, x)), Concatenate(ks, 0), Concatenate(vs, 0)
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

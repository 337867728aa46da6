package lm

import (
	"os"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/nn"
)

// BenchmarkLeverPerTensorAdam measures the flat-vector optimizer lever: the same SFT step with Adam
// applied per weight tensor (what a per-variable optimizer does: one set of update ops per tensor)
// instead of once on the flat vector. Run by bench/levers.sh; not part of the R benchmark.
func BenchmarkLeverPerTensorAdam(b *testing.B) {
	if os.Getenv("PAPERLAB_LEVERS") == "" {
		b.Skip("set PAPERLAB_LEVERS=1")
	}
	m, data := benchModel(b)
	c, l, opt := m.Config, m.Layout, DefaultOpt(3e-3)
	exec := MustNewExec(m.Backend(), func(g *Graph, in []*Node) []*Node {
		flat, mm, vv, lr, bc1, bc2, decay := in[0], in[1], in[2], in[3], in[4], in[5], in[6]
		w := NewViews(l, flat)
		loss, _ := SFTLoss.Fn(c, w, NamedIn(SFTLoss.Inputs, in[7:]))
		grads := Gradient(loss, w.Nodes()...)
		var ps, ms, vs []*Node
		for i, t := range l.Tensors {
			sl := func(x *Node) *Node { return Slice(x, AxisRange(t.Offset, t.Offset+t.Size())) }
			np, nm, nv, _ := nn.AdamUpdate(opt, sl(flat), sl(mm), sl(vv), Reshape(grads[i], t.Size()), lr, bc1, bc2, sl(decay))
			ps, ms, vs = append(ps, np), append(ms, nm), append(vs, nv)
		}
		return []*Node{Concatenate(ps, 0), Concatenate(ms, 0), Concatenate(vs, 0), loss}
	})
	p, _ := Pack(data[:64], c.Context, true)
	zeros := make([]float32, l.Size)
	args := append([]any{m.Params, tensors.FromFlatDataAndDimensions(zeros, l.Size), tensors.FromFlatDataAndDimensions(zeros, l.Size),
		float32(3e-3), float32(0.1), float32(0.001), tensors.FromFlatDataAndDimensions(l.DecayMask(), l.Size)}, p.Tensors()...)
	for i := 0; i < 3; i++ {
		exec.MustCall(args...)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, o := range exec.MustCall(args...) {
			o.FinalizeAll()
		}
	}
}

package overcooked

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"math/rand/v2"
	"testing"
)

// TestGIFFramesReplayExactly: decoding the GIF and painting each (cropped) frame over the previous
// picture gives back every state's picture, pixel for pixel.
func TestGIFFramesReplayExactly(t *testing.T) {
	l, _ := ParseLayout("cramped_room", Layouts["cramped_room"])
	s := NewState(l)
	r := DefaultRules()
	rng := rand.New(rand.NewPCG(1, 1))
	g := Scripted{Role: "greedy"}
	var states []*State
	for k := 0; k < 60; k++ {
		s.Step([2]int{g.Act(s, 0, r, rng), g.Act(s, 1, r, rng)}, r)
		states = append(states, s.Clone())
	}
	b, err := GIF(states, r, 8, 2)
	if err != nil {
		t.Fatal(err)
	}
	anim, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil || len(anim.Image) != len(states) {
		t.Fatalf("decoded %d frames (%v), want %d", len(anim.Image), err, len(states))
	}
	canvas := image.NewRGBA(anim.Image[0].Bounds())
	for k, fr := range anim.Image {
		draw.Draw(canvas, fr.Bounds(), fr, fr.Bounds().Min, draw.Src)
		want := Upscale(states[k].Image(r), 2)
		for y := 0; y < canvas.Bounds().Dy(); y++ {
			for x := 0; x < canvas.Bounds().Dx(); x++ {
				if color.RGBAModel.Convert(want.At(x, y)) != canvas.At(x, y) {
					t.Fatalf("frame %d differs at (%d, %d)", k, x, y)
				}
			}
		}
	}
}

package anim

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"testing"
)

// frames is a red square moving across a white 16 × 8 picture (both colours in Plan 9's palette).
func frames() []image.Image {
	var out []image.Image
	for k := 0; k < 3; k++ {
		img := image.NewRGBA(image.Rect(0, 0, 16, 8))
		draw.Draw(img, img.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
		draw.Draw(img, image.Rect(4*k, 2, 4*k+4, 6), &image.Uniform{color.RGBA{255, 0, 0, 255}}, image.Point{}, draw.Src)
		out = append(out, img)
	}
	return out
}

// TestGIFReplaysFrames: painting each decoded frame over the one before gives back every picture,
// with the exact two-colour palette and cropped frames by default, and whole frames with Whole.
func TestGIFReplaysFrames(t *testing.T) {
	src := frames()
	for _, o := range []Options{{}, {Palette: palette.Plan9, Whole: true}} {
		b, err := GIF(src, []int{5, 5, 20}, o)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gif.DecodeAll(bytes.NewReader(b))
		if err != nil || len(g.Image) != 3 || g.Delay[2] != 20 {
			t.Fatalf("decoded %v frames, err %v", len(g.Image), err)
		}
		if o.Palette == nil && len(g.Image[0].Palette) != 2 {
			t.Errorf("palette of %d colours, want 2", len(g.Image[0].Palette))
		}
		if whole := g.Image[1].Bounds() == src[1].Bounds(); whole != o.Whole {
			t.Errorf("Whole %v: second frame %v", o.Whole, g.Image[1].Bounds())
		}
		canvas := image.NewRGBA(src[0].Bounds())
		for k, fr := range g.Image {
			draw.Draw(canvas, fr.Bounds(), fr, fr.Bounds().Min, draw.Src)
			for y := 0; y < 8; y++ {
				for x := 0; x < 16; x++ {
					if color.RGBAModel.Convert(src[k].At(x, y)) != canvas.At(x, y) {
						t.Fatalf("Whole %v: frame %d differs at (%d, %d)", o.Whole, k, x, y)
					}
				}
			}
		}
	}
	if _, err := GIF(nil, nil, Options{}); err == nil {
		t.Error("no frames: no error")
	}
	if _, err := GIF(src, []int{1}, Options{}); err == nil {
		t.Error("too few delays: no error")
	}
}

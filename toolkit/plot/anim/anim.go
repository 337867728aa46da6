// Package anim encodes animated GIFs of rendered frames — the environments' episode replays — with
// the standard library alone, so plain-Go environments can use it without the plotting or GoMLX
// packages.
package anim

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
)

// Options tune GIF.
type Options struct {
	// Palette, when set, is the palette every frame is mapped to (nearest colour, no dithering).
	// Nil: exactly the colours the frames use, in order of first appearance — flat-colour
	// pictures have few, and dithering would scatter noise that LZW cannot compress — or Plan 9's
	// palette if there are over 256.
	Palette color.Palette
	// Whole writes every frame in full. By default each frame after the first holds only the
	// rectangle that changed, drawn over the frame before (disposal "none").
	Whole bool
}

// GIF encodes frames (all of the same bounds) as an animated GIF showing frame i for delays[i]
// hundredths of a second.
func GIF(frames []image.Image, delays []int, o Options) ([]byte, error) {
	if len(frames) == 0 {
		return nil, fmt.Errorf("anim: no frames")
	}
	if len(delays) != len(frames) {
		return nil, fmt.Errorf("anim: %d delays for %d frames", len(delays), len(frames))
	}
	pal := o.Palette
	if pal == nil {
		pal = usedColors(frames)
	}
	anim := &gif.GIF{}
	var prev *image.Paletted
	for i, src := range frames {
		p := image.NewPaletted(src.Bounds(), pal)
		draw.Draw(p, src.Bounds(), src, image.Point{}, draw.Src)
		frame := p
		if prev != nil && !o.Whole { // only the rectangle that changed; the rest stays from the frame before
			frame = p.SubImage(changed(prev, p)).(*image.Paletted)
		}
		anim.Image = append(anim.Image, frame)
		anim.Delay = append(anim.Delay, delays[i])
		if !o.Whole {
			anim.Disposal = append(anim.Disposal, gif.DisposalNone)
		}
		prev = p
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// usedColors is the colours of frames in order of first appearance (row by row), or Plan 9's
// palette when there are over 256.
func usedColors(frames []image.Image) color.Palette {
	seen := map[color.RGBA]bool{}
	var pal color.Palette
	for _, f := range frames {
		b := f.Bounds()
		for y := b.Min.Y; y < b.Max.Y && len(pal) <= 256; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.RGBAModel.Convert(f.At(x, y)).(color.RGBA)
				if !seen[c] {
					seen[c] = true
					pal = append(pal, c)
				}
			}
		}
	}
	if len(pal) > 256 {
		return palette.Plan9
	}
	return pal
}

// changed is the smallest rectangle holding every pixel that differs between a and b (same bounds);
// one pixel when nothing changed (a GIF frame cannot be empty).
func changed(a, b *image.Paletted) image.Rectangle {
	r := b.Bounds()
	minX, minY, maxX, maxY := r.Max.X, r.Max.Y, r.Min.X, r.Min.Y
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.ColorIndexAt(x, y) != b.ColorIndexAt(x, y) {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x+1), max(maxY, y+1)
			}
		}
	}
	if minX >= maxX {
		return image.Rect(r.Min.X, r.Min.Y, r.Min.X+1, r.Min.Y+1)
	}
	return image.Rect(minX, minY, maxX, maxY)
}

package gridworld

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/png"

	"github.com/paperlab/paperlab/toolkit/plot/anim"
)

// cellColors are the picture's colours of each cell kind (the agent is drawn on top in black, with
// a yellow dot while it carries the key).
var cellColors = map[Cell]color.RGBA{
	Floor: {245, 245, 240, 255}, Wall: {90, 90, 90, 255}, GoalRed: {220, 50, 47, 255}, GoalGreen: {60, 170, 60, 255},
	GoalBlue: {40, 100, 220, 255}, Key: {240, 190, 20, 255}, Door: {150, 90, 40, 255},
}

// Image draws the world with cell×cell-pixel tiles: walls grey, goals in their colours (the target
// framed in black), the key yellow, the door brown, the agent a black disc.
func Image(w *World, cell int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, Size*cell, Size*cell))
	_, tx, ty := w.Target()
	ax, ay := w.Agent()
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			r := image.Rect(x*cell, y*cell, (x+1)*cell, (y+1)*cell)
			draw.Draw(img, r, &image.Uniform{cellColors[w.CellAt(x, y)]}, image.Point{}, draw.Src)
			if x == tx && y == ty { // frame the target goal
				for i := 0; i < cell; i++ {
					for _, p := range [][2]int{{i, 0}, {i, 1}, {i, cell - 1}, {i, cell - 2}, {0, i}, {1, i}, {cell - 1, i}, {cell - 2, i}} {
						img.Set(x*cell+p[0], y*cell+p[1], color.Black)
					}
				}
			}
		}
	}
	c, rad := float64(cell)/2, float64(cell)*0.32
	for dy := 0; dy < cell; dy++ {
		for dx := 0; dx < cell; dx++ {
			if (float64(dx)-c+0.5)*(float64(dx)-c+0.5)+(float64(dy)-c+0.5)*(float64(dy)-c+0.5) <= rad*rad {
				img.Set(ax*cell+dx, ay*cell+dy, color.RGBA{20, 20, 20, 255})
			}
		}
	}
	if w.Carrying() {
		draw.Draw(img, image.Rect(ax*cell+cell/2-2, ay*cell+cell/2-2, ax*cell+cell/2+2, ay*cell+cell/2+2), &image.Uniform{cellColors[Key]}, image.Point{}, draw.Src)
	}
	return img
}

// Replay regenerates the world of (task, seed) and plays actions with embodiment e, returning the
// world before the first action and after each one.
func Replay(task Task, seed uint64, e Embodiment, actions []int) ([]*World, error) {
	w, err := Generate(task, seed)
	if err != nil {
		return nil, err
	}
	frames := []*World{w.Clone()}
	for _, a := range actions {
		if w.Done() {
			break
		}
		w.Step(e, a)
		frames = append(frames, w.Clone())
	}
	return frames, nil
}

// GIF animates frames (delay in hundredths of a second per frame; the last frame held 4× longer),
// each frame whole in Plan 9's palette (anim.GIF).
func GIF(frames []*World, cell, delay int) ([]byte, error) {
	imgs := make([]image.Image, len(frames))
	delays := make([]int, len(frames))
	for i, w := range frames {
		imgs[i], delays[i] = Image(w, cell), delay
	}
	if len(delays) > 0 {
		delays[len(delays)-1] *= 4
	}
	return anim.GIF(imgs, delays, anim.Options{Palette: palette.Plan9, Whole: true})
}

// PNG encodes Image(w, cell).
func PNG(w *World, cell int) ([]byte, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, Image(w, cell)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

package smax

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/paperlab/paperlab/toolkit/plot/anim"
)

// Colours of the drawing: allies blue, enemies red, the dead grey; a shot is a line from the
// shooter to its target in the shooter's colour.
var (
	allyColor  = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	enemyColor = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	deadColor  = color.RGBA{0xb0, 0xb0, 0xb0, 0xff}
	hpBack     = color.RGBA{0x40, 0x40, 0x40, 0xff}
	hpFront    = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	background = color.RGBA{0xf4, 0xf1, 0xe8, 0xff}
)

// View is the part of the map a drawing shows: x in [X0, X1), y in [Y0, Y1).
type View struct{ X0, Y0, X1, Y1 float32 }

// Image draws the whole map of s at scale pixels per map unit (ImageIn).
func (e *Env) Image(s *State, scale int) *image.RGBA {
	return e.ImageIn(s, View{0, 0, e.Cfg.MapWidth, e.Cfg.MapHeight}, scale)
}

// ImageIn draws the view v of s at scale pixels per map unit (y up): each unit a disc of its
// radius (at least 3 pixels) with a health bar above it, a dead unit a grey cross, and each live
// unit's last attack on a live target as a line.
func (e *Env) ImageIn(s *State, v View, scale int) *image.RGBA {
	w, h := int((v.X1-v.X0)*float32(scale)), int((v.Y1-v.Y0)*float32(scale))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{background}, image.Point{}, draw.Src)
	px := func(p [2]float32) (int, int) {
		return int((p[0] - v.X0) * float32(scale)), h - 1 - int((p[1]-v.Y0)*float32(scale))
	}
	for i := range e.N() {
		a := s.PrevAttack[i]
		if !s.Alive[i] || a < NumMoves {
			continue
		}
		j := e.target(i, a)
		if j < 0 || j >= e.N() || !s.Alive[j] {
			continue
		}
		c := allyColor
		if i >= e.Sc.Allies {
			c = enemyColor
		}
		x0, y0 := px(s.Pos[i])
		x1, y1 := px(s.Pos[j])
		line(img, x0, y0, x1, y1, c)
	}
	for i := range e.N() {
		x, y := px(s.Pos[i])
		if !s.Alive[i] {
			for d := -3; d <= 3; d++ {
				img.Set(x+d, y+d, deadColor)
				img.Set(x+d, y-d, deadColor)
			}
			continue
		}
		c := allyColor
		if i >= e.Sc.Allies {
			c = enemyColor
		}
		u := Units[s.Types[i]]
		r := max(3, int(u.Radius*float32(scale)))
		disc(img, x, y, r, c)
		bar := 2 * r
		fill := int(math.Round(float64(bar) * float64(s.Health[i]/u.Health)))
		for dx := 0; dx < bar; dx++ {
			c := hpBack
			if dx < fill {
				c = hpFront
			}
			img.Set(x-r+dx, y-r-3, c)
			img.Set(x-r+dx, y-r-4, c)
		}
	}
	return img
}

func disc(img *image.RGBA, cx, cy, r int, c color.Color) {
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if dx*dx+dy*dy <= r*r {
				img.Set(cx+dx, cy+dy, c)
			}
		}
	}
}

// line draws a straight line (Bresenham).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	err := dx + dy
	for {
		img.Set(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * err
		if e2 >= dy {
			err += dy
			x0 += sx
		}
		if e2 <= dx {
			err += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// GIF encodes a battle's states as an animated GIF, delay hundredths of a second per frame, scale
// pixels per map unit, showing the box around every unit of every state with a margin of 2 map
// units (within the map).
func (e *Env) GIF(states []*State, delay, scale int) ([]byte, error) {
	if len(states) == 0 {
		return nil, fmt.Errorf("smax: no frames")
	}
	if scale < 1 {
		return nil, fmt.Errorf("smax: GIF scale %d, want ≥ 1", scale)
	}
	v := View{e.Cfg.MapWidth, e.Cfg.MapHeight, 0, 0}
	for _, s := range states {
		for _, p := range s.Pos {
			v.X0, v.Y0, v.X1, v.Y1 = min(v.X0, p[0]), min(v.Y0, p[1]), max(v.X1, p[0]), max(v.Y1, p[1])
		}
	}
	v = View{max(0, float32(math.Floor(float64(v.X0)))-2), max(0, float32(math.Floor(float64(v.Y0)))-2),
		min(e.Cfg.MapWidth, float32(math.Ceil(float64(v.X1)))+2), min(e.Cfg.MapHeight, float32(math.Ceil(float64(v.Y1)))+2)}
	frames, delays := make([]image.Image, len(states)), make([]int, len(states))
	for k, s := range states {
		frames[k], delays[k] = e.ImageIn(s, v, scale), delay
	}
	return anim.GIF(frames, delays, anim.Options{})
}

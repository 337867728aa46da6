package overcooked

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"

	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/plot/anim"
)

var heldChar = map[Object]byte{Nothing: ' ', OnionObj: 'o', DishObj: 'd', SoupObj: 's', TomatoObj: 't'}
var dirChar = []byte{'^', 'v', '>', '<'}

// ASCII draws the state with 3 characters per cell: players as "1^o" (index, facing, held object:
// o onion, d dish, s soup), pots as "P2 " (idle with 2 onions), "C7 " (cooking, 7 ticks left) or
// "R! " (ready), counters as "X" plus the object on them.
func (s *State) ASCII(r Rules) string {
	l := s.Layout
	var b strings.Builder
	fmt.Fprintf(&b, "t=%d\n", s.Timestep)
	for y := 0; y < l.H; y++ {
		for x := 0; x < l.W; x++ {
			p := Pos{x, y}
			cell := "   "
			switch t := l.Grid[y][x]; t {
			case Counter:
				cell = "X" + string(heldChar[s.Counters[p]]) + " "
			case Pot:
				pot := s.Pots[p]
				switch {
				case pot.Ready(r.CookTime):
					cell = "R! "
				case pot.Cooking(r.CookTime):
					left := r.CookTime - pot.Tick
					if left > 9 {
						cell = "C+ "
					} else {
						cell = fmt.Sprintf("C%d ", left)
					}
				default:
					cell = fmt.Sprintf("P%d ", pot.Onions)
				}
			case Floor:
			default:
				cell = string(t) + "  "
			}
			for i, pl := range s.Players {
				if pl.Pos == p {
					cell = string([]byte{byte('1' + i), dirChar[pl.Dir], heldChar[pl.Holding]})
				}
			}
			b.WriteString(cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Render implements env.Renderer: the episode's game as ASCII ("" for a state that is not e's).
func (e *Env) Render(s env.State) string {
	ep, err := e.episode(s)
	if err != nil {
		return ""
	}
	return ep.Game.ASCII(e.Cfg.Rules)
}

const tile = 32

var (
	colFloor   = color.RGBA{235, 230, 220, 255}
	colCounter = color.RGBA{160, 120, 80, 255}
	colPot     = color.RGBA{70, 70, 70, 255}
	colOnion   = color.RGBA{230, 200, 40, 255}
	colDishD   = color.RGBA{170, 200, 230, 255}
	colServe   = color.RGBA{90, 180, 90, 255}
	colDish    = color.RGBA{250, 250, 250, 255}
	colSoup    = color.RGBA{230, 120, 30, 255}
	colPlayers = []color.RGBA{{40, 90, 200, 255}, {200, 50, 50, 255}}
)

func fill(img *image.RGBA, x0, y0, w, h int, c color.Color) {
	draw.Draw(img, image.Rect(x0, y0, x0+w, y0+h), &image.Uniform{c}, image.Point{}, draw.Src)
}

func disc(img *image.RGBA, cx, cy, r int, c color.Color) {
	for y := -r; y <= r; y++ {
		for x := -r; x <= r; x++ {
			if x*x+y*y <= r*r {
				img.Set(cx+x, cy+y, c)
			}
		}
	}
}

// Image draws the state as a picture (32 pixels per cell): terrain colours, onions in pots as dots,
// a cooking bar, objects on counters, players as coloured discs with a facing mark and the held object.
func (s *State) Image(r Rules) *image.RGBA {
	l := s.Layout
	img := image.NewRGBA(image.Rect(0, 0, l.W*tile, l.H*tile))
	object := func(o Object, cx, cy, rad int) {
		switch o {
		case OnionObj:
			disc(img, cx, cy, rad, colOnion)
		case DishObj:
			disc(img, cx, cy, rad, colDish)
		case SoupObj:
			disc(img, cx, cy, rad, colDish)
			disc(img, cx, cy, rad*2/3, colSoup)
		}
	}
	for y := 0; y < l.H; y++ {
		for x := 0; x < l.W; x++ {
			x0, y0 := x*tile, y*tile
			p := Pos{x, y}
			switch l.Grid[y][x] {
			case Floor:
				fill(img, x0, y0, tile, tile, colFloor)
			case Counter:
				fill(img, x0, y0, tile, tile, colCounter)
				object(s.Counters[p], x0+tile/2, y0+tile/2, tile/4)
			case Pot:
				fill(img, x0, y0, tile, tile, colPot)
				pot := s.Pots[p]
				for k := 0; k < pot.Onions; k++ {
					disc(img, x0+6+k*10, y0+10, 4, colOnion)
				}
				if !pot.Idle() {
					w := tile * min(pot.Tick, r.CookTime) / r.CookTime
					c := colSoup
					if pot.Ready(r.CookTime) {
						c = colServe
					}
					fill(img, x0+2, y0+tile-8, w-2, 5, c)
				}
			case Onion:
				fill(img, x0, y0, tile, tile, colCounter)
				disc(img, x0+tile/2, y0+tile/2, tile/3, colOnion)
			case Dish:
				fill(img, x0, y0, tile, tile, colDishD)
			case Serve:
				fill(img, x0, y0, tile, tile, colServe)
			default:
				fill(img, x0, y0, tile, tile, colCounter)
			}
		}
	}
	for i, pl := range s.Players {
		cx, cy := pl.Pos.X*tile+tile/2, pl.Pos.Y*tile+tile/2
		disc(img, cx, cy, tile/3, colPlayers[i])
		d := Directions[pl.Dir]
		disc(img, cx+d.X*tile/3, cy+d.Y*tile/3, 3, color.Black)
		object(pl.Holding, cx, cy, tile/6)
	}
	return img
}

// Upscale enlarges an image by an integer factor, nearest neighbour (tiles stay crisp).
func Upscale(src image.Image, k int) image.Image {
	if k <= 1 {
		return src
	}
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx()*k, b.Dy()*k))
	for y := 0; y < b.Dy()*k; y++ {
		for x := 0; x < b.Dx()*k; x++ {
			dst.Set(x, y, src.At(b.Min.X+x/k, b.Min.Y+y/k))
		}
	}
	return dst
}

// PNG encodes the state's picture.
func (s *State) PNG(r Rules) ([]byte, error) {
	var buf bytes.Buffer
	err := png.Encode(&buf, s.Image(r))
	return buf.Bytes(), err
}

// GIF encodes a sequence of states as an animated GIF (delay in hundredths of a second per frame),
// each pixel drawn as a scale × scale block (scale ≥ 1; 3 makes cramped_room 480 × 384), with the
// exact colours used and each frame after the first only the rectangle that changed (anim.GIF).
func GIF(states []*State, r Rules, delay, scale int) ([]byte, error) {
	if len(states) == 0 {
		return nil, fmt.Errorf("overcooked: no frames")
	}
	if scale < 1 {
		return nil, fmt.Errorf("overcooked: GIF scale %d, want ≥ 1", scale)
	}
	frames := make([]image.Image, len(states))
	delays := make([]int, len(states))
	for k, s := range states {
		frames[k], delays[k] = Upscale(s.Image(r), scale), delay
	}
	return anim.GIF(frames, delays, anim.Options{})
}

package arith

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// The vision stand-in of the CoS task (CoS is about VLMs; toolkit/exp/cos/README.md): a problem statement drawn as
// a strip of GlyphW×GlyphH pixel glyphs, one per character, each photographed with noise. A patch
// embedder reads one glyph cell per patch.
const (
	GlyphW, GlyphH = 3, 5
	GlyphPixels    = GlyphW * GlyphH
	// GlyphSigma is the standard deviation of the Gaussian noise added to every pixel (ink 1, paper
	// 0) and GlyphFlip the probability that a pixel is inverted first [our stand-in's choice: enough
	// noise that a glyph is not a fixed vector, little enough that a linear patch embedding reads it].
	GlyphSigma = 0.2
	GlyphFlip  = 0.005
)

// font is a 3×5 bitmap per character, rows top to bottom.
var font = map[rune][GlyphH]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"},
	'1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"},
	'3': {"###", "..#", ".##", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"},
	'5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"},
	'7': {"###", "..#", ".#.", ".#.", ".#."},
	'8': {"###", "#.#", "###", "#.#", "###"},
	'9': {"###", "#.#", "###", "..#", "###"},
	'+': {"...", ".#.", "###", ".#.", "..."},
	'-': {"...", "...", "###", "...", "..."},
	'*': {"...", "#.#", ".#.", "#.#", "..."},
	'?': {"###", "..#", ".##", "...", ".#."},
	',': {"...", "...", "...", ".#.", "#.."},
}

// Glyph returns the clean pixels of a character (row-major, ink 1, paper 0).
func Glyph(ch rune) ([]float32, error) {
	rows, ok := font[ch]
	if !ok {
		return nil, fmt.Errorf("arith: no glyph for %q", ch)
	}
	px := make([]float32, 0, GlyphPixels)
	for _, row := range rows {
		for _, c := range row {
			if c == '#' {
				px = append(px, 1)
			} else {
				px = append(px, 0)
			}
		}
	}
	return px, nil
}

// RenderStatement draws the statement of a prompt — its characters before the '=' — as noisy glyphs,
// one pixel vector per character. The noise is a function of the statement alone (the same problem
// is always the same photograph; two problems are two photographs).
func RenderStatement(statement string) ([][]float32, error) {
	h := fnv.New64a()
	h.Write([]byte(statement))
	r := rand.New(rand.NewPCG(h.Sum64(), 0x676c79 /* "gly" */))
	out := make([][]float32, 0, len(statement))
	for _, ch := range statement {
		px, err := Glyph(ch)
		if err != nil {
			return nil, err
		}
		for i := range px {
			if r.Float64() < GlyphFlip {
				px[i] = 1 - px[i]
			}
			px[i] += float32(r.NormFloat64() * GlyphSigma)
		}
		out = append(out, px)
	}
	return out, nil
}

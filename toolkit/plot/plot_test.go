package plot

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestFiguresRenderAndSave(t *testing.T) {
	dir := t.TempDir()
	x := []float64{0, 1, 2, 3}
	figs := map[string]func() (*Figure, error){
		"curves": func() (*Figure, error) {
			return Curves("c", "step", "v", []Series{{Name: "a", X: x, Y: [][]float64{{0, 1, 2, 3}, {1, 2, 3, 4}}}, {Name: "b", X: x, Y: [][]float64{{3, 2, 1, 0}}}})
		},
		"reliability": func() (*Figure, error) {
			return Reliability("r", []ReliabilityBin{{Lo: 0, Hi: 0.5, MeanConf: 0.3, Accuracy: 0.2, Count: 3}, {Lo: 0.5, Hi: 1, MeanConf: 0.8, Accuracy: 0.9, Count: 7}})
		},
		"pc": func() (*Figure, error) {
			return PrecisionCoverage("pc", []XYCurve{{Name: "a", X: []float64{0.5, 1}, Y: []float64{1, 0.7}}})
		},
		"bars": func() (*Figure, error) {
			return Bars("b", "v", []string{"g1", "g2"}, []string{"s1", "s2"}, [][]float64{{1, 2}, {3, 4}}, [][]float64{{0.1, 0.2}, {0.3, 0.4}})
		},
		"heat": func() (*Figure, error) {
			return Heatmap("h", "x", "y", [][]float64{{1, 2}, {3, 4}}, []string{"r1", "r2"}, []string{"c1", "c2"})
		},
	}
	for name, mk := range figs {
		f, err := mk()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		paths, err := f.Save(dir, name)
		if err != nil || len(paths) != 2 {
			t.Fatalf("%s: Save = %v, %v", name, paths, err)
		}
		svg, _ := os.ReadFile(filepath.Join(dir, name+".svg"))
		png, _ := os.ReadFile(filepath.Join(dir, name+".png"))
		if !bytes.Contains(svg, []byte("<svg")) || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Fatalf("%s: output is not SVG/PNG", name)
		}
	}
}

func TestBadInputIsAnError(t *testing.T) {
	if _, err := Curves("c", "", "", []Series{{Name: "a", X: []float64{0, 1}, Y: [][]float64{{1}}}}); err == nil {
		t.Error("mismatched series accepted")
	}
	if _, err := Heatmap("h", "", "", [][]float64{{1, 2}}, []string{"r"}, []string{"c"}); err == nil {
		t.Error("mismatched heatmap labels accepted")
	}
	if _, err := Reliability("r", nil); err == nil {
		t.Error("empty reliability diagram accepted")
	}
}

func TestMeanStd(t *testing.T) {
	m, s := MeanStd([][]float64{{1, math.NaN()}, {3, 4}})
	if m[0] != 2 || s[0] != 1 || m[1] != 4 || s[1] != 0 {
		t.Fatalf("mean %v std %v", m, s)
	}
}

package plot

import (
	"bytes"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/stats"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestFiguresRenderAndSave(t *testing.T) {
	dir := t.TempDir()
	x := []float64{0, 1, 2, 3}
	figs := map[string]func() (*Figure, error){
		"curves": func() (*Figure, error) {
			return Curves("c", "step", "v", []Series{{Name: "a", X: x, Y: [][]float64{{0, 1, 2, 3}, {1, 2, 3, 4}}}, {Name: "b", X: x, Y: [][]float64{{3, 2, 1, 0}}}}, BandOpts{EMA: 0.5})
		},
		"panels-log": func() (*Figure, error) {
			return Panels("p", "steps", "v", []Panel{{Title: "one", Series: []Series{{Name: "a", X: []float64{0, 10, 100}, Y: [][]float64{{0, 1, 2}, {1, 2, 2}}}}},
				{Title: "two", Series: []Series{{Name: "b", X: []float64{2, 20, 200}, Y: [][]float64{{0, 1, 2}, {1, 2, 3}}}}}}, BandOpts{LogX: true})
		},
		"panels-loglog": func() (*Figure, error) {
			// A seed with a negative value pulls the lower band edge below 0; a zero mean is dropped.
			return Panels("p", "p", "variance", []Panel{{Title: "one", Series: []Series{{Name: "a", X: []float64{0, 0.1, 1}, Y: [][]float64{{0, 0.01, 1}, {0, -0.005, 2}}}}}},
				BandOpts{LogX: true, LogY: true})
		},
		"reliability": func() (*Figure, error) {
			return Reliability("r", []ReliabilityBin{{Lo: 0, Hi: 0.5, MeanConf: 0.3, Accuracy: 0.2, Count: 3}, {Lo: 0.5, Hi: 1, MeanConf: 0.8, Accuracy: 0.9, Count: 7}}, nil)
		},
		"pc": func() (*Figure, error) {
			return PrecisionCoverage("pc", []XYCurve{{Name: "a", X: []float64{0.5, 1}, Y: []float64{1, 0.7}}, {Name: "b", X: []float64{1}, Y: []float64{0.6}}})
		},
		"dots": func() (*Figure, error) {
			return Dots("d", []Metric{{Title: "AUC", Better: HigherIsBetter, Prob: true, Estimates: []Estimate{{Label: "s1", Mean: 0.9, Lo: 0.85, Hi: 0.95}, {Label: "s2", Mean: 0.93, Lo: math.NaN(), Hi: math.NaN()}}},
				{Title: "ECE", Better: LowerIsBetter, Prob: true, Estimates: []Estimate{{Label: "s1", Mean: 0.1, Lo: 0.05, Hi: 0.15}, {Label: "s2", Mean: 0.2, Lo: 0.1, Hi: 0.3}}}})
		},
		"points": func() (*Figure, error) {
			return Points("p", "x", "y", []Point{{Label: "a", X: 1, Y: 0.5, XLo: 0.8, XHi: 1.2, YLo: 0.2, YHi: 0.9}, {Label: "b", X: 2, Y: 0.7, XLo: math.NaN(), XHi: math.NaN(), YLo: 0.6, YHi: 0.8}}, true)
		},
		"heat": func() (*Figure, error) {
			return Heatmap("h", "x", "y", "z", [][]float64{{1, 2}, {3, math.NaN()}}, []string{"r1", "r2"}, []string{"c1", "c2"})
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
	if _, err := Curves("c", "", "", []Series{{Name: "a", X: []float64{0, 1}, Y: [][]float64{{1}}}}, BandOpts{}); err == nil {
		t.Error("mismatched series accepted")
	}
	if _, err := Heatmap("h", "", "", "", [][]float64{{1, 2}}, []string{"r"}, []string{"c"}); err == nil {
		t.Error("mismatched heatmap labels accepted")
	}
	if _, err := Reliability("r", nil, nil); err == nil {
		t.Error("empty reliability diagram accepted")
	}
	var five []Series
	for i := 0; i < MaxBands+1; i++ {
		five = append(five, Series{Name: string(rune('a' + i)), X: []float64{0, 1}, Y: [][]float64{{0, 1}, {1, 0}}})
	}
	if _, err := Curves("c", "", "", five, BandOpts{}); err == nil {
		t.Errorf("a panel with %d bands accepted", len(five))
	}
	if _, err := Dots("d", []Metric{{Title: "a", Estimates: []Estimate{{Label: "x"}}}, {Title: "b", Estimates: []Estimate{{Label: "y"}}}}); err == nil {
		t.Error("dot panels with different rows accepted")
	}
}

// The band is the 95 % t-interval of the mean over seeds, not ±1 std, and probabilities stay in [0, 1].
func TestBandIsTIntervalClippedForProbabilities(t *testing.T) {
	ys := [][]float64{{0.2, 0.9, 1}, {0.4, 1, 1}, {0.6, 0.95, math.NaN()}}
	mean, lo, hi, n := Band(ys, false)
	sd := 0.2 // sample std of 0.2, 0.4, 0.6
	half := stats.TQuantile(0.975, 2) * sd / math.Sqrt(3)
	if math.Abs(mean[0]-0.4) > 1e-12 || math.Abs((hi[0]-lo[0])/2-half) > 1e-9 || n[0] != 3 {
		t.Fatalf("point 0: mean %v [%v, %v] n %d, want 0.4 ± %v", mean[0], lo[0], hi[0], n[0], half)
	}
	if hi[1] <= 1 {
		t.Fatalf("unclipped band of 0.9, 1, 0.95 should pass 1, got %v", hi[1])
	}
	if n[2] != 2 || lo[2] != 1 || hi[2] != 1 {
		t.Fatalf("point 2 (one NaN, two equal values): n %d [%v, %v]", n[2], lo[2], hi[2])
	}
	_, lo, hi, _ = Band(ys, true)
	for i := range lo {
		if lo[i] < 0 || hi[i] > 1 {
			t.Fatalf("probability band leaves [0, 1] at %d: [%v, %v]", i, lo[i], hi[i])
		}
	}
	if _, lo, hi, _ := Band([][]float64{{0.5}}, false); !math.IsNaN(lo[0]) || !math.IsNaN(hi[0]) {
		t.Fatalf("one seed has no interval, got [%v, %v]", lo[0], hi[0])
	}
}

func layoutOf(f *Figure) Layout {
	c := vgimg.New(f.Width, f.Height)
	return f.Layout(draw.New(c))
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// Legends sit outside every panel's data area, within the figure.
func TestLegendsAreOutsideTheData(t *testing.T) {
	x := []float64{0, 1, 2, 3}
	everywhere := [][]float64{{0, 1, 0, 1}, {1, 0, 1, 0}}
	curves, err := Panels("a title long enough to be wrapped when the figure is narrow, which it is not", "x", "y",
		[]Panel{{Series: []Series{{Name: "a long method name", X: x, Y: everywhere}, {Name: "b", X: x, Y: everywhere}}},
			{Series: []Series{{Name: "c", X: x, Y: everywhere}}}}, BandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := Reliability("r", []ReliabilityBin{{Lo: 0, Hi: 0.5, MeanConf: 0.3, Accuracy: 0.2, Count: 3}, {Lo: 0.5, Hi: 1, MeanConf: 0.8, Accuracy: 0.9, Count: 7}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := Points("p", "x", "y", []Point{{Label: "a", X: 0, Y: 0, XLo: math.NaN(), XHi: math.NaN(), YLo: math.NaN(), YHi: math.NaN()}, {Label: "b", X: 1, Y: 1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*Figure{"curves": curves, "reliability": rel, "points": pts} {
		lay := layoutOf(f)
		if lay.Legend.Size().X <= 0 || lay.Legend.Size().Y <= 0 {
			t.Fatalf("%s: no legend laid out", name)
		}
		full := vg.Rectangle{Max: vg.Point{X: f.Width, Y: f.Height}}
		if lay.Legend.Min.X < full.Min.X || lay.Legend.Min.Y < full.Min.Y || lay.Legend.Max.X > full.Max.X || lay.Legend.Max.Y > full.Max.Y {
			t.Errorf("%s: legend %v leaves the figure %v", name, lay.Legend, full)
		}
		if overlaps(lay.Legend, lay.Title) {
			t.Errorf("%s: legend %v overlaps the title %v", name, lay.Legend, lay.Title)
		}
		for _, row := range lay.Data {
			for _, d := range row {
				if d.Size().X <= 0 || d.Size().Y <= 0 {
					t.Errorf("%s: empty data area %v", name, d)
				}
				if overlaps(lay.Legend, d) {
					t.Errorf("%s: legend %v covers the data area %v", name, lay.Legend, d)
				}
			}
		}
	}
	// Panels of a row share their data height; the reliability histogram shares the x extent.
	if d := layoutOf(curves).Data[0]; d[0].Min.Y != d[1].Min.Y || d[0].Max.Y != d[1].Max.Y {
		t.Errorf("panels of a row are not aligned: %v %v", d[0], d[1])
	}
	if d := layoutOf(rel).Data; d[0][0].Min.X != d[1][0].Min.X || d[0][0].Max.X != d[1][0].Max.X || d[1][0].Size().Y >= d[0][0].Size().Y {
		t.Errorf("reliability histogram not under the diagram's x axis or not shorter: %v %v", d[0][0], d[1][0])
	}
}

func TestEmptyCorner(t *testing.T) {
	// Bars rising to the right (a reliability diagram): the top left is empty.
	bars := []Rect{{0, 0, 0.5, 0.1}, {0.5, 0, 1, 0.95}}
	if c := EmptyCorner(bars, 0, 1, 0, 1, 0.3, 0.2); c != TopLeft {
		t.Errorf("rising bars: corner %v, want top left", c)
	}
	// Everything but the bottom right occupied.
	occ := []Rect{{0, 0.7, 0.4, 1}, {0.6, 0.7, 1, 1}, {0, 0, 0.4, 0.3}, {0.5, 0.5, 0.5, 0.5}}
	if c := EmptyCorner(occ, 0, 1, 0, 1, 0.3, 0.2); c != BottomRight {
		t.Errorf("corner %v, want bottom right", c)
	}
	// A point counts, even in a large data range.
	pts := []Rect{{0, 100, 0, 100}, {100, 100, 100, 100}, {100, 0, 100, 0}}
	if c := EmptyCorner(pts, 0, 100, 0, 100, 0.2, 0.2); c != BottomLeft {
		t.Errorf("points: corner %v, want bottom left", c)
	}
}

// The y range of a bar/dot panel is fitted to the values so that a difference of 0.03 shows.
func TestDotAxesAreFittedToTheData(t *testing.T) {
	lo, hi := FitRange([]float64{0.895, 0.87, 0.92, 0.931, 0.91, 0.95}, true)
	if lo < 0.8 || hi > 1 || lo >= 0.87 || hi <= 0.95 {
		t.Fatalf("FitRange = [%v, %v], want a range just around [0.87, 0.95] within [0, 1]", lo, hi)
	}
	if lo, hi := FitRange([]float64{0.9, 0.99, 1}, true); hi != 1 || lo <= 0.8 {
		t.Fatalf("probabilities up to 1: [%v, %v]", lo, hi)
	}
	if lo, hi := FitRange([]float64{5, 5}, false); !(lo < 5 && hi > 5) {
		t.Fatalf("a single value needs a non-empty range: [%v, %v]", lo, hi)
	}
	f, err := Dots("d", []Metric{
		{Title: "AUC", Prob: true, Better: HigherIsBetter, Estimates: []Estimate{{Label: "a", Mean: 0.895, Lo: 0.87, Hi: 0.92}, {Label: "b", Mean: 0.931, Lo: 0.91, Hi: 0.95}}},
		{Title: "ECE", Prob: true, Better: LowerIsBetter, Estimates: []Estimate{{Label: "a", Mean: 0.3, Lo: 0.25, Hi: 0.35}, {Label: "b", Mean: 0.28, Lo: 0.2, Hi: 0.36}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	auc, ece := f.Panels[0][0], f.Panels[0][1]
	if auc.X.Min < 0.8 || auc.X.Max > 1 || ece.X.Max > 0.5 || ece.X.Min < 0.1 {
		t.Fatalf("axes not fitted: AUC [%v, %v], ECE [%v, %v]", auc.X.Min, auc.X.Max, ece.X.Min, ece.X.Max)
	}
	if !strings.Contains(ece.X.Label.Text, "lower is better") || !strings.Contains(auc.X.Label.Text, "higher is better") {
		t.Fatalf("direction missing: %q, %q", auc.X.Label.Text, ece.X.Label.Text)
	}
}

func TestPoolBinsAndECE(t *testing.T) {
	run1 := []ReliabilityBin{{Lo: 0, Hi: 0.5, MeanConf: 0.2, Accuracy: 0.5, Count: 2}, {Lo: 0.5, Hi: 1, MeanConf: 0.9, Accuracy: 1, Count: 8}}
	run2 := []ReliabilityBin{{Lo: 0, Hi: 0.5, MeanConf: 0.4, Accuracy: 0, Count: 6}, {Lo: 0.5, Hi: 1, MeanConf: 0, Accuracy: 0, Count: 0}}
	got, err := PoolBins([][]ReliabilityBin{run1, run2})
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if got[0].Count != 8 || !near(got[0].Accuracy, (2*0.5+6*0)/8.0) || !near(got[0].MeanConf, (2*0.2+6*0.4)/8.0) {
		t.Errorf("bin 0 = %+v", got[0])
	}
	if got[1].Count != 8 || got[1].Accuracy != 1 || got[1].MeanConf != 0.9 { // the empty bin of run 2 adds nothing
		t.Errorf("bin 1 = %+v", got[1])
	}
	want := (8*math.Abs(0.125-0.35) + 8*math.Abs(1-0.9)) / 16
	if e := ECE(got); !near(e, want) {
		t.Errorf("pooled ECE = %v, want %v", e, want)
	}
	if _, err := PoolBins([][]ReliabilityBin{run1, run1[:1]}); err == nil {
		t.Error("runs with different bins pooled")
	}
}

func TestTicksAreReadable(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (NiceTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := strings.Join(labels(0, 1.75), " "); got != "0.0 0.5 1.0 1.5" {
		t.Errorf("ticks of [0, 1.75]: %q", got)
	}
	if got := strings.Join(labels(0, 1750000), " "); strings.Contains(got, ".") || !strings.Contains(got, "1500000") {
		t.Errorf("ticks of [0, 1750000]: %q", got)
	}
	if got := strings.Join(labels(0.87, 0.95), " "); got != "0.88 0.90 0.92 0.94" {
		t.Errorf("ticks of [0.87, 0.95]: %q", got)
	}
	var logs []string
	for _, tk := range (LogTicks{}).Ticks(0.06, 1.8) {
		if tk.Label != "" {
			logs = append(logs, tk.Label)
		}
	}
	if got := strings.Join(logs, " "); got != "0.1 0.2 0.5 1" {
		t.Errorf("log ticks of [0.06, 1.8]: %q", got)
	}
	// Over more than two decades only the powers of ten are labelled, thousands and millions compactly.
	logs = nil
	for _, tk := range (LogTicks{}).Ticks(8000, 3e6) {
		if tk.Label != "" {
			logs = append(logs, tk.Label)
		}
	}
	if got := strings.Join(logs, " "); got != "10k 100k 1M" {
		t.Errorf("log ticks of [8000, 3e6]: %q", got)
	}
	if got := compactNumber(2.56e6) + " " + compactNumber(2500) + " " + compactNumber(1234.5); got != "2.56M 2.5k 1234.5" {
		t.Errorf("compact numbers: %q", got)
	}
}

func TestTitlesWrapAndCellTextContrasts(t *testing.T) {
	sty := textStyle(titleSize)
	long := "perplexity-consistency vote (each distinct path once): accuracy against the number of samples N"
	w := 3 * vg.Inch
	got := wrap(sty, long, w)
	if !strings.Contains(got, "\n") || strings.ReplaceAll(got, "\n", " ") != long {
		t.Fatalf("wrap = %q", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if sty.Width(line) > w {
			t.Errorf("line %q is wider than %v", line, w)
		}
	}
	if TextColor(color.Black) != color.White || TextColor(color.White) != color.Black || TextColor(color.RGBA{120, 0, 0, 255}) != color.White {
		t.Error("cell text does not contrast with its cell")
	}
}

// A figure too small for its parts is an error naming the size, not a panic inside gonum.
func TestTooSmallFigureIsAnError(t *testing.T) {
	f, err := Heatmap("h", "x", "y", "z", [][]float64{{1, 2}, {3, 4}}, []string{"a", "b"}, []string{"c", "d"})
	if err != nil {
		t.Fatal(err)
	}
	f.Height = f.Height / 8
	if _, err := f.Render("png"); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Fatalf("err = %v", err)
	}
}

// Stack keeps each figure's rows (and their own y ranges) and pads a narrower row with empty cells;
// nothing to stack is an error.
func TestStack(t *testing.T) {
	x := []float64{0, 1, 2}
	two, err := Panels("a", "step", "small", []Panel{{Title: "main", Series: []Series{{Name: "m", X: x, Y: [][]float64{{0, 0.1, 0.2}}}}},
		{Title: "ablations", Series: []Series{{Name: "n", X: x, Y: [][]float64{{0, 0.2, 0.1}}}}}}, BandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Curves("b", "step", "large", []Series{{Name: "m", X: x, Y: [][]float64{{10, 20, 30}}}}, BandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Stack("stacked", "what the bands are", two, one)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 2 || len(f.Panels[0]) != 2 || len(f.Panels[1]) != 2 || f.Panels[1][1] != nil {
		t.Fatalf("grid %d rows, %d and %d columns", len(f.Panels), len(f.Panels[0]), len(f.Panels[1]))
	}
	if f.Panels[0][0].Y.Max >= 1 || f.Panels[1][0].Y.Max < 30 {
		t.Fatalf("rows share a y range: %v and %v", f.Panels[0][0].Y.Max, f.Panels[1][0].Y.Max)
	}
	if f.Legend != two.Legend || f.Subtitle != "what the bands are" {
		t.Fatal("legend or subtitle not kept")
	}
	if _, err := f.Save(t.TempDir(), "stack"); err != nil {
		t.Fatal(err)
	}
	if _, err := Stack("none", ""); err == nil {
		t.Fatal("empty stack: no error")
	}
}

// Values equal up to rounding (0.7 and the next floats above it) get a readable axis, and ticks
// over such a range end (they used to loop for ever: k·minor no longer advanced in float64).
func TestNearlyEqualValuesGetAnAxis(t *testing.T) {
	a := 0.7
	b := math.Nextafter(math.Nextafter(a, 1), 1)
	lo, hi := FitRange([]float64{a, b}, true)
	if !(hi-lo > 0.01) {
		t.Fatalf("range %v…%v", lo, hi)
	}
	if ticks := (NiceTicks{}).Ticks(a, b); len(ticks) != 0 {
		t.Fatalf("%d ticks on a range of 2 ulps", len(ticks))
	}
	f, err := Dots("d", []Metric{{Title: "AUC", Prob: true, Estimates: []Estimate{{Label: "a", Mean: a, Lo: a, Hi: a}, {Label: "b", Mean: b, Lo: b, Hi: b}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(t.TempDir(), "d"); err != nil {
		t.Fatal(err)
	}
}

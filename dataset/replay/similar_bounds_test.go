package replay

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"testing"

	"waymark/dataset"
	"waymark/engine/action"
)

// pattern is a w×h image where no two neighbours have the same colour, so
// a pixel compared with the wrong one always differs.
func pattern(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 60 % 256), uint8(y * 90 % 256), uint8((x + y) * 50 % 256), 255})
		}
	}
	return img
}

func dot(img *image.RGBA, x, y int) *image.RGBA {
	out := image.NewRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	out.Set(x, y, color.RGBA{0, 0, 0, 255})
	return out
}

func white(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	return img
}

// The measure's counts, literally: one changed pixel of a busy picture is
// one pixel (each pixel is compared with its own), its score and share
// follow; a dot moved by one pixel in any direction (up, down, left,
// right, diagonal) is no difference, by two it is two; a mask leaves out
// exactly its rectangle (the row and the column just past it count); a
// 0×0 picture matches; Same holds at MaxDiffShare exactly.
func TestCompareCountsLiterally(t *testing.T) {
	a := pattern(20, 10)
	s, err := Compare(a, dot(a, 7, 3))
	if err != nil {
		t.Fatal(err)
	}
	if s.DiffPixels != 1 || s.Share != 1.0/200 || s.Score != 1-1.0/200 || s.Same() {
		t.Errorf("one changed pixel of 200: %+v", s)
	}
	w := white(20, 20)
	for _, c := range []struct {
		name   string
		dx, dy int
		want   int
	}{
		{"up", 0, -1, 0}, {"down", 0, 1, 0}, {"left", -1, 0, 0}, {"right", 1, 0, 0},
		{"up-left", -1, -1, 0}, {"down-right", 1, 1, 0}, {"two down", 0, 2, 2}, {"two up", 0, -2, 2}, {"two left", -2, 0, 2},
		// At the picture's edges (row and column 0 and 19).
		{"edge: to column 0", -10, 0, 0}, {"edge: to row 0", 0, -10, 0}, {"edge: to column 19", 9, 0, 0}, {"edge: to row 19", 0, 9, 0},
	} {
		x0, y0 := 10, 10
		switch {
		case c.dx == -10:
			x0, c.dx = 1, -1
		case c.dy == -10:
			y0, c.dy = 1, -1
		case c.dx == 9:
			x0, c.dx = 18, 1
		case c.dy == 9:
			y0, c.dy = 18, 1
		}
		s, _ := Compare(dot(w, x0, y0), dot(w, x0+c.dx, y0+c.dy))
		if s.DiffPixels != c.want {
			t.Errorf("a dot moved %s: %d pixels differ, want %d", c.name, s.DiffPixels, c.want)
		}
	}
	// The neighbourhood stops at the picture's right edge: a dot at the
	// end of a row is not found at the start of the next one.
	both := dot(w, 0, 6)
	if s, _ := Compare(both, dot(both, 19, 5)); s.DiffPixels != 1 {
		t.Errorf("a dot at the end of a row: %d pixels differ, want 1", s.DiffPixels)
	}
	// Masks: a dot on the row (or column) just past the mask counts; one
	// inside it does not; the share is still of the whole picture.
	for _, c := range []struct {
		name string
		x, y int
		mask image.Rectangle
		want int
	}{
		{"below the mask", 3, 5, image.Rect(0, 0, 20, 5), 1},
		{"right of the mask", 5, 3, image.Rect(0, 0, 5, 20), 1},
		{"inside the mask", 4, 4, image.Rect(0, 0, 5, 5), 0},
		{"inside a mask past the edge", 19, 19, image.Rect(15, 15, 40, 40), 0},
	} {
		s, err := CompareMasked(w, dot(w, c.x, c.y), []image.Rectangle{c.mask})
		if err != nil || s.DiffPixels != c.want || s.Share != float64(c.want)/400 {
			t.Errorf("%s: %+v %v, want %d differing of 400", c.name, s, err, c.want)
		}
	}
	if s, err := Compare(image.NewRGBA(image.Rect(0, 0, 0, 0)), image.NewRGBA(image.Rect(0, 0, 0, 0))); err != nil ||
		s.DiffPixels != 0 || s.Share != 0 || s.Score != 1 || !s.Same() || math.IsNaN(s.Share) {
		t.Errorf("0×0: %+v %v", s, err)
	}
	if !(Similarity{Share: MaxDiffShare}).Same() || (Similarity{Share: math.Nextafter(MaxDiffShare, 1)}).Same() {
		t.Error("Same is not true at MaxDiffShare exactly and false just above it")
	}
}

func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// compareStep's result for screenshots, field by field: pixels that differ
// alone make a screenshot-only divergence with its score and count; a
// missing screenshot, or one that differs beside another field, is not
// screenshot-only.
func TestCompareStepScreenshotFields(t *testing.T) {
	w := white(100, 100)
	shot, other := pngOf(t, w), pngOf(t, dot(w, 50, 50))
	stored := dataset.Step{Index: 2, URL: "http://a.test/", Screenshot: shot}
	obs := action.Observation{Step: 2, URL: "http://a.test/", Screenshot: other}

	r := compareStep(stored, obs)
	if r.Verdict != dataset.VerdictMatch || r.Why != "" || r.shotOnly || r.DiffPixels == nil || *r.DiffPixels != 1 || r.Score == nil || *r.Score != 1-1.0/10000 {
		t.Errorf("one pixel of 10000 (under 0.02%%): verdict %q, why %q, shotOnly %v, diff %v, score %v", r.Verdict, r.Why, r.shotOnly, r.DiffPixels, r.Score)
	}

	big := dot(dot(dot(w, 10, 10), 30, 30), 70, 70)
	r = compareStep(stored, action.Observation{Step: 2, URL: "http://a.test/", Screenshot: pngOf(t, big)})
	if r.Verdict != dataset.VerdictDiverged || r.Why != "screenshot: 3 pixels differ (0.030%, more than the 0.020% allowed), all within x 10–70, y 10–70" || !r.shotOnly || *r.DiffPixels != 3 {
		t.Errorf("three pixels: verdict %q, why %q, shotOnly %v", r.Verdict, r.Why, r.shotOnly)
	}
	r = compareStep(stored, action.Observation{Step: 2, URL: "http://a.test/other", Screenshot: pngOf(t, big)})
	if r.Verdict != dataset.VerdictDiverged || r.shotOnly {
		t.Errorf("URL and screenshot: verdict %q, shotOnly %v", r.Verdict, r.shotOnly)
	}
	r = compareStep(dataset.Step{Index: 2, URL: "http://a.test/"}, obs)
	if r.Verdict != dataset.VerdictDiverged || r.Why != "screenshot: the stored step has none" || r.shotOnly || r.DiffPixels != nil {
		t.Errorf("no stored screenshot: verdict %q, why %q, shotOnly %v", r.Verdict, r.Why, r.shotOnly)
	}
}

package overlay

import (
	"image"
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"waymark/engine/action"
)

var base = color.NRGBA{40, 90, 200, 255}

func page() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = base.R, base.G, base.B, 255
	}
	return img
}

func render(t *testing.T, v *View, size fyne.Size) image.Image {
	t.Helper()
	w := test.NewTempWindow(t, v)
	w.SetPadded(false)
	w.Resize(size)
	return w.Canvas().Capture()
}

// accentness is 1 for the accent colour and 0 for the page or the halo.
func accentness(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	d := math.Abs(float64(r>>8)-float64(Accent.R)) + math.Abs(float64(g>>8)-float64(Accent.G)) + math.Abs(float64(b>>8)-float64(Accent.B))
	return math.Max(0, 1-d/200)
}

func isBase(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return math.Abs(float64(r>>8)-float64(base.R)) < 6 && math.Abs(float64(g>>8)-float64(base.G)) < 6 && math.Abs(float64(b>>8)-float64(base.B)) < 6
}

// centre returns the accent-weighted centre (in pixel-centre coordinates) of
// a run of pixels, vertical (column x, rows lo..hi) or horizontal.
func centre(img image.Image, fixed, lo, hi int, vertical bool) (float64, float64) {
	var sum, wsum float64
	for k := lo; k <= hi; k++ {
		var c color.Color
		if vertical {
			c = img.At(fixed, k)
		} else {
			c = img.At(k, fixed)
		}
		a := accentness(c)
		sum += a * (float64(k) + 0.5)
		wsum += a
	}
	return sum / wsum, wsum
}

func TestClickCrosshairAtThePixel(t *testing.T) {
	test.NewTempApp(t)
	for _, pt := range []image.Point{{300, 200}, {37, 561}, {795, 8}} {
		v := New()
		v.Set(page(), &action.Action{Op: action.Click, X: action.Int(pt.X), Y: action.Int(pt.Y)})
		img := render(t, v, fyne.NewSize(800, 600))
		if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 600 {
			t.Fatalf("capture is %v, want 800×600", b)
		}
		x, y := pt.X, pt.Y
		// Each tick of the crosshair, read across its width, is centred on
		// the click's row or column.
		checks := []struct {
			fixed, lo, hi int
			vertical      bool
			want          float64
		}{
			{x + 18, y - 8, y + 8, true, float64(y)},  // right tick: centred on row y
			{x - 18, y - 8, y + 8, true, float64(y)},  // left tick
			{y + 18, x - 8, x + 8, false, float64(x)}, // lower tick: centred on column x
			{y - 18, x - 8, x + 8, false, float64(x)}, // upper tick
		}
		seen := 0
		for _, c := range checks {
			limit, span := 800, 600 // a vertical run is read in column c.fixed
			if !c.vertical {
				limit, span = 600, 800
			}
			if c.fixed < 0 || c.fixed >= limit {
				continue // that tick is off the picture
			}
			got, weight := centre(img, c.fixed, max(c.lo, 0), min(c.hi, span-1), c.vertical)
			if weight < 1.5 {
				t.Errorf("click %v: no crosshair tick across line %d (vertical=%v)", pt, c.fixed, c.vertical)
				continue
			}
			seen++
			if math.Abs(got-c.want) > 0.75 {
				t.Errorf("click %v: tick across %d centred at %.2f, want %.0f", pt, c.fixed, got, c.want)
			}
		}
		if seen < 2 {
			t.Errorf("click %v: only %d ticks visible", pt, seen)
		}
		// The clicked pixel itself is left clear, and the page shows a bit away.
		if pt.X == 300 {
			if c := img.At(x, y); !isBase(c) {
				t.Errorf("the clicked pixel is covered: %v", c)
			}
			if c := img.At(x+18, y+9); !isBase(c) {
				t.Errorf("pixel off the crosshair is %v, want the page", c)
			}
			if c := img.At(700, 500); !isBase(c) {
				t.Errorf("far pixel is %v, want the page", c)
			}
		}
	}
}

func TestCrosshairFollowsAScaledView(t *testing.T) {
	test.NewTempApp(t)
	v := New()
	v.SetMinSize(fyne.NewSize(400, 300))
	v.Set(page(), &action.Action{Op: action.Click, X: action.Int(600), Y: action.Int(100)})
	img := render(t, v, fyne.NewSize(400, 300))
	// The click at 600,100 of the page is at 300,50 of a half-size view.
	got, w := centre(img, 300+10, 40, 60, true)
	if w < 1.5 || math.Abs(got-50) > 0.75 {
		t.Errorf("scaled tick centred at %.2f (weight %.1f), want 50", got, w)
	}
}

func countAccent(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if accentness(img.At(x, y)) > 0.8 {
				n++
			}
		}
	}
	return n
}

func TestOtherActionsDrawWhereExpected(t *testing.T) {
	test.NewTempApp(t)
	ptr := image.Pt(200, 400)
	cases := []struct {
		name  string
		a     action.Action
		where image.Rectangle // accent pixels expected here
		not   image.Rectangle // and none here
	}{
		{"key badge top right", action.PressKey("ENTER"), image.Rect(650, 0, 800, 50), image.Rect(0, 60, 150, 350)},
		{"scroll arrow down from the pointer", action.ScrollBy(300), image.Rect(190, 420, 210, 490), image.Rect(190, 300, 210, 390)},
		{"scroll arrow up", action.ScrollBy(-300), image.Rect(190, 310, 210, 380), image.Rect(190, 410, 210, 500)},
		{"typed text callout near the pointer", action.TypeText("red shoes"), image.Rect(200, 415, 400, 460), image.Rect(0, 0, 800, 380)},
		{"back badge", action.Action{Op: action.Back}, image.Rect(0, 0, 120, 50), image.Rect(0, 60, 800, 600)},
		{"drag arrow", action.Action{Op: action.Drag, X: action.Int(100), Y: action.Int(100), X2: action.Int(500), Y2: action.Int(100)}, image.Rect(200, 95, 400, 105), image.Rect(0, 200, 800, 600)},
	}
	for _, c := range cases {
		v := New()
		v.SetPointer(&ptr)
		v.Set(page(), &c.a)
		img := render(t, v, fyne.NewSize(800, 600))
		if n := countAccent(img, c.where); n < 20 {
			t.Errorf("%s: %d accent pixels in %v, want a mark there", c.name, n, c.where)
		}
		if n := countAccent(img, c.not); n > 0 {
			t.Errorf("%s: %d accent pixels in %v, want none", c.name, n, c.not)
		}
	}
}

func TestSetPNGErrors(t *testing.T) {
	test.NewTempApp(t)
	v := New()
	if err := v.SetPNG([]byte("not a png"), nil); err == nil {
		t.Error("SetPNG accepted garbage")
	}
	if v.Image() != nil {
		t.Error("image kept after a bad PNG")
	}
	if err := v.SetPNG(nil, nil); err != nil {
		t.Errorf("empty screenshot: %v", err)
	}
}

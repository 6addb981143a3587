package replay_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/browser"
)

// simPage is a small page with a few lines of text, a text field and a
// button; the query string varies one thing at a time.
func simPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	left := "20px"
	if q.Has("aa") {
		left = "21px" // the whole block one pixel to the right
	}
	if q.Has("half") {
		left = "20.5px" // half a pixel: every glyph is antialiased anew
	}
	caret := "transparent"
	if q.Has("caret") {
		caret = "black"
	}
	line2 := "Delivery takes three to five working days."
	if q.Has("line") {
		line2 = "Your order was placed: number 1042, thank you."
	}
	dialog := ""
	if q.Has("dialog") {
		dialog = `<div style="position:absolute;left:200px;top:150px;width:400px;height:200px;background:#fff;border:2px solid #333;box-shadow:0 0 20px #888;font:18px sans-serif;padding:20px">Remove the item from your cart?<br><br><button>Cancel</button> <button>Remove</button></div>`
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if q.Has("other") {
		fmt.Fprint(w, `<title>Other</title><body style="margin:0;font:16px serif;background:#f4f0e8"><h1 style="margin:40px">A different page</h1><p style="margin:40px">With other words on it, set in another face and colour.</p></body>`)
		return
	}
	fmt.Fprintf(w, `<!doctype html><title>Shop</title><body style="margin:0;font:16px sans-serif">
<div style="position:absolute;left:%s;top:20px;width:700px">
<h2 style="margin:0 0 10px">Blue teapot — 24.00</h2>
<p>A teapot for four cups, glazed in blue.</p>
<p>%s</p>
<input id="q" autofocus value="Earl Grey" style="caret-color:%s;font:16px sans-serif;width:300px">
<button>Add to cart</button>
</div>%s</body>`, left, line2, caret, dialog)
}

// renderAll renders each query of simPage in a real headless Chromium and
// returns the screenshots in order.
func renderAll(t *testing.T, queries ...string) []image.Image {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(simPage))
	defer site.Close()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var out []image.Image
	for _, q := range queries {
		obs, err := eng.Reset(context.Background(), engine.ResetOptions{StartURL: site.URL + "/?" + q})
		if err != nil {
			t.Fatal(err)
		}
		img, err := decodePNG(obs.Screenshot)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, img)
	}
	return out
}

// The measure on pages rendered by Chromium, and on drawn images for a
// shift of the whole page and a caret: equal pairs match, different pairs
// do not, with room on both sides of MaxDiffShare.
func TestCompareRenderedPages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	names := []string{"base", "base", "aa", "half", "caret", "line", "dialog", "other"}
	imgs := renderAll(t, "", "", "aa", "half", "caret", "line", "dialog", "other")
	shot := map[string]image.Image{}
	for i, n := range names {
		if n == "base" && shot["base"] != nil {
			n = "base2"
		}
		shot[n] = imgs[i]
	}
	// Drawn cases on the rendered page: the page moved by one pixel, and
	// a 1×18 caret drawn into the field.
	shot["shifted"] = shift(shot["base"], 1, 0)
	shot["drawncaret"] = withCaret(shot["base"], 30, 120)

	cases := []struct {
		a, b string
		same bool
		why  string
	}{
		{"base", "base2", true, "the same page rendered twice"},
		{"base", "aa", true, "the text block laid out one pixel to the right"},
		{"base", "shifted", true, "the whole page one pixel to the right"},
		{"base", "caret", true, "the caret shown and hidden (blinking)"},
		{"base", "drawncaret", true, "a 1×18 caret drawn in"},
		{"base", "line", false, "one line of text changed"},
		{"base", "dialog", false, "a dialog opened"},
		{"base", "other", false, "a different page"},
	}
	// Half a pixel is not a pixel: Chromium antialiases every glyph anew,
	// and the count is of the order of a changed line of text. A replay
	// in the same browser lays out the same page at the same positions,
	// so this is logged for the record, not asserted.
	if s, err := replay.Compare(shot["base"], shot["half"]); err == nil {
		t.Logf("base        half        score %.6f, %6d px differ (%.4f%%): the text block half a pixel to the right (not asserted)", s.Score, s.DiffPixels, 100*s.Share)
	}
	for _, c := range cases {
		s, err := replay.Compare(shot[c.a], shot[c.b])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-11s %-11s score %.6f, %6d px differ (%.4f%%): %s", c.a, c.b, s.Score, s.DiffPixels, 100*s.Share, c.why)
		if s.Same() != c.same {
			t.Errorf("%s: same=%v, want %v (%d pixels differ)", c.why, s.Same(), c.same, s.DiffPixels)
		}
		// Margins: equal pairs well under the limit, different ones well over.
		if c.same && s.Share > replay.MaxDiffShare/2 {
			t.Errorf("%s: %d pixels differ, too close to the limit", c.why, s.DiffPixels)
		}
		if !c.same && s.Share < replay.MaxDiffShare*2 {
			t.Errorf("%s: only %d pixels differ, too close to the limit", c.why, s.DiffPixels)
		}
	}
}

// Pure images: identical, different sizes, and a box drawn in.
func TestCompareDrawn(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 800, 600))
	draw.Draw(a, a.Rect, image.White, image.Point{}, draw.Src)
	b := image.NewRGBA(a.Rect)
	copy(b.Pix, a.Pix)
	if s, err := replay.Compare(a, b); err != nil || s.Score != 1 || s.DiffPixels != 0 || !s.Same() {
		t.Fatalf("identical: %+v %v", s, err)
	}
	// Noise within the tolerance is no difference.
	b.Set(10, 10, color.RGBA{240, 240, 240, 255})
	if s, _ := replay.Compare(a, b); s.DiffPixels != 0 {
		t.Fatalf("noise counted: %+v", s)
	}
	draw.Draw(b, image.Rect(100, 100, 120, 120), image.Black, image.Point{}, draw.Src)
	s, _ := replay.Compare(a, b)
	if s.DiffPixels != 400 || s.Same() || s.Where != image.Rect(100, 100, 120, 120) {
		t.Fatalf("20×20 box: %+v", s)
	}
	// A mask leaves its pixels out of where they differ, too.
	draw.Draw(b, image.Rect(700, 500, 701, 501), image.Black, image.Point{}, draw.Src)
	if s, _ := replay.CompareMasked(a, b, []image.Rectangle{image.Rect(90, 90, 130, 130)}); s.DiffPixels != 1 || s.Where != image.Rect(700, 500, 701, 501) {
		t.Fatalf("box masked, one pixel left: %+v", s)
	}
	if _, err := replay.Compare(a, image.NewRGBA(image.Rect(0, 0, 800, 599))); err == nil || !strings.Contains(err.Error(), "size") {
		t.Fatalf("sizes: %v", err)
	}
}

func shift(img image.Image, dx, dy int) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, image.White, image.Point{}, draw.Src)
	draw.Draw(out, b.Add(image.Pt(dx, dy)), img, b.Min, draw.Src)
	return out
}

func withCaret(img image.Image, x, y int) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	draw.Draw(out, image.Rect(x, y, x+1, y+18), image.Black, image.Point{}, draw.Src)
	return out
}

// A channel exactly ChannelTolerance (24) apart is the same colour; 25
// apart is not — in each of R, G and B, lighter or darker.
func TestCompareAtTheChannelTolerance(t *testing.T) {
	if replay.ChannelTolerance != 24 {
		t.Fatalf("ChannelTolerance = %d, want 24", replay.ChannelTolerance)
	}
	uniform := func(c color.RGBA) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 4, 4))
		draw.Draw(img, img.Rect, image.NewUniform(c), image.Point{}, draw.Src)
		return img
	}
	base := color.RGBA{100, 100, 100, 255}
	for ch, name := range []string{"R", "G", "B"} {
		for _, c := range []struct {
			delta int
			diff  int
		}{{24, 0}, {-24, 0}, {25, 16}, {-25, 16}} {
			other := [4]uint8{100, 100, 100, 255}
			other[ch] = uint8(100 + c.delta)
			s, err := replay.Compare(uniform(base), uniform(color.RGBA{other[0], other[1], other[2], other[3]}))
			if err != nil {
				t.Fatal(err)
			}
			if s.DiffPixels != c.diff {
				t.Errorf("%s %+d: %d of 16 pixels differ, want %d", name, c.delta, s.DiffPixels, c.diff)
			}
		}
	}
}

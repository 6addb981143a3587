package overlay

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"waymark/engine/action"
)

// The animated GIF, decoded and played as a viewer plays it (each frame
// drawn into its own rectangle over what the frames before left, as their
// disposal says), shows at every frame the picture that frame was made
// from, to the palette's precision, at every pixel. The frames change at
// the picture's edges (a pixel in the bottom-right corner of the page, the
// caption's last rows), in a block inside the page, not at all (an
// unchanged frame), and under an action's marks.
func TestGIFFramesCompositeToTheirPictures(t *testing.T) {
	test.NewTempApp(t)
	white := color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
	plain := pagePNG(t, white)
	block := pagePNG(t, white, image.Rect(300, 200, 500, 400))
	corner := pagePNG(t, white, image.Rect(799, 599, 800, 600))
	leftEdge := pagePNG(t, white, image.Rect(0, 0, 1, 600))
	click := action.ClickAt(650, 100)
	typed := action.TypeText("hello")
	p := image.Pt(650, 100)
	frames := []GIFFrame{
		{Screenshot: plain, Caption: "1 · start", Delay: time.Second},
		{Screenshot: block, Caption: "1 · start", Delay: 500 * time.Millisecond},      // a block inside the page
		{Screenshot: plain, Action: &click, Caption: "2 · click", Delay: time.Second}, // the block goes, marks come
		{Screenshot: plain, Action: &click, Caption: "2 · click", Delay: time.Second}, // unchanged
		{Screenshot: corner, Action: &click, Caption: "2 · click", Delay: time.Second},
		{Screenshot: leftEdge, Action: &click, Caption: "2 · click", Delay: time.Second},
		{Screenshot: leftEdge, Action: &typed, Pointer: &p, Caption: "3 · type hello, longer now", Delay: 2 * time.Second},
		{Screenshot: nil, Caption: "4 · no screenshot", Delay: time.Second},
		{Screenshot: plain, Caption: "4 · no screenshot", Delay: time.Second},
	}

	var buf bytes.Buffer
	if err := WriteGIF(&buf, frames); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the GIF does not decode: %v", err)
	}
	W, H := int(vw), int(vh)+CaptionHeight
	if g.Config.Width != W || g.Config.Height != H || len(g.Image) != len(frames) {
		t.Fatalf("GIF %dx%d with %d frames, want %dx%d with %d", g.Config.Width, g.Config.Height, len(g.Image), W, H, len(frames))
	}
	if g.LoopCount != 0 {
		t.Errorf("loop count %d, want 0 (forever)", g.LoopCount)
	}
	full := image.Rect(0, 0, W, H)
	if g.Image[0].Bounds() != full {
		t.Fatalf("the first frame covers %v, want the whole picture %v", g.Image[0].Bounds(), full)
	}

	canvas := image.NewNRGBA(full)
	for i, fr := range g.Image {
		if !fr.Bounds().In(full) {
			t.Fatalf("frame %d's rectangle %v is outside the picture", i+1, fr.Bounds())
		}
		if want := int(frames[i].Delay / (10 * time.Millisecond)); g.Delay[i] != want {
			t.Errorf("frame %d shows for %d/100 s, want %d", i+1, g.Delay[i], want)
		}
		var before *image.NRGBA
		if g.Disposal[i] == gif.DisposalPrevious {
			before = image.NewNRGBA(full)
			draw.Draw(before, full, canvas, image.Point{}, draw.Src)
		}
		drawFrame(canvas, fr)

		want, err := RenderFrame(frames[i])
		if err != nil {
			t.Fatal(err)
		}
		pal := g.Image[0].Palette
		if bad, at, got, exp := worstPixel(canvas, want, pal); bad {
			t.Errorf("frame %d (rectangle %v) at %v shows %v, the picture has %v (nearest in the palette %v)",
				i+1, fr.Bounds(), at, got, exp, pal[pal.Index(exp)])
		}

		switch g.Disposal[i] {
		case gif.DisposalBackground:
			draw.Draw(canvas, fr.Bounds(), image.Transparent, image.Point{}, draw.Src)
		case gif.DisposalPrevious:
			canvas = before
		}
	}
}

// pagePNG is an 800×600 page of colour bg with the rectangles in black.
func pagePNG(t *testing.T, bg color.NRGBA, black ...image.Rectangle) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, int(vw), int(vh)))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	for _, r := range black {
		draw.Draw(img, r, image.NewUniform(color.NRGBA{0, 0, 0, 0xFF}), image.Point{}, draw.Src)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// drawFrame draws a decoded frame into its rectangle of the canvas; a
// pixel of the palette's transparent colour leaves the canvas as it was.
func drawFrame(canvas *image.NRGBA, fr *image.Paletted) {
	b := fr.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(fr.Palette[fr.ColorIndexAt(x, y)]).(color.NRGBA)
			if c.A == 0 {
				continue
			}
			canvas.SetNRGBA(x, y, c)
		}
	}
}

// worstPixel finds a pixel of got that is further from the picture's
// colour than the palette allows: the writer maps each colour to the
// entry nearest to the first colour it met in the same 5-bit-per-channel
// bin, at most 2·√(3·7²) ≈ 24.2 further than the nearest entry.
func worstPixel(got, want *image.NRGBA, pal color.Palette) (bad bool, at image.Point, g, w color.NRGBA) {
	const slack = 25
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			wc := want.NRGBAAt(x, y)
			gc := got.NRGBAAt(x, y)
			nc := color.NRGBAModel.Convert(pal[pal.Index(wc)]).(color.NRGBA)
			if dist(gc, wc) > dist(nc, wc)+slack {
				return true, image.Pt(x, y), gc, wc
			}
		}
	}
	return false, image.Point{}, color.NRGBA{}, color.NRGBA{}
}

func dist(a, b color.NRGBA) float64 {
	dr, dg, db := float64(a.R)-float64(b.R), float64(a.G)-float64(b.G), float64(a.B)-float64(b.B)
	return math.Sqrt(dr*dr + dg*dg + db*db)
}

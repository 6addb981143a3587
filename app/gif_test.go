package app

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/assets/practice"
	"waymark/engine/action"
	"waymark/ui/overlay"
)

// composite plays a decoded GIF's frames onto one canvas (every frame is
// drawn over the last: disposal none) and returns the picture after each.
func composite(g *gif.GIF) []*image.RGBA {
	canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	var out []*image.RGBA
	for _, f := range g.Image {
		draw.Draw(canvas, f.Bounds(), f, f.Bounds().Min, draw.Src)
		c := image.NewRGBA(canvas.Bounds())
		copy(c.Pix, canvas.Pix)
		out = append(out, c)
	}
	return out
}

func same(c color.Color, want color.NRGBA) bool {
	r, g, b, _ := c.RGBA()
	return uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B
}

// count counts the pixels of colour want in r.
func count(img image.Image, r image.Rectangle, want color.NRGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if same(img.At(x, y), want) {
				n++
			}
		}
	}
	return n
}

// shade counts the dark (all channels under 64) and light (all over 200)
// pixels of r.
func shade(img image.Image, r image.Rectangle) (dark, light int) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			switch {
			case cr>>8 < 64 && cg>>8 < 64 && cb>>8 < 64:
				dark++
			case cr>>8 > 200 && cg>>8 > 200 && cb>>8 > 200:
				light++
			}
		}
	}
	return dark, light
}

// An episode recorded on the practice shop in a real Chromium (20 actions)
// becomes a GIF that decodes back: one picture per action and one of the
// end, 800×626, a shared palette, each click's crosshair drawn where it
// was made, the caption bar under every picture, the frame time as asked;
// a step range keeps only those steps.
func TestGIFCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	sites, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sites.Close()
	var acts []action.Action
	clicks := map[int][2]int{}
	for i := 1; i <= 19; i++ {
		switch i % 4 {
		case 1:
			acts = append(acts, action.ClickAt(100+10*i, 400))
			clicks[i] = [2]int{100 + 10*i, 400}
		case 2:
			acts = append(acts, action.ScrollBy(200))
		case 3:
			acts = append(acts, action.ScrollBy(-200))
		default:
			acts = append(acts, action.PressKey("TAB"))
		}
	}
	acts = append(acts, action.FinishWith(""))
	db, id := recordHeadless(t, sites.HostRules(), practice.Tasks()[0].StartURL, acts...)
	out := filepath.Join(t.TempDir(), "ep.gif")
	code, stdout, stderr := runMain("--db", db, "gif", id, "-o", out, "--frame-ms", "700")
	if code != 0 || !strings.Contains(stdout, "Wrote "+out+": 21 pictures") {
		t.Fatalf("gif: exit %d\n%s%s", code, stdout, stderr)
	}
	fi, _ := os.Stat(out)
	t.Logf("%s: %d bytes for 20 steps", out, fi.Size())
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 21 || g.Config.Width != 800 || g.Config.Height != 600+overlay.CaptionHeight {
		t.Fatalf("%d frames of %dx%d, want 21 of 800x%d", len(g.Image), g.Config.Width, g.Config.Height, 600+overlay.CaptionHeight)
	}
	for i, fr := range g.Image {
		if len(fr.Palette) != len(g.Config.ColorModel.(color.Palette)) {
			t.Errorf("frame %d has a palette of its own", i)
		}
	}
	if g.Delay[0] != 70 || g.Delay[20] != 140 {
		t.Errorf("delays %v, want 70 and 140 for the end", g.Delay)
	}
	pics := composite(g)
	if dir := os.Getenv("WAYMARK_E2E_SHOTS"); dir != "" {
		for _, i := range []int{0, 1, 20} {
			if fh, err := os.Create(filepath.Join(dir, fmt.Sprintf("gif-frame-%02d.png", i))); err == nil {
				png.Encode(fh, pics[i])
				fh.Close()
			}
		}
	}
	bar := image.Rect(0, 600, 800, 600+overlay.CaptionHeight)
	for i, p := range pics {
		dark, light := shade(p, bar)
		if dark < bar.Dx()*bar.Dy()*3/4 || light < 100 {
			t.Errorf("frame %d: the caption bar has %d dark and %d light pixels; want a dark bar with light text", i, dark, light)
		}
	}
	for step, xy := range clicks {
		// Frame step-1 shows step's action on the page before it: a ring
		// of radius 13 around the click, drawn in the accent colour.
		around := image.Rect(xy[0]-16, xy[1]-16, xy[0]+17, xy[1]+17)
		if n := count(pics[step-1], around, overlay.Accent); n < 40 {
			t.Errorf("step %d: %d accent pixels around the click at %v", step, n, xy)
		}
		// …and no crosshair there in the end picture.
		if n := count(pics[20], around, overlay.Accent); n > 5 {
			t.Errorf("end picture: %d accent pixels around step %d's click", n, step)
		}
	}

	// A range: steps 5..9, then the page after step 9.
	code, stdout, stderr = runMain("--db", db, "gif", id, "-o", out, "--from", "5", "--to", "9")
	if code != 0 || !strings.Contains(stdout, ": 6 pictures") {
		t.Fatalf("range: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{{"gif", id}, {"gif", "-o", out}, {"gif", id, "-o", out, "--from", "30"}, {"gif", "nope", "-o", out}, {"gif", id, "-o", out, "--to", "2", "--from", "3"}} {
		if code, _, stderr := runMain(append([]string{"--db", db}, args...)...); code != 2 || !strings.Contains(stderr, "usage") && !strings.Contains(stderr, "--from") {
			t.Errorf("%q: exit %d %q", args, code, stderr)
		}
	}
}

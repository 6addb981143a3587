// Command genicon draws Waymark's application icon (assets/icon.png): a white
// map pin with a cairn of stones inside it, over a dotted trail, on a teal
// rounded square. Re-run it from the module root after changing the drawing:
//
//	go run ./assets/internal/genicon
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

const size = 512

type rgba struct{ r, g, b, a float64 } // premultiplied, 0..1

func over(dst, src rgba) rgba {
	k := 1 - src.a
	return rgba{src.r + dst.r*k, src.g + dst.g*k, src.b + dst.b*k, src.a + dst.a*k}
}

func solid(c uint32, a float64) rgba {
	r := float64(c>>16&0xff) / 255
	g := float64(c>>8&0xff) / 255
	b := float64(c&0xff) / 255
	return rgba{r * a, g * a, b * a, a}
}

func mix(c1, c2 uint32, t float64) rgba {
	a, b := solid(c1, 1), solid(c2, 1)
	return rgba{a.r + (b.r-a.r)*t, a.g + (b.g-a.g)*t, a.b + (b.b-a.b)*t, 1}
}

// inRoundedRect reports whether (x,y) lies in the square [m, size-m] with corner radius r.
func inRoundedRect(x, y, m, r float64) bool {
	lo, hi := m+r, size-m-r
	cx := math.Max(lo, math.Min(hi, x))
	cy := math.Max(lo, math.Min(hi, y))
	return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r && x >= m && x <= size-m && y >= m && y <= size-m
}

func inCircle(x, y, cx, cy, r float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }

func inEllipse(x, y, cx, cy, rx, ry float64) bool {
	dx, dy := (x-cx)/rx, (y-cy)/ry
	return dx*dx+dy*dy <= 1
}

// inPin: a circle (cx,cy,r) joined to a tip at (cx,ty) by its tangent lines.
func inPin(x, y, cx, cy, r, ty float64) bool {
	if inCircle(x, y, cx, cy, r) {
		return true
	}
	d := ty - cy
	if y < cy || y > ty {
		return false
	}
	// Tangent points from the tip: angle from the vertical axis.
	a := math.Asin(r / d)
	// The cone between the two tangent lines through the tip, above the tip.
	dx, dy := x-cx, ty-y
	if dy <= 0 {
		return false
	}
	// Only below the tangent points, where the cone leaves the circle.
	ly := ty - math.Sqrt(d*d-r*r)*math.Cos(a)
	return math.Abs(dx) <= dy*math.Tan(a) && y >= ly
}

func sample(x, y float64) rgba {
	var px rgba
	if !inRoundedRect(x, y, 16, 104) {
		return px
	}
	// Background: diagonal teal gradient.
	t := (x + y) / (2 * size)
	px = mix(0x23a883, 0x0d4a6b, t)
	// Soft hills at the bottom.
	if inEllipse(x, y, 120, 560, 260, 140) {
		px = over(px, solid(0xffffff, 0.10))
	}
	if inEllipse(x, y, 430, 590, 260, 150) {
		px = over(px, solid(0x000000, 0.10))
	}
	// Dotted trail from the lower left up to the pin's tip.
	for i := 0; i < 6; i++ {
		s := float64(i) / 6
		tx := 66 + s*(250-66)
		ty := 476 - 40*math.Sin(s*math.Pi) - s*30
		if inCircle(x, y, tx, ty, 9) {
			px = over(px, solid(0xffffff, 0.75))
		}
	}
	// Pin shadow.
	if inEllipse(x, y, 256, 436, 70, 16) {
		px = over(px, solid(0x000000, 0.22))
	}
	// The pin.
	const cx, cy, r, tip = 256.0, 200.0, 128.0, 432.0
	if inPin(x, y, cx, cy, r, tip) {
		px = over(px, solid(0xffffff, 1))
		// Cairn inside the pin head: three stacked stones.
		switch {
		case inEllipse(x, y, cx, cy+52, 68, 26):
			px = over(px, solid(0xe07a2e, 1))
		case inEllipse(x, y, cx+4, cy+8, 52, 22):
			px = over(px, solid(0xf29a3f, 1))
		case inEllipse(x, y, cx-2, cy-30, 36, 18):
			px = over(px, solid(0xf6b65a, 1))
		case inEllipse(x, y, cx+2, cy-60, 20, 12):
			px = over(px, solid(0xf9cd7e, 1))
		}
	}
	return px
}

func main() {
	out := flag.String("o", "assets/icon.png", "output PNG")
	flag.Parse()
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const ss = 4
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var acc rgba
			for j := 0; j < ss; j++ {
				for i := 0; i < ss; i++ {
					s := sample(float64(x)+(float64(i)+0.5)/ss, float64(y)+(float64(j)+0.5)/ss)
					acc.r += s.r
					acc.g += s.g
					acc.b += s.b
					acc.a += s.a
				}
			}
			n := float64(ss * ss)
			acc = rgba{acc.r / n, acc.g / n, acc.b / n, acc.a / n}
			var c color.NRGBA
			if acc.a > 0 {
				c = color.NRGBA{
					R: uint8(math.Round(acc.r / acc.a * 255)),
					G: uint8(math.Round(acc.g / acc.a * 255)),
					B: uint8(math.Round(acc.b / acc.a * 255)),
					A: uint8(math.Round(acc.a * 255)),
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genicon:", err)
		os.Exit(1)
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		fmt.Fprintln(os.Stderr, "genicon:", err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "genicon:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", *out)
}

package replay

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
)

// The screenshot measure.
//
// Two screenshots are compared by the share of their pixels that differ,
// where a pixel differs when some colour channel is more than
// ChannelTolerance apart AND no pixel in its 3×3 neighbourhood in the other
// image is within the tolerance (checked both ways, so ink that appears on
// a blank area counts as well as ink that disappears). The neighbourhood
// makes a 1-pixel antialiasing or subpixel shift of text free; the
// tolerance absorbs rendering noise; what is left is counted.
//
// Why this and not SSIM: SSIM averaged over an 800×600 page is dominated by
// its blank areas, so a changed line of text (the usual consequence of a
// click that did something else) moves the mean by well under 1% and is
// hard to tell from noise, while a 1-pixel shift of every glyph lowers the
// structure term in every text window. A count of differing pixels with a
// shift-tolerant neighbourhood keeps a changed text line at hundreds of
// pixels and a shifted page or a blinking caret at a few dozen, and its
// score says something a person can check ("412 pixels differ").
//
// Its limit: half a pixel is not a pixel. Text laid out half a pixel
// elsewhere is antialiased anew, and counts like a changed line (about
// 3,000 pixels on the test page). The same browser replaying the same page
// lays it out at the same positions, so a replay does not meet this.
const (
	// ChannelTolerance is the largest difference (0–255) in any of R, G, B
	// that still counts as the same colour.
	ChannelTolerance = 24
	// MaxDiffShare is the largest share of differing pixels two
	// screenshots may have and still match: 0.0002 of 800×600 is 96
	// pixels, above a blinking caret (about 20) and below one changed line
	// of text (several hundred).
	MaxDiffShare = 0.0002
)

// Similarity is the result of comparing two screenshots.
type Similarity struct {
	// Score is 1 − Share: 1 for images that match pixel for pixel.
	Score float64
	// DiffPixels is the number of differing pixels, Share their share of
	// the image.
	DiffPixels int
	Share      float64
	// Where is the smallest rectangle holding every differing pixel
	// (empty when none differs): where a reviewer, or whoever reads a
	// replay's report, looks first.
	Where image.Rectangle
}

// whereText says where the differing pixels are, in viewport pixels, as
// ", all within x 10–70, y 10–70" (inclusive), or "" when none differs.
func (s Similarity) whereText() string {
	if s.Where.Empty() {
		return ""
	}
	return fmt.Sprintf(", all within x %d–%d, y %d–%d", s.Where.Min.X, s.Where.Max.X-1, s.Where.Min.Y, s.Where.Max.Y-1)
}

// Same reports whether the screenshots match under MaxDiffShare.
func (s Similarity) Same() bool { return s.Share <= MaxDiffShare }

// ComparePNG decodes two PNG screenshots and compares them. Images of
// different sizes are an error (every observation is 800×600).
func ComparePNG(a, b []byte) (Similarity, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return Similarity{}, fmt.Errorf("the stored screenshot is not a PNG: %w", err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return Similarity{}, fmt.Errorf("the replayed screenshot is not a PNG: %w", err)
	}
	return Compare(ia, ib)
}

// Compare compares two images of the same size.
func Compare(a, b image.Image) (Similarity, error) { return CompareMasked(a, b, nil) }

// CompareMasked compares two images of the same size leaving out the
// pixels inside the rectangles of mask: they count neither as differing
// nor as compared. The share stays one of the whole image, so a mask never
// makes the rest more tolerant.
func CompareMasked(a, b image.Image, mask []image.Rectangle) (Similarity, error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return Similarity{}, fmt.Errorf("the screenshots differ in size: %v and %v", a.Bounds().Size(), b.Bounds().Size())
	}
	ra, rb := ToRGBA(a), ToRGBA(b)
	w, h := ra.Rect.Dx(), ra.Rect.Dy()
	var skip []bool
	if len(mask) > 0 {
		skip = make([]bool, w*h)
		for _, m := range mask {
			m = m.Intersect(image.Rect(0, 0, w, h))
			for y := m.Min.Y; y < m.Max.Y; y++ {
				for x := m.Min.X; x < m.Max.X; x++ {
					skip[y*w+x] = true
				}
			}
		}
	}
	n := 0
	var where image.Rectangle
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if skip != nil && skip[y*w+x] {
				continue
			}
			if differs(ra, rb, x, y) {
				n++
				where = where.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	total := w * h
	s := Similarity{DiffPixels: n, Where: where}
	if total > 0 {
		s.Share = float64(n) / float64(total)
	}
	s.Score = 1 - s.Share
	return s, nil
}

// differs reports whether pixel x,y of a differs from b under the measure.
func differs(ra, rb *image.RGBA, x, y int) bool {
	i := y*ra.Stride + x*4
	j := y*rb.Stride + x*4
	if close3(ra.Pix[i:i+3], rb.Pix[j:j+3]) {
		return false
	}
	return !nearby(ra.Pix[i:i+3], rb, x, y) || !nearby(rb.Pix[j:j+3], ra, x, y)
}

// diffCells divides two images of the same size into cell×cell squares
// and returns the squares holding at least `least` differing pixels.
func diffCells(a, b image.Image, cell, least int) []image.Rectangle {
	if a.Bounds().Size() != b.Bounds().Size() {
		return nil
	}
	ra, rb := ToRGBA(a), ToRGBA(b)
	w, h := ra.Rect.Dx(), ra.Rect.Dy()
	var out []image.Rectangle
	for cy := 0; cy < h; cy += cell {
		for cx := 0; cx < w; cx += cell {
			n := 0
			for y := cy; y < cy+cell && y < h; y++ {
				for x := cx; x < cx+cell && x < w; x++ {
					if differs(ra, rb, x, y) {
						n++
					}
				}
			}
			if n >= least {
				out = append(out, image.Rect(cx, cy, cx+cell, cy+cell).Intersect(image.Rect(0, 0, w, h)))
			}
		}
	}
	return out
}

// ToRGBA returns img as an *image.RGBA whose rectangle starts at 0,0: img
// itself when it already is one, otherwise a copy. The screens use it for
// the pictures they show.
func ToRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	r := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(r, r.Rect, img, b.Min, draw.Src)
	return r
}

func close3(p, q []byte) bool {
	return absDiff(p[0], q[0]) <= ChannelTolerance && absDiff(p[1], q[1]) <= ChannelTolerance && absDiff(p[2], q[2]) <= ChannelTolerance
}

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// nearby reports whether some pixel of img within one pixel of x,y has the
// colour p (within the tolerance).
func nearby(p []byte, img *image.RGBA, x, y int) bool {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			xx, yy := x+dx, y+dy
			if xx < 0 || yy < 0 || xx >= w || yy >= h {
				continue
			}
			k := yy*img.Stride + xx*4
			if close3(p, img.Pix[k:k+3]) {
				return true
			}
		}
	}
	return false
}

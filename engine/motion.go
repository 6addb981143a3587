package engine

import (
	"context"
	"image"
)

// Region is a rectangle of the viewport, in CSS pixels (one screenshot
// pixel each at the 800×600 viewport's scale 1), with what it shows.
type Region struct {
	X, Y, W, H int
	// Why says what moves there, e.g. `CSS animation "spin" on
	// div#spinner, repeating forever`.
	Why string
}

// Rect is the region as an image rectangle.
func (r Region) Rect() image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H) }

// Motion is implemented by engines that can say what on the page moves by
// itself, so a comparison of screenshots taken at different moments can
// leave it out. None of its methods performs anything on the page or
// changes what it shows; each works on the page of the episode's last
// observation, also after the episode ended.
type Motion interface {
	// Animated lists the regions of the viewport that CSS animations and
	// Web Animations repeating forever paint in, each over the whole of
	// one iteration (a spinner's box at every angle, a slider's whole
	// path).
	Animated(ctx context.Context) ([]Region, error)
	// Screenshot captures the viewport again, as an observation does.
	Screenshot(ctx context.Context) ([]byte, error)
	// BoxesAt returns, for each point of the viewport, the box of the
	// element painted there, widened to its nearest ancestor that clips
	// what it holds (a carousel's strip); Why names the element. A point
	// where nothing is painted, or on an editable field, gets an empty
	// region.
	BoxesAt(ctx context.Context, pts []image.Point) ([]Region, error)
}

package ui

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/jpeg"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"

	"waymark/engine"
)

// Bridge is the one place where work from other goroutines (the episode
// runner, pause timers, the frame pump) is handed to the Fyne goroutine.
// Nothing else in ui calls fyne.Do. The zero value is ready to use.
type Bridge struct {
	closed atomic.Bool
	// post, when set, replaces fyne.Do (tests run the hand-offs on their
	// own goroutine, as the real main loop would).
	post func(func())
}

// Do runs fn on the Fyne goroutine (after the current callback when called
// from it). After Close it does nothing, so late reports from background
// goroutines cannot touch a window that is gone.
func (b *Bridge) Do(fn func()) {
	if b.closed.Load() {
		return
	}
	run := func() {
		if !b.closed.Load() {
			fn()
		}
	}
	if b.post != nil {
		b.post(run)
		return
	}
	fyne.Do(run)
}

// After runs fn on the Fyne goroutine once d has passed.
func (b *Bridge) After(d time.Duration, fn func()) {
	time.AfterFunc(d, func() { b.Do(fn) })
}

// Close stops all later hand-offs.
func (b *Bridge) Close() { b.closed.Store(true) }

// FramePump decodes live frames off the Fyne goroutine and shows the newest
// one: frames that arrive while one is waiting to be shown replace it, so
// at most one hand-off is pending and a slow UI never builds a queue.
//
// Frame buffers are recycled (about 2 MB each at 25 frames/s would
// otherwise keep the garbage collector busy): a buffer goes back to the pool
// only once the canvas no longer refers to it — when a newer frame replaced
// it on the Fyne goroutine (which also paints, so no texture upload can be
// reading it), or when it was replaced before being shown.
type FramePump struct {
	b       *Bridge
	show    func(*image.RGBA)
	next    atomic.Pointer[image.RGBA]
	pending atomic.Bool
	decoded atomic.Uint64
	shown   atomic.Uint64
	free    chan *image.RGBA
	cur     *image.RGBA // shown now; Fyne goroutine only
}

// NewFramePump makes a pump that calls show on the Fyne goroutine.
func NewFramePump(b *Bridge, show func(*image.RGBA)) *FramePump {
	return &FramePump{b: b, show: show, free: make(chan *image.RGBA, 3)}
}

// buffer returns a recycled RGBA of the given bounds, or a new one.
func (p *FramePump) buffer(r image.Rectangle) *image.RGBA {
	for {
		select {
		case img := <-p.free:
			if img.Rect == r {
				return img
			}
		default:
			return image.NewRGBA(r)
		}
	}
}

func (p *FramePump) recycle(img *image.RGBA) {
	select {
	case p.free <- img:
	default:
	}
}

// Run reads frames until the channel closes or ctx ends.
func (p *FramePump) Run(ctx context.Context, frames <-chan engine.Frame) {
	for {
		select {
		case <-ctx.Done():
			return
		case f, ok := <-frames:
			if !ok {
				return
			}
			src, err := jpeg.Decode(bytes.NewReader(f.JPEG))
			if err != nil {
				continue // a damaged frame: the next one replaces it
			}
			b := src.Bounds()
			dst := p.buffer(image.Rect(0, 0, b.Dx(), b.Dy()))
			draw.Draw(dst, dst.Rect, src, b.Min, draw.Src)
			p.Offer(dst)
		}
	}
}

// Offer hands a decoded frame over, replacing any not yet shown.
func (p *FramePump) Offer(img *image.RGBA) {
	p.decoded.Add(1)
	if old := p.next.Swap(img); old != nil {
		p.recycle(old) // never shown
	}
	if p.pending.Swap(true) {
		return // a hand-off is already queued; it will take this frame
	}
	p.b.Do(func() {
		p.pending.Store(false)
		if f := p.next.Swap(nil); f != nil {
			p.shown.Add(1)
			p.show(f)
			if prev := p.cur; prev != nil && prev != f {
				p.recycle(prev)
			}
			p.cur = f
		}
	})
}

// Counts reports frames decoded and frames shown.
func (p *FramePump) Counts() (decoded, shown uint64) { return p.decoded.Load(), p.shown.Load() }

// ToRGBA converts any image to a new *image.RGBA at origin 0,0.
func ToRGBA(src image.Image) *image.RGBA {
	if r, ok := src.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Rect, src, b.Min, draw.Src)
	return dst
}

package ui

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/jpeg"
	"sync/atomic"

	"waymark/engine"
)

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

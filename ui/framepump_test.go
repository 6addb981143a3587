package ui

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
	"time"

	"waymark/engine"
)

// testLoop stands in for Fyne's main goroutine: hand-offs queue here and
// the test runs them, so widgets are only touched by the test goroutine.
type testLoop struct{ ch chan func() }

func newTestLoop() (*testLoop, *Bridge) {
	l := &testLoop{ch: make(chan func(), 1024)}
	return l, NewBridgeWith(func(f func()) { l.ch <- f })
}

func TestFramePumpNewestWinsAndRecyclesSafely(t *testing.T) {
	loop, b := newTestLoop()
	var shown []*image.RGBA
	p := NewFramePump(b, func(img *image.RGBA) { shown = append(shown, img) })
	r := image.Rect(0, 0, 800, 600)
	a, bb, c := p.buffer(r), p.buffer(r), p.buffer(r)
	p.Offer(a)
	p.Offer(bb) // replaces a before it was shown
	if len(loop.ch) != 1 {
		t.Fatalf("%d hand-offs queued, want 1", len(loop.ch))
	}
	(<-loop.ch)()
	if len(shown) != 1 || shown[0] != bb {
		t.Fatal("the newest frame was not the one shown")
	}
	p.Offer(c)
	(<-loop.ch)()
	if shown[len(shown)-1] != c {
		t.Fatal("c not shown")
	}
	// c is on screen: the pool may give back a and b, never c.
	for range 5 {
		if got := p.buffer(r); got == c {
			t.Fatal("the frame on screen was handed out for reuse")
		}
	}
	decoded, n := p.Counts()
	if decoded != 3 || n != 2 {
		t.Fatalf("counts %d decoded %d shown", decoded, n)
	}
}

func TestFramePumpDecodesJPEG(t *testing.T) {
	loop, b := newTestLoop()
	got := make(chan *image.RGBA, 4)
	p := NewFramePump(b, func(img *image.RGBA) { got <- img })
	src := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for i := range src.Pix {
		src.Pix[i] = 0xff
	}
	src.Set(10, 10, color.Black)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	frames := make(chan engine.Frame, 2)
	frames <- engine.Frame{JPEG: []byte("not a jpeg")}
	frames <- engine.Frame{JPEG: buf.Bytes(), Width: 800, Height: 600}
	close(frames)
	p.Run(context.Background(), frames)
	select {
	case f := <-loop.ch:
		f()
	case <-time.After(2 * time.Second):
		t.Fatal("no frame handed over")
	}
	img := <-got
	if img.Rect.Dx() != 800 || img.Rect.Dy() != 600 {
		t.Fatalf("frame %v", img.Rect)
	}
	if c := img.RGBAAt(400, 300); c.R < 240 {
		t.Fatalf("pixel %v", c)
	}
}

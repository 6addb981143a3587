package browser

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// Live frames (engine.LiveFrames): the active tab's screencast, the newest
// frame kept for the live view.

// Frames streams JPEG frames of the active tab from the CDP screencast. The
// channel holds only the newest frame; it is closed by Close. The stream
// starts with the first call.
func (e *Engine) Frames() <-chan engine.Frame {
	if !e.framesOn.Swap(true) {
		go func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.ep != nil && !e.closed {
				e.startScreencast(e.ep.tab)
			}
		}()
	}
	return e.frames
}

// startScreencast streams a tab's frames; acks are sent from the reader
// goroutine, never from the engine's.
func (e *Engine) startScreencast(t *tab) {
	t.mu.Lock()
	if t.screencast {
		t.mu.Unlock()
		return
	}
	t.screencast = true
	t.mu.Unlock()
	frames := chromedp.Events(t.ctx, page.ScreencastFrame)
	go func() {
		for ev, err := range frames {
			if err != nil {
				return
			}
			actx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
			chromedp.Call(actx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID})
			cancel()
			f := engine.Frame{JPEG: ev.Data, Width: action.ViewportWidth, Height: action.ViewportHeight,
				At: time.Now(), Seq: e.frameSeq.Add(1)}
			if m := ev.Metadata; m != nil && m.DeviceWidth > 0 {
				f.Width, f.Height = int(m.DeviceWidth), int(m.DeviceHeight)
			}
			e.pushFrame(f)
		}
	}()
	sctx, cancel := context.WithTimeout(t.ctx, e.set.OpTimeout)
	defer cancel()
	q := int64(70)
	if _, err := chromedp.Call(sctx, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q,
		MaxWidth: action.ViewportWidth, MaxHeight: action.ViewportHeight, EveryNthFrame: 1,
	}); err != nil {
		e.logf("browser: screencast did not start: %v", err)
	}
}

// pushFrame keeps only the newest frame in the channel.
func (e *Engine) pushFrame(f engine.Frame) {
	e.framesMu.Lock()
	defer e.framesMu.Unlock()
	if e.framesClosed {
		return
	}
	select {
	case e.frames <- f:
		return
	default:
	}
	select {
	case <-e.frames:
	default:
	}
	select {
	case e.frames <- f:
	default:
	}
}

package browser

import (
	"context"
	_ "embed"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine/chromium"
)

// selectShimScript replaces Chromium's native <select> popup with an
// in-page list (see selectshim.js): the native popup is a separate widget
// that CDP screenshots and screencast frames do not show on Xvfb, and that
// CDP clicks miss in both display modes. The in-page list is part of the
// page's pixels and takes clicks and keys, identically in both modes.
//
//go:embed selectshim.js
var selectShimScript string

// pageScript runs at the start of every document in every frame of a tab:
// the settle probe's recorder, then the select popup.
var pageScript = settleScript + ";\n" + selectShimScript

// frameInjectTimeout bounds injectFrame on an idle machine (patient scales
// it with the load: a cross-site frame's new renderer process took longer
// on a machine running two test suites); steps wait for it to settle.
const frameInjectTimeout = 3 * time.Second

// injectFrame gives a cross-site iframe (an out-of-process frame, which is
// its own target: the tab's AddScriptToEvaluateOnNewDocument does not reach
// it) the page script, in its current document and in the ones it loads
// later. It attaches a second session to the frame for the tab's lifetime,
// and follows the frames nested in it. It runs on its own goroutine, never
// in a message loop.
func (t *tab) injectFrame(id target.ID) {
	defer func() {
		t.mu.Lock()
		t.injecting--
		t.mu.Unlock()
	}()
	fctx, cancel := chromedp.NewContext(t.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(),
		chromedp.WithListener(t.listenFrame))
	limit, stop := context.WithTimeout(context.Background(), chromium.Patient(frameInjectTimeout)) // more on a busy machine
	defer stop()
	deadline, _ := limit.Deadline()
	// The first Do attaches; a timeout cancels the frame's context rather
	// than a context derived from it, which would end the attachment.
	halt := context.AfterFunc(limit, cancel)
	err := chromedp.Do(fctx)
	if !halt() || err != nil {
		cancel()
		return
	}
	ctx, done := context.WithDeadline(fctx, deadline)
	defer done()
	script := t.env.script()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		cancel()
		return
	}
	t.env.apply(ctx) // a frame that cannot take them keeps the browser's
	// A frame that is already gone or busy only misses the list.
	chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](script))
	t.mu.Lock()
	if t.frameCtx == nil {
		t.frameCtx = map[target.ID]context.Context{}
	}
	t.frameCtx[id] = fctx // the settle probe reads the frame's recorder
	t.mu.Unlock()
}

// frameAttached starts injectFrame once per frame; the caller holds t.mu.
// Until it is done the tab does not count as settled.
func (t *tab) frameAttached(id target.ID) {
	if t.frames == nil {
		t.frames = map[target.ID]bool{}
	}
	if t.frames[id] || t.ctx.Err() != nil {
		return
	}
	t.frames[id] = true
	t.injecting++
	go t.injectFrame(id)
}

// listenFrame follows the frames nested in an out-of-process frame, and
// counts its requests with the tab's.
func (t *tab) listenFrame(ev any) {
	switch e := ev.(type) {
	case *target.EventAttachedToTarget:
		if e.TargetInfo != nil && e.TargetInfo.Type == "iframe" {
			t.mu.Lock()
			t.frameAttached(e.TargetInfo.TargetID)
			t.mu.Unlock()
		}
	case *network.EventRequestWillBeSent, *network.EventLoadingFinished, *network.EventLoadingFailed,
		*network.EventResponseReceived, *network.EventDataReceived, // and for the capture:
		*network.EventRequestWillBeSentExtraInfo, *network.EventResponseReceivedExtraInfo,
		*network.EventWebSocketCreated, *network.EventWebSocketFrameSent, *network.EventWebSocketFrameReceived, *network.EventWebSocketClosed,
		*page.EventFrameAttached: // for the request router
		t.listen(ev)
	}
}

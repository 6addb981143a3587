package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine/action"
	"waymark/engine/chromium"
)

// tab is one page target the engine drives and the state its events feed.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
	id     target.ID

	mu         sync.Mutex
	reqs       map[network.RequestID]*netReq // in flight
	doneReqs   []*netReq                     // the latest finished ones
	lastNet    time.Time                     // the latest navigation event
	navPending bool
	documents  int           // main-frame documents committed (a navigation adds one)
	nextDoc    chan struct{} // closed when the next one commits (nextDocument)
	// committed are the loaders of the main-frame documents committed
	// since the engine's last navigation began (expectNavigation).
	committed  map[cdp.LoaderID]bool
	loading    bool
	crashedCh  chan struct{}
	crashed    bool
	detachedCh <-chan struct{}
	screencast bool
	frames     map[target.ID]bool            // out-of-process frames given the page script
	frameCtx   map[target.ID]context.Context // their sessions, for the settle probe
	redrawn    []target.ID                   // the frames the last settle saw change (settle, confirmedShot)
	injecting  int                           // frames still being given it
	env        pageEnv                       // the episode's clock, time zone and locale
	net        *netCapture                   // the episode's network capture, nil when off
	route      *fetchRouter                  // the browser's request router, when the episode uses it (fetchroute.go)
	serve      *archiveServer                // a replay from an archive: the page's reports go to it
	// execCtx are the default execution contexts of the page's frames
	// (redact.go asks cross-origin frames in their own).
	execCtx map[cdp.FrameID]execContext
	// redaction are the boxes the last observation blacked out (redact.go).
	redaction []action.RedactBox
	// early is the observation the last settle took (settleShot).
	early *earlyShot
}

// execContext is a frame's default JavaScript context.
type execContext struct {
	id     runtime.ExecutionContextID
	unique string
}

// inMemory reports whether a request's address is read from memory, not
// the network.
func inMemory(u string) bool {
	return strings.HasPrefix(u, "blob:") || strings.HasPrefix(u, "data:")
}

// workerTypes are the targets that run a worker's script.
var workerTypes = map[string]bool{"worker": true, "shared_worker": true, "service_worker": true}

// ignoredTypes never count as in flight: they may stay open for ever.
var ignoredTypes = map[network.ResourceType]bool{
	network.ResourceTypeEventSource: true,
	network.ResourceTypeWebSocket:   true,
	network.ResourceTypeMedia:       true,
	network.ResourceTypePing:        true,
}

func newTab() *tab {
	return &tab{reqs: map[network.RequestID]*netReq{}, crashedCh: make(chan struct{})}
}

// netReq is one request the page made.
type netReq struct {
	url        string
	start, end time.Time
}

// keepDone is how many finished requests the tab remembers for the quiet
// window.
const keepDone = 64

// listen runs in the tab's message loop: fast, no commands.
func (t *tab) listen(ev any) {
	t.net.observe(t, ev) // netcapture.go
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ignoredTypes[ev.Type] {
			return
		}
		if _, ok := t.reqs[ev.RequestID]; !ok {
			u := ""
			if ev.Request != nil {
				u = ev.Request.URL
			}
			if inMemory(u) {
				return // blob: and data: are read from memory; a worker's may never say it finished
			}
			t.reqs[ev.RequestID] = &netReq{url: u, start: now}
		}
	case *network.EventLoadingFinished:
		t.finishReq(ev.RequestID, now)
	case *network.EventLoadingFailed:
		t.finishReq(ev.RequestID, now)
	case *page.EventFrameRequestedNavigation:
		if t.isMain(ev.FrameID) && ev.Disposition == page.ClientNavigationDispositionCurrentTab {
			t.navPending = true
			t.lastNet = now
		}
	case *page.EventFrameStartedLoading:
		if t.isMain(ev.FrameID) {
			t.loading = true
			t.lastNet = now
		}
	case *page.EventFrameStoppedLoading:
		if t.isMain(ev.FrameID) {
			t.loading = false
			t.navPending = false
			t.lastNet = now
		}
	case *page.EventFrameNavigated:
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			t.documents++
			if t.committed == nil {
				t.committed = map[cdp.LoaderID]bool{}
			}
			t.committed[ev.Frame.LoaderID] = true
			if t.nextDoc != nil {
				close(t.nextDoc)
				t.nextDoc = nil
			}
			t.navPending = false
			t.lastNet = now
		}
	case *page.EventFrameAttached:
		t.route.frameAttached(ev.FrameID, ev.ParentFrameID) // fetchroute.go
	case *runtime.EventExecutionContextCreated:
		if c := ev.Context; c != nil {
			var aux struct {
				FrameID   cdp.FrameID `json:"frameId"`
				IsDefault bool        `json:"isDefault"`
			}
			if json.Unmarshal([]byte(c.AuxData), &aux) == nil && aux.IsDefault && aux.FrameID != "" {
				if t.execCtx == nil {
					t.execCtx = map[cdp.FrameID]execContext{}
				}
				t.execCtx[aux.FrameID] = execContext{c.ID, c.UniqueID}
			}
		}
	case *runtime.EventExecutionContextDestroyed:
		for f, c := range t.execCtx {
			if c.unique == ev.ExecutionContextUniqueID {
				delete(t.execCtx, f)
			}
		}
	case *runtime.EventExecutionContextsCleared:
		t.execCtx = nil
	case *runtime.EventBindingCalled:
		if ev.Name == replayBinding {
			go t.serve.notHermetic(ev.Payload) // archiveserve.go
		}
	case *page.EventNavigatedWithinDocument:
		if t.isMain(ev.FrameID) {
			t.navPending = false
			t.lastNet = now
		}
	case *target.EventAttachedToTarget:
		// A cross-site iframe runs in its own process and needs the page
		// script (select popup, settle recorder) sent to it.
		if ev.TargetInfo != nil && ev.TargetInfo.Type == "iframe" {
			t.frameAttached(ev.TargetInfo.TargetID)
		}
		// A worker's main script is requested on the page's session but
		// finishes on the worker's own: the worker's start is its end.
		if ev.TargetInfo != nil && workerTypes[ev.TargetInfo.Type] {
			for id, r := range t.reqs {
				if r.url == ev.TargetInfo.URL {
					t.finishReq(id, now)
				}
			}
		}
	case *inspector.EventTargetCrashed:
		if !t.crashed {
			t.crashed = true
			close(t.crashedCh)
		}
	case *page.EventJavascriptDialogOpening:
		// A dialog blocks the page; accept it from outside the loop as a
		// person clicking OK would.
		go func() {
			ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
			defer cancel()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}()
	}
}

// gone reports whether the tab was closed (by the page or the browser).
func (t *tab) gone() bool {
	if t.ctx.Err() != nil {
		return true
	}
	if t.detachedCh == nil {
		return false
	}
	select {
	case <-t.detachedCh:
		return true
	default:
		return false
	}
}

func (t *tab) isMain(id cdp.FrameID) bool { return string(id) == string(t.id) }

func (t *tab) isCrashed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.crashed
}

// expectNavigation marks a navigation the engine itself starts.
func (t *tab) expectNavigation() {
	t.mu.Lock()
	t.navPending = true
	t.lastNet = time.Now()
	t.committed = nil
	t.mu.Unlock()
}

// hasCommitted reports whether the main-frame document of loader id
// committed since the engine's last navigation began.
func (t *tab) hasCommitted(id cdp.LoaderID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.committed[id]
}

func (t *tab) clearNavigation() {
	t.mu.Lock()
	t.navPending = false
	t.mu.Unlock()
}

// finishReq moves a request to the finished ones; the caller holds t.mu.
func (t *tab) finishReq(id network.RequestID, now time.Time) {
	r, ok := t.reqs[id]
	if !ok {
		return
	}
	delete(t.reqs, id)
	r.end = now
	if len(t.doneReqs) >= keepDone {
		t.doneReqs = append(t.doneReqs[:0], t.doneReqs[len(t.doneReqs)-keepDone/2:]...)
	}
	t.doneReqs = append(t.doneReqs, r)
}

// netState reports whether a navigation or request is pending, counting
// only requests started after since (long-lived older requests such as
// long polls would otherwise hold every step to the cap), and how long ago
// the last navigation or request event was. Requests to the addresses in
// bg (a poller's, started by a setInterval or a perpetual chain) are left
// out of both.
func (t *tab) netState(since time.Time, bg map[string]bool) (busy bool, sinceNet time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	last := t.lastNet
	for _, r := range t.reqs {
		if bg[r.url] {
			continue
		}
		if !r.start.Before(since) {
			n++
		}
		if r.start.After(last) {
			last = r.start
		}
	}
	for _, r := range t.doneReqs {
		if !bg[r.url] && r.end.After(last) {
			last = r.end
		}
	}
	return t.navPending || t.loading || n > 0 || t.injecting > 0, time.Since(last)
}

// errCrashed and errTimedOut classify a failed browser operation.
var (
	errCrashed  = errors.New(string(action.ErrRendererCrashed))
	errTimedOut = errors.New(string(action.ErrRendererTimeout))
)

// do runs fn on the tab with a timeout (d, stretched on a busy machine:
// chromium.Patient, but never past the step's bound: stepbound.go);
// it gives up at once when the tab's renderer crashes.
func (t *tab) do(ctx context.Context, d time.Duration, fn func(ctx context.Context) error) error {
	if t.isCrashed() {
		return errCrashed
	}
	limit := stepLimit(ctx, chromium.Patient(d)) // more on a busy machine
	start := time.Now()
	tctx, cancel := context.WithTimeout(t.ctx, limit)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel) // the caller's ctx ends the op too
	defer stop()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-t.crashedCh:
			cancel()
		case <-done:
		}
	}()
	err := fn(tctx)
	if err == nil {
		return nil
	}
	switch {
	case t.isCrashed():
		return errCrashed
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) || tctx.Err() != nil:
		// The words say what ran out, for the log: errors.Is still
		// matches errTimedOut, and observations carry only its code.
		return fmt.Errorf("%w: %v after %v of %v (tab context: %v)", errTimedOut, err,
			time.Since(start).Round(time.Millisecond), limit.Round(time.Millisecond), t.ctx.Err())
	}
	return err
}

// targetURL asks the browser for the tab's URL; it works when the renderer
// does not answer.
func (t *tab) targetURL(ctx context.Context) string {
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		return ""
	}
	for _, in := range infos {
		if in.TargetID == t.id {
			return in.URL
		}
	}
	return ""
}

// setup prepares a freshly attached tab: 800×600 at scale 1, the settle
// script and the select popup (pageScript), the episode's clock, time zone
// and locale (t.env), the front position, and a check of the viewport.
func (t *tab) setup(ctx context.Context, d time.Duration) error {
	if ch, err := chromedp.Detached(t.ctx); err == nil {
		t.detachedCh = ch
	}
	err := t.do(ctx, d, func(ctx context.Context) error {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(800, 600, chromedp.EmulateScale(1))); err != nil {
			return err
		}
		// The page behaves as focused even when its window is not (no
		// window manager on Xvfb, several windows).
		if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
			return err
		}
		if err := t.env.apply(ctx); err != nil {
			return err
		}
		if t.serve != nil {
			// The replay script's reports (archiveserve.go).
			if _, err := chromedp.Call(ctx, runtime.AddBinding, runtime.AddBindingParams{Name: replayBinding}); err != nil {
				return err
			}
		}
		// The settle recorder and the in-page <select> popup (and the
		// clock), in every frame of every document, and in the one already
		// loaded.
		script := t.env.script()
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
			return err
		}
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](script)); err != nil {
			return err
		}
		// No native file dialog on the display: a file input click does nothing.
		if _, err := chromedp.Call(ctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, page.BringToFront, cdp.Empty{}); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return t.checkViewport(ctx, d)
}

// checkViewport verifies innerWidth, innerHeight and devicePixelRatio.
func (t *tab) checkViewport(ctx context.Context, d time.Duration) error {
	var got []float64
	err := t.do(ctx, d, func(ctx context.Context) error {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[innerWidth, innerHeight, devicePixelRatio]`))
		return err
	})
	if err != nil {
		return err
	}
	if len(got) != 3 || got[0] != action.ViewportWidth || got[1] != action.ViewportHeight || got[2] != 1 {
		return fmt.Errorf("browser viewport did not align to 800x600 at scale 1 (got %v)", got)
	}
	return nil
}

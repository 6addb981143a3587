package browser

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine/chromium"
)

// A fetchRouter pauses the requests of one Chromium with the Fetch domain of
// the browser's own session, the one place that sees every target's
// requests: pages, popups, same-process and out-of-process frames,
// dedicated, shared and service workers (a page's session sees neither a
// worker's nor a service worker's requests, and an out-of-process frame's
// only once it is attached). Each paused request is handed to the browser
// context it belongs to, found from its frame: a frame is a target (a
// page, an out-of-process frame, a worker), whose context the browser
// says, or a same-process frame, which the tab that owns it registers as
// it attaches (frameAttached).
//
// A context that records its archive (archivecap.go) gets every response
// before its page does, to keep its body; a context replayed from an
// archive (archiveserve.go) gets every request before it is sent, and
// answers it. The other contexts' requests go on unchanged; Fetch pauses
// only the stages some context needs, and nothing while no context does.
type fetchRouter struct {
	bctx context.Context // the browser's connection
	logf func(string, ...any)
	// offline: every context of this Chromium is replayed from an
	// archive, so a request whose context cannot be found is refused
	// rather than sent.
	offline bool

	setMu   sync.Mutex // one set at a time, so the stages enabled are the last set's
	mu      sync.Mutex
	owner   map[cdp.FrameID]cdp.BrowserContextID // targets and frames → their context
	routes  map[cdp.BrowserContextID]*route
	stages  [2]bool       // Fetch is enabled for the request, the response stage
	changed chan struct{} // closed and replaced when owner changes
	started bool
}

// route is what one browser context does with its paused requests.
type route struct {
	rec   *archiveRecorder // keeps the responses (recording), or nil
	serve *archiveServer   // answers the requests (replay), or nil
}

// ownerWait bounds how long a paused request waits for its frame's
// context to become known (a frame's frameAttached event and the browser's
// Fetch event travel different paths).
const ownerWait = time.Second

func newFetchRouter(bctx context.Context, offline bool, logf func(string, ...any)) *fetchRouter {
	return &fetchRouter{bctx: bctx, offline: offline, logf: logf, owner: map[cdp.FrameID]cdp.BrowserContextID{},
		routes: map[cdp.BrowserContextID]*route{}, changed: make(chan struct{})}
}

// start listens to the browser's target and Fetch events, once.
func (r *fetchRouter) start() error {
	r.mu.Lock()
	if r.started {
		r.mu.Unlock()
		return nil
	}
	r.started = true
	r.mu.Unlock()
	if err := chromedp.ListenBrowser(r.bctx, r.listen); err != nil {
		return err
	}
	if _, err := chromedp.CallBrowser(r.bctx, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return err
	}
	infos, err := chromedp.CallBrowser(r.bctx, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return err
	}
	for _, in := range infos.TargetInfos {
		r.addTarget(in)
	}
	return nil
}

// listen runs in the browser's message loop: no commands here.
func (r *fetchRouter) listen(ev any) {
	switch ev := ev.(type) {
	case *target.EventTargetCreated:
		r.addTarget(ev.TargetInfo)
	case *target.EventTargetInfoChanged:
		r.addTarget(ev.TargetInfo)
	case *target.EventTargetDestroyed:
		r.mu.Lock()
		delete(r.owner, cdp.FrameID(ev.TargetID))
		r.mu.Unlock()
	case *fetch.EventRequestPaused:
		go r.paused(ev)
	}
}

func (r *fetchRouter) addTarget(in *target.Info) {
	if in == nil || in.BrowserContextID == "" {
		return
	}
	r.setOwner(cdp.FrameID(in.TargetID), in.BrowserContextID)
}

func (r *fetchRouter) setOwner(f cdp.FrameID, c cdp.BrowserContextID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owner[f] == c {
		return
	}
	r.owner[f] = c
	close(r.changed)
	r.changed = make(chan struct{})
}

// frameAttached registers a same-process frame under its parent's context
// (a tab's listener calls it).
func (r *fetchRouter) frameAttached(frame, parent cdp.FrameID) {
	if r == nil {
		return
	}
	r.mu.Lock()
	c, ok := r.owner[parent]
	r.mu.Unlock()
	if ok {
		r.setOwner(frame, c)
	}
}

// ownerOf finds the context of a paused request's frame, waiting up to
// ownerWait for it to be registered.
func (r *fetchRouter) ownerOf(f cdp.FrameID) (cdp.BrowserContextID, bool) {
	deadline := time.NewTimer(ownerWait)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		c, ok := r.owner[f]
		ch := r.changed
		r.mu.Unlock()
		if ok || f == "" {
			return c, ok
		}
		select {
		case <-ch:
		case <-deadline.C:
			return "", false
		case <-r.bctx.Done():
			return "", false
		}
	}
}

// set gives context c its route (nil: none), the tab t its first frame,
// and enables the Fetch stages the routes need.
func (r *fetchRouter) set(ctx context.Context, c cdp.BrowserContextID, tab target.ID, rt *route) error {
	r.setMu.Lock()
	defer r.setMu.Unlock()
	if err := r.start(); err != nil {
		return err
	}
	if tab != "" {
		r.setOwner(cdp.FrameID(tab), c)
	}
	r.mu.Lock()
	if rt == nil {
		delete(r.routes, c)
	} else {
		r.routes[c] = rt
	}
	var want [2]bool
	want[0] = r.offline
	for _, x := range r.routes {
		want[0] = want[0] || x.serve != nil
		want[1] = want[1] || x.rec != nil
	}
	had := r.stages
	r.stages = want
	r.mu.Unlock()
	if want == had {
		return nil
	}
	var pats []*fetch.RequestPattern
	if want[0] {
		pats = append(pats, &fetch.RequestPattern{URLPattern: "*", RequestStage: fetch.RequestStageRequest})
	}
	if want[1] {
		pats = append(pats, &fetch.RequestPattern{URLPattern: "*", RequestStage: fetch.RequestStageResponse})
	}
	var err error
	if len(pats) == 0 {
		_, err = chromedp.CallBrowser(r.bctx, fetch.Disable, cdp.Empty{})
	} else {
		_, err = chromedp.CallBrowser(r.bctx, fetch.Enable, fetch.EnableParams{Patterns: pats})
	}
	if err != nil {
		r.mu.Lock()
		r.stages = had
		r.mu.Unlock()
	}
	return err
}

// paused hands one paused request to its context's route; a request no
// route takes goes on as it is (on an offline Chromium it is refused).
func (r *fetchRouter) paused(ev *fetch.EventRequestPaused) {
	responseStage := ev.ResponseStatusCode != 0 || ev.ResponseErrorReason != ""
	if ev.Request != nil && chromium.IsAdmitRequest(ev.Request.URL) {
		// A new context's credentials for the host-mapping proxy: the
		// request goes to that proxy on this machine, which answers it
		// itself; it is neither a page's request nor the network.
		r.resume(ev.RequestID)
		return
	}
	c, known := r.ownerOf(ev.FrameID)
	r.mu.Lock()
	rt := r.routes[c]
	r.mu.Unlock()
	switch {
	case rt != nil && responseStage && rt.rec != nil:
		rt.rec.response(r, ev)
		return
	case rt != nil && !responseStage && rt.serve != nil:
		rt.serve.request(r, ev)
		return
	case !responseStage && r.offline:
		u := ""
		if ev.Request != nil {
			u = ev.Request.URL
		}
		if !known {
			r.logf("browser: offline replay: refused %s: its frame %s belongs to no episode this Chromium knows", u, ev.FrameID)
		}
		r.fail(ev.RequestID, network.ErrorReasonBlockedByClient)
		return
	}
	r.resume(ev.RequestID)
}

// resume lets a paused request (or response) go on unchanged.
func (r *fetchRouter) resume(id fetch.RequestID) {
	if _, err := chromedp.CallBrowser(r.bctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil && r.bctx.Err() == nil {
		r.logf("browser: a paused request could not go on: %v", err)
	}
}

// fail fails a paused request with reason (the page sees a network error).
func (r *fetchRouter) fail(id fetch.RequestID, reason network.ErrorReason) {
	if _, err := chromedp.CallBrowser(r.bctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: reason}); err != nil && r.bctx.Err() == nil {
		r.logf("browser: a paused request could not be refused: %v", err)
	}
}

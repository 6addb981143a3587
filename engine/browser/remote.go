package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"waymark/engine"
	"waymark/engine/chromium"
)

// Remote makes the engine drive a browser that runs elsewhere, over CDP,
// instead of starting Chromium: no local Chromium or Xvfb is needed.
//
// BrowserContextID is the session's browser context, made by the
// remote_cdp provider (engine/provider/remotecdp); the engine opens nothing
// in it, and the session ends when it is gone (remoteAlive). Every episode
// gets a fresh browser context of its own, as locally, so a Reset forgets
// cookies and storage; those contexts are disposed when the episode ends,
// and by the remote browser itself when the connection drops
// (disposeOnDetach).
type Remote struct {
	// WSURL is the browser's websocket URL (ws://host:port/devtools/browser/…,
	// with any extra query parameters the farm wants).
	WSURL string
	// BrowserContextID is the session's browser context; empty: the
	// session lasts as long as the connection.
	BrowserContextID string
	// DialTimeout bounds the websocket connection (default 10 s).
	DialTimeout time.Duration
}

// NewForHandle makes an engine for a session a provider acquired: a local
// Chromium for local_process, the remote browser for remote_cdp. The
// handle must belong to this process (see engine.Handle.CheckOwner).
func NewForHandle(h engine.Handle, opts Options) (*Engine, error) {
	if err := h.CheckOwner(); err != nil {
		return nil, err
	}
	switch h.Transport {
	case engine.TransportLocalProcess:
		opts.Remote = nil
		if d := h.Metadata[chromium.MetaDisplay]; d != "" && opts.Display == "" {
			opts.Display = d
		}
		if c := h.Metadata[chromium.MetaChromiumPath]; c != "" && opts.ChromiumPath == "" {
			opts.ChromiumPath = c
		}
	case engine.TransportRemoteCDP:
		if h.Endpoint == "" {
			return nil, fmt.Errorf("the remote_cdp session %s has no endpoint", h.SessionID)
		}
		opts.Remote = &Remote{WSURL: h.Endpoint, BrowserContextID: h.Metadata[engine.MetaBrowserContextID]}
	default:
		return nil, fmt.Errorf("unknown browser transport %q in session %s (want %s or %s)",
			h.Transport, h.SessionID, engine.TransportLocalProcess, engine.TransportRemoteCDP)
	}
	return New(opts)
}

// newRemote is New for an engine on a remote browser.
func newRemote(opts Options, set engine.Settings) (*Engine, error) {
	if opts.Remote.WSURL == "" {
		return nil, errors.New("the remote browser has no websocket URL")
	}
	if _, err := relayFor(opts.HostRules); err != nil { // remotehosts.go
		return nil, err
	}
	e := &Engine{opts: opts, set: set, frames: make(chan engine.Frame, 1), display: engine.DisplayHeadless}
	e.state.MaxSteps = set.MaxSteps
	return e, nil
}

// connectRemote is launch for a remote browser: it connects, and checks
// that the session's browser context is there. It opens no tab: a tab of
// the engine's own, to learn from its closing that the provider disposed
// of the context, cost a farm that runs with Chromium's own features a
// window with two renderer processes (its page, and the omnibox popups
// Chromium preloads into every window), as much as the episode's page
// itself; a hidden tab has no window, but it outlives the disposal of its
// context (its life is the connection's).
func (e *Engine) connectRemote() error {
	r := e.opts.Remote
	dial := r.DialTimeout
	if dial <= 0 {
		dial = 10 * time.Second
	}
	allocCtx, allocCancel := remote.NewAllocator(context.Background(), r.WSURL, remote.NoModifyURL, remote.WithDialTimeout(dial))
	var copts []chromedp.ContextOption
	if r.BrowserContextID != "" {
		copts = append(copts, chromedp.WithExistingBrowserContext(cdp.BrowserContextID(r.BrowserContextID)))
	}
	bctx, bcancel := chromedp.NewContext(allocCtx, copts...)
	start, cancelStart := context.WithTimeout(context.Background(), dial+e.set.OpTimeout)
	defer cancelStart()
	stop := context.AfterFunc(start, bcancel)
	// The first call connects (under bctx, which the connection lives by).
	v, err := chromedp.CallBrowser(bctx, browser.GetVersion, cdp.Empty{})
	var there bool
	if err == nil {
		there, err = contextThere(bctx, r.BrowserContextID)
	}
	if !stop() || err != nil {
		bcancel()
		allocCancel()
		if errors.Is(start.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: %s did not answer within %v; the farm may be overloaded: try again, or give it more time (connect_timeout)",
				engine.ErrRemoteSlow, engine.RedactURL(r.WSURL), (dial + e.set.OpTimeout).Round(100*time.Millisecond))
		}
		if err == nil {
			err = start.Err()
		}
		return fmt.Errorf("%w: could not open the session on %s: %v; check that the browser farm runs, release this session and acquire a new one",
			engine.ErrRemoteGone, engine.RedactURL(r.WSURL), engine.ScrubQueries(err.Error()))
	}
	if !there {
		bcancel()
		allocCancel()
		return fmt.Errorf("%w: the session's browser context is no longer on %s (the session was released or its lease expired); release this session and acquire a new one",
			engine.ErrRemoteGone, engine.RedactURL(r.WSURL))
	}
	e.allocCancel, e.browserCtx, e.browserCancel = allocCancel, bctx, bcancel
	// Closed when the connection is lost (chromedp cancels bctx then), or
	// when remoteAlive finds the session's context gone.
	e.anchorGone = bctx.Done()
	e.version = v.Product
	e.watchOpeners(bctx)
	e.logf("browser: connected to %s (%s)", engine.RedactURL(r.WSURL), e.version)
	return nil
}

// contextThere reports whether the browser behind ctx has the browser
// context id (an empty id is always there).
func contextThere(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return true, nil
	}
	res, err := chromedp.CallBrowser(ctx, target.GetBrowserContexts, cdp.Empty{})
	if err != nil {
		return false, err
	}
	return slices.Contains(res.BrowserContextIDs, cdp.BrowserContextID(id)), nil
}

// remoteAlive reports whether the connection to the remote browser lives
// and the session's browser context is still there: the provider disposes
// of it when the session is released or its lease expired, which ends the
// engine's use of the session. It asks the browser (one round trip; each
// reset and step ask once); a browser that does not answer in time is
// slow, not gone. A session found gone drops its connection, and with it
// the episode's browser context.
func (e *Engine) remoteAlive() bool {
	if e.browserCtx == nil || e.browserCtx.Err() != nil {
		return false
	}
	// A call on a lost connection fails as soon as the connection's
	// reader ends, before the browser's context is cancelled: read the
	// loss itself, so a step that failed on it always finds it.
	c, drop := chromedp.FromContext(e.browserCtx), e.browserCancel
	if c == nil || c.Browser == nil || chromium.Lost(c.Browser) {
		return false
	}
	ctx, cancel := context.WithTimeout(e.browserCtx, chromium.Patient(2*time.Second))
	defer cancel()
	there, err := contextThere(ctx, e.opts.Remote.BrowserContextID)
	if err != nil {
		return !chromium.Lost(c.Browser) && e.browserCtx.Err() == nil
	}
	if !there {
		drop()
	}
	return there
}

// remoteGone is Step's error: nil for a local browser, and for a remote one
// whose connection still lives; else a clear engine.ErrRemoteGone (the observation
// then ends the episode as a crash, as locally).
func (e *Engine) remoteGone() error {
	if e.opts.Remote == nil || e.browserAlive() {
		return nil
	}
	return fmt.Errorf("%w: the session on %s ended during the step (the connection closed, or the session was released or its lease expired); release this session and acquire a new one",
		engine.ErrRemoteGone, engine.RedactURL(e.opts.Remote.WSURL))
}

package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// A reset: the episode in progress ends, a fresh browser context with one
// prepared tab opens on the engine's browser (the pool's Chromium, or the
// remote one), and the start page loads.

// endEpisode closes the episode's tabs and browser context.
func (e *Engine) endEpisode() {
	if e.ep == nil {
		return
	}
	e.openerSink.Store(nil)
	// Closing the tabs and disposing the browser context takes a round trip
	// or two; the next episode need not wait for it. Close does.
	e.closing.Go(e.ep.cancel)
	e.ep = nil
}

// Reset closes any episode in progress, opens opts.StartURL in a fresh
// browser context and returns the first observation (Step 0).
func (e *Engine) Reset(ctx context.Context, opts engine.ResetOptions) (action.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return action.Observation{}, engine.ErrClosed
	}
	if err := action.CheckURL(opts.StartURL); err != nil {
		return action.Observation{}, err
	}
	if err := checkEnv(opts); err != nil {
		return action.Observation{}, err
	}
	if opts.Archive != nil && e.opts.Remote != nil {
		return action.Observation{}, errors.New("a replay from the recording's archive (offline) needs a local Chromium, not a browser farm: replay without --browser-provider")
	}
	begin := time.Now()
	e.endEpisode()
	if offline := opts.Archive != nil; offline != e.offline {
		// Replays from archives run on a Chromium of their own, where
		// nothing is sent to the network.
		e.offline = offline
		e.shutdownBrowser()
	}
	tEnd := time.Since(begin)
	id := opts.EpisodeID
	if id == "" {
		id = uuid.NewString()
	}
	e.setState(func(s *engine.State) { *s = engine.State{EpisodeID: id, MaxSteps: e.set.MaxSteps} })

	e.policy, e.policySet = opts.Redact, opts.RedactSet
	env := envOf(opts, begin)
	env.redact = e.redactPolicy() != nil
	var srv *archiveServer
	switch {
	case opts.Archive != nil:
		srv = newArchiveServer(opts.Archive, opts.ArchiveFallback, e.logf)
		env.replay = replayEnvScript(opts.Archive, seedOf(opts, id))
	case e.set.HAR && e.opts.Remote == nil:
		env.replay = recordEnvScript(seedOf(opts, id)) // the archive's recording
	}
	ep, err := e.openEpisode(ctx, env, srv)
	if err != nil && ctx.Err() == nil {
		// The browser may have died since the last episode: start it again.
		e.logf("browser: opening the episode failed (%v); restarting Chromium", err)
		if err = e.launch(); err == nil {
			ep, err = e.openEpisode(ctx, env, srv)
		}
	}
	if err != nil {
		e.setState(func(s *engine.State) { s.Done = true })
		return action.Observation{}, err
	}
	e.logf("browser: reset: previous episode closed in %v, new tab ready in %v", tEnd, time.Since(begin)-tEnd)
	defer func() {
		if e.sb != nil { // the next episode's browser context, made while this one runs
			e.sb.Prepare(e.opts.HostRules, e.set.OpTimeout)
		}
	}()
	ep.id = id
	ep.check = opts.Check
	ep.valid = opts.Validate
	e.ep = ep

	obs := action.Observation{Step: 0}
	navStart := time.Now()
	errCode, err := e.navigate(ctx, ep.tab, opts.StartURL)
	obs.Timings.ActionMS = time.Since(navStart).Milliseconds()
	obs.Error = errCode
	if err == nil {
		var d time.Duration
		d, obs.Timings.SettledBy, err = ep.tab.settle(ctx, navStart, e.set.ActionWait, e.set.OpTimeout, nil)
		obs.Timings.SettleMS = d.Milliseconds()
	}
	e.finishObservation(ctx, &obs, err, begin)
	return obs, nil
}

// openEpisode makes a new browser context with one prepared tab; env is
// what every page of the episode gets.
func (e *Engine) openEpisode(ctx context.Context, env pageEnv, srv *archiveServer) (*episode, error) {
	if !e.browserAlive() || e.sb != nil && e.sb.Draining() {
		if err := e.launch(); err != nil {
			return nil, err
		}
	}
	t := newTab()
	t.env = env
	set := e.set
	set.Redact = e.redactPolicy()
	t.net = newCapture(set)
	e.netCap.Store(t.net)
	var tc *chromium.TabContext
	if e.sb != nil {
		tc = e.sb.TakeSpare(ctx, e.opts.HostRules) // made ahead (engine/chromium/spare.go)
	}
	if tc != nil {
		tc.Adopt(t.listen)
	} else {
		rules := e.opts.HostRules
		if e.opts.Remote != nil {
			rules = "" // relayed by the engine instead (remotehosts.go)
		}
		var err error
		if tc, err = chromium.NewTabContext(ctx, e.browserCtx, rules, e.set.OpTimeout, t.listen); err != nil {
			return nil, err
		}
	}
	if e.sb != nil {
		e.sb.Opened() // an episode's context, made now or ahead
	}
	tctx, cancel := tc.Ctx, tc.Cancel
	if e.sb != nil {
		// Every request of the episode's browser context can be paused by
		// the browser's router: answered from the archive (a replay), or
		// each response kept in the archive (a recording). The tab tells
		// it its frames either way, so the requests of a context that
		// needs neither go on at once.
		router := e.router()
		var rt *route
		if srv != nil || t.net != nil {
			rt = &route{serve: srv}
			if t.net != nil {
				rt.rec = t.net.rec
			}
		}
		if err := router.set(ctx, tc.BrowserContextID, tc.ID, rt); err != nil {
			cancel()
			return nil, fmt.Errorf("could not follow the episode's requests: %w", err)
		}
		t.route, t.serve = router, srv
		if rt != nil {
			bc, closeTab := tc.BrowserContextID, cancel
			cancel = func() {
				closeTab()
				if err := router.set(context.Background(), bc, "", nil); err != nil && router.bctx.Err() == nil {
					e.logf("browser: could not stop following an episode's requests: %v", err)
				}
			}
		}
	}
	t.ctx, t.cancel, t.id = tctx, cancel, tc.ID
	if err := t.setup(ctx, e.set.OpTimeout); err != nil {
		cancel()
		return nil, err
	}
	if err := e.relayHosts(ctx, t, false); err != nil { // remote browser: remotehosts.go
		cancel()
		return nil, err
	}
	ep := &episode{ctx: tctx, cancel: cancel, tab: t, tabs: map[target.ID]*tab{t.id: t}, order: []*tab{t}, env: env, serve: srv,
		newTabs: make(chan target.ID, 8), px: action.ViewportWidth / 2, py: action.ViewportHeight / 2}
	sink := func(opener, id target.ID) {
		ep.tabsMu.Lock()
		_, ours := ep.tabs[opener]
		ep.tabsMu.Unlock()
		if ours {
			select {
			case ep.newTabs <- id:
			default:
			}
		}
	}
	e.openerSink.Store(&sink)
	if e.framesOn.Load() {
		e.startScreencast(t)
	}
	return ep, nil
}

// navigate loads url in the tab and waits for the load event, at most
// PageLoadTimeout. A timeout or a network error is reported as the
// observation's error code; err is only for a crash or a dead renderer.
func (e *Engine) navigate(ctx context.Context, t *tab, url string) (code action.Code, err error) {
	t.expectNavigation()
	lctx, lcancel := context.WithCancel(t.ctx)
	defer lcancel()
	loaded := chromedp.Events(lctx, page.LoadEventFired)
	var res page.NavigateResult
	err = t.do(ctx, e.set.PageLoadTimeout, func(ctx context.Context) error {
		var err error
		res, err = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: url})
		if err != nil || res.ErrorText != "" || res.LoaderID == "" {
			return err
		}
		// Wait for the load event of this document: one that comes before
		// it committed is the document's before it (a new tab's first,
		// empty document fires its load late when the browser is busy),
		// and taking it would observe the page before it is there.
		stop := context.AfterFunc(ctx, lcancel)
		defer stop()
		for _, err := range loaded {
			if err != nil {
				return ctx.Err()
			}
			if t.hasCommitted(res.LoaderID) {
				return nil
			}
			e.logf("browser: a load event came before %s committed: the page before it, not this one; waiting for its own", engine.RedactURL(url))
		}
		return ctx.Err()
	})
	switch {
	case errors.Is(err, errTimedOut):
		// Stop the slow load so a late answer is not taken for a later step's.
		sctx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
		chromedp.Call(sctx, page.StopLoading, cdp.Empty{})
		cancel()
		t.clearNavigation()
		return action.ErrPageLoadTimeout, nil
	case err != nil:
		t.clearNavigation()
		return "", err
	case res.ErrorText != "":
		return action.Code(res.ErrorText), nil
	}
	return "", nil
}

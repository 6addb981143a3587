package chromium

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Prepared ahead: after each Reset on a pooled Chromium, the pool makes the
// next episode's browser context and tab (with downloads denied and the
// engine's host rules) in the background, while the person reads the next
// task or the agent thinks. The next Reset with the same host rules takes
// it and pays only for the page's set-up (viewport, clock, scripts) and
// the navigation. Each Chromium keeps at most one spare; a spare made for
// other host rules gives way to a new one.

// TabContext is a new browser context with its first tab, attached.
type TabContext struct {
	Ctx              context.Context    // the tab's chromedp context
	Cancel           context.CancelFunc // closes the tab and disposes of the context
	ID               target.ID          // the tab
	BrowserContextID cdp.BrowserContextID

	rules string // the host rules its proxy maps
	relay *listenRelay
}

// listenRelay passes the tab's events to the listener of the episode that
// adopts it (none before).
type listenRelay struct{ fn atomic.Pointer[func(any)] }

func (r *listenRelay) listen(ev any) {
	if f := r.fn.Load(); f != nil {
		(*f)(ev)
	}
}

// NewTabContext opens a browser context with one tab under parent (a
// chromedp browser context) and denies downloads in it; rules, when set,
// are host rules its own proxy maps (hostproxy.go). listen, when set,
// gets the tab's events from its start.
func NewTabContext(ctx, parent context.Context, rules string, limit time.Duration, listen func(any)) (*TabContext, error) {
	var opts []chromedp.CreateBrowserContextOption
	p, err := proxyFor(rules) // hostproxy.go
	if err != nil {
		return nil, err
	}
	if p != nil {
		opts = append(opts, p.contextOption())
	}
	tc := &TabContext{rules: rules, relay: &listenRelay{}}
	if listen != nil {
		tc.relay.fn.Store(&listen)
	}
	var cancel context.CancelFunc
	tc.Ctx, cancel = chromedp.NewContext(parent, chromedp.WithNewBrowserContext(opts...), chromedp.WithListener(tc.relay.listen))
	tc.Cancel = cancel
	var token string // the context's secret for the proxy, withdrawn with it
	if p != nil {
		var revoke func()
		token, revoke = p.issue()
		tc.Cancel = func() { cancel(); revoke() }
	}
	limit = Patient(limit) // more on a busy machine
	sctx, scancel := context.WithTimeout(ctx, limit)
	defer scancel()
	stop := context.AfterFunc(sctx, tc.Cancel)
	err = chromedp.Do(tc.Ctx)
	if !stop() {
		tc.Cancel()
		return nil, fmt.Errorf("could not open a browser tab: %w", sctx.Err())
	}
	if err != nil {
		tc.Cancel()
		return nil, fmt.Errorf("could not open a browser tab: %w", err)
	}
	if p != nil {
		if err := p.admit(ctx, tc.Ctx, token, limit); err != nil { // hostproxy.go
			tc.Cancel()
			return nil, err
		}
	}
	c := chromedp.FromContext(tc.Ctx)
	tc.ID, tc.BrowserContextID = c.Target.TargetID, c.BrowserContextID
	dctx, dcancel := context.WithTimeout(tc.Ctx, limit)
	defer dcancel()
	if _, err := chromedp.CallBrowser(dctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: tc.BrowserContextID,
	}); err != nil {
		tc.Cancel()
		return nil, fmt.Errorf("could not deny downloads: %w", err)
	}
	return tc, nil
}

// Adopt gives the tab's events to listen from now on.
func (tc *TabContext) Adopt(listen func(any)) { tc.relay.fn.Store(&listen) }

// TakeSpare hands out b's spare made for rules: the one ready, or the one
// being made, once it is done (at most until ctx ends). Waiting for a
// spare already under way costs less than making a second context beside
// it: on a two-core machine each new context's renderer process took
// about a second of CPU, and both would compete for it.
func (b *Browser) TakeSpare(ctx context.Context, rules string) *TabContext {
	p := b.pool
	p.mu.Lock()
	if b.made != nil && b.makingRules == rules {
		made := b.made
		p.mu.Unlock()
		select {
		case <-made:
		case <-ctx.Done():
			return nil
		}
		p.mu.Lock()
	}
	defer p.mu.Unlock()
	sp := b.spare
	if sp == nil || sp.rules != rules || sp.Ctx.Err() != nil {
		return nil
	}
	b.spare = nil
	return sp
}

// Prepare makes a spare in b for rules in the background, unless one is
// ready or being made; limit bounds its making.
func (b *Browser) Prepare(rules string, limit time.Duration) {
	p := b.pool
	p.mu.Lock()
	if p.opts.NoSpare || p.closed || b.made != nil || b.draining || b.stopped ||
		b.spare != nil && b.spare.rules == rules && b.spare.Ctx.Err() == nil {
		p.mu.Unlock()
		return
	}
	old := b.spare
	made := make(chan struct{})
	b.spare, b.made, b.makingRules = nil, made, rules
	b.spareGen++
	p.mu.Unlock()
	if old != nil {
		old.Cancel()
	}
	go func() {
		sp, err := NewTabContext(context.Background(), b.ctx, rules, limit, nil)
		p.mu.Lock()
		b.made = nil
		if err == nil && !p.closed && !b.draining && !b.stopped && b.spare == nil {
			b.spare, sp = sp, nil
		}
		close(made)
		p.mu.Unlock()
		if sp != nil {
			sp.Cancel() // no longer wanted
		}
		if err != nil && b.Alive() {
			p.logf("browser pool: could not prepare the next episode's browser context: %v", err)
		}
	}()
}

package remotecdp

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"waymark/engine"
	"waymark/engine/chromium"
)

// A session's lease: renewed by Heartbeat, swept when it expired, and
// ended by Release, which disposes of the session's browser context.

// Release disposes the session's browser context. Releasing a session
// twice, or one whose endpoint died, is no error.
func (p *Provider) Release(ctx context.Context, h engine.Handle) error {
	if err := h.CheckOwner(); err != nil {
		return err
	}
	p.mu.Lock()
	s := p.take(h.SessionID)
	p.mu.Unlock()
	return p.dispose(ctx, h.SessionID, s)
}

// take removes a session from the books; the caller holds p.mu.
func (p *Provider) take(id string) *cdpSession {
	s := p.sessions[id]
	if s != nil {
		delete(p.sessions, id)
		s.ep.active--
	}
	return s
}

// dispose disposes of a session's browser context (s may be nil).
func (p *Provider) dispose(ctx context.Context, id string, s *cdpSession) error {
	if s == nil {
		return nil
	}
	if chromium.Lost(s.br) {
		return nil // the browser disposed of the context with the connection
	}
	cctx, cancel := context.WithTimeout(ctx, p.connectTimeout())
	defer cancel()
	if _, err := cdp.Call(cctx, s.br, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: s.ctxID}); err != nil {
		if strings.Contains(err.Error(), "Failed to find context") {
			return nil
		}
		if chromium.Lost(s.br) {
			return nil // the connection dropped during the call: the browser disposed of the context with it
		}
		return fmt.Errorf("releasing the remote browser session %s: %w", id, err)
	}
	return nil
}

// Heartbeat renews the session's lease for another TTL; it fails when the
// session was released or expired, or its browser context is gone.
func (p *Provider) Heartbeat(ctx context.Context, h engine.Handle) error {
	if err := h.CheckOwner(); err != nil {
		return err
	}
	p.mu.Lock()
	s := p.sessions[h.SessionID]
	if s == nil || !p.now().Before(s.deadline) {
		p.mu.Unlock()
		return fmt.Errorf("the remote browser session %s was released or its lease expired; acquire a new one", h.SessionID)
	}
	p.mu.Unlock()
	limit := callLimit(ctx, p.connectTimeout())
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := cdp.Call(cctx, s.br, target.GetBrowserContexts, cdp.Empty{})
	if err != nil {
		if ctx.Err() == context.Canceled {
			return ctx.Err()
		}
		return remoteCallError(s.br, s.ep.addr, "the lease renewal", limit, err)
	}
	for _, id := range res.BrowserContextIDs {
		if id == s.ctxID {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.sessions[h.SessionID] != s {
				return fmt.Errorf("the remote browser session %s was released during the heartbeat", h.SessionID)
			}
			s.deadline = p.now().Add(s.ttl)
			return nil
		}
	}
	return fmt.Errorf("%w: the browser context of session %s no longer exists on %s", engine.ErrRemoteGone, h.SessionID, engine.RedactURL(s.ep.addr))
}

// expire releases the sessions whose lease ended.
func (p *Provider) expire(ctx context.Context) {
	p.mu.Lock()
	now := p.now()
	gone := map[string]*cdpSession{}
	for id, s := range p.sessions {
		if !now.Before(s.deadline) {
			gone[id] = p.take(id)
		}
	}
	p.mu.Unlock()
	for id, s := range gone {
		p.dispose(ctx, id, s)
	}
}

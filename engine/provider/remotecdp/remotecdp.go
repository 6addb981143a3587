// Package remotecdp is the remote_cdp browser provider: sessions as
// browser contexts on remote Chromium endpoints that speak CDP (a browser
// farm), each handed to the engine as an engine.Handle whose Endpoint is
// the browser's websocket URL; engine/browser connects to it (remote.go
// there). It registers remote_cdp in engine.Providers.
package remotecdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/google/uuid"

	"waymark/engine"
	"waymark/engine/chromium"
)

func init() {
	engine.Providers.Register(engine.TransportRemoteCDP, func(raw json.RawMessage) (engine.Provider, error) {
		var o Options
		if err := engine.DecodeOptions(raw, &o); err != nil {
			return nil, err
		}
		return New(o)
	})
}

// MetaEndpoint is the Handle metadata key of the endpoint as configured
// (without its query); engine.MetaBrowserContextID is the session's
// browser context on it.
const MetaEndpoint = "endpoint"

// Provider supplies sessions as browser contexts on remote Chromium
// endpoints that speak CDP. It keeps one connection per endpoint; the
// contexts it creates are disposed by the browser when that connection
// ends (disposeOnDetach), so a process that dies leaves nothing behind.
// Its lock is never held over a network call: a slow endpoint delays only
// the acquire that tries it.
type Provider struct {
	opts Options

	mu       sync.Mutex
	eps      []*cdpEndpoint
	sessions map[string]*cdpSession
	now      func() time.Time
}

type cdpEndpoint struct {
	addr      string // as configured
	ws        string // resolved websocket URL with the query
	br        *chromedp.Browser
	cancel    context.CancelFunc
	active    int
	downUntil time.Time
	lastErr   error
	slow      bool // lastErr was a timeout: the endpoint is up but did not answer in time
}

type cdpSession struct {
	ep       *cdpEndpoint
	br       *chromedp.Browser // the connection that made the context
	ctxID    cdp.BrowserContextID
	deadline time.Time
	ttl      time.Duration
}

var _ engine.Provider = (*Provider)(nil)
var _ engine.Heartbeater = (*Provider)(nil)

// New makes the provider; it checks the options.
func New(o Options) (*Provider, error) {
	if len(o.Endpoints) == 0 {
		return nil, errors.New(`no endpoints; give "endpoints": ["http://host:9222"] or ws://…/devtools/browser/… URLs`)
	}
	p := &Provider{opts: o, sessions: map[string]*cdpSession{}, now: time.Now}
	for _, a := range o.Endpoints {
		u, err := url.Parse(a)
		if err != nil || u.Host == "" || (u.Scheme != "ws" && u.Scheme != "wss" && u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("endpoint %q is not a ws://, wss://, http:// or https:// URL with a host", a)
		}
		p.eps = append(p.eps, &cdpEndpoint{addr: a})
	}
	if o.MaxPerEndpoint < 0 {
		return nil, fmt.Errorf("max_per_endpoint is %d; give 0 (no cap) or more", o.MaxPerEndpoint)
	}
	return p, nil
}

func (p *Provider) connectTimeout() time.Duration {
	if p.opts.ConnectTimeout > 0 {
		return time.Duration(p.opts.ConnectTimeout)
	}
	return 10 * time.Second
}

func (p *Provider) downFor() time.Duration {
	if p.opts.DownFor > 0 {
		return time.Duration(p.opts.DownFor)
	}
	return 30 * time.Second
}

// withQuery appends the configured query parameters to u.
func (p *Provider) withQuery(u string) string {
	if len(p.opts.Query) == 0 {
		return u
	}
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := pu.Query()
	for k, vs := range p.opts.Query {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	pu.RawQuery = q.Encode()
	return pu.String()
}

// resolve returns the endpoint's websocket URL (with the query).
func (p *Provider) resolve(ctx context.Context, addr string) (string, error) {
	if strings.HasPrefix(addr, "ws://") || strings.HasPrefix(addr, "wss://") {
		return p.withQuery(addr), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.withQuery(strings.TrimRight(addr, "/")+"/json/version"), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("/json/version answered %s", resp.Status)
	}
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.WS == "" {
		return "", fmt.Errorf("/json/version gave no webSocketDebuggerUrl")
	}
	return p.withQuery(v.WS), nil
}

// connect returns ep's live connection, dialing one when it has none.
func (p *Provider) connect(ctx context.Context, ep *cdpEndpoint) (*chromedp.Browser, string, error) {
	p.mu.Lock()
	if br := ep.br; br != nil {
		if !chromium.Lost(br) {
			ws := ep.ws
			p.mu.Unlock()
			return br, ws, nil
		}
		ep.drop()
	}
	p.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, p.connectTimeout())
	defer cancel()
	ws, err := p.resolve(cctx, ep.addr)
	if err != nil {
		return nil, "", err
	}
	dial, tracking := perConnectionFarm(ws)
	conn, err := remote.DialContext(cctx, dial)
	if err != nil {
		return nil, "", err
	}
	if tracking != "" {
		if ws, err = pinFarmBrowser(cctx, ws, tracking); err != nil {
			conn.Close()
			return nil, "", err
		}
	}
	bctx, bcancel := context.WithCancel(context.Background())
	br, err := chromedp.NewBrowserTransport(bctx, conn)
	if err != nil {
		bcancel()
		conn.Close()
		return nil, "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ep.br != nil && !chromium.Lost(ep.br) {
		// Another acquire connected meanwhile: use its connection.
		bcancel()
		return ep.br, ep.ws, nil
	}
	ep.ws, ep.br, ep.cancel = ws, br, bcancel
	return br, ws, nil
}

// drop forgets the endpoint's connection; the caller holds p.mu.
func (ep *cdpEndpoint) drop() {
	if ep.cancel != nil {
		ep.cancel()
	}
	ep.br, ep.cancel = nil, nil
}

// Acquire creates a browser context on the least loaded endpoint that is
// up; an endpoint that fails is skipped for DownFor and the next is tried.
func (p *Provider) Acquire(ctx context.Context, spec engine.Spec) (engine.Handle, error) {
	p.expire(ctx)
	p.mu.Lock()
	now := p.now()
	var order []*cdpEndpoint
	for _, ep := range p.eps {
		if !now.Before(ep.downUntil) {
			order = append(order, ep)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].active < order[j].active })
	p.mu.Unlock()
	var errs []string
	tried := map[*cdpEndpoint]bool{}
	full, slow := 0, 0
	for _, ep := range order {
		p.mu.Lock()
		if p.opts.MaxPerEndpoint > 0 && ep.active >= p.opts.MaxPerEndpoint {
			p.mu.Unlock()
			full++
			continue
		}
		ep.active++ // reserved while the context is made
		p.mu.Unlock()
		tried[ep] = true
		br, ws, id, err := p.create(ctx, ep)
		p.mu.Lock()
		if err != nil {
			ep.active--
			if ctx.Err() != nil {
				p.mu.Unlock()
				return engine.Handle{}, fmt.Errorf("acquiring a remote browser: %w", ctx.Err())
			}
			if br != nil && ep.br == br && chromium.Lost(br) {
				ep.drop() // a live connection stays: the other sessions' contexts live on it
			}
			ep.downUntil, ep.lastErr = p.now().Add(p.downFor()), errors.New(engine.ScrubQueries(err.Error()))
			ep.slow = isTimeout(err)
			if ep.slow {
				slow++
			}
			errs = append(errs, fmt.Sprintf("%s: %v", engine.RedactURL(ep.addr), ep.lastErr))
			p.mu.Unlock()
			continue
		}
		ttl := spec.TTL()
		if spec.LeaseTTL <= 0 && p.opts.LeaseTTL > 0 {
			ttl = time.Duration(p.opts.LeaseTTL)
		}
		h := engine.Handle{SessionID: uuid.NewString(), Provider: engine.TransportRemoteCDP,
			Transport: engine.TransportRemoteCDP, Endpoint: ws, OwnerPID: os.Getpid(),
			Metadata: map[string]string{}, Deadline: p.now().Add(ttl), TTL: ttl}
		for k, v := range spec.Metadata {
			h.Metadata[k] = v
		}
		h.Metadata[engine.MetaBrowserContextID] = string(id)
		h.Metadata[MetaEndpoint] = engine.RedactURL(ep.addr)
		p.sessions[h.SessionID] = &cdpSession{ep: ep, br: br, ctxID: id, deadline: h.Deadline, ttl: ttl}
		p.mu.Unlock()
		return h, nil
	}
	p.mu.Lock()
	for _, ep := range p.eps {
		if !tried[ep] && now.Before(ep.downUntil) && ep.lastErr != nil {
			errs = append(errs, fmt.Sprintf("%s: down until %s after: %v", engine.RedactURL(ep.addr), ep.downUntil.Format(time.TimeOnly), ep.lastErr))
			if ep.slow {
				slow++
			}
		}
	}
	p.mu.Unlock()
	// Every endpoint that failed is alive but did not answer in time.
	allSlow := slow > 0 && slow == len(errs)
	advice := "check that the browser farm runs, or raise max_per_endpoint"
	if allSlow {
		advice = fmt.Sprintf("the farm is slow to answer (overloaded?): try again, or raise connect_timeout (now %v)", p.connectTimeout())
		if full > 0 {
			advice += " or max_per_endpoint"
		}
	}
	if full > 0 {
		errs = append(errs, fmt.Sprintf("%d endpoint(s) at max_per_endpoint %d", full, p.opts.MaxPerEndpoint))
	}
	msg := fmt.Sprintf("no remote browser endpoint could take a session (%s); %s", strings.Join(errs, "; "), advice)
	if allSlow {
		return engine.Handle{}, &engine.Error{Kind: engine.ErrRemoteSlow, Msg: msg}
	}
	return engine.Handle{}, errors.New(msg)
}

// lateCreateWait is how long a browser context that was asked for but not
// made within connect_timeout may still arrive: one that arrives is
// disposed of at once, so a slow farm is not left holding it.
const lateCreateWait = 10 * time.Minute

// create connects to ep and makes a browser context.
func (p *Provider) create(ctx context.Context, ep *cdpEndpoint) (*chromedp.Browser, string, cdp.BrowserContextID, error) {
	br, ws, err := p.connect(ctx, ep)
	if err != nil {
		return nil, "", "", err
	}
	type made struct {
		id  cdp.BrowserContextID
		err error
	}
	reply := make(chan made, 1)
	// The call runs on past the caller's patience: a farm that answers
	// late has still made the context, which must then be disposed of.
	go func() {
		lctx, cancel := context.WithTimeout(context.Background(), lateCreateWait)
		defer cancel()
		res, err := cdp.Call(lctx, br, target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: ptrTo(true)})
		if err != nil {
			reply <- made{err: err}
			return
		}
		reply <- made{id: res.BrowserContextID}
	}()
	limit := callLimit(ctx, p.connectTimeout())
	wait := time.NewTimer(limit)
	defer wait.Stop()
	select {
	case r := <-reply:
		if r.err != nil {
			return br, ws, "", fmt.Errorf("Target.createBrowserContext: %w", r.err)
		}
		return br, ws, r.id, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-wait.C:
		err = context.DeadlineExceeded
	}
	go func() {
		if r := <-reply; r.err == nil && !chromium.Lost(br) {
			dctx, cancel := context.WithTimeout(context.Background(), p.connectTimeout())
			defer cancel()
			cdp.Call(dctx, br, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: r.id})
		}
	}()
	if ctx.Err() != nil {
		return br, ws, "", err
	}
	return br, ws, "", remoteCallError(br, ep.addr, "Target.createBrowserContext", limit, err)
}

// remoteCallError classifies the failure of a CDP call on br that was
// given limit to answer: engine.ErrRemoteSlow when it ran out of time on a
// connection that is still open, engine.ErrRemoteGone otherwise.
func remoteCallError(br *chromedp.Browser, addr, what string, limit time.Duration, err error) error {
	if !chromium.Lost(br) && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s did not answer %s within %v (its connection is open: the farm may be overloaded)",
			engine.ErrRemoteSlow, engine.RedactURL(addr), what, limit.Round(100*time.Millisecond))
	}
	return fmt.Errorf("%w: %s: %s: %v", engine.ErrRemoteGone, engine.RedactURL(addr), what, engine.ScrubQueries(err.Error()))
}

// callLimit is the time a call gets under ctx with at most max.
func callLimit(ctx context.Context, max time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < max {
		return time.Until(dl)
	}
	return max
}

func ptrTo[T any](v T) *T { return &v }

// isTimeout reports whether err is a call or a dial that ran out of time.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, engine.ErrRemoteSlow) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Load reports the sessions per configured endpoint.
func (p *Provider) Load() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := map[string]int{}
	for _, ep := range p.eps {
		m[engine.RedactURL(ep.addr)] += ep.active
	}
	return m
}

// Close releases every session and drops the connections.
func (p *Provider) Close() error {
	p.mu.Lock()
	gone := map[string]*cdpSession{}
	for id := range p.sessions {
		gone[id] = p.take(id)
	}
	p.mu.Unlock()
	for id, s := range gone {
		p.dispose(context.Background(), id, s)
	}
	p.mu.Lock()
	for _, ep := range p.eps {
		ep.drop()
	}
	p.mu.Unlock()
	return nil
}

// Name is the provider's name in engine.Providers.
func (p *Provider) Name() string { return engine.TransportRemoteCDP }

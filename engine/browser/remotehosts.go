package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/chromium"
)

// Host rules on a remote browser. A local Chromium takes Options.HostRules
// as its --host-resolver-rules launch flag; a remote one was launched by
// someone else and cannot. There the engine relays the mapped hosts'
// requests itself: every tab of the episode intercepts them with the CDP
// Fetch domain (only the mapped hosts' URLs are paused), the engine makes
// the request to the mapped address from its own machine, with the Host
// header, cookies and body the browser would have sent, and answers the
// browser with the response (Fetch.fulfillRequest). The page sees its own
// URL and origin (localStorage, cookies and links behave as with the flag),
// and the remote browser never connects to the mapped address: a browser
// farm on another machine needs no route to the practice server, which can
// keep listening on 127.0.0.1.
//
// Not relayed: WebSocket connections to a mapped host (CDP cannot pause
// them) and the requests of a cross-site iframe's own process.

// relayBodyLimit caps a relayed response body (the practice pages are a few
// kilobytes; a larger one fails the request with a message in the log).
const relayBodyLimit = 64 << 20

// hostRelay relays the requests of the hosts its rules map.
type hostRelay struct {
	rules  *chromium.HostRules
	client *http.Client
}

// relays holds one relay per HostRules value, so the connections to the
// mapped servers are kept across episodes and engines.
var relays sync.Map // string → *hostRelay

// relayFor parses rules (the --host-resolver-rules syntax: "MAP host
// addr[:port]" rules separated by commas; only MAP is supported) and
// returns its relay; nil when rules are empty.
func relayFor(rules string) (*hostRelay, error) {
	rules = strings.TrimSpace(rules)
	if rules == "" {
		return nil, nil
	}
	if r, ok := relays.Load(rules); ok {
		return r.(*hostRelay), nil
	}
	hr, err := chromium.ParseHostRules(rules)
	if err != nil || hr == nil {
		return nil, err
	}
	r := &hostRelay{rules: hr}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: nil, // the mapped address is reached directly, as Chromium's rule would
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if to, ok := r.rules.MapAddr(addr); ok {
				addr = to
			}
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	r.client = &http.Client{Transport: tr,
		// The browser follows redirects itself (and pauses the next request).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	got, _ := relays.LoadOrStore(rules, r)
	return got.(*hostRelay), nil
}

// mapped reports whether a request URL goes to a mapped host.
func (r *hostRelay) mapped(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	_, ok := r.rules.MapAddr(net.JoinHostPort(u.Hostname(), port))
	return ok
}

// patterns are Fetch's URL patterns for the mapped hosts (a superset: each
// paused request is checked again with mapped).
func (r *hostRelay) patterns() []*fetch.RequestPattern {
	var ps []*fetch.RequestPattern
	for _, host := range r.rules.Hosts() {
		h := strings.NewReplacer(`\`, `\\`, `?`, `\?`).Replace(host)
		for _, s := range []string{"http", "https"} {
			ps = append(ps, &fetch.RequestPattern{URLPattern: s + "://" + h + "/*"},
				&fetch.RequestPattern{URLPattern: s + "://" + h + ":*"})
		}
	}
	return ps
}

// relayHosts makes t relay the mapped hosts' requests when the engine
// drives a remote browser with host rules (a local browser has them as a
// launch flag). popup: t was opened by the page, which may have tried to
// load a mapped host before the relay was on; such a tab loads again.
func (e *Engine) relayHosts(ctx context.Context, t *tab, popup bool) error {
	if e.opts.Remote == nil {
		return nil
	}
	r, err := relayFor(e.opts.HostRules)
	if r == nil || err != nil {
		return err
	}
	if err := chromedp.Listen(t.ctx, func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			go e.relay(t, r, ev)
		}
	}); err != nil {
		return fmt.Errorf("cannot relay the practice hosts in the remote browser: %w", err)
	}
	err = t.do(ctx, e.set.OpTimeout, func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: r.patterns()})
		return err
	})
	if err != nil {
		return fmt.Errorf("cannot relay the practice hosts in the remote browser (Fetch.enable): %w", err)
	}
	if popup {
		if u := t.targetURL(ctx); u != "" {
			if pu, err := url.Parse(u); err == nil && r.mapped(pu) {
				if code, err := e.navigate(ctx, t, u); err != nil || code != "" {
					e.logf("browser: the new tab could not load %s: %s %v", u, code, err)
				}
			}
		}
	}
	return nil
}

// relay answers one paused request: with the mapped server's response, or
// with a network error when that server cannot be reached.
func (e *Engine) relay(t *tab, r *hostRelay, ev *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(t.ctx, e.set.PageLoadTimeout+e.set.OpTimeout)
	defer cancel()
	u, err := url.Parse(ev.Request.URL)
	if err != nil || !r.mapped(u) {
		chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	resp, body, err := r.do(ctx, ev)
	if err != nil {
		reason := network.ErrorReasonConnectionRefused
		if errors.Is(err, context.DeadlineExceeded) {
			reason = network.ErrorReasonTimedOut
		}
		e.logf("browser: relaying %s %s to its mapped address failed: %v (the mapped server must run on the machine of the engine)",
			ev.Request.Method, engine.RedactURL(ev.Request.URL), err)
		chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: reason})
		return
	}
	var hs []*fetch.HeaderEntry
	for k, vs := range resp.Header {
		for _, v := range vs {
			hs = append(hs, &fetch.HeaderEntry{Name: k, Value: v})
		}
	}
	if _, err := chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID,
		ResponseCode: int64(resp.StatusCode), ResponseHeaders: hs, Body: body}); err != nil && t.ctx.Err() == nil {
		e.logf("browser: answering %s in the remote browser failed: %v", engine.RedactURL(ev.Request.URL), err)
	}
}

// do makes the paused request to the mapped address and reads the answer.
func (r *hostRelay) do(ctx context.Context, ev *fetch.EventRequestPaused) (*http.Response, []byte, error) {
	in := ev.Request
	var body io.Reader
	if in.HasPostData {
		var b []byte
		for _, p := range in.PostDataEntries {
			b = append(b, p.Bytes...)
		}
		if len(b) == 0 && ev.NetworkID != "" {
			// A long body is left out of the event: ask for it.
			if res, err := chromedp.Call(ctx, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: ev.NetworkID}); err == nil {
				b = res.PostData
			}
		}
		body = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, in.Method, in.URL, body)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range in.Headers {
		switch strings.ToLower(k) {
		case "host", "accept-encoding", "connection", "content-length", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			continue // the client sets these (and decodes a compressed body itself)
		}
		req.Header.Set(k, fmt.Sprint(v))
	}
	if req.Header.Get("Cookie") == "" {
		// The browser adds cookies after the pause: read them from its jar.
		if res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{in.URL}}); err == nil {
			var cs []string
			for _, c := range res.Cookies {
				cs = append(cs, c.Name+"="+c.Value)
			}
			if len(cs) > 0 {
				req.Header.Set("Cookie", strings.Join(cs, "; "))
			}
		}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, relayBodyLimit+1))
	if err != nil {
		return nil, nil, err
	}
	if len(b) > relayBodyLimit {
		return nil, nil, fmt.Errorf("the response is larger than %d MiB", relayBodyLimit>>20)
	}
	return resp, b, nil
}

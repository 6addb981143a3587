package browser

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Host rules on a shared local browser. One Chromium serves the episodes of
// many engines, and each engine may map the practice hosts to servers of
// its own, so the mapping cannot be the process-wide
// --host-resolver-rules flag. Instead each episode's browser context gets a
// proxy of its own (Target.createBrowserContext's proxyServer): a small
// HTTP proxy in this process that connects mapped hosts to their mapped
// address and every other host to itself. Chromium tunnels https and
// WebSocket connections through it with CONNECT and sends plain http
// requests with their absolute URL, so the page keeps its own URL, origin,
// cookies and storage, exactly as with the flag. Loopback addresses never
// go through a proxy in Chromium, as before.

// hostProxy is one running proxy for one set of host rules.
type hostProxy struct {
	relay  *hostRelay
	addr   string // 127.0.0.1:port
	dialer *net.Dialer
	rp     *httputil.ReverseProxy
}

// proxies holds one proxy per HostRules value, for the process's life.
var proxies struct {
	sync.Mutex
	m map[string]*hostProxy
}

// proxyFor returns the running proxy for rules (started at first use);
// nil when rules map nothing.
func proxyFor(rules string) (*hostProxy, error) {
	r, err := relayFor(rules)
	if r == nil || err != nil {
		return nil, err
	}
	proxies.Lock()
	defer proxies.Unlock()
	if p := proxies.m[rules]; p != nil {
		return p, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("could not start the host-mapping proxy for the practice sites: %w", err)
	}
	p := &hostProxy{relay: r, addr: ln.Addr().String(),
		dialer: &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}}
	p.rp = &httputil.ReverseProxy{
		// The outgoing request is the incoming one with its absolute URL
		// and Host; no X-Forwarded headers are added.
		Rewrite: func(*httputil.ProxyRequest) {},
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         p.dial,
			DisableCompression:  true, // the browser decodes what it asked for
			MaxIdleConnsPerHost: 32,
			IdleConnTimeout:     30 * time.Second,
		},
		FlushInterval: -1, // streams (server-sent events) pass at once
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler:  p.fail,
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(ln)
	if proxies.m == nil {
		proxies.m = map[string]*hostProxy{}
	}
	proxies.m[rules] = p
	return p, nil
}

// contextOption makes an episode's browser context use the proxy.
func (p *hostProxy) contextOption() chromedp.CreateBrowserContextOption {
	return func(params *target.CreateBrowserContextParams) {
		params.ProxyServer = "http://" + p.addr
	}
}

// dial connects to addr, or to its mapped address.
func (p *hostProxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if to, ok := p.relay.mapAddr(addr); ok {
		addr = to
	}
	return p.dialer.DialContext(ctx, network, addr)
}

func (p *hostProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "this is Waymark's host-mapping proxy for the practice sites; it serves only its browser", http.StatusBadRequest)
		return
	}
	p.rp.ServeHTTP(w, r)
}

// fail answers a request whose server could not be reached.
func (p *hostProxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the browser gave up on it
	}
	http.Error(w, fmt.Sprintf("Waymark could not reach %s: %v", r.Host, err), http.StatusBadGateway)
}

// tunnel serves CONNECT: https and WebSocket connections.
func (p *hostProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := p.dial(r.Context(), "tcp", r.Host)
	if err != nil {
		http.Error(w, fmt.Sprintf("Waymark could not reach %s: %v", r.Host, err), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		up.Close()
		down.Close()
		return
	}
	var both sync.WaitGroup
	both.Go(func() { halfPipe(up, buf.Reader) })
	both.Go(func() { halfPipe(down, up) })
	go func() {
		both.Wait()
		up.Close()
		down.Close()
	}()
}

// halfPipe copies src to dst until src ends, then closes dst's writing
// half (the other direction may still carry an answer).
func halfPipe(dst net.Conn, src io.Reader) {
	io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		dst.Close()
	}
}

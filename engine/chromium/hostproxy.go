package chromium

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
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
//
// The proxy listens on 127.0.0.1, where every local process can reach it
// (and find its port), so it serves only the browser contexts it was made
// for: each context gets a secret of its own, revoked when the context is
// disposed, and the proxy answers every request without one with 407.
// Chromium takes no credentials in a context's proxy address, so the
// engine hands them over through CDP when it makes the context (admit):
// the blank tab fetches a name only the proxy answers, the engine answers
// the proxy's challenge (Fetch.authRequired), and Chromium keeps the
// credentials in the context's own auth cache and sends them with every
// later request of every tab and worker of the context, CONNECT included.
// An admitted context is still relayed only what it needs: the mapped hosts
// and the web; this machine's own addresses (loopback, unspecified), which
// Chromium never sends through a proxy, are refused with 403.

// proxyUser is the user name of the proxy's credentials (the password is
// the context's secret).
const proxyUser = "waymark"

// admitHost is the name a new context fetches to receive the proxy's
// credentials; the proxy answers it itself, for an admitted context.
const admitHost = "waymark-host-proxy.invalid"

// errOwnAddress is a dial to one of this machine's own addresses that no
// host rule maps.
var errOwnAddress = errors.New("this machine's own addresses are not relayed")

// hostProxy is one running proxy for one set of host rules.
type hostProxy struct {
	relay  *HostRules
	addr   string // 127.0.0.1:port
	dialer *net.Dialer
	rp     *httputil.ReverseProxy

	mu     sync.Mutex
	tokens map[string]bool // the secrets of the contexts it serves
}

// proxies holds one proxy per HostRules value, for the process's life.
var proxies struct {
	sync.Mutex
	m map[string]*hostProxy
}

// proxyFor returns the running proxy for rules (started at first use);
// nil when rules map nothing.
func proxyFor(rules string) (*hostProxy, error) {
	proxies.Lock()
	defer proxies.Unlock()
	if p := proxies.m[rules]; p != nil {
		return p, nil
	}
	r, err := ParseHostRules(rules)
	if r == nil || err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("could not start the host-mapping proxy for the practice sites: %w", err)
	}
	p := &hostProxy{relay: r, addr: ln.Addr().String(), tokens: map[string]bool{},
		dialer: &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: refuseOwnAddress}}
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

// ProxyCredentials are the address the host proxy for rules listens on,
// its user name and the secrets of the browser contexts it serves now
// (empty when none runs): tests check with them that it serves only those
// contexts and that no secret leaves the engine.
func ProxyCredentials(rules string) (addr, user string, secrets []string) {
	proxies.Lock()
	p := proxies.m[rules]
	proxies.Unlock()
	if p == nil {
		return "", "", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for tok := range p.tokens {
		secrets = append(secrets, tok)
	}
	return p.addr, proxyUser, secrets
}

// contextOption makes an episode's browser context use the proxy.
func (p *hostProxy) contextOption() chromedp.CreateBrowserContextOption {
	return func(params *target.CreateBrowserContextParams) {
		params.ProxyServer = "http://" + p.addr
	}
}

// issue makes a secret for one browser context; revoke (safe to call more
// than once) withdraws it.
func (p *hostProxy) issue() (token string, revoke func()) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	p.mu.Lock()
	p.tokens[token] = true
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.tokens, token)
		p.mu.Unlock()
	}
}

// admitted reports whether r carries the secret of a context the proxy
// serves.
func (p *hostProxy) admitted(r *http.Request) bool {
	auth := r.Header.Get("Proxy-Authorization")
	scheme, cred, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return false
	}
	user, token, ok := strings.Cut(string(raw), ":")
	if !ok || user != proxyUser {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tokens[token]
}

// admit gives the browser context of tctx (its blank first tab) the
// credentials of token, so its requests pass the proxy. The tab fetches
// admitHost with Fetch pausing that one request, the proxy's challenge is
// answered with the credentials, and Chromium keeps them in the context's
// auth cache. limit and ctx bound it.
func (p *hostProxy) admit(ctx, tctx context.Context, token string, limit time.Duration) error {
	lctx, unlisten := context.WithCancel(tctx)
	defer unlisten()
	failed := make(chan error, 4)
	answer := func(err error) {
		if err != nil {
			select {
			case failed <- err:
			default:
			}
		}
	}
	if err := chromedp.Listen(lctx, func(ev any) {
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			go func() {
				_, err := chromedp.Call(tctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				answer(err)
			}()
		case *fetch.EventAuthRequired:
			res := &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth}
			if ev.AuthChallenge != nil && ev.AuthChallenge.Source == fetch.AuthChallengeSourceProxy {
				res = &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials,
					Username: proxyUser, Password: token}
			}
			go func() {
				_, err := chromedp.Call(tctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: ev.RequestID, AuthChallengeResponse: res})
				answer(err)
			}()
		}
	}); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(tctx, limit)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	ctx = cctx
	u := "http://" + admitHost + "/"
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{HandleAuthRequests: new(true),
		Patterns: []*fetch.RequestPattern{{URLPattern: u + "*"}}}); err != nil {
		return err
	}
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch(`+jsString(u)+`, {cache: "no-store"}).then(r => r.status, () => 0)`, chromedp.EvalAwaitPromise))
	if _, derr := chromedp.Call(ctx, fetch.Disable, cdp.Empty{}); err == nil {
		err = derr
	}
	select {
	case ferr := <-failed:
		err = errors.Join(err, ferr)
	default:
	}
	if err == nil && status != http.StatusNoContent {
		err = fmt.Errorf("its test request got status %d", status)
	}
	if err != nil {
		return fmt.Errorf("the new browser context could not be given its credentials for Waymark's host-mapping proxy: %w", err)
	}
	return nil
}

// IsAdmitRequest reports whether u is the request a new browser context
// makes to receive its host proxy's credentials (admit): a request router
// lets it through to the proxy, which answers it itself.
func IsAdmitRequest(u string) bool {
	return strings.HasPrefix(u, "http://"+admitHost+"/")
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// dial connects to addr's mapped address, or to addr itself unless it is
// one of this machine's own addresses.
func (p *hostProxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if to, ok := p.relay.MapAddr(addr); ok {
		return mappedDialer.DialContext(ctx, network, to)
	}
	return p.dialer.DialContext(ctx, network, addr)
}

// mappedDialer reaches the addresses host rules map to (the practice
// server on 127.0.0.1, say).
var mappedDialer = &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}

// refuseOwnAddress stops a dial to a loopback or unspecified address (a
// name that resolves to one included): the browser reaches those directly,
// never through its proxy, so only someone else would ask for them.
func refuseOwnAddress(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsLoopback() || ip.IsUnspecified() {
		return fmt.Errorf("%s: %w", address, errOwnAddress)
	}
	return nil
}

func (p *hostProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.admitted(r) {
		w.Header().Set("Proxy-Authenticate", `Basic realm="Waymark host proxy"`)
		http.Error(w, "this is Waymark's host-mapping proxy for the practice sites: it serves only the browser contexts it was made for, "+
			"and this request carries none of their credentials", http.StatusProxyAuthRequired)
		return
	}
	host := r.Host
	if r.Method != http.MethodConnect {
		if !r.URL.IsAbs() {
			http.Error(w, "this is Waymark's host-mapping proxy for the practice sites; it serves only its browser", http.StatusBadRequest)
			return
		}
		host = r.URL.Host
	}
	if strings.EqualFold(hostOnly(host), admitHost) {
		// The context has its credentials (admit).
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	p.rp.ServeHTTP(w, r)
}

// hostOnly is host without its port.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// fail answers a request whose server could not be reached.
func (p *hostProxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the browser gave up on it
	}
	unreachable(w, r.Host, err)
}

// unreachable answers a request whose server the proxy did not or could
// not connect to: 403 for this machine's own addresses, else 502.
func unreachable(w http.ResponseWriter, host string, err error) {
	if errors.Is(err, errOwnAddress) {
		http.Error(w, fmt.Sprintf("Waymark's host-mapping proxy does not relay to %s: it relays only the practice sites it maps and the web, "+
			"not this machine's own addresses (a browser reaches those without a proxy)", host), http.StatusForbidden)
		return
	}
	http.Error(w, fmt.Sprintf("Waymark could not reach %s: %v", host, err), http.StatusBadGateway)
}

// tunnel serves CONNECT: https and WebSocket connections.
func (p *hostProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := p.dial(r.Context(), "tcp", r.Host)
	if err != nil {
		unreachable(w, r.Host, err)
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
